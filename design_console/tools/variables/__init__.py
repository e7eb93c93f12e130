"""Variables: reads, writes, team-library variables, values per mode."""
