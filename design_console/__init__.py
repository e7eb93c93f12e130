"""design-console-mcp: an MCP server that gives AI assistants live access to a design tool."""

__version__ = "0.1.0"

#: Version of the Desktop Bridge plugin shipped in ``plugin/``; a connected plugin older than this is told to update.
PLUGIN_VERSION = "0.1.0"
