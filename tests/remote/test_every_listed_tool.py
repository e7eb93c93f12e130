"""Every tool Remote Mode lists can succeed: for each state of a signed-in user, the listing the server returns over
``/mcp`` is taken as is and every tool in it is called with arguments that work (fakes/cases.py's REMOTE_CASES), on
the fake design API, for the browser's three on a page this module serves to the server's own Chromium, and for the
plugin's tools on a fake plugin paired through the relay that answers like the real one.

A tool listed without a case fails the test, so a new tool adds its case (or, paired, its name in PAIRED_NOT_CALLED:
the tools not called yet, visible and unable to grow silently); a tool listed that cannot succeed is a bug in the
tool or in its declared needs.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fakes.api_server import ApiServer
from fakes.cases import (
    AUDITED_DOCUMENT,
    AUDITED_TOKENS,
    BOARD_SLIDES_TOOLS,
    HIST,
    PAGE,
    PAIRED_NOT_CALLED,
    PAIRED_REAL_PLUGIN_TOOLS,
    REMOTE_CASES,
)
from fakes.design_api import ENTERPRISE_KEY
from fakes.fake_plugin import FakePlugin
from fakes.plugin_payloads import (
    analysis_reply,
    component_reply,
    deep_reply,
    design_file,
    library,
    run_in_plugin,
    variables_snapshot,
)
from fakes.real_plugin import RealPlugin, synced_copy
from fakes.remote import FakePlatform, RemoteServer, oauth_env, remote_env, running_remote, sign_in
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from PIL import Image

from design_console.config import load_config
from design_console.remote.browser import BrowserPool

#: How long one call may take.
CALL_SECONDS = 180.0
#: The file the real plugin runs in.
REAL_FILE = "figmaFile"
#: What the page the browser tools open says and logs.
PAGE_HTML = b"<!doctype html><title>Listed</title><p>hello</p><script>console.log('listed page')</script>"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE_HTML)))
        self.end_headers()
        self.wfile.write(PAGE_HTML)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture(scope="module")
def page() -> Iterator[str]:
    """A page on loopback for the browser tools; yields its URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=httpd.serve_forever, name="listed-page", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


@pytest.fixture(scope="module")
def server(
    fake_api_server: ApiServer, platform: FakePlatform, page: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RemoteServer]:
    host = page.split("/")[2]
    env = remote_env(
        tmp_path_factory.mktemp("listed"),
        fake_api_server.url,
        REMOTE_BROWSER_ALLOWLIST=host,
        BROWSER_TIMEOUT="20000",
        **oauth_env(platform),
    )
    with running_remote(env) as running:
        yield running


@asynccontextmanager
async def session(server: RemoteServer, token: str) -> AsyncIterator[Client]:
    # Generous: the history tools walk 60 versions of the fake file, slow on a loaded machine.
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=CALL_SECONDS)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as client:
        yield client


def _with_page(value: Any, page: str) -> Any:
    if value == PAGE:
        return page
    if isinstance(value, dict):
        return {key: _with_page(item, page) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_page(item, page) for item in value]
    return value


async def _succeeds(client: Client, name: str, args: dict[str, Any]) -> Any:
    """Call ``name``, check it succeeded with a meaningful answer, and return the answer (decoded when JSON)."""
    result = await client.call_tool(name, args)
    texts = [block.text for block in result.content if block.type == "text"]
    assert not result.is_error, f"{name} is listed but failed: {texts}"
    assert texts, f"{name} answered no text"
    # A meaningful answer: a JSON object or array with something in it, or prose.
    first = texts[0].strip()
    if first.startswith(("{", "[")):
        decoded = json.loads(first)
        assert decoded, f"{name} answered an empty {first}"
        return decoded
    assert first, f"{name} answered an empty text"
    return first


