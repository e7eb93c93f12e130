"""Pure engines: data in, data out, no tool registry, no process or socket of their own."""
