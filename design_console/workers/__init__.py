"""Worker processes of designd, one module per kind, and their shared parts."""