async def _call_every_listed(client: Client, page: str, not_called: frozenset[str] = frozenset()) -> set[str]:
    """Call every listed tool but those of ``not_called`` (each of which must be listed, and is called elsewhere or
    named as not called); returns the names called."""
    listed = [tool.name for tool in (await client.list_tools()).tools]
    missing = sorted(set(listed) - set(REMOTE_CASES) - not_called)
    assert not missing, f"listed without a case in tests/fakes/cases.py REMOTE_CASES: {missing}"
    assert not_called <= set(listed), f"not listed, yet named as not called: {sorted(not_called - set(listed))}"
    called = [name for name in listed if name not in not_called]
    for name in called:
        args = _with_page(REMOTE_CASES[name], page)
        if name == "design_delete_comment":
            posted = await client.call_tool("design_post_comment", {"fileUrl": HIST, "message": "to delete"})
            args = {**args, "comment_id": json.loads(posted.content[0].text)["posted"]["id"]}  # type: ignore[union-attr]
        await _succeeds(client, name, args)
    return set(called)


async def test_every_tool_listed_to_an_unpaired_user_succeeds(
    server: RemoteServer, platform: FakePlatform, page: str
) -> None:
    _, tokens = sign_in(server, platform, "9501")
    async with session(server, tokens["access_token"]) as client:
        called = await _call_every_listed(client, page)
    browser = BrowserPool(load_config({"HOME": "/nonexistent"})).available()
    # The design API tools, status, diagnose and pairing; the browser's three when this machine has Chromium.
    assert len(called) == (30 if browser else 27)
    assert "design_pair_plugin" in called and "design_execute" not in called


def _pairing_code(server: RemoteServer, token: str) -> str:
    """A pairing code for the user of ``token``, asked for over ``/mcp`` as an AI client does (outside any loop)."""

    async def ask() -> str:
        async with session(server, token) as client:
            result = await client.call_tool("design_pair_plugin", {})
            code: str = json.loads(result.content[0].text)["code"]  # type: ignore[union-attr]
            return code

    return asyncio.run(ask())


@pytest.fixture(scope="module")
def paired(server: RemoteServer, platform: FakePlatform) -> Iterator[tuple[str, FakePlugin]]:
    """A signed-in user whose plugin is paired through the relay, in the file the design API tools read; yields the
    user's access token and the plugin, which answers with the real plugin's payloads."""
    _, tokens = sign_in(server, platform, "9502")

    plugin = FakePlugin.paired_in_thread(
        server.url, _pairing_code(server, tokens["access_token"]), file_key=ENTERPRISE_KEY, file_name="Design System"
    )
    lib = library()
    plugin.handlers.update(
        {
            "GET_LOCAL_COMPONENTS": lambda _p, _params: design_file(),
            "GET_VARIABLES_DATA": lambda _p, _params: variables_snapshot(),
            "GET_COMPONENT": lambda _p, params: component_reply(params),
            "DEEP_GET_COMPONENT": lambda _p, params: deep_reply(params),
            "ANALYZE_COMPONENT_SET": lambda _p, params: analysis_reply(params),
            "EXECUTE_CODE": lambda _p, params: run_in_plugin(params, lib),
        }
    )
    try:
        yield tokens["access_token"], plugin
    finally:
        plugin.stop()


async def _until_listed(client: Client, name: str) -> None:
    """Wait until the session lists ``name`` (the pairing reached the listing)."""
    deadline = asyncio.get_running_loop().time() + 10
    while name not in {tool.name for tool in (await client.list_tools()).tools}:
        assert asyncio.get_running_loop().time() < deadline, f"{name} was never listed"
        await asyncio.sleep(0.05)


async def test_every_tool_listed_to_a_paired_user_succeeds_or_is_named_as_not_called(
    server: RemoteServer, paired: tuple[str, FakePlugin], page: str
) -> None:
    token, plugin = paired
    async with session(server, token) as client:
        await _until_listed(client, "design_execute")
        listed = {tool.name for tool in (await client.list_tools()).tools}
        called = await _call_every_listed(client, page, PAIRED_NOT_CALLED | PAIRED_REAL_PLUGIN_TOOLS)
    # The plugin's tools reached the plugin through the relay, each method its tools use.
    reached = {command["method"] for command in plugin.commands}
    assert plugin.relay is not None
    assert reached >= {"EXECUTE_CODE", "GET_COMPONENT", "DEEP_GET_COMPONENT", "ANALYZE_COMPONENT_SET"}, reached
    assert listed == called | PAIRED_REAL_PLUGIN_TOOLS | PAIRED_NOT_CALLED
    assert "design_execute" in called and "design_get_component_for_development_deep" in called


