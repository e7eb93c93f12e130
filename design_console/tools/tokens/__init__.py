"""Design tokens between the design tool's variables and code files: export, import, what reads add."""
