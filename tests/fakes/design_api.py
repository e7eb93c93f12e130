"""A fake design API: a real HTTP server that checks every request against the published OpenAPI spec.

:mod:`fakes.api_server` serves it, in a thread of the test process (the ``fake_api`` fixture) or as a process.

Requests are validated with openapi-core (plus: unknown query parameters and a missing or wrong token are refused);
every JSON body it serves is validated against the same spec with jsonschema (Draft 2020-12) before it is sent.

Files it knows (see :data:`TOKENS` for the accepted tokens):

* ``ENTERPRISE_KEY``: a small design system on an Enterprise plan (variables readable over the API, fills and
  paddings bound to them), with the comment threads of ``fixtures/history/comments.json``.
* ``PRO_KEY``: the same document on a Professional plan (variables answer 403).
* ``HISTORY_KEY``: the design system with the 60 versions of ``fixtures/history/timeline.json``; ``?version=`` reads
  any of them.
* ``STYLES_KEY``: the design system with colour, text and effect styles that its nodes use.
* ``HUGE_KEY``: a generated file of ``--huge-mb`` megabytes (built on first request).

Every file answers ``/versions`` (paged with ``page_size``/``before``/``after``), ``?version=`` reads, and the comment
endpoints (list, post, reply, delete). ``/nodes`` maps an unknown id to null, as the real API does. Rendered image URLs
serve a real PNG, JPEG, SVG or PDF of the node's size and colour, in the format asked.

Test controls live under ``/_fake/`` (outside the spec): ``POST /_fake/fail`` queues error answers (or,
with ``body``, answers of that JSON, off the spec), ``GET
/_fake/requests`` lists the requests seen, ``POST /_fake/touch/<key>`` saves a version and starts a new one, ``POST
/_fake/delay`` slows the next answers down, ``POST /_fake/reset`` clears faults, delays and the request log. A queued
error answer says ``message`` when one is given (a missing OAuth scope, say).
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import yaml
from jsonschema import Draft202012Validator
from openapi_core import OpenAPI
from openapi_core.datatypes import RequestParameters
from referencing import Registry, Resource
from starlette.requests import Request
from starlette.responses import Response

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "node_modules" / "@figma" / "rest-api-spec" / "openapi" / "openapi.yaml"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPEC_SERVER = "https://api.figma.com"
SPEC_URI = "urn:design-api-openapi"
#: The paths of the API itself (every version the spec has); anything else is not a request of the code under test.
API_PREFIXES = ("/v1/", "/v2/")

ENTERPRISE_KEY = "EntDesignSystem0000001"
PRO_KEY = "ProDesignSystem0000002"
HUGE_KEY = "HugeGeneratedFile00003"
HISTORY_KEY = "HistDesignSystem000004"
STYLES_KEY = "StyleGuideLibrary00005"
PERSONAL_TOKEN = "figd_fake-personal-token-0123456789"
OAUTH_TOKEN = "figu_fake-oauth-token-0123456789"
TOKENS = {PERSONAL_TOKEN: "X-Figma-Token", OAUTH_TOKEN: "Authorization"}
#: Responses larger than this are not schema-checked at serve time (the generator is checked on a small file).
VALIDATE_MAX_BYTES = 256 * 1024
USER = {"id": "1001", "handle": "Ada Designer", "img_url": "https://example.invalid/ada.png"}


# The spec ---------------------------------------------------------------------------------------------------------


@cache
def load_spec() -> dict[str, Any]:
    """The OpenAPI document of the npm package @figma/rest-api-spec (installed by ``npm ci``)."""
    if not SPEC_PATH.exists():
        raise SystemExit(f"{SPEC_PATH} is missing: run `npm ci` at the repository root.")
    return yaml.load(SPEC_PATH.read_text(), Loader=yaml.CSafeLoader)


@cache
def _openapi() -> OpenAPI:
    return OpenAPI.from_dict(copy.deepcopy(load_spec()))


def prepare() -> None:
    """Load and compile the spec now, so that the first request a test makes is not the slow one."""
    _openapi()


@cache
def _registry() -> Registry:
    return Registry().with_resource(SPEC_URI, Resource.from_contents(load_spec(), default_specification=_draft()))


def _draft() -> Any:
    from referencing.jsonschema import DRAFT202012

    return DRAFT202012


@cache
def response_validator(pointer: str) -> Draft202012Validator:
    """A validator for the schema at ``pointer`` (a JSON pointer into the spec, e.g. a response's schema)."""
    return Draft202012Validator({"$ref": f"{SPEC_URI}#{pointer}"}, registry=_registry())


def response_pointer(ref_or_name: str) -> str:
    """JSON pointer of the JSON schema of a named response (``GetFileResponse``) of the spec."""
    name = ref_or_name.rsplit("/", 1)[-1]
    return f"/components/responses/{name}/content/application~1json/schema"


def check_response(ref_or_name: str, body: Any, pointer: str = "") -> None:
    """Raise when ``body`` does not match the named response of the spec (or, given ``pointer``, the schema at that
    pointer within the response's schema)."""
    validator = response_validator(response_pointer(ref_or_name) + pointer)
    errors = sorted(validator.iter_errors(body), key=lambda e: e.path)
    if errors:
        first = errors[0]
        raise AssertionError(f"{ref_or_name}{pointer} invalid at {list(first.absolute_path)}: {first.message[:300]}")


#: Within GetFileNodesResponse's schema: the schema of one entry of ``nodes``.
NODE_ENTRY = "/properties/nodes/additionalProperties"


@dataclass
class _Operation:
    template: str
    pattern: re.Pattern[str]
    method: str
    spec: dict[str, Any]

    @property
    def query_names(self) -> set[str]:
        return {p["name"] for p in self.spec.get("parameters", []) if p.get("in") == "query"}

    def response_ref(self, status: int) -> str:
        return self.spec["responses"][str(status)]["$ref"]


@cache
def _operations() -> list[_Operation]:
    ops = []
    for template, item in load_spec()["paths"].items():
        pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$")
        for method, op in item.items():
            if method in ("get", "post", "put", "delete", "patch"):
                ops.append(_Operation(template, pattern, method, op))
    return ops


def find_operation(method: str, path: str) -> _Operation | None:
    """The spec operation that ``method path`` addresses (literal templates win over ``{param}`` ones)."""
    found = [op for op in _operations() if op.method == method.lower() and op.pattern.match(path)]
    found.sort(key=lambda op: op.template.count("{"))
    return found[0] if found else None


class _SpecRequest:
    """The request as openapi-core reads it, addressed to the spec's own server."""

    def __init__(self, request: Request, body: bytes) -> None:
        self.host_url = SPEC_SERVER
        self.path = request.url.path
        self.method = request.method.lower()
        self.body = body or None
        self.content_type = request.headers.get("Content-Type", "application/json")
        self.parameters = RequestParameters(query=request.query_params, header=request.headers, cookie={})


# Documents --------------------------------------------------------------------------------------------------------


def _box(x: float, y: float, w: float, h: float) -> dict[str, float]:
    return {"x": x, "y": y, "width": w, "height": h}


def alias(variable_id: str) -> dict[str, str]:
    """A reference to a variable, as bound values carry it."""
    return {"type": "VARIABLE_ALIAS", "id": variable_id}


def _fill(r: float, g: float, b: float, variable: str | None = None) -> dict[str, Any]:
    paint: dict[str, Any] = {"type": "SOLID", "blendMode": "NORMAL", "color": {"r": r, "g": g, "b": b, "a": 1}}
    if variable:
        paint["boundVariables"] = {"color": alias(variable)}
    return paint


def _shape(node_id: str, name: str, kind: str, box: dict[str, float], **extra: Any) -> dict[str, Any]:
    node = {
        "id": node_id,
        "name": name,
        "type": kind,
        "scrollBehavior": "SCROLLS",
        "blendMode": "PASS_THROUGH",
        "absoluteBoundingBox": box,
        "absoluteRenderBounds": box,
        "fills": [],
        "effects": [],
    }
    node.update(extra)
    fills = node.get("fills") or []
    bound = [p["boundVariables"]["color"] for p in fills if "boundVariables" in p]
    if bound:
        node.setdefault("boundVariables", {})["fills"] = bound
    return node


def frame(node_id: str, name: str, box: dict[str, float], children: list[Any], kind: str = "FRAME", **extra: Any):
    """A frame-like node (FRAME, COMPONENT, COMPONENT_SET, INSTANCE) valid under the spec."""
    return _shape(node_id, name, kind, box, children=children, clipsContent=True, **extra)


def rect(
    node_id: str, name: str, box: dict[str, float], color: tuple[float, float, float], variable: str | None = None
) -> dict[str, Any]:
    """A rectangle with one solid fill (bound to ``variable`` when given)."""
    return _shape(node_id, name, "RECTANGLE", box, fills=[_fill(*color, variable=variable)], cornerRadius=4)


def text(node_id: str, name: str, box: dict[str, float], characters: str, **extra: Any) -> dict[str, Any]:
    """A text node (its fill bound to the text/primary variable)."""
    default = {"fontFamily": "Inter", "fontPostScriptName": "Inter-Regular", "fontWeight": 400, "fontSize": 14}
    style = extra.pop("style", default)
    return _shape(
        node_id,
        name,
        "TEXT",
        box,
        fills=[_fill(0.1, 0.1, 0.1, variable="VariableID:34:34")],
        characters=characters,
        style=style,
        characterStyleOverrides=[],
        styleOverrideTable={},
        lineTypes=["NONE"],
        lineIndentations=[0],
        **extra,
    )


def canvas(node_id: str, name: str, children: list[Any]) -> dict[str, Any]:
    """A page."""
    return {
        "id": node_id,
        "name": name,
        "type": "CANVAS",
        "scrollBehavior": "SCROLLS",
        "children": children,
        "backgroundColor": {"r": 0.96, "g": 0.96, "b": 0.96, "a": 1},
        "flowStartingPoints": [],
        "prototypeDevice": {"type": "NONE", "rotation": "NONE"},
        "prototypeStartNodeID": None,
    }


def document(pages: list[Any]) -> dict[str, Any]:
    """The root node."""
    return {"id": "0:0", "name": "Document", "type": "DOCUMENT", "scrollBehavior": "SCROLLS", "children": pages}


#: Each Button variant: its background colour and, for Disabled, a lower opacity.
_BUTTON_STATES = (
    ("Default", (0.2, 0.4, 0.9), {}),
    ("Hover", (0.15, 0.3, 0.75), {}),
    ("Disabled", (0.6, 0.6, 0.6), {"opacity": 0.5}),
)

_SHADOW = {
    "type": "DROP_SHADOW",
    "visible": True,
    "color": {"r": 0, "g": 0, "b": 0, "a": 0.25},
    "blendMode": "NORMAL",
    "offset": {"x": 0, "y": 2},
    "radius": 8,
    "spread": 0,
    "showShadowBehindNode": False,
}

#: The extra styles of the styled file: id → (name, type, description, what its definition node carries).
_RICH_STYLES: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "S:brand": ("Brand/Primary", "FILL", "Primary actions", {"fills": [_fill(0.2, 0.4, 0.9)]}),
    "S:body": (
        "Text/Body",
        "TEXT",
        "Running text",
        {"style": {"fontFamily": "Inter", "fontWeight": 400, "fontSize": 14, "lineHeightPx": 20, "letterSpacing": 0}},
    ),
    "S:heading": (
        "Text/Heading",
        "TEXT",
        "Screen titles",
        {
            "style": {
                "fontFamily": "Inter",
                "fontWeight": 700,
                "fontSize": 24,
                "lineHeightPx": 32,
                "letterSpacing": -0.2,
            }
        },
    ),
    "S:shadow": ("Shadow/Card", "EFFECT", "Raised cards", {"effects": [_SHADOW]}),
}