@contextmanager
def _real_plugin(
    server: RemoteServer, platform: FakePlatform, folder: Path, subject: str, editor: str
) -> Iterator[str]:
    """A signed-in user whose shipped plugin (ui.html in jsdom, code.js on the stand-in ``editor``) is paired through
    its Cloud section, in file ``<editor>File``; yields the user's access token."""
    _, tokens = sign_in(server, platform, subject)

    html, ports = synced_copy(folder, server.url.replace("http://", "ws://", 1))
    plugin = RealPlugin.open(html, ports, editor, f"{editor}File", f"{editor} file")
    try:
        plugin.wait_window(lambda w: w["cloud"]["state"] == "idle", "open")
        plugin.pair(_pairing_code(server, tokens["access_token"]))
        plugin.wait_window(lambda w: w["cloud"]["state"] == "paired", "pair")
        yield tokens["access_token"]
    finally:
        plugin.stop()


@pytest.fixture(scope="module")
def real_paired(
    server: RemoteServer, platform: FakePlatform, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    """Three more signed-in users, each with the shipped plugin paired in a design file, a FigJam board and a Slides
    deck; yields each one's access token by editor."""
    with contextlib.ExitStack() as stack:
        yield {
            editor: stack.enter_context(
                _real_plugin(server, platform, tmp_path_factory.mktemp(editor), f"96{n:02d}", editor)
            )
            for n, editor in enumerate(("figma", "figjam", "slides"))
        }


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 3), (10, 200, 10)).save(out, "PNG")
    return out.getvalue()


Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


def _made_id(answer: dict[str, Any]) -> str:
    made = answer.get("node") or answer.get("created") or answer.get("clone")
    assert isinstance(made, dict), answer
    return str(made["id"])


async def _js(call: Call, code: str) -> Any:
    return (await call("design_execute", {"code": code}))["result"]


async def _node_tools(call: Call, page_id: str) -> None:
    """Make a rectangle, move, resize, paint, rename, fill with an inline image, clone and delete it; make a text and
    set it; the document is read back."""

    async def read(node_id: str) -> Any:
        return await _js(
            call,
            f"const n = await figma.getNodeByIdAsync({json.dumps(node_id)}); if (!n) return null;"
            " return { name: n.name, x: n.x, width: n.width, fill: n.fills[0] && n.fills[0].type,"
            " strokeWeight: n.strokeWeight, characters: n.characters };",
        )

    made = await call(
        "design_create_child",
        {"parentId": page_id, "nodeType": "RECTANGLE", "properties": {"name": "Card", "width": 100, "height": 50}},
    )
    card = _made_id(made)
    await call("design_move_node", {"nodeId": card, "x": 200, "y": 300})
    await call("design_resize_node", {"nodeId": card, "width": 40, "height": 30})
    await call("design_set_fills", {"nodeId": card, "fills": [{"color": "#0000ff"}]})
    await call("design_set_strokes", {"nodeId": card, "strokes": [{"color": "#ff0000"}], "strokeWeight": 3})
    await call("design_rename_node", {"nodeId": card, "newName": "Card/Relayed"})
    expected = {"name": "Card/Relayed", "x": 200, "width": 40, "fill": "SOLID", "strokeWeight": 3, "characters": None}
    assert await read(card) == expected
    await call("design_set_image_fill", {"nodeIds": [card], "imageData": base64.b64encode(_png()).decode()})
    assert (await read(card))["fill"] == "IMAGE"
    copy = _made_id(await call("design_clone_node", {"nodeId": card}))
    await call("design_delete_node", {"nodeId": copy})
    assert await read(copy) is None
    text = await call(
        "design_create_child", {"parentId": page_id, "nodeType": "TEXT", "properties": {"name": "Label", "text": "Hi"}}
    )
    label = _made_id(text)
    await call("design_set_text", {"nodeId": label, "text": "Hello there"})
    assert (await read(label))["characters"] == "Hello there"
    edits = [{"nodeId": card, "x": 10, "name": "Card/Batch"}, {"nodeId": label, "opacity": 0.5}]
    assert (await call("design_batch_edit_nodes", {"edits": edits}))["count"] == 2
    assert (await read(card))["name"] == "Card/Batch"


