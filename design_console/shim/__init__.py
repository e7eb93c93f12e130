"""The stdio shim AI apps spawn: a pipe between stdio and designd that never imports the MCP SDK."""
