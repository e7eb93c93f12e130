"""A file's node tree read through the design API, screenshots, and node writes."""
