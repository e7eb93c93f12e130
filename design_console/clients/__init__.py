"""Clients of what lies outside our processes: the design API (with its cache) and image processing."""
