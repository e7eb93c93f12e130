"""Version-history tools."""
