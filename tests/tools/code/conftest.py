"""What the design-to-code tests share: the fixture pages on a loopback port, one Chromium, a plugin window of its own
per module in the chain's designd, and the login card those windows draw for the outline, code and variable tests."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import chain_session, js
from fakes.real_plugin import RealPlugin
from mcp import Client
from playwright.async_api import Browser, async_playwright
from procs import DaemonProcess, TestEnv

PAGES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "web"
CHROMIUM = "/usr/bin/chromium"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The fixture pages served on a loopback port for the module."""
    handler = functools.partial(_QuietHandler, directory=str(PAGES_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """One headless Chromium for the module, without scrollbars so that screenshots compare page to page."""
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
        )
        yield launched
        await launched.close()


@pytest.fixture(scope="module")
def real_plugin(chain_daemon: DaemonProcess, request: pytest.FixtureRequest) -> Iterator[RealPlugin]:
    """A plugin window in a file named after the module (``test_from_web``: ``fromWeb``, "From Web")."""
    words = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_").split("_")
    key = words[0] + "".join(word.title() for word in words[1:])
    plugin = RealPlugin.start(chain_daemon.env, file_key=key, file_name=" ".join(words).title())
    yield plugin
    plugin.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_env: TestEnv, real_plugin: RealPlugin) -> AsyncIterator[Client]:
    """A session of the chain, its plugin window connected."""
    async with chain_session(chain_env) as session:
        yield session


#: A card without auto layout: a bound-colour title, an auto layout row (a fixed and a filling child, a gap bound to
#: a variable), a right-pinned badge, a hidden layer, a vector and an ellipse with a drop shadow.
BUILD = """
const coll = figma.variables.createVariableCollection("Brand");
coll.renameMode(coll.modes[0].modeId, "Light");
const dark = coll.addMode("Dark");
const brand = figma.variables.createVariable("color/brand-primary", coll, "COLOR");
brand.setValueForMode(coll.modes[0].modeId, { r: 0.2, g: 0.4, b: 1, a: 1 });
brand.setValueForMode(dark, { r: 0.4, g: 0.6, b: 1, a: 1 });
const space = figma.variables.createVariable("space/2", coll, "FLOAT");
space.setValueForMode(coll.modes[0].modeId, 8);
space.setValueForMode(dark, 8);
await figma.loadFontAsync({ family: "Inter", style: "Bold" });
const card = figma.createFrame();
card.name = "Login Card";
card.x = 100; card.y = 50; card.resize(400, 300);
card.fills = [{ type: "SOLID", color: { r: 1, g: 1, b: 1 } }];
card.cornerRadius = 12;
card.strokes = [{ type: "SOLID", color: { r: 0.8, g: 0.8, b: 0.8 } }];
card.strokeWeight = 1; card.strokeAlign = "INSIDE";
card.clipsContent = true;
figma.currentPage.appendChild(card);
const title = figma.createText();
title.name = "Title";
title.fontName = { family: "Inter", style: "Bold" };
title.characters = "Sign in <now>";
title.fontSize = 24;
title.lineHeight = { unit: "PIXELS", value: 32 };
title.letterSpacing = { unit: "PIXELS", value: 0.5 };
title.textAutoResize = "NONE";
const black = { type: "SOLID", color: { r: 0, g: 0, b: 0 } };
title.fills = [figma.variables.setBoundVariableForPaint(black, "color", brand)];
card.appendChild(title);
title.x = 24; title.y = 20; title.resize(300, 32);
const row = figma.createFrame();
row.name = "Row";
card.appendChild(row);
row.x = 24; row.y = 80; row.resize(352, 48);
row.layoutMode = "HORIZONTAL";
row.itemSpacing = 8; row.setBoundVariable("itemSpacing", space);
row.paddingLeft = 8; row.paddingRight = 8; row.paddingTop = 8; row.paddingBottom = 8;
row.fills = [{ type: "SOLID", color: { r: 0.96, g: 0.96, b: 0.96 } }];
const a = figma.createRectangle();
a.name = "Fixed"; row.appendChild(a); a.resize(40, 32);
a.fills = [{ type: "SOLID", color: { r: 1, g: 0, b: 0 } }];
a.layoutSizingHorizontal = "FIXED"; a.layoutSizingVertical = "FIXED";
const b = figma.createRectangle();
b.name = "Filling"; row.appendChild(b); b.resize(288, 32);
b.fills = [{ type: "SOLID", color: { r: 0, g: 0, b: 1 }, opacity: 0.5 }];
b.layoutSizingHorizontal = "FILL"; b.layoutSizingVertical = "FIXED";
const badge = figma.createRectangle();
badge.name = "Badge"; card.appendChild(badge);
badge.x = 340; badge.y = 20; badge.resize(40, 20);
badge.constraints = { horizontal: "MAX", vertical: "MIN" };
badge.fills = [{ type: "SOLID", color: { r: 0, g: 0.5, b: 0 } }];
const ghost = figma.createRectangle();
ghost.name = "Ghost"; card.appendChild(ghost); ghost.visible = false;
const icon = figma.createVector();
icon.name = "Icon"; card.appendChild(icon);
icon.x = 24; icon.y = 150; icon.resize(24, 24);
const dot = figma.createEllipse();
dot.name = "Dot"; card.appendChild(dot);
dot.x = 60; dot.y = 150; dot.resize(30, 30);
dot.fills = [{ type: "SOLID", color: { r: 1, g: 0.5, b: 0 } }];
dot.effects = [{ type: "DROP_SHADOW", visible: true, color: { r: 0, g: 0, b: 0, a: 0.25 }, offset: { x: 0, y: 2 },
                 radius: 4, spread: 0, blendMode: "NORMAL" }];
return { card: card.id, title: title.id, row: row.id, a: a.id, b: b.id, badge: badge.id, ghost: ghost.id,
         icon: icon.id, dot: dot.id };
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def made(client: Client) -> dict[str, str]:
    """The login card (:data:`BUILD`) drawn in the module's file: its layers' ids by role."""
    ids: dict[str, str] = await js(client, BUILD)
    return ids
