"""Audits: design lint, component accessibility, design-code parity, accessibility of HTML code."""
