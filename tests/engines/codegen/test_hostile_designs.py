"""Hostile design files through every code generator and the code-mapping tools' mappings: whatever a file (or a
plugin reply) puts in layer names, ids, texts, fonts, token and mode names, string tokens, image data, vector SVG,
mapping sources, exports and props, the written code runs none of it.

Each case is one design holding the hostile text everywhere it can go, and one hostile SVG. The HTML page, the React
module (compiled with esbuild and mounted by a small JSX runtime that does what React DOM does with the props the
module sets) and the Vue component (its blocks split as Vue's SFC parser splits them, its script compiled, its
template drawn with ``v-html`` done by hand) are each loaded in Chromium behind a hook that counts every call of
alert, eval, Function, fetch and the like, and with every request outside the page refused and counted. The page
must end with no call, no request, no event handler or ``javascript:`` link in its DOM, and every hostile text shown
as the text it is.
"""

from __future__ import annotations

import base64
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from itertools import cycle, islice
from pathlib import Path
from typing import Any

import pytest
from helpers import CHROMIUM, CHROMIUM_ARGS, compile_react
from playwright.sync_api import Page, Route, sync_playwright

from design_console.engines.codegen import html, react, vue
from design_console.engines.codegen.build import Builder, Built
from design_console.engines.codegen.mapping_match import suggest
from design_console.engines.codegen.metadata import outline

pytestmark = pytest.mark.browser

ORIGIN = "http://design.test"

#: Texts a file could hold in any name, text or value: each ends a literal of some language the generators write
#: (HTML, CSS, JSX, JavaScript, a Vue template, a comment) and starts code.
HOSTILE_TEXTS = [
    "</script><script>alert(1)</script>",
    "{alert(1)}",
    "*/alert(1)/*",
    '"; background:url(javascript:alert(1))',
    "'; background:url(javascript:alert(1)); x:'",
    "${alert(1)}`${alert(2)}`",
    "{{ constructor.constructor('alert(1)')() }}",
    "line one\nline two\r\nline three\u2028four\u2029five\tsix",
    "</style><script>alert(1)</script><style>",
    '"><img src=x onerror=alert(1)>',
    "'><svg onload=alert(1)>",
    '"><img src=x onerror="window.__pwned=1">',
    "javascript:alert(1)",
    "x={alert(1)} y",
    '" onClick={() => alert(1)} x="',
    "\" dangerouslySetInnerHTML={{__html:'<img src=x onerror=alert(1)>'}} a=\"",
    "<!-- --!> <script>alert(1)</script>",
    "\\\"\\'\\` \\u003c \\",
    "@import url(https://evil.example/x.css);",
    ")}; alert(1); ({",
    "data:text/javascript,alert(1)",
    "https://evil.example/x.js",
    "__PROPS__,globalThis.__pwned=1//",
    "]] ]]> <![CDATA[ &amp; &lt;script&gt;",
]