def design_system_file(name: str, *, rich_styles: bool = False) -> dict[str, Any]:
    """The small design-system file: a page of components (a Button set, an Icon), a page of screens.

    Fills and paddings are bound to variables of ``fixtures/variables_local.json``. With ``rich_styles`` the file
    also has text, effect and a second colour style, used by its nodes.
    """
    button_variants = [
        frame(
            f"1:{10 + i}",
            f"State={state}",
            _box(100 * i, 0, 96, 40),
            [
                rect(f"1:{20 + i}", "Background", _box(100 * i, 0, 96, 40), colour, variable="VariableID:35:35"),
                text(
                    f"1:{30 + i}",
                    "Label",
                    _box(100 * i + 8, 10, 80, 20),
                    "Button",
                    **({"styles": {"text": "S:body"}} if rich_styles else {}),
                ),
            ],
            kind="COMPONENT",
            description=f"Button in the {state.lower()} state",
            paddingLeft=16,
            paddingRight=16,
            boundVariables={"paddingLeft": alias("VariableID:29:29"), "paddingRight": alias("VariableID:29:29")},
            **extra,
        )
        for i, (state, colour, extra) in enumerate(_BUTTON_STATES)
    ]
    button_set = frame(
        "1:2",
        "Button",
        _box(0, 0, 300, 40),
        button_variants,
        kind="COMPONENT_SET",
        description="Buttons",
        componentPropertyDefinitions={
            "State": {"type": "VARIANT", "defaultValue": "Default", "variantOptions": [s[0] for s in _BUTTON_STATES]}
        },
    )
    components_page = canvas(
        "1:0",
        "Components",
        [
            button_set,
            frame(
                "1:3",
                "Icon/Star",
                _box(0, 100, 24, 24),
                [rect("1:4", "Shape", _box(0, 100, 24, 24), (1, 0.8, 0))],
                kind="COMPONENT",
                description="A star icon",
            ),
        ],
    )
    screen_styles = {"fill": "S:surface", **({"effect": "S:shadow"} if rich_styles else {})}
    screens_page = canvas(
        "2:0",
        "Screens",
        [
            frame(
                "2:1",
                "Sign in",
                _box(0, 0, 375, 812),
                [
                    text(
                        "2:2",
                        "Title",
                        _box(24, 80, 327, 32),
                        "Welcome back",
                        **({"styles": {"text": "S:heading"}} if rich_styles else {}),
                    ),
                    frame(
                        "2:3",
                        "Button",
                        _box(24, 700, 96, 40),
                        [rect("2:4", "Background", _box(24, 700, 96, 40), (0.2, 0.4, 0.9), "VariableID:35:35")],
                        kind="INSTANCE",
                        componentId="1:10",
                        overrides=[],
                    ),
                ],
                fills=[_fill(1, 1, 1, variable="VariableID:33:33")],
                styles=screen_styles,
            )
        ],
    )
    styles = {
        "S:surface": {
            "key": "style-surface",
            "name": "Surface/Default",
            "description": "Page background",
            "remote": False,
            "styleType": "FILL",
        }
    }
    if rich_styles:
        for style_id, (style_name, kind, description, _) in _RICH_STYLES.items():
            styles[style_id] = {
                "key": f"style-{style_id[2:]}",
                "name": style_name,
                "description": description,
                "remote": False,
                "styleType": kind,
            }
    return {
        "name": name,
        "role": "editor",
        "lastModified": "2025-01-01T00:00:00Z",
        "editorType": "figma",
        "thumbnailUrl": "https://example.invalid/thumb.png",
        "version": "1",
        "document": document([components_page, screens_page]),
        "components": {
            **{
                n["id"]: {
                    "key": f"key-{n['id']}",
                    "name": n["name"],
                    "description": n["description"],
                    "documentationLinks": [],
                    "remote": False,
                    "componentSetId": "1:2",
                }
                for n in button_variants
            },
            "1:3": {
                "key": "key-1:3",
                "name": "Icon/Star",
                "description": "A star icon",
                "documentationLinks": [],
                "remote": False,
            },
        },
        "componentSets": {"1:2": {"key": "key-set-1:2", "name": "Button", "description": "Buttons"}},
        "schemaVersion": 0,
        "styles": styles,
    }