async def _component_tools(call: Call) -> None:
    """A component's properties, description and instance; a component set from axes, arranged; a slot."""

    async def component(name: str) -> str:
        return str(await _js(call, f"const c = figma.createComponent(); c.name = {json.dumps(name)}; return c.id;"))

    async def definitions(node_id: str) -> Any:
        return await _js(call, f"return (await figma.getNodeByIdAsync('{node_id}')).componentPropertyDefinitions;")

    button = await component("Button")
    prop = {"nodeId": button, "propertyName": "Label", "type": "TEXT", "defaultValue": "OK"}
    await call("design_add_component_property", prop)
    key = next(name for name in await definitions(button) if name.startswith("Label"))
    await call(
        "design_edit_component_property", {"nodeId": button, "propertyName": key, "newValue": {"defaultValue": "Go"}}
    )
    await call("design_set_description", {"nodeId": button, "description": "Primary action"})
    instance = (await call("design_instantiate_component", {"nodeId": button}))["instance"]["id"]
    await call("design_set_instance_properties", {"nodeId": instance, "properties": {key: "Send"}})
    await call("design_delete_component_property", {"nodeId": button, "propertyName": key})
    assert key not in await definitions(button)

    chip = await component("Chip")
    axes = [{"name": "Size", "values": ["S", "M"]}]
    made = await call(
        "design_create_component_set", {"baseComponentId": chip, "variantProperties": axes, "name": "Chip"}
    )
    chips = made["componentSet"]["id"]
    arranged = await call("design_arrange_component_set", {"componentSetId": chips, "options": {"gap": 10}})
    assert arranged["variantCount"] == 2

    panel = await component("Panel")
    slot = (await call("design_create_slot", {"nodeId": panel, "name": "Body", "layoutMode": "VERTICAL"}))["slot"]
    assert slot["id"] in json.dumps(await call("design_get_slots", {"nodeId": panel}))
    frame = await _js(
        call, f"const f = figma.createFrame(); (await figma.getNodeByIdAsync('{panel}')).appendChild(f); return f.id;"
    )
    await call("design_add_slot_property", {"nodeId": panel, "propertyName": "Content", "frameNodeId": frame})
    placed = (await call("design_instantiate_component", {"nodeId": panel}))["instance"]["id"]
    await call("design_append_to_slot", {"instanceId": placed, "slotName": "Body", "nodeType": "RECTANGLE"})
    await call("design_reset_slot", {"instanceId": placed, "slotName": "Body"})


async def _annotation_tools(call: Call, page_id: str) -> None:
    await call("design_get_annotation_categories", {})
    frame = _made_id(await call("design_create_child", {"parentId": page_id, "nodeType": "FRAME", "properties": {}}))
    await call("design_set_annotations", {"nodeId": frame, "annotations": [{"label": "Use 16px padding"}]})
    read = await call("design_get_annotations", {"nodeId": frame})
    assert [note["label"] for note in read["annotations"]] == ["Use 16px padding"]


