"""Tools designd answers itself: connection, files, console, code execution, the change feed."""
