"""Remote Mode: the hosted MCP service (``design-console-remote``): OAuth for AI clients, the relay to a paired plugin,
the headless browser."""
