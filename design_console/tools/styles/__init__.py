"""Styles: the design API's styles and the styles read."""
