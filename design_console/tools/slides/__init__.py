"""Slide deck tools."""
