"""designd: the long-lived per-user daemon that owns the bridge and hosts every MCP session."""
