"""Remote Mode: the hosted MCP service (OAuth, relay to a paired plugin, headless browser)."""
