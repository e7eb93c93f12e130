"""MCP App views (the token browser and the dashboard) and the tools behind them."""