_SVG = 'xmlns="http://www.w3.org/2000/svg"'
#: Vector SVG a plugin reply could carry: scripts, handlers, links, HTML inside SVG, style sheets, animations,
#: external references, entities, markup that is not XML.
HOSTILE_SVGS = [
    f'<svg {_SVG} onload="alert(1)"><script>alert(2)</script><path d="M0 0h10v10z"/></svg>',
    f'<svg {_SVG}><foreignObject width="10" height="10"><img src="x" onerror="alert(1)"/></foreignObject></svg>',
    f'<svg {_SVG}><a href="javascript:alert(1)"><rect width="10" height="10"/></a></svg>',
    f'<svg {_SVG} xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="javascript:alert(1)"><text>x</text></a>'
    "</svg>",
    f'<svg {_SVG}><image href="https://evil.example/x.png" onerror="alert(1)" width="5" height="5"/></svg>',
    f"<svg {_SVG}><style>@import url(https://evil.example/x.css); rect {{ fill: url(https://evil.example/y) }}"
    '</style><rect width="4" height="4"/></svg>',
    f'<svg {_SVG}><use href="https://evil.example/sprite.svg#icon"/></svg>',
    f'<svg {_SVG}><rect width="4" height="4" fill="url(https://evil.example/x#p)" '
    'style="stroke:url(&quot;https://evil.example/y&quot;); fill: u\\72l(https://evil.example/z)"/></svg>',
    f'<svg {_SVG}><rect width="4" height="4"><animate attributeName="onmouseover" to="alert(1)"/>'
    '<set attributeName="href" to="javascript:alert(1)"/></rect></svg>',
    f"<svg {_SVG}><![CDATA[</svg><img src=x onerror=alert(1)>]]></svg>",
    f'<!DOCTYPE svg [<!ENTITY x "&#60;img src=x onerror=alert(1)&#62;">]><svg {_SVG}><text>&x;</text></svg>',
    f'<svg {_SVG}><title><img src="x" onerror="alert(1)"/></title><desc>&lt;img src=x onerror=alert(1)&gt;</desc>'
    "</svg>",
    f'<svg {_SVG}><iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"/><embed src="javascript:alert(1)"/></svg>',
    "</div><img src=x onerror=alert(1)><div>",
    f'<svg {_SVG} xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)</h:script>'
    '<h:img src="x" onerror="alert(1)"/></svg>',
    f'<svg {_SVG}><feImage href="https://evil.example/x.png"/><filter id="f"><feImage href="https://evil.example/y"/>'
    "</filter></svg>",
]

#: A 1x1 PNG.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
CASES = list(islice(zip(cycle(HOSTILE_TEXTS), cycle(HOSTILE_SVGS)), max(len(HOSTILE_TEXTS), len(HOSTILE_SVGS))))

#: Defined before any script of a page: every way to run a string as code or reach the network is counted, and so
#: is a hostile handler's attempt to set a global.
HOOK = """
(() => {
  const calls = [];
  Object.defineProperty(window, "__calls", { value: calls });
  const note = (name) => function (...args) { calls.push(name + ": " + String(args[0]).slice(0, 80)); };
  for (const name of ["alert", "confirm", "prompt", "print", "open", "fetch"]) window[name] = note(name);
  window.eval = note("eval");
  const counted = new Proxy(Function, {
    apply(target, self, args) { calls.push("Function: " + String(args.at(-1)).slice(0, 80)); return () => {}; },
    construct(target, args) { calls.push("new Function: " + String(args.at(-1)).slice(0, 80)); return () => {}; },
  });
  window.Function = counted;
  Object.defineProperty(Function.prototype, "constructor", { value: counted });
  const timer = (name, real) => function (handler, ...rest) {
    if (typeof handler !== "function") { calls.push(name + ": " + String(handler).slice(0, 80)); return 0; }
    return real.call(window, handler, ...rest);
  };
  window.setTimeout = timer("setTimeout", window.setTimeout);
  window.setInterval = timer("setInterval", window.setInterval);
  XMLHttpRequest.prototype.open = note("XMLHttpRequest");
  navigator.sendBeacon = note("sendBeacon");
  document.write = note("document.write");
  Object.defineProperty(window, "__pwned", { set(value) { calls.push("__pwned = " + value); }, get() {} });
})();
"""

#: What the page holds that could run or reach out later: event handler attributes, ``javascript:`` links, scripts
#: and HTML inside SVG. The harness's own scripts carry ``data-harness``.
AUDIT = """
() => {
  const found = [];
  for (const el of document.querySelectorAll("*")) {
    if (el.hasAttribute("data-harness")) continue;
    const name = el.localName;
    if (["script", "foreignobject", "iframe", "object", "embed", "frame"].includes(name.toLowerCase()))
      found.push("<" + name + ">");
    if (name === "style" && el.closest("[data-node-id]")) found.push("<style> in a layer");
    for (const attr of el.attributes) {
      if (/^on/i.test(attr.name)) found.push(name + " " + attr.name + "=" + attr.value.slice(0, 60));
      const link = /^(href|xlink:href|src|action|formaction|srcdoc)$/i.test(attr.name);
      if (link && /^\\s*(javascript|data:text)/i.test(attr.value))
        found.push(name + " " + attr.name + "=" + attr.value.slice(0, 60));
    }
  }
  return found;
}
"""

