"""The stdio shim AI apps spawn: a pipe between stdio and designd that never imports the MCP SDK.

Loaded before the shim's own modules, so msgspec is imported here first, as if typing_extensions were not installed:
msgspec takes it only for ``get_type_hints`` (falling back to ``typing``'s, which is what it uses without it), and
loading it drags ``inspect`` and ``ast`` along, a fifth of the shim's start-up. The block lasts only for that import:
anything the shim loads later (or a process that imported msgspec before) gets typing_extensions as usual.
"""

import sys

if "msgspec" not in sys.modules and "typing_extensions" not in sys.modules:
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]
