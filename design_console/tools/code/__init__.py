"""Design to code: outlines, code, variables and code mappings of a design's layers, read through the plugin."""