#: The JSX runtime the React module is mounted with: elements as React DOM makes them from the props the module sets
#: (class, data attributes, an inline style, ``dangerouslySetInnerHTML``), a mapped component as a ``div`` that
#: carries its props as attributes, as a component that spreads its props on its root would.
RUNTIME = """
window.__runtime = (() => {
  const Fragment = Symbol("Fragment");
  const jsx = (type, props) => ({ type, props });
  const mount = (node, parent) => {
    if (node == null || typeof node === "boolean") return;
    if (Array.isArray(node)) { node.forEach((child) => mount(child, parent)); return; }
    if (typeof node !== "object") { parent.appendChild(document.createTextNode(String(node))); return; }
    if (typeof node.type === "function") { mount(node.type(node.props), parent); return; }
    if (node.type === Fragment) { mount(node.props.children, parent); return; }
    const el = document.createElementNS(parent.namespaceURI, node.type);
    for (const [key, value] of Object.entries(node.props)) {
      if (key === "children") continue;
      if (key === "dangerouslySetInnerHTML") el.innerHTML = value.__html;
      else if (key === "style") Object.assign(el.style, value);
      else if (/^on[A-Z]/.test(key) && typeof value === "function")
        el.addEventListener(key.slice(2).toLowerCase(), value);
      else el.setAttribute(key === "className" ? "class" : key, String(value));
    }
    mount(node.props.children, el);
    parent.appendChild(el);
  };
  const component = (name) => (props) => jsx("div", { ...props, "data-component": String(name) });
  const require = (specifier) => {
    if (specifier === "react/jsx-runtime") return { jsx, jsxs: jsx, Fragment };
    if (String(specifier).startsWith("./assets/")) return { __esModule: true, default: "data:," };
    return new Proxy({ __esModule: true, default: component("default") }, {
      get: (target, key) => (key in target ? target[key] : component(key)),
    });
  };
  return { mount, require };
})();
"""


def node(index: int, parent: int, text: str, kind: str = "FRAME", **fields: Any) -> dict[str, Any]:
    """A layer whose name and id carry ``text``."""
    return {
        "id": f"{index}:{text}",
        "name": text,
        "type": kind,
        "p": parent,
        "x": 0,
        "y": 0,
        "w": 40,
        "h": 20,
        **fields,
    }


def bound(var_id: str) -> dict[str, str]:
    return {"type": "VARIABLE_ALIAS", "id": var_id}


