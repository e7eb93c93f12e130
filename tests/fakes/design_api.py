"""A fake design API: a real HTTP server that checks every request against the published OpenAPI spec.

Run from ``tests/`` as ``python -m fakes.design_api --port 0``; it prints ``LISTENING <port>`` once it listens.
Requests are validated with openapi-core (plus: unknown query parameters and a missing or wrong token are refused);
every JSON body it serves is validated against the same spec with jsonschema (Draft 2020-12) before it is sent.

Files it knows (see :data:`TOKENS` for the accepted tokens):

* ``ENTERPRISE_KEY``: a small design system on an Enterprise plan (variables readable over the API).
* ``PRO_KEY``: the same document on a Professional plan (variables answer 403).
* ``HUGE_KEY``: a generated file of ``--huge-mb`` megabytes (built on first request).

Test controls live under ``/_fake/`` (outside the spec): ``POST /_fake/fail`` queues error answers, ``GET
/_fake/requests`` lists the requests seen, ``POST /_fake/touch/<key>`` makes a new version of a file, ``POST
/_fake/delay`` slows the next answers down.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import uvicorn
import yaml
from jsonschema import Draft202012Validator
from openapi_core import OpenAPI
from openapi_core.datatypes import RequestParameters
from referencing import Registry, Resource
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "node_modules" / "@figma" / "rest-api-spec" / "openapi" / "openapi.yaml"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPEC_SERVER = "https://api.figma.com"
SPEC_URI = "urn:design-api-openapi"

ENTERPRISE_KEY = "EntDesignSystem0000001"
PRO_KEY = "ProDesignSystem0000002"
HUGE_KEY = "HugeGeneratedFile00003"
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


def check_response(ref_or_name: str, body: Any) -> None:
    """Raise when ``body`` does not match the named response of the spec."""
    errors = sorted(response_validator(response_pointer(ref_or_name)).iter_errors(body), key=lambda e: e.path)
    if errors:
        first = errors[0]
        raise AssertionError(f"{ref_or_name} invalid at {list(first.absolute_path)}: {first.message[:300]}")


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


def _fill(r: float, g: float, b: float) -> dict[str, Any]:
    return {"type": "SOLID", "blendMode": "NORMAL", "color": {"r": r, "g": g, "b": b, "a": 1}}


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
    return node


def frame(node_id: str, name: str, box: dict[str, float], children: list[Any], kind: str = "FRAME", **extra: Any):
    """A frame-like node (FRAME, COMPONENT, COMPONENT_SET, INSTANCE) valid under the spec."""
    return _shape(node_id, name, kind, box, children=children, clipsContent=True, **extra)


def rect(node_id: str, name: str, box: dict[str, float], color: tuple[float, float, float]) -> dict[str, Any]:
    """A rectangle with one solid fill."""
    return _shape(node_id, name, "RECTANGLE", box, fills=[_fill(*color)], cornerRadius=4)


def text(node_id: str, name: str, box: dict[str, float], characters: str) -> dict[str, Any]:
    """A text node."""
    style = {"fontFamily": "Inter", "fontPostScriptName": "Inter-Regular", "fontWeight": 400, "fontSize": 14}
    return _shape(
        node_id,
        name,
        "TEXT",
        box,
        fills=[_fill(0.1, 0.1, 0.1)],
        characters=characters,
        style=style,
        characterStyleOverrides=[],
        styleOverrideTable={},
        lineTypes=["NONE"],
        lineIndentations=[0],
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


def design_system_file(name: str) -> dict[str, Any]:
    """The small design-system file: a page of components (a Button set, an Icon), a page of screens."""
    button_variants = [
        frame(
            f"1:{10 + i}",
            f"State={state}",
            _box(100 * i, 0, 96, 40),
            [
                rect(f"1:{20 + i}", "Background", _box(100 * i, 0, 96, 40), (0.2, 0.4, 0.9)),
                text(f"1:{30 + i}", "Label", _box(100 * i + 8, 10, 80, 20), "Button"),
            ],
            kind="COMPONENT",
            description=f"Button in the {state.lower()} state",
        )
        for i, state in enumerate(("Default", "Hover", "Disabled"))
    ]
    components_page = canvas(
        "1:0",
        "Components",
        [
            frame("1:2", "Button", _box(0, 0, 300, 40), button_variants, kind="COMPONENT_SET", description="Buttons"),
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
    screens_page = canvas(
        "2:0",
        "Screens",
        [
            frame(
                "2:1",
                "Sign in",
                _box(0, 0, 375, 812),
                [
                    text("2:2", "Title", _box(24, 80, 327, 32), "Welcome back"),
                    frame(
                        "2:3",
                        "Button",
                        _box(24, 700, 96, 40),
                        [rect("2:4", "Background", _box(24, 700, 96, 40), (0.2, 0.4, 0.9))],
                        kind="INSTANCE",
                        componentId="1:10",
                        overrides=[],
                    ),
                ],
                fills=[_fill(1, 1, 1)],
                styles={"fill": "S:surface"},
            )
        ],
    )
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
        "styles": {
            "S:surface": {
                "key": "style-surface",
                "name": "Surface/Default",
                "description": "Page background",
                "remote": False,
                "styleType": "FILL",
            }
        },
    }


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


def _variables_fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "variables_local.json").read_text())


@dataclass
class FakeFile:
    """One file the fake serves."""

    key: str
    plan: str
    body: dict[str, Any] | None = None
    raw: bytes | None = None
    version: int = 1
    #: Depth of the deepest node of ``raw``: a request at least this deep is answered with ``raw`` as it is.
    raw_depth: int = 0

    def content(self) -> dict[str, Any]:
        if self.body is None:
            self.body = msgspec.json.decode(self.raw or b"{}")
        return self.body


@dataclass
class Fault:
    path_prefix: str
    status: int
    times: int
    retry_after: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


# The server -------------------------------------------------------------------------------------------------------


class FakeDesignApi:
    """State and handlers of the fake."""

    def __init__(self, huge_mb: float) -> None:
        self.files: dict[str, FakeFile] = {
            ENTERPRISE_KEY: FakeFile(ENTERPRISE_KEY, "enterprise", design_system_file("Design System")),
            PRO_KEY: FakeFile(PRO_KEY, "pro", design_system_file("Team Library")),
        }
        self.huge_mb = huge_mb
        self.faults: list[Fault] = []
        self.delays: list[float] = []
        self.seen: list[dict[str, Any]] = []
        self.valid: set[tuple[str, bytes]] = set()
        self.base_url = ""

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
        self.seen.append({"method": request.method, "path": path, "query": dict(request.query_params)})
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
                return self.error(op, fault.status, "Injected failure", headers)
        params = result.parameters
        return self.answer(op, dict(params.path), dict(params.query))

    def token_ok(self, request: Request) -> bool:
        personal = request.headers.get("X-Figma-Token")
        bearer = request.headers.get("Authorization", "")
        if personal is not None:
            return TOKENS.get(personal) == "X-Figma-Token"
        if bearer.startswith("Bearer "):
            return TOKENS.get(bearer[7:]) == "Authorization"
        return False

    def json(self, op: _Operation, status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
        ref = op.response_ref(status)
        data = msgspec.json.encode(body) if not isinstance(body, bytes) else body
        digest = hashlib.sha256(data).digest()
        if len(data) <= VALIDATE_MAX_BYTES and (ref, digest) not in self.valid:
            try:
                check_response(ref, msgspec.json.decode(data))
            except AssertionError as exc:
                # A fixture that breaks the spec fails the test that read it, loudly.
                return Response(f"fixture does not match the spec: {exc}".encode(), 599)
            self.valid.add((ref, digest))
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

    def answer(self, op: _Operation, path: dict[str, Any], query: dict[str, Any]) -> Response:
        key = path.get("file_key") or path.get("key") or ""
        template = op.template
        if template in ("/v1/components/{key}", "/v1/component_sets/{key}"):
            return self.published_one(op, template, key)
        fake = self.file(key)
        if fake is None:
            return self.error(op, 404, "Not found")
        if template == "/v1/files/{file_key}":
            return self.get_file(op, fake, query)
        if template == "/v1/files/{file_key}/nodes":
            return self.get_nodes(op, fake, query)
        if template == "/v1/files/{file_key}/meta":
            return self.json(op, 200, {"file": self.meta(fake)})
        if template == "/v1/images/{file_key}":
            return self.images(op, fake, query)
        if template == "/v1/files/{file_key}/variables/local":
            if fake.plan != "enterprise":
                return self.error(op, 403, "Limited by Figma plan")
            return self.json(op, 200, {"status": 200, "error": False, "meta": _variables_fixture()})
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
        version = query.get("version")
        if version is not None and version != str(fake.version):
            return self.error(op, 404, "Version not found")
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
        content = fake.content()
        wanted = str(query["ids"]).split(",")
        found = {n["id"]: n for n in _walk(content["document"]) if n["id"] in wanted}
        nodes: dict[str, Any] = {}
        for node_id in wanted:
            node = found.get(node_id)
            if node is None:
                # The spec's schema has no null here (its prose allows one): an unknown id is left out.
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
        return self.json(op, 200, {**head, "version": str(fake.version), "nodes": nodes})

    def images(self, op: _Operation, fake: FakeFile, query: dict[str, Any]) -> Response:
        if "ids" not in query:
            return self.error(op, 400, "No node ids given")
        fmt = query.get("format", "png")
        known = {n["id"] for n in _walk(fake.content()["document"])}
        images = {
            node_id: (
                f"{self.base_url}/_fake/render/{fake.key}/{node_id.replace(':', '-')}.{fmt}"
                if node_id in known
                else None
            )
            for node_id in str(query["ids"]).split(",")
        }
        return self.json(op, 200, {"err": None, "images": images})

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
            return Response(_PNG, media_type="image/png")
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
                )
            )
        elif path == "/_fake/delay":
            self.delays.extend([float(payload["seconds"])] * int(payload.get("times", 1)))
        elif path.startswith("/_fake/touch/"):
            fake = self.file(path.rsplit("/", 1)[-1])
            if fake is None:
                return Response(b"no such file", 404)
            fake.version += 1
            fake.content()["lastModified"] = f"2025-01-{min(28, fake.version):02d}T00:00:00Z"
        elif path == "/_fake/reset":
            self.faults.clear()
            self.delays.clear()
            self.seen.clear()
        else:
            return Response(b"unknown control", 404)
        return Response(b'{"ok":true}', media_type="application/json")


# A 1×1 transparent PNG: what a rendered image URL serves.
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e527d4a20000000049454e44ae426082"
)


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


def build_app(fake: FakeDesignApi) -> Starlette:
    """The ASGI app of the fake."""
    return Starlette(routes=[Route("/{path:path}", fake.handle, methods=["GET", "POST", "PUT", "DELETE"])])


async def _serve(port: int, huge_mb: float) -> None:
    fake = FakeDesignApi(huge_mb)
    _openapi()
    config = uvicorn.Config(build_app(fake), host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            await task
            return
        await asyncio.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    fake.base_url = f"http://127.0.0.1:{bound}"
    print(f"LISTENING {bound}", flush=True)
    await task


def main() -> None:
    """Entry point: ``python -m fakes.design_api [--port N] [--huge-mb MB]`` (from ``tests/``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--huge-mb", type=float, default=0.0)
    args = parser.parse_args()
    try:
        asyncio.run(_serve(args.port, args.huge_mb))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