def style_nodes(content: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The definition node of each style of a file: what ``/nodes?ids=<style id>`` answers for it."""
    nodes: dict[str, dict[str, Any]] = {}
    for style_id, style in content.get("styles", {}).items():
        if style_id == "S:surface":
            carries: dict[str, Any] = {"fills": [_fill(1, 1, 1)]}
        elif style_id in _RICH_STYLES:
            carries = copy.deepcopy(_RICH_STYLES[style_id][3])
        else:
            continue
        box = _box(0, 0, 100, 100)
        if "style" in carries:
            nodes[style_id] = text(style_id, style["name"], box, "Aa", style=carries["style"])
            nodes[style_id]["fills"] = [_fill(0.1, 0.1, 0.1)]
            nodes[style_id].pop("boundVariables", None)
        else:
            nodes[style_id] = _shape(style_id, style["name"], "RECTANGLE", box, **{"fills": [], **carries})
    return nodes


#: Pages, frames, then leaves: the generated file is three levels deep below the document.
HUGE_DEPTH = 3


def huge_file(target_bytes: int, *, frames: int = 40, leaves: int = 60) -> bytes:
    """A generated file of about ``target_bytes`` of JSON: pages of frames of groups of rectangles and texts."""
    head = design_system_file("Huge generated file")
    pages_json: list[bytes] = []
    size = 0
    page = 0
    encoder = msgspec.json.Encoder()
    while size < target_bytes:
        page += 1
        page_frames = []
        for f in range(frames):
            kids = []
            for c in range(leaves):
                nid = f"{page}:{f}:{c}"
                box = _box(c * 10.0, f * 10.0, 8, 8)
                if c % 3 == 0:
                    kids.append(text(f"{nid}t", f"Label {c} of frame {f}", box, f"Generated text {page}/{f}/{c}"))
                else:
                    kids.append(rect(f"{nid}r", f"Cell {c}", box, (c / 60, f / 40, 0.5)))
            page_frames.append(frame(f"{page}:{f}", f"Frame {f} of page {page}", _box(0, f * 1000.0, 600, 900), kids))
        chunk = encoder.encode(canvas(f"{page}:0", f"Page {page}", page_frames))
        pages_json.append(chunk)
        size += len(chunk)
    head["document"]["children"] = []
    head["version"] = "7"
    shell = encoder.encode(head)
    marker = b'"children":[]'
    at = shell.index(marker) + len(marker) - 1
    return shell[:at] + b",".join(pages_json) + shell[at:]


#: Who the fake's tokens belong to (``GET /v1/me``).
ME = {"id": "1001", "handle": "Fake Designer", "img_url": "https://example.com/me.png", "email": "me@example.com"}


def _variables_fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "variables_local.json").read_text())


def _published_variables() -> dict[str, Any]:
    """What ``/variables/published`` answers for the Enterprise file: its variables not hidden from publishing."""
    local = _variables_fixture()
    updated = "2025-01-01T00:00:00Z"
    variables = {
        v["id"]: {
            "id": v["id"],
            "subscribed_id": f"sub-{v['key']}",
            "name": v["name"],
            "key": v["key"],
            "variableCollectionId": v["variableCollectionId"],
            "resolvedDataType": v["resolvedType"],
            "updatedAt": updated,
        }
        for v in local["variables"].values()
        if not v.get("hiddenFromPublishing")
    }
    collections = {
        c["id"]: {"id": c["id"], "subscribed_id": f"sub-{c['key']}", "name": c["name"], "key": c["key"],
                  "updatedAt": updated}
        for c in local["variableCollections"].values()
        if not c.get("hiddenFromPublishing")
    }  # fmt: skip
    return {"variables": variables, "variableCollections": collections}


def _comments_fixture(key: str) -> list[dict[str, Any]]:
    comments = json.loads((FIXTURES / "history" / "comments.json").read_text())["comments"]
    for comment in comments:
        comment["file_key"] = key
    return comments


@dataclass
class FakeFile:
    """One file the fake serves, with its version history and comments."""

    key: str
    plan: str
    body: dict[str, Any] | None = None
    raw: bytes | None = None
    version: int = 1
    #: Depth of the deepest node of ``raw``: a request at least this deep is answered with ``raw`` as it is.
    raw_depth: int = 0
    #: Saved versions, newest first, as ``/versions`` lists them (empty: one version, the current one).
    versions: list[dict[str, Any]] = field(default_factory=list)
    #: The file's content as of each saved version id (the current version is ``body`` itself).
    at: dict[str, dict[str, Any]] = field(default_factory=dict)
    comments: list[dict[str, Any]] = field(default_factory=list)

    def content(self) -> dict[str, Any]:
        if self.body is None:
            self.body = msgspec.json.decode(self.raw or b"{}")
        return self.body

    def version_list(self) -> list[dict[str, Any]]:
        """Every version, newest first; a file without a history has its current version only."""
        if self.versions:
            return self.versions
        when = "2025-01-01T00:00:00Z" if self.raw is not None else self.content()["lastModified"]
        return [_version_entry(str(self.version), when, "Current", "")]

    def as_of(self, version: str) -> FakeFile | None:
        """The file as it was at ``version`` (None: no such version)."""
        if version == str(self.version):
            return self
        content = self.at.get(version)
        if content is None:
            return None
        return FakeFile(self.key, self.plan, copy.deepcopy(content), version=int(version))

    def save_version(self) -> None:
        """Keep the current content as a version, and start a new current version (``/_fake/touch``)."""
        if self.raw is None:
            self.at[str(self.version)] = copy.deepcopy(self.content())
            if not self.versions:
                self.versions = self.version_list()
        self.version += 1
        when = f"2025-01-{min(28, self.version):02d}T00:00:00Z"
        if self.raw is None:
            self.content()["lastModified"] = when
            self.versions.insert(0, _version_entry(str(self.version), when, None, None))


def _version_entry(version_id: str, when: str, label: str | None, description: str | None) -> dict[str, Any]:
    return {
        "id": version_id,
        "created_at": when,
        "label": label,
        "description": description,
        "user": USER,
        "thumbnail_url": f"https://example.invalid/v{version_id}.png",
    }


def _find(node: dict[str, Any], node_id: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    stack: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(node, None)]
    while stack:
        current, parent = stack.pop()
        if current["id"] == node_id:
            return current, parent
        stack.extend((child, current) for child in current.get("children", []))
    return None, None


def _apply(content: dict[str, Any], edit: dict[str, Any]) -> None:
    """Apply one edit of ``fixtures/history/timeline.json`` to a file's content."""
    if edit["op"] == "set":
        node, _ = _find(content["document"], edit["node"])
        assert node is not None
        node[edit["property"]] = copy.deepcopy(edit["value"])
    elif edit["op"] == "add":
        parent, _ = _find(content["document"], edit["parent"])
        assert parent is not None
        parent["children"].append(copy.deepcopy(edit["node"]))
    elif edit["op"] == "remove":
        node, parent = _find(content["document"], edit["node"])
        assert node is not None and parent is not None
        parent["children"].remove(node)
    elif edit["op"] == "catalog_remove":
        del content[edit["map"]][edit["id"]]
    elif edit["op"] == "catalog_set":
        content[edit["map"]][edit["id"]][edit["property"]] = edit["value"]


def history_file(key: str) -> FakeFile:
    """The design-system file with the 60 versions of ``fixtures/history/timeline.json`` (oldest edits first)."""
    timeline = json.loads((FIXTURES / "history" / "timeline.json").read_text())
    versions: list[dict[str, Any]] = timeline["versions"]
    state = design_system_file("Design System")
    at: dict[str, dict[str, Any]] = {}
    for version in reversed(versions):
        for edit in timeline["edits"].get(version["id"], []):
            _apply(state, edit)
        at[version["id"]] = copy.deepcopy(state)
    latest = versions[0]["id"]
    state["lastModified"] = versions[0]["created_at"]
    return FakeFile(key, "enterprise", state, version=int(latest), versions=versions, at=at)


@dataclass
class Fault:
    path_prefix: str
    status: int
    times: int
    retry_after: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    #: A JSON body served as is, off the spec (as a broken proxy or a changed API might answer); None: an error body.
    body: Any = None
    message: str = "Injected failure"


# The server -------------------------------------------------------------------------------------------------------


class FakeDesignApi:
    """State and handlers of the fake."""

    def __init__(self, huge_mb: float = 0.0) -> None:
        self.files: dict[str, FakeFile] = {
            ENTERPRISE_KEY: FakeFile(
                ENTERPRISE_KEY,
                "enterprise",
                design_system_file("Design System"),
                comments=_comments_fixture(ENTERPRISE_KEY),
            ),
            PRO_KEY: FakeFile(PRO_KEY, "pro", design_system_file("Team Library")),
            HISTORY_KEY: history_file(HISTORY_KEY),
            STYLES_KEY: FakeFile(STYLES_KEY, "enterprise", design_system_file("Style Guide", rich_styles=True)),
        }
        self.huge_mb = huge_mb
        self.faults: list[Fault] = []
        self.delays: list[float] = []
        self.seen: list[dict[str, Any]] = []
        self.valid: set[tuple[str, bytes]] = set()
        self.base_url = ""
        #: The JSON body of the last request that had one.
        self.last_body: Any = None
        self.next_comment_id = 500

    def file(self, key: str) -> FakeFile | None:
        if key == HUGE_KEY and key not in self.files and self.huge_mb > 0:
            raw = huge_file(int(self.huge_mb * 1024 * 1024))
            self.files[key] = FakeFile(key, "enterprise", raw=raw, version=7, raw_depth=HUGE_DEPTH)
        return self.files.get(key)

    # Dispatch -----------------------------------------------------------------------------------------------------

    async def handle(self, request: Request) -> Response:
        path = request.url.path
        if path.startswith("/_fake/"):
            return await self.control(request)
        body = await request.body()
        seen: dict[str, Any] = {"method": request.method, "path": path, "query": dict(request.query_params)}
        # Which of the known tokens the request carried: "personal", "oauth" or "".
        seen["token"] = self.token_kind(request)
        payload: Any = None
        if body:
            try:
                payload = json.loads(body)
            except ValueError:
                payload = None
            seen["body"] = payload
            self.last_body = payload
        # Only the API's own paths are logged: another local program probing loopback ports (a stray
        # GET /json/version) must not count as a request of the code under test.
        if path.startswith(API_PREFIXES):
            self.seen.append(seen)
        if self.delays:
            await asyncio.sleep(self.delays.pop(0))
        op = find_operation(request.method, path)
        if op is None:
            return Response(b'{"status":404,"err":"Not found"}', 404, media_type="application/json")
        unknown = set(request.query_params) - op.query_names
        if unknown:
            return self.error(op, 400, f"Unknown query parameters: {', '.join(sorted(unknown))}")
        result = _openapi().unmarshal_request(_SpecRequest(request, body))
        if result.errors:
            return self.error(op, 400, "; ".join(str(e) for e in result.errors)[:300])
        if not self.token_ok(request):
            return self.error(op, 403, "Invalid token")
        for fault in self.faults:
            if path.startswith(fault.path_prefix) and fault.times > 0:
                fault.times -= 1
                headers = dict(fault.headers)
                if fault.retry_after is not None:
                    headers["Retry-After"] = fault.retry_after
                if fault.body is not None:
                    return Response(msgspec.json.encode(fault.body), fault.status, headers, "application/json")
                return self.error(op, fault.status, fault.message, headers)
        params = result.parameters
        return self.answer(op, dict(params.path), dict(params.query), payload)

    def token_kind(self, request: Request) -> str:
        """Which known token a request carries, by the header it is sent in: "personal", "oauth" or ""."""
        if TOKENS.get(request.headers.get("X-Figma-Token", "")) == "X-Figma-Token":
            return "personal"
        bearer = request.headers.get("Authorization", "")
        return "oauth" if bearer.startswith("Bearer ") and TOKENS.get(bearer[7:]) == "Authorization" else ""

    def token_ok(self, request: Request) -> bool:
        personal = request.headers.get("X-Figma-Token")
        bearer = request.headers.get("Authorization", "")
        if personal is not None:
            return TOKENS.get(personal) == "X-Figma-Token"
        if bearer.startswith("Bearer "):
            return TOKENS.get(bearer[7:]) == "Authorization"
        return False

    def json(
        self,
        op: _Operation,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
        *,
        checked: Any = None,
        parts: tuple[str, list[Any]] = ("", []),
    ) -> Response:
        """Serve ``body`` after checking it (or ``checked``, the part of it the spec's schema covers) against the
        spec's response schema, and each of ``parts``' bodies against the schema at its pointer within that one.
        Each body is checked the first time it is served: a walk through many versions of a file serves the same
        node entries again and again."""
        ref = op.response_ref(status)
        data = msgspec.json.encode(body) if not isinstance(body, bytes) else body
        pointer, bodies = parts
        checks = [("", data if checked is None else msgspec.json.encode(checked))]
        checks += [(pointer, msgspec.json.encode(part)) for part in bodies]
        for where, check in checks:
            digest = hashlib.sha256(check).digest()
            if len(check) > VALIDATE_MAX_BYTES or (ref + where, digest) in self.valid:
                continue
            try:
                check_response(ref, msgspec.json.decode(check), where)
            except AssertionError as exc:
                # A fixture that breaks the spec fails the test that read it, loudly.
                return Response(f"fixture does not match the spec: {exc}".encode(), 599)
            self.valid.add((ref + where, digest))
        return Response(data, status, headers=headers, media_type="application/json")

    def error(self, op: _Operation, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        ref = op.response_ref(status) if str(status) in op.spec["responses"] else ""
        if "WithErrorBoolean" in ref:
            body: dict[str, Any] = {"status": status, "error": True, "message": message}
        else:
            body = {"status": status, "err": message}
        if not ref:
            return Response(msgspec.json.encode(body), status, headers=headers, media_type="application/json")
        return self.json(op, status, body, headers)

    # Endpoints ----------------------------------------------------------------------------------------------------

    def answer(self, op: _Operation, path: dict[str, Any], query: dict[str, Any], body: Any = None) -> Response:
        key = path.get("file_key") or path.get("key") or ""
        template = op.template
        if template in ("/v1/components/{key}", "/v1/component_sets/{key}"):
            return self.published_one(op, template, key)
        if template == "/v1/me":
            return self.json(op, 200, ME)
        fake = self.file(key)
        if fake is None:
            return self.error(op, 404, "Not found")
        if "version" in query and template in ("/v1/files/{file_key}", "/v1/files/{file_key}/nodes"):
            pinned = fake.as_of(str(query["version"]))
            if pinned is None:
                return self.error(op, 404, "Version not found")
            fake = pinned
        if template == "/v1/files/{file_key}":
            return self.get_file(op, fake, query)
        if template == "/v1/files/{file_key}/nodes":
            return self.get_nodes(op, fake, query)
        if template == "/v1/files/{file_key}/meta":
            return self.json(op, 200, {"file": self.meta(fake)})
        if template == "/v1/files/{file_key}/versions":
            return self.version_page(op, fake, query)
        if template.startswith("/v1/files/{file_key}/comments"):
            return self.comments(op, fake, path, query, body)
        if template == "/v1/images/{file_key}":
            return self.images(op, fake, query)
        if template in ("/v1/files/{file_key}/variables/local", "/v1/files/{file_key}/variables/published"):
            if fake.plan != "enterprise":
                return self.error(op, 403, "Limited by Figma plan")
            local = template.endswith("/local")
            meta = _variables_fixture() if local else _published_variables()
            return self.json(op, 200, {"status": 200, "error": False, "meta": meta})
        if template == "/v1/files/{file_key}/styles":
            return self.json(
                op, 200, {"status": 200, "error": False, "meta": {"styles": self.published(fake, "style")}}
            )
        if template == "/v1/files/{file_key}/components":
            meta = {"components": self.published(fake, "component")}
            return self.json(op, 200, {"status": 200, "error": False, "meta": meta})
        if template == "/v1/files/{file_key}/component_sets":
            meta = {"component_sets": self.published(fake, "component_set")}
            return self.json(op, 200, {"status": 200, "error": False, "meta": meta})
        return self.error(op, 404, "Not found")

    def meta(self, fake: FakeFile) -> dict[str, Any]:
        content = fake.content()
        return {
            "name": content["name"],
            "last_touched_at": content["lastModified"],
            "creator": USER,
            "editorType": "figma",
            "role": "editor",
            "link_access": "view",
            "url": f"https://www.figma.com/design/{fake.key}/x",
            "version": str(fake.version),
        }

    def get_file(self, op: _Operation, fake: FakeFile, query: dict[str, Any]) -> Response:
        whole = "depth" not in query or int(query["depth"]) >= fake.raw_depth
        if fake.raw is not None and whole and "ids" not in query:
            return self.json(op, 200, fake.raw)
        content = dict(fake.content())
        content["version"] = str(fake.version)
        doc = content["document"]
        if "ids" in query:
            doc = _keep_ids(doc, set(str(query["ids"]).split(",")))
        if "depth" in query:
            doc = _truncate(doc, int(query["depth"]))
        content["document"] = doc
        return self.json(op, 200, content)

    def get_nodes(self, op: _Operation, fake: FakeFile, query: dict[str, Any]) -> Response:
        """As the real API: each id maps to its node, and an id the file lacks maps to null. The spec's schema has
        no null there (its prose allows one), so only the entries that exist are checked against it."""
        content = fake.content()
        wanted = str(query["ids"]).split(",")
        found = {n["id"]: n for n in _walk(content["document"]) if n["id"] in wanted}
        found.update({k: v for k, v in style_nodes(content).items() if k in wanted})
        nodes: dict[str, Any] = {}
        for node_id in wanted:
            node = found.get(node_id)
            if node is None:
                continue
            if "depth" in query:
                node = _truncate(node, int(query["depth"]))
            nodes[node_id] = {
                "document": node,
                "components": content["components"],
                "componentSets": content["componentSets"],
                "schemaVersion": 0,
                "styles": content["styles"],
            }
        head = {k: content[k] for k in ("name", "role", "lastModified", "editorType", "thumbnailUrl")}
        checked = {**head, "version": str(fake.version), "nodes": {}}
        served = {**checked, "nodes": {node_id: nodes.get(node_id) for node_id in wanted}}
        return self.json(op, 200, served, checked=checked, parts=(NODE_ENTRY, list(nodes.values())))

    def version_page(self, op: _Operation, fake: FakeFile, query: dict[str, Any]) -> Response:
        size = int(query.get("page_size", 30))
        older = fake.version_list()
        if "before" in query:
            older = [v for v in older if int(v["id"]) < int(query["before"])]
        if "after" in query:
            older = [v for v in older if int(v["id"]) > int(query["after"])]
        page = older[:size]
        pagination: dict[str, str] = {}
        if len(older) > size:
            pagination["next_page"] = (
                f"{self.base_url}/v1/files/{fake.key}/versions?page_size={size}&before={page[-1]['id']}"
            )
        return self.json(op, 200, {"versions": page, "pagination": pagination})

    def comments(
        self, op: _Operation, fake: FakeFile, path: dict[str, Any], query: dict[str, Any], body: Any
    ) -> Response:
        if op.method == "get":
            return self.json(op, 200, {"comments": fake.comments})
        if op.method == "delete":
            found = [c for c in fake.comments if c["id"] == path.get("comment_id")]
            if not found:
                return self.error(op, 404, "Comment not found")
            fake.comments.remove(found[0])
            return self.json(op, 200, {"status": 200, "error": False})
        body = body if isinstance(body, dict) else {}
        parent = next((c for c in fake.comments if c["id"] == body.get("comment_id")), None)
        if body.get("comment_id") and parent is None:
            return self.error(op, 404, "Comment not found")
        self.next_comment_id += 1
        posted = {
            "id": str(self.next_comment_id),
            "file_key": fake.key,
            "user": USER,
            "created_at": f"2025-04-01T00:00:{self.next_comment_id % 60:02d}Z",
            "resolved_at": None,
            "message": body.get("message", ""),
            "order_id": None if parent else str(self.next_comment_id),
            "client_meta": copy.deepcopy(parent["client_meta"] if parent else body.get("client_meta"))
            or {"x": 0, "y": 0},
            "reactions": [],
        }
        if parent:
            posted["parent_id"] = parent["id"]
        fake.comments.append(posted)
        return self.json(op, 200, posted)

    def images(self, op: _Operation, fake: FakeFile, query: dict[str, Any]) -> Response:
        if "ids" not in query:
            return self.error(op, 400, "No node ids given")
        fmt = query.get("format", "png")
        scale = float(query.get("scale", 1))
        known = {n["id"] for n in _walk(fake.content()["document"])}
        images = {
            node_id: (
                f"{self.base_url}/_fake/render/{fake.key}/{scale:g}/{node_id.replace(':', '-')}.{fmt}"
                if node_id in known
                else None
            )
            for node_id in str(query["ids"]).split(",")
        }
        return self.json(op, 200, {"err": None, "images": images})

    def render(self, key: str, name: str, scale: float) -> Response:
        """The bytes behind a rendered image URL: a picture of the node's box in the format asked."""
        stem, _, fmt = name.rpartition(".")
        fake = self.file(key)
        node, _ = _find(fake.content()["document"], stem.replace("-", ":")) if fake else (None, None)
        if node is None:
            return Response(b"no such render", 404)
        box = node.get("absoluteBoundingBox") or _box(0, 0, 1, 1)
        paints = [p for p in node.get("fills", []) if p.get("type") == "SOLID"]
        colour = paints[0]["color"] if paints else {"r": 0.9, "g": 0.9, "b": 0.9}
        width, height = _render_size(box, scale)
        rgb = tuple(round(colour[c] * 255) for c in "rgb")
        if fmt == "svg":
            return Response(_svg(width, height, rgb, node["name"]), media_type="image/svg+xml")
        if fmt == "pdf":
            return Response(_pdf(width, height, rgb), media_type="application/pdf")
        return Response(_raster(width, height, rgb, fmt), media_type="image/jpeg" if fmt == "jpg" else "image/png")

    def published(self, fake: FakeFile, kind: str) -> list[dict[str, Any]]:
        content = fake.content()
        nodes = {n["id"]: n for n in _walk(content["document"])}
        out = []
        if kind == "style":
            for node_id, style in content["styles"].items():
                out.append(
                    {
                        **self._pub(fake, style["key"], node_id, style["name"], style["description"]),
                        "style_type": style["styleType"],
                        "sort_position": "a",
                    }
                )
        elif kind == "component":
            for node_id, comp in content["components"].items():
                item = self._pub(fake, comp["key"], node_id, comp["name"], comp["description"])
                if comp.get("componentSetId"):
                    item["containing_frame"] = {
                        "nodeId": comp["componentSetId"],
                        "name": "Button",
                        "pageId": "1:0",
                        "pageName": "Components",
                        "containingComponentSet": {"nodeId": "1:2", "name": "Button"},
                    }
                out.append(item)
        else:
            for node_id, cset in content["componentSets"].items():
                out.append(self._pub(fake, cset["key"], node_id, nodes[node_id]["name"], cset["description"]))
        return out

    def _pub(self, fake: FakeFile, key: str, node_id: str, name: str, description: str) -> dict[str, Any]:
        return {
            "key": key,
            "file_key": fake.key,
            "node_id": node_id,
            "thumbnail_url": "https://example.invalid/t.png",
            "name": name,
            "description": description,
            "created_at": "2024-06-01T00:00:00Z",
            "updated_at": "2025-01-01T00:00:00Z",
            "user": USER,
        }

    def published_one(self, op: _Operation, template: str, key: str) -> Response:
        kind = "component" if template == "/v1/components/{key}" else "component_set"
        for fake in (self.files[ENTERPRISE_KEY],):
            for item in self.published(fake, kind):
                if item["key"] == key:
                    return self.json(op, 200, {"status": 200, "error": False, "meta": item})
        return self.error(op, 404, "Not found")

    # Controls -----------------------------------------------------------------------------------------------------

    async def control(self, request: Request) -> Response:
        path = request.url.path
        if path.startswith("/_fake/render/"):
            parts = path.split("/")
            if len(parts) != 6:
                return Response(b"no such render", 404)
            return self.render(parts[3], parts[5], float(parts[4]))
        if path == "/_fake/requests":
            return Response(msgspec.json.encode({"requests": self.seen}), media_type="application/json")
        payload = json.loads(await request.body() or b"{}")
        if path == "/_fake/fail":
            self.faults.append(
                Fault(
                    payload["path_prefix"],
                    payload["status"],
                    payload.get("times", 1),
                    payload.get("retry_after"),
                    payload.get("headers", {}),
                    payload.get("body"),
                    payload.get("message", "Injected failure"),
                )
            )
        elif path == "/_fake/delay":
            self.delays.extend([float(payload["seconds"])] * int(payload.get("times", 1)))
        elif path.startswith("/_fake/touch/"):
            fake = self.file(path.rsplit("/", 1)[-1])
            if fake is None:
                return Response(b"no such file", 404)
            fake.save_version()
        elif path == "/_fake/reset":
            self.faults.clear()
            self.delays.clear()
            self.seen.clear()
        else:
            return Response(b"unknown control", 404)
        return Response(b'{"ok":true}', media_type="application/json")


# Rendered images --------------------------------------------------------------------------------------------------

#: Longest side of a rendered image, so that a huge frame at scale 4 stays quick to serve.
MAX_RENDER_SIDE = 2048


def _render_size(box: dict[str, float], scale: float) -> tuple[int, int]:
    width, height = max(1.0, box.get("width", 1) * scale), max(1.0, box.get("height", 1) * scale)
    shrink = min(1.0, MAX_RENDER_SIDE / max(width, height))
    return max(1, round(width * shrink)), max(1, round(height * shrink))


def _svg(width: int, height: int, rgb: tuple[int, ...], title: str) -> bytes:
    fill = "#" + "".join(f"{c:02x}" for c in rgb)
    label = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}"><title>{label}</title>'
        f'<rect width="{width}" height="{height}" fill="{fill}"/>'
        f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" fill="none" stroke="#202020"/></svg>'
    ).encode()


