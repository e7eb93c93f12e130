"""A rendered web page (laid-out boxes and computed styles) turned into a design node tree."""