def hostile_design(
    text: str, svg: str
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any] | None], dict[str, str]]:
    """Layers, variables and images of a file holding ``text`` in every place a generator writes from, and ``svg``
    as a vector's export."""
    modes = [{"modeId": "m1", "name": text}, {"modeId": "m2", "name": text + " dark"}]
    variables: dict[str, dict[str, Any] | None] = {
        "v1": {"name": text, "resolvedType": "COLOR", "collection": text, "modes": modes,
               "valuesByMode": {"m1": {"r": 1, "g": 0, "b": 0, "a": 1}, "m2": bound("v2")}},
        "v2": {"name": text + "/words", "resolvedType": "STRING", "collection": text, "modes": modes,
               "valuesByMode": {"m1": text, "m2": text}},
        "v3": {"name": text + "/space", "resolvedType": "FLOAT", "collection": text, "modes": modes,
               "valuesByMode": {"m1": 8, "m2": text}},
    }  # fmt: skip
    paint = {"type": "SOLID", "color": {"r": 0, "g": 0, "b": 0}, "boundVariables": {"color": bound("v1")}}
    font = {"family": text, "style": text}
    suggested, _ = suggest(
        [{"componentId": "c1", "name": text + " Button", "props": {text: {"type": "VARIANT", "options": [text]}}}],
        [{"name": "Button " + text, "path": text, "props": [text, "size"], "variants": {text: [text]}}],
    )
    mappings = [
        {"source": text, "exportName": text, "props": {"Label": text, "Size": text}},
        {"source": text, "exportName": "default", "props": {}},
        {"source": "@/components/Card", "exportName": "Card",
         "props": {"Label": "innerHTML", "Body": "dangerouslySetInnerHTML", "Click": "onClick", "Load": "onload",
                   "Link": "href"}},
        *[s["mapping"] for s in suggested],
    ]  # fmt: skip
    properties = {
        "Label": {"type": "TEXT", "value": text},
        "Size": {"type": "VARIANT", "value": text},
        "Body": {"type": "TEXT", "value": "<img src=x onerror=alert(1)>"},
        "Click": {"type": "TEXT", "value": "alert(1)"},
        "Load": {"type": "TEXT", "value": "alert(1)"},
        "Link": {"type": "TEXT", "value": "javascript:alert(1)"},
        f"{text}#1:2": {"type": "BOOLEAN", "value": True},
        text: {"type": "VARIANT", "value": text},
    }
    nodes = [
        node(0, -1, text, w=400, h=400, fills=[paint]),
        node(1, 0, text, "TEXT", characters=text, fontName=font, fontSize=12, fills=[paint]),
        node(2, 0, text, "TEXT", characters=text, fontName=font,
             segments=[{"characters": text, "fontName": {"family": text + " 2", "style": "Bold"}, "fills": [paint]},
                       {"characters": "plain", "fontName": font}]),
        node(3, 0, text, "VECTOR", svg=svg),
        node(4, 0, text, layoutMode="HORIZONTAL", itemSpacing=8, boundVariables={"itemSpacing": bound("v3")}),
        node(5, 4, text, "RECTANGLE", fills=[{"type": "IMAGE", "imageHash": "good"}]),
        node(6, 4, text, "RECTANGLE", fills=[{"type": "IMAGE", "imageHash": "bad"}]),
    ]  # fmt: skip
    for mapping in mappings:
        nodes.append(
            node(len(nodes), 0, text, "INSTANCE", componentId="5:1", componentProperties=properties,
                 codeMapping=json.dumps(mapping))
        )  # fmt: skip
    return nodes, variables, {"good": PNG, "bad": text}


def built(text: str, svg: str, *, embed: bool) -> Built:
    nodes, variables, images = hostile_design(text, svg)
    return Builder(nodes, variables, images, embed=embed).build([0])


def fetched_from_outside(code: str) -> list[str]:
    """The modules ``code`` imports from a URL or a host: a bundler or a browser would fetch and run them."""
    sources = [json.loads(s) for s in re.findall(r'^import .* from ("(?:[^"\\]|\\.)*");$', code, re.MULTILINE)]
    return [s for s in sources if re.match(r"[A-Za-z][A-Za-z0-9+.-]+:|//|\\\\", s)]