def _pdf(width: int, height: int, rgb: tuple[int, ...]) -> bytes:
    """A one-page PDF of the node's size: a filled, outlined rectangle (with a correct cross-reference table)."""
    r, g, b = (c / 255 for c in rgb)
    stream = f"{r:.3f} {g:.3f} {b:.3f} rg 0 0 {width} {height} re f 0 0 0 RG 0.5 0.5 {width - 1} {height - 1} re S"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] /Contents 4 0 R >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def _raster(width: int, height: int, rgb: tuple[int, ...], fmt: str) -> bytes:
    """A PNG or JPEG of the node's colour with a dark outline (so it is never a single colour)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (width, height), rgb)
    ImageDraw.Draw(img).rectangle((0, 0, width - 1, height - 1), outline=(32, 32, 32))
    buffer = io.BytesIO()
    img.save(buffer, "JPEG" if fmt == "jpg" else "PNG")
    return buffer.getvalue()


def _walk(node: dict[str, Any]):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.get("children", [])))


def _truncate(node: dict[str, Any], depth: int) -> dict[str, Any]:
    copy_ = dict(node)
    if "children" in node:
        copy_["children"] = [] if depth <= 0 else [_truncate(c, depth - 1) for c in node["children"]]
    return copy_


def _keep_ids(doc: dict[str, Any], ids: set[str]) -> dict[str, Any]:
    def keep(node: dict[str, Any]) -> dict[str, Any] | None:
        if node["id"] in ids:
            return node
        kids = [k for k in (keep(c) for c in node.get("children", [])) if k is not None]
        if kids or node["type"] in ("DOCUMENT", "CANVAS"):
            return {**node, "children": kids}
        return None

    return keep(doc) or doc
