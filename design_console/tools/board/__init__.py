"""Whiteboard (FigJam) tools."""
