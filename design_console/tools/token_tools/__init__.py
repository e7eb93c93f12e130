"""The token tools: design tokens between the design tool's variables and code files (export, import, what reads
add), thin adapters over the token model and formats of :mod:`design_console.tokens`."""