def shown(text: str) -> str:
    """``text`` as a browser's HTML parser hands it to the DOM (line ends normalised)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- the browser -----------------------------------------------------------------------------------------------


class Site:
    """One page for the module, behind the hook, loaded from the files a test gives it (path → body); every other
    request is refused and kept. Each load is a new document, so the hook and its count start again."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.files: dict[str, str | bytes] = {}
        self.outside: list[str] = []
        # Playwright evaluates through the page's ``eval``, which the hook replaces: reads go to the browser itself.
        self.cdp = page.context.new_cdp_session(page)
        page.add_init_script(HOOK)
        page.route("**/*", self._serve)

    def _serve(self, route: Route) -> None:
        url = route.request.url
        body = self.files.get(url.removeprefix(ORIGIN)) if url.startswith(ORIGIN + "/") else None
        if body is None:
            self.outside.append(url)
            route.abort()
            return
        kind = {"html": "text/html", "png": "image/png"}.get(url.rsplit(".", 1)[-1], "text/javascript")
        route.fulfill(body=body, content_type=kind, headers={"Cache-Control": "no-store"})

    def load(self, files: dict[str, str | bytes]) -> Site:
        """``/index.html`` of ``files`` loaded, every image and script of it done."""
        self.files = files
        self.outside = []
        self.page.goto(f"{ORIGIN}/index.html", wait_until="load")
        return self

    def js(self, expression: str) -> Any:
        """The JSON value of ``expression`` in the page."""
        answer = self.cdp.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        assert "exceptionDetails" not in answer, answer["exceptionDetails"]
        return answer["result"].get("value")

    def check(self) -> None:
        """Nothing ran, nothing reached out, nothing is left that could run."""
        assert self.js("window.__calls") == []
        assert self.outside == []
        assert self.js(f"({AUDIT})()") == []

    def texts(self, ids: list[str]) -> list[str | None]:
        """The text content of the elements with these ``data-node-id`` values."""
        find = 'id => document.querySelector(`[data-node-id="${CSS.escape(id)}"]`)?.textContent ?? null'
        return list(self.js(f"{json.dumps(ids)}.map({find})"))


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield Site(browser.new_page())
        finally:
            browser.close()


def as_script(compiled: str, into: str) -> str:
    """A CommonJS module as a classic script: its exports end up in ``window[into]``."""
    return (
        "(function (require, module, exports) {\n"
        f"{compiled}\n"
        f"window.{into} = module.exports;\n"
        "})(window.__runtime.require, { exports: {} }, {});\n"
    )


# --- HTML --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "svg"), CASES)
def test_the_html_page_runs_nothing_from_the_file(site: Site, text: str, svg: str) -> None:
    page = site.load({"/index.html": html.document(built(text, svg, embed=True), text)})
    page.check()
    assert page.js("document.title") == re.sub(r"[\t\n\f\r ]+", " ", text).strip("\t\n\f\r ")
    assert page.texts([shown(f"1:{text}"), shown(f"2:{text}")]) == [shown(text), shown(text) + "plain"]


# --- React -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "svg"), CASES)
def test_the_react_module_compiles_and_runs_nothing_from_the_file(
    site: Site, text: str, svg: str, tmp_path: Path
) -> None:
    module = react.module(built(text, svg, embed=False), text)
    assert fetched_from_outside(module) == []
    compile_react(module, tmp_path / "Design.tsx")
    compiled = compile_react(module, tmp_path / "Browser.tsx", module_format="cjs")
    index = (
        '<!doctype html><html><head><meta charset="utf-8"></head><body><div id="root"></div>'
        '<script data-harness src="/runtime.js"></script><script data-harness src="/app.js"></script>'
        '<script data-harness src="/mount.js"></script></body></html>'
    )
    files: dict[str, str | bytes] = {
        "/index.html": index,
        "/runtime.js": RUNTIME,
        "/app.js": as_script(compiled, "__exports"),
        "/mount.js": "window.__runtime.mount({ type: window.__exports.default, props: {} }, "
        'document.getElementById("root"));',
    }
    page = site.load(files)
    page.check()
    assert page.texts([f"1:{text}", f"2:{text}"]) == [text, text + "plain"]


# --- Vue ---------------------------------------------------------------------------------------------------------


