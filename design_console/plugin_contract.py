"""The contract between designd and the Desktop Bridge plugin: every bridge method with its daemon-side timeout, the
limits of EXECUTE_CODE, and the version of the bridge protocol.

``docs/bridge-protocol.md`` describes the protocol. ``tests/test_plugin_contract.py`` pins this module to the plugin
(the handler table in ``plugin/src/code/main.js`` and the constants in ``plugin/src/shared/contract.js``) and to that
document, so neither side can change alone.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final, Literal

#: The bridge protocol version: designd sends it in SERVER_HELLO and /health, the plugin in HELLO.
BRIDGE_PROTOCOL: Final = 3

#: EXECUTE_CODE's own time limit (``params.timeout``, milliseconds) when the caller gives none.
EXECUTE_DEFAULT_MS: Final = 5_000
#: The most ``params.timeout`` may be; the plugin lowers a larger one to this.
EXECUTE_MAX_MS: Final = 30_000
#: designd waits this much longer than the code may run, so the plugin's own timeout error arrives first.
EXECUTE_MARGIN_SECONDS: Final = 2.0
#: The longest code EXECUTE_CODE accepts, in characters (Unicode code points, as Python counts them).
MAX_CODE_CHARS: Final = 200_000
#: The most stickies one CREATE_STICKIES makes.
MAX_STICKIES: Final = 200
#: The most nodes one AUTO_ARRANGE moves.
MAX_ARRANGED: Final = 500

#: The daemon-side timeout of a method the table does not know (a newer plugin's), in seconds.
DEFAULT_TIMEOUT: Final = 15.0

#: CREATE_COMPONENT_SET clones and arranges one component per variant: 1.2 s a variant, within 30..120 s, plus 5 s.
COMPONENT_SET_SECONDS_PER_VARIANT: Final = 1.2
COMPONENT_SET_MIN_SECONDS: Final = 30.0
COMPONENT_SET_MAX_SECONDS: Final = 120.0
COMPONENT_SET_MARGIN_SECONDS: Final = 5.0
#: SETUP_DESIGN_TOKENS validates, then creates and sets every token: 30 s plus 0.2 s a token, at most 300 s.
TOKEN_SETUP_MIN_SECONDS: Final = 30.0
TOKEN_SETUP_SECONDS_PER_TOKEN: Final = 0.2
TOKEN_SETUP_MAX_SECONDS: Final = 300.0
#: APPLY_TOKEN_CHANGES checks, then applies every collection, variable, value and delete of an import: 30 s plus
#: 0.02 s a change, at most 900 s (5,000 tokens × 4 modes are 25,000 changes).
TOKEN_IMPORT_MIN_SECONDS: Final = 30.0
TOKEN_IMPORT_SECONDS_PER_CHANGE: Final = 0.02
TOKEN_IMPORT_MAX_SECONDS: Final = 900.0
#: The batches (BATCH_CREATE_VARIABLES, BATCH_UPDATE_VARIABLES, BATCH_DELETE_VARIABLES, BATCH_EDIT_NODES) check
#: every item, then write them in slices: 30 s plus 0.02 s an item, at most 300 s (5,000 items take 130 s).
BATCH_MIN_SECONDS: Final = 30.0
BATCH_SECONDS_PER_ITEM: Final = 0.02
BATCH_MAX_SECONDS: Final = 300.0

#: The image formats the plugin's figma.createImage takes, by Pillow's format name, with the kind each is sent as.
FILL_FORMATS: Final = {"PNG": "png", "JPEG": "jpeg", "MPO": "jpeg", "GIF": "gif"}


def bridge_proof(token: str, side: Literal["plugin", "server"], port: int, first: str, second: str) -> str:
    """The handshake's proof that ``side`` holds the bridge token: HMAC-SHA256 keyed by the token over
    ``side|port|first|second``, in lowercase hex.

    The plugin proves with ``first`` = designd's nonce and ``second`` = its own; designd answers with the two swapped.
    ``port`` is the port the plugin dialled, so a proof relayed from another port does not verify.
    """
    message = f"{side}|{port}|{first}|{second}".encode()
    return hmac.new(token.encode(), message, hashlib.sha256).hexdigest()


class Method(StrEnum):
    """Every command designd may send to the plugin, with how long designd waits for its reply (seconds).

    The value is the method's name on the wire. Two timeouts scale with the command's params (see
    :func:`command_timeout`); for those, :attr:`timeout` is the wait for params that do not scale it.
    """

    timeout: float

    def __new__(cls, name: str, timeout: float) -> Method:
        member = str.__new__(cls, name)
        member._value_ = name
        member.timeout = float(timeout)
        return member

    # code and file
    EXECUTE_CODE = "EXECUTE_CODE", EXECUTE_DEFAULT_MS / 1000 + EXECUTE_MARGIN_SECONDS
    GET_FILE_INFO = "GET_FILE_INFO", 3
    READ_LAYERS = "READ_LAYERS", 30
    RELOAD_UI = "RELOAD_UI", 10
    CANCEL = "CANCEL", 5
    # variables
    GET_VARIABLES_DATA = "GET_VARIABLES_DATA", 10
    READ_VARIABLES = "READ_VARIABLES", 30
    REFRESH_VARIABLES = "REFRESH_VARIABLES", 300
    UPDATE_VARIABLE = "UPDATE_VARIABLE", 15
    CREATE_VARIABLE = "CREATE_VARIABLE", 15
    DELETE_VARIABLE = "DELETE_VARIABLE", 15
    RENAME_VARIABLE = "RENAME_VARIABLE", 15
    SET_VARIABLE_DESCRIPTION = "SET_VARIABLE_DESCRIPTION", 15
    CREATE_VARIABLE_COLLECTION = "CREATE_VARIABLE_COLLECTION", 15
    DELETE_VARIABLE_COLLECTION = "DELETE_VARIABLE_COLLECTION", 15
    ADD_MODE = "ADD_MODE", 15
    RENAME_MODE = "RENAME_MODE", 15
    BATCH_CREATE_VARIABLES = "BATCH_CREATE_VARIABLES", BATCH_MIN_SECONDS
    BATCH_UPDATE_VARIABLES = "BATCH_UPDATE_VARIABLES", BATCH_MIN_SECONDS
    BATCH_DELETE_VARIABLES = "BATCH_DELETE_VARIABLES", BATCH_MIN_SECONDS
    SETUP_DESIGN_TOKENS = "SETUP_DESIGN_TOKENS", TOKEN_SETUP_MIN_SECONDS
    APPLY_TOKEN_CHANGES = "APPLY_TOKEN_CHANGES", TOKEN_IMPORT_MIN_SECONDS
    # components
    GET_COMPONENT = "GET_COMPONENT", 10
    GET_LOCAL_COMPONENTS = "GET_LOCAL_COMPONENTS", 300
    DEEP_GET_COMPONENT = "DEEP_GET_COMPONENT", 30
    ANALYZE_COMPONENT_SET = "ANALYZE_COMPONENT_SET", 30
    SET_NODE_DESCRIPTION = "SET_NODE_DESCRIPTION", 15
    ADD_COMPONENT_PROPERTY = "ADD_COMPONENT_PROPERTY", 15
    EDIT_COMPONENT_PROPERTY = "EDIT_COMPONENT_PROPERTY", 15
    DELETE_COMPONENT_PROPERTY = "DELETE_COMPONENT_PROPERTY", 15
    INSTANTIATE_COMPONENT = "INSTANTIATE_COMPONENT", 15
    CREATE_COMPONENT_SET = "CREATE_COMPONENT_SET", COMPONENT_SET_MIN_SECONDS + COMPONENT_SET_MARGIN_SECONDS
    SET_INSTANCE_PROPERTIES = "SET_INSTANCE_PROPERTIES", 15
    ARRANGE_COMPONENT_SET = "ARRANGE_COMPONENT_SET", 120
    # annotations and slots
    GET_ANNOTATIONS = "GET_ANNOTATIONS", 10
    SET_ANNOTATIONS = "SET_ANNOTATIONS", 15
    GET_ANNOTATION_CATEGORIES = "GET_ANNOTATION_CATEGORIES", 5
    CREATE_SLOT = "CREATE_SLOT", 15
    GET_SLOTS = "GET_SLOTS", 15
    APPEND_TO_SLOT = "APPEND_TO_SLOT", 15
    RESET_SLOT = "RESET_SLOT", 15
    ADD_SLOT_PROPERTY = "ADD_SLOT_PROPERTY", 15
    # node edits
    RESIZE_NODE = "RESIZE_NODE", 15
    MOVE_NODE = "MOVE_NODE", 15
    SET_NODE_FILLS = "SET_NODE_FILLS", 15
    SET_NODE_STROKES = "SET_NODE_STROKES", 15
    SET_NODE_OPACITY = "SET_NODE_OPACITY", 15
    SET_NODE_CORNER_RADIUS = "SET_NODE_CORNER_RADIUS", 15
    SET_IMAGE_FILL = "SET_IMAGE_FILL", 60
    CLONE_NODE = "CLONE_NODE", 15
    DELETE_NODE = "DELETE_NODE", 15
    RENAME_NODE = "RENAME_NODE", 15
    CREATE_CHILD_NODE = "CREATE_CHILD_NODE", 15
    BATCH_EDIT_NODES = "BATCH_EDIT_NODES", BATCH_MIN_SECONDS
    SET_TEXT_CONTENT = "SET_TEXT_CONTENT", 15
    # screenshots and audits
    CAPTURE_SCREENSHOT = "CAPTURE_SCREENSHOT", 30
    LINT_DESIGN = "LINT_DESIGN", 120
    AUDIT_COMPONENT_ACCESSIBILITY = "AUDIT_COMPONENT_ACCESSIBILITY", 120
    READ_AUDIT_NODES = "READ_AUDIT_NODES", 30
    # whiteboard (FigJam)
    CREATE_STICKY = "CREATE_STICKY", 15
    CREATE_STICKIES = "CREATE_STICKIES", 30
    CREATE_CONNECTOR = "CREATE_CONNECTOR", 15
    CREATE_SHAPE_WITH_TEXT = "CREATE_SHAPE_WITH_TEXT", 15
    CREATE_SECTION = "CREATE_SECTION", 15
    CREATE_TABLE = "CREATE_TABLE", 30
    CREATE_CODE_BLOCK = "CREATE_CODE_BLOCK", 15
    GET_BOARD_CONTENTS = "GET_BOARD_CONTENTS", 30
    GET_CONNECTIONS = "GET_CONNECTIONS", 15
    # slides
    LIST_SLIDES = "LIST_SLIDES", 10
    GET_SLIDE_CONTENT = "GET_SLIDE_CONTENT", 10
    CREATE_SLIDE = "CREATE_SLIDE", 15
    DELETE_SLIDE = "DELETE_SLIDE", 15
    DUPLICATE_SLIDE = "DUPLICATE_SLIDE", 15
    GET_SLIDE_GRID = "GET_SLIDE_GRID", 10
    REORDER_SLIDES = "REORDER_SLIDES", 15
    SET_SLIDE_TRANSITION = "SET_SLIDE_TRANSITION", 15
    GET_SLIDE_TRANSITION = "GET_SLIDE_TRANSITION", 5
    SET_SLIDES_VIEW_MODE = "SET_SLIDES_VIEW_MODE", 5
    GET_FOCUSED_SLIDE = "GET_FOCUSED_SLIDE", 5
    FOCUS_SLIDE = "FOCUS_SLIDE", 5
    SKIP_SLIDE = "SKIP_SLIDE", 15
    ADD_TEXT_TO_SLIDE = "ADD_TEXT_TO_SLIDE", 15
    ADD_SHAPE_TO_SLIDE = "ADD_SHAPE_TO_SLIDE", 15
    SET_SLIDE_BACKGROUND = "SET_SLIDE_BACKGROUND", 15
    GET_TEXT_STYLES = "GET_TEXT_STYLES", 10
    AUTO_ARRANGE = "AUTO_ARRANGE", 15
    CREATE_NODE_TREE = "CREATE_NODE_TREE", 120


def command_timeout(method: str, params: Mapping[str, Any] | None) -> float:
    """How long designd waits for the reply to one command, in seconds.

    EXECUTE_CODE waits for the code's own limit (``params.timeout`` ms, default and cap above) plus a margin;
    CREATE_COMPONENT_SET scales with its variant count, SETUP_DESIGN_TOKENS with its token count,
    APPLY_TOKEN_CHANGES with its change count, the batches with their item count; a method the table does not know
    gets the default.
    """
    params = params or {}
    if method == Method.EXECUTE_CODE:
        raw = params.get("timeout")
        valid = isinstance(raw, int | float) and not isinstance(raw, bool) and raw > 0
        ms = float(raw) if valid and raw is not None else float(EXECUTE_DEFAULT_MS)
        return min(ms, EXECUTE_MAX_MS) / 1000 + EXECUTE_MARGIN_SECONDS
    if method == Method.CREATE_COMPONENT_SET:
        scaled = COMPONENT_SET_SECONDS_PER_VARIANT * _variant_count(params)
        return min(COMPONENT_SET_MAX_SECONDS, max(COMPONENT_SET_MIN_SECONDS, scaled)) + COMPONENT_SET_MARGIN_SECONDS
    if method == Method.SETUP_DESIGN_TOKENS:
        tokens = params.get("tokens")
        count = len(tokens) if isinstance(tokens, list) else 0
        return min(TOKEN_SETUP_MAX_SECONDS, TOKEN_SETUP_MIN_SECONDS + TOKEN_SETUP_SECONDS_PER_TOKEN * count)
    if method == Method.APPLY_TOKEN_CHANGES:
        changes = sum(len(part) for key in _IMPORT_PARTS if isinstance(part := params.get(key), list))
        return min(TOKEN_IMPORT_MAX_SECONDS, TOKEN_IMPORT_MIN_SECONDS + TOKEN_IMPORT_SECONDS_PER_CHANGE * changes)
    if (items := _BATCH_ITEMS.get(method)) is not None:
        listed = params.get(items)
        count = len(listed) if isinstance(listed, list) else 0
        return min(BATCH_MAX_SECONDS, BATCH_MIN_SECONDS + BATCH_SECONDS_PER_ITEM * count)
    known = Method.__members__.get(method)
    return known.timeout if known is not None else DEFAULT_TIMEOUT


#: The list each batch works through, item by item.
_BATCH_ITEMS: Final = {
    Method.BATCH_CREATE_VARIABLES.value: "variables",
    Method.BATCH_UPDATE_VARIABLES.value: "updates",
    Method.BATCH_DELETE_VARIABLES.value: "variableIds",
    Method.BATCH_EDIT_NODES.value: "edits",
}


#: The lists of APPLY_TOKEN_CHANGES whose items each count as one change.
_IMPORT_PARTS: Final = ("collections", "variables", "values", "deletes")


def _variant_count(params: Mapping[str, Any]) -> int:
    """How many variants CREATE_COMPONENT_SET makes, reading its params as the plugin does.

    ``componentIds`` (combine existing components) wins; otherwise the variants are every combination of the axes,
    given as ``variantProperties: [{name, values}]`` or else as ``properties: {name: values}``.
    """
    ids = params.get("componentIds")
    if isinstance(ids, list) and ids:
        return len(ids)
    axes = params.get("variantProperties")
    if isinstance(axes, list):
        values = [axis.get("values") if isinstance(axis, dict) else None for axis in axes]
    else:
        properties = params.get("properties")
        values = list(properties.values()) if isinstance(properties, dict) else []
    if not values:
        return 0
    count = 1
    for axis_values in values:
        count *= len(axis_values) if isinstance(axis_values, list) and axis_values else 1
    return count