async def _variable_tools(call: Call) -> None:
    """A collection with modes, a variable made, updated, renamed and deleted, a batch made and updated, tokens set
    up with aliases, and the collection deleted."""
    made = await call("design_create_variable_collection", {"name": "Palette", "initialModeName": "Light"})
    palette = made["collection"]["id"]
    light = made["collection"]["modes"][0]["modeId"]
    dark = (await call("design_add_mode", {"collectionId": palette, "modeName": "Dim"}))["modeId"]
    await call("design_rename_mode", {"collectionId": palette, "modeId": dark, "newName": "Dark"})
    values = {light: "#f00", dark: "#00f"}
    colour = {"name": "color/brand", "collectionId": palette, "resolvedType": "COLOR", "valuesByMode": values}
    variable = (await call("design_create_variable", colour))["variable"]["id"]
    await call("design_update_variable", {"variableId": variable, "modeId": dark, "value": "#00ff00"})
    await call("design_rename_variable", {"variableId": variable, "newName": "color/primary"})
    await call("design_delete_variable", {"variableId": variable})
    batch = [{"name": f"radius/{i}", "resolvedType": "FLOAT", "valuesByMode": {light: i}} for i in range(3)]
    ids = list(
        (await call("design_batch_create_variables", {"collectionId": palette, "variables": batch}))["created"].values()
    )
    updates = [{"variableId": vid, "modeId": light, "value": 20 + n} for n, vid in enumerate(ids)]
    assert (await call("design_batch_update_variables", {"updates": updates}))["count"] == 3
    assert (await call("design_batch_delete_variables", {"variableIds": ids}))["count"] == 3
    await call("design_delete_variable_collection", {"collectionId": palette})
    tokens = await call(
        "design_setup_design_tokens", {"collectionName": "Tokens", "modes": ["Light", "Dark"], "tokens": AUDITED_TOKENS}
    )
    assert tokens["count"] == len(AUDITED_TOKENS)


async def _read_tools(call: Call) -> None:
    """Code, audits, tokens and the design-system report, on a small audited document."""
    made = await _js(call, AUDITED_DOCUMENT)
    card, button = made["card"], made["button"]
    assert "Card" in (await call("design_get_metadata", {"nodeId": card}))["xml"]
    assert (await call("design_get_design_context", {"nodeId": card, "framework": "html"}))["code"]
    await call("design_get_variable_defs", {"nodeId": card})
    lint = await call("design_lint_design", {"nodeId": card, "rules": ["wcag"]})
    assert any(finding["rule"] == "wcag-contrast" for finding in lint["findings"]), lint
    await call("design_audit_component_accessibility", {"nodeId": button})
    mapping = {"componentId": button, "source": "@/components/Button", "exportName": "Button"}
    await call("design_set_code_mapping", mapping)
    listed = await call("design_get_code_mappings", {})
    assert [m["componentId"] for m in listed["mappings"]] == [button]
    exported = await call("design_export_tokens", {"format": "dtcg"})
    assert exported["tokens"] == len(AUDITED_TOKENS)
    dtcg = {"Imported": {"space": {"s": {"$type": "number", "$value": 4}}}}
    imported = await call("design_import_tokens", {"payload": json.dumps(dtcg)})
    assert imported["applied"] is True, imported
    # Named: remotely no file is active, even with a plugin paired (the paired plugin's file is not yet taken as it).
    report = await call("design_audit_design_system_report", {"fileUrl": REAL_FILE, "forceRefresh": True})
    assert report["source"] == "plugin", report


async def _board_tools(call: Call) -> None:
    """Stickies, a connector, a shape, a section, a table and a code block on a board, arranged and read back."""
    sticky = (await call("design_create_sticky", {"text": "Idea", "color": "BLUE"}))["node"]["id"]
    pair = (await call("design_create_stickies", {"stickies": [{"text": "from"}, {"text": "to"}]}))["nodes"]
    link = await call("design_create_connector", {"startNodeId": pair[0]["id"], "endNodeId": pair[1]["id"]})
    shape = (await call("design_create_shape_with_text", {"text": "DB", "shapeType": "ENG_DATABASE"}))["node"]["id"]
    await call("design_create_section", {"name": "Zone"})
    await call("design_create_table", {"rows": 2, "columns": 2, "data": [["a", "b"], ["c", "d"]]})
    await call("design_create_code_block", {"code": "print(1)", "language": "python"})
    ids = [sticky, pair[0]["id"], pair[1]["id"], shape, link["node"]["id"]]
    await call("design_auto_arrange", {"nodeIds": ids, "layout": "grid", "spacing": 30})
    board = await call("design_get_board_contents", {"nodeTypes": ["STICKY", "SECTION", "CONNECTOR"]})
    assert "Idea" in json.dumps(board)
    edges = (await call("design_get_connections", {}))["edges"]
    assert any(edge["id"] == link["node"]["id"] for edge in edges), edges