class _Blocks(HTMLParser):
    """The top-level blocks of a single-file component, split as Vue's SFC parser splits them (``script`` and
    ``style`` are raw text up to their end tag), with every tag of the template and the text outside ``v-pre``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.loose_text: list[str] = []
        self._open: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self._open:
            self.blocks.append(tag)
        else:
            self.tags.append((tag, attrs))
        pre = any(name == "v-pre" for name, _ in attrs) or (bool(self._open) and self._open[-1][1])
        self._open.append((tag, pre))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self._open:
            self.blocks.append(tag)
        else:
            self.tags.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self._open and data.strip():
            self.blocks.append("#text")
        elif self._open and self._open[0][0] == "template" and not self._open[-1][1]:
            self.loose_text.append(data)


#: Attributes the Vue writer sets itself; everything else on a tag is a prop of a mapped component.
VUE_ATTRIBUTES = {"class", "data-node-id", "style", "v-pre", "v-html"}
PROP = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def inert_vue_template(blocks: _Blocks) -> None:
    """Every attribute of the template is one the writer sets, a static prop, or a prop bound to a JSON value (data,
    never an expression); ``v-html`` names only the script's SVG strings; text outside ``v-pre`` holds no ``{{``."""
    for tag, attrs in blocks.tags:
        for name, value in attrs:
            if name in VUE_ATTRIBUTES:
                assert name != "v-html" or re.fullmatch(r"svg\d+", value or ""), (tag, name, value)
                continue
            bare = name.removeprefix(":")
            assert PROP.fullmatch(bare), (tag, name)
            assert not re.match(r"on", bare, re.IGNORECASE) and bare.lower() not in {"innerhtml", "href"}, (tag, name)
            if name.startswith(":"):
                json.loads(value or "")
    assert not any("{{" in text for text in blocks.loose_text), blocks.loose_text


@pytest.mark.parametrize(("text", "svg"), CASES)
def test_the_vue_component_keeps_the_file_as_data(site: Site, text: str, svg: str, tmp_path: Path) -> None:
    design = built(text, svg, embed=False)
    sfc = vue.component(design)
    blocks = _Blocks()
    blocks.feed(sfc)
    blocks.close()
    assert blocks.blocks in (
        ["template", "script", "style", "style"],
        ["template", "script", "style"],
    ), blocks.blocks
    inert_vue_template(blocks)
    assert fetched_from_outside(sfc) == []
    found = re.fullmatch(
        r"<template>\n(?P<template>.*)\n</template>\n\n<script setup lang=\"ts\">\n(?P<script>.*?)\n</script>\n"
        r"(?P<styles>.*)",
        sfc,
        re.DOTALL,
    )
    assert found is not None
    svgs = sorted(set(re.findall(r'v-html="(svg\d+)"', found["template"])))
    script = found["script"] + f"\nexport const __svgs = {{ {', '.join(svgs)} }};\n"
    compiled = compile_react(script, tmp_path / "Component.ts", module_format="cjs")
    styles = re.sub(r"</?style( scoped)?>", "", found["styles"])
    index = (
        f'<!doctype html><html><head><meta charset="utf-8"><style>{styles}</style></head><body>'
        f'{found["template"]}<script data-harness src="/runtime.js"></script>'
        '<script data-harness src="/app.js"></script><script data-harness src="/mount.js"></script></body></html>'
    )
    files: dict[str, str | bytes] = {
        **{f"/assets/{asset.file_name}": base64.b64decode(asset.data) for asset in design.assets},
        "/index.html": index,
        "/runtime.js": RUNTIME,
        "/app.js": as_script(compiled, "__exports"),
        # v-html as Vue does it: the element's innerHTML is the bound string.
        "/mount.js": "for (const el of document.querySelectorAll('[v-html]')) "
        "el.innerHTML = window.__exports.__svgs[el.getAttribute('v-html')];",
    }
    page = site.load(files)
    page.check()
    assert page.texts([shown(f"1:{text}")]) == [shown(text)]


# --- the outline -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_the_outline_stays_one_xml_document(text: str) -> None:
    nodes, _, _ = hostile_design(text, "")
    nodes[1]["type"] = text
    tree = ET.fromstring(outline(nodes, 0, 1_000_000)[0])
    assert all(re.fullmatch(r"[a-z][a-z-]*", e.tag) for e in tree.iter())
    assert {e.get("name") for e in tree.iter() if e.tag != "layers"} == {text}
