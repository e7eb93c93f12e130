"""Remote Mode: the hosted MCP service (``design-console-remote``), with OAuth for AI clients."""