async def _slides_tools(call: Call) -> None:
    """Slides made, duplicated, deleted, written on, reordered, given transitions, focused, skipped and read back."""
    first = (await call("design_create_slide", {}))["slide"]["id"]
    second = (await call("design_create_slide", {}))["slide"]["id"]
    copy = (await call("design_duplicate_slide", {"slideId": second}))["slide"]["id"]
    await call("design_delete_slide", {"slideId": copy})
    await call("design_add_text_to_slide", {"slideId": first, "text": "Our plan", "fontSize": 60})
    await call(
        "design_add_shape_to_slide",
        {"slideId": first, "shapeType": "ELLIPSE", "x": 1, "y": 2, "width": 30, "height": 40},
    )
    await call("design_set_slide_background", {"slideId": first, "color": "#0000ff"})
    assert [entry["id"] for entry in (await call("design_list_slides", {}))["slides"]][-2:] == [first, second]
    assert (await call("design_get_slide_content", {"slideId": first}))["title"] == "Our plan"
    flat = [slide for row in (await call("design_get_slide_grid", {}))["grid"] for slide in row]
    assert (await call("design_reorder_slides", {"grid": [list(reversed(flat))]}))["grid"] == [list(reversed(flat))]
    await call("design_set_slide_transition", {"slideId": first, "style": "PUSH_FROM_LEFT", "duration": 0.8})
    assert (await call("design_get_slide_transition", {"slideId": first}))["transition"]["style"] == "PUSH_FROM_LEFT"
    await call("design_focus_slide", {"slideId": second})
    assert (await call("design_get_focused_slide", {}))["slide"]["id"] == second
    assert (await call("design_skip_slide", {"slideId": second, "skip": True}))["isSkipped"] is True
    await call("design_set_slides_view_mode", {"mode": "single-slide"})
    await call("design_get_text_styles", {})


@asynccontextmanager
async def _calls(server: RemoteServer, token: str, called: set[str]) -> AsyncIterator[Call]:
    """A paired user's session, as a function that calls a tool, checks it succeeded and notes its name."""
    async with session(server, token) as client:
        await _until_listed(client, "design_execute")

        async def call(name: str, args: dict[str, Any]) -> Any:
            answer = await _succeeds(client, name, args)
            called.add(name)
            return answer

        yield call


async def test_the_board_and_slides_tools_listed_to_a_paired_user_succeed_on_the_real_plugin(
    server: RemoteServer, real_paired: dict[str, str]
) -> None:
    called: set[str] = set()
    async with _calls(server, real_paired["figjam"], called) as call:
        await _board_tools(call)
    async with _calls(server, real_paired["slides"], called) as call:
        await _slides_tools(call)
    assert called == BOARD_SLIDES_TOOLS


async def test_the_document_tools_listed_to_a_paired_user_succeed_on_the_real_plugin(
    server: RemoteServer, real_paired: dict[str, str]
) -> None:
    called: set[str] = set()
    async with _calls(server, real_paired["figma"], called) as call:
        page_id = await _js(call, "return figma.currentPage.id;")
        await _node_tools(call, page_id)
        await _component_tools(call)
        await _annotation_tools(call, page_id)
        await _variable_tools(call)
        await _read_tools(call)
    assert called - {"design_execute"} == PAIRED_REAL_PLUGIN_TOOLS - BOARD_SLIDES_TOOLS
