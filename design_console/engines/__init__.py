"""Pure engines: data in, data out, no tool registry, no processes."""
