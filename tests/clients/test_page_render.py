"""What a page being read for import may reach: every request passes the gate, WebRTC sends nothing past the closed
proxy, and a remote page never leads to this machine's network.

The network cases run in a namespace of the test's own (:mod:`fakes.netns`), where extra addresses on loopback stand
for the host's LAN address, a private network and cloud metadata: the old browser flags sent STUN packets and page
requests to them there, which is what these tests catch, and nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import netns

from design_console.clients import public_net
from design_console.clients.page_render import evaluate_in_page
from design_console.errors import DesignError
from design_console.runtime.user_files import FileScope

#: The page's text once the page has settled, for the in-process cases.
TEXT = "() => new Promise((r) => setTimeout(() => r(document.body.innerText), 300))"


class _Site(http.server.SimpleHTTPRequestHandler):
    """Serves a folder, records the path of each request it answers (a probe of another local program for a path
    the site does not have is not counted), and redirects ``/go?to=URL``."""

    seen: list[str]
    directory: str

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/go?to=") or Path(self.directory, self.path.lstrip("/")).is_file():
            self.seen.append(self.path)
        if self.path.startswith("/go?to="):
            self.send_response(302)
            self.send_header("Location", self.path.removeprefix("/go?to="))
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []
    handler = functools.partial(type("Site", (_Site,), {"seen": seen}), directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()
    thread.join()


async def _text(**kwargs: Any) -> tuple[str, list[str]]:
    options: dict[str, Any] = {"url": None, "html": None, "scope": FileScope()}
    reading = await evaluate_in_page(
        width=600, height=400, script=TEXT, argument=None, timeout=60, **{**options, **kwargs}
    )
    return str(reading.value), reading.refused


async def test_an_html_page_loads_nothing_but_data_and_names_each_refusal(
    site: tuple[str, list[str]],
) -> None:
    host, seen = site
    html = (
        "<img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='>"
        f"<img src='http://{host}/from-html.png'><img src='http://elsewhere.example/x.png'><p>done</p>"
    )
    text, refused = await _text(html=html)
    assert text == "done"
    assert seen == [], "an html page reaches nothing of this machine"
    assert sorted(refused) == [
        f"http://{host}/from-html.png: an address of this machine, which only a page served from this machine may "
        "reach",
        "http://elsewhere.example/x.png: not on this machine, and allowRemote is off",
    ]


async def test_a_file_page_loads_files_of_the_shared_folders_only(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (tmp_path / "secret.png").write_bytes(b"not shared")
    (shared / "inside.png").write_bytes(b"shared")
    (shared / "page.html").write_text("<img src='inside.png'><img src='../secret.png'><p>file page</p>")
    scope = FileScope(cwd=shared, roots=(shared,))
    text, refused = await _text(url=(shared / "page.html").as_uri(), scope=scope)
    assert text == "file page"
    assert refused == [f"{(tmp_path / 'secret.png').as_uri()}: a file outside the folders the AI app shares"]


async def test_a_loopback_page_loads_its_own_parts_and_nothing_remote(
    site: tuple[str, list[str]], tmp_path: Path
) -> None:
    host, seen = site
    (tmp_path / "part.txt").write_text("part")
    (tmp_path / "page.html").write_text(
        "<p id=p>waiting</p><img src='http://elsewhere.example/x.png'>"
        "<script>fetch('/part.txt').then(r => r.text()).then(t => { p.textContent = t })</script>"
    )
    text, refused = await _text(url=f"http://{host}/page.html")
    assert text == "part"
    assert seen == ["/page.html", "/part.txt"]
    assert refused == ["http://elsewhere.example/x.png: not on this machine, and allowRemote is off"]


@pytest.mark.parametrize(
    "url",
    [
        "http://10.1.2.3/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fc00::1]/",
        "http://[fe80::1]/",
        "http://100.64.0.1/",
    ],
)
async def test_allow_remote_refuses_a_private_page_before_any_browser(url: str) -> None:
    with pytest.raises(DesignError) as err:
        await _text(url=url, allow_remote=True)
    assert err.value.code == "url_not_allowed" and "DESIGN_IMAGE_PRIVATE_HOSTS" in err.value.hint


async def test_a_remote_page_is_fetched_through_one_pinned_address(
    site: tuple[str, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """site.test first resolves to the page's server, then (a rebinding DNS) to an address where nothing listens:
    every request of the render, redirects included, still goes to the address checked first. The browser itself
    resolves no name, so what loaded was fetched by the gate."""
    host, seen = site
    port = int(host.rsplit(":", 1)[1])
    (tmp_path / "page.html").write_text(
        "<p id=p>waiting</p><script>fetch('/go?to=/part.txt').then(r => r.text()).then(t => { p.textContent = t })"
        "</script>"
    )
    (tmp_path / "part.txt").write_text("fetched through the gate")
    answers = iter(["127.0.0.1"] + ["127.0.0.9"] * 20)
    real = socket.getaddrinfo

    def rebinding(name: Any, *args: Any, **kwargs: Any) -> Any:
        if name == "site.test":
            return real(next(answers), *args, **kwargs)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    text, refused = await _text(url=f"http://site.test:{port}/page.html", allow_remote=True, allow_private=True)
    assert (text, refused) == ("fetched through the gate", [])
    assert seen == ["/page.html", "/go?to=/part.txt", "/part.txt"]


async def test_pins_resolve_a_host_once() -> None:
    pins = public_net.Pins(allow_private=True, what="pages", instead="Serve it locally")
    calls: list[str] = []
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo

    async def counting(host: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(host)
        return await real("127.0.0.1", *args, **kwargs)

    loop.getaddrinfo = counting  # type: ignore[method-assign]
    try:
        assert await pins.address("Site.test", 80, "u") == await pins.address("site.test", 80, "u") == "127.0.0.1"
    finally:
        del loop.getaddrinfo
    assert calls == ["Site.test"]


#: Run inside the namespace: a UDP and a TCP listener on the host's stand-in LAN address, a page that gathers ICE
#: candidates against STUN and TURN servers there and writes them into its own text, then the page walk and the
#: conversion that builds layers.
WEBRTC = r"""
import asyncio, json, socket, threading
from design_console.clients.page_render import evaluate_in_page
from design_console.engines.web_import.convert import convert_page
from design_console.engines.web_import.page_walk import PAGE_WALK
from design_console.runtime.user_files import FileScope

LAN = "198.18.0.1"
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind((LAN, 3478))
tcp = socket.socket()
tcp.bind((LAN, 3478))
tcp.listen()
counts = {"udp": 0, "tcp": 0}

def count_udp():
    while True:
        udp.recvfrom(4096)
        counts["udp"] += 1

def count_tcp():
    while True:
        tcp.accept()
        counts["tcp"] += 1

threading.Thread(target=count_udp, daemon=True).start()
threading.Thread(target=count_tcp, daemon=True).start()
HTML = '''<body><p id="out">no candidates</p><script>
const pc = new RTCPeerConnection({iceServers: [
  {urls: ["stun:198.18.0.1:3478", "stun:stun.example.net:3478"]},
  {urls: ["turn:198.18.0.1:3478?transport=udp", "turn:198.18.0.1:3478?transport=tcp"], username: "u", credential: "p"},
]});
const found = [];
pc.onicecandidate = (e) => { if (e.candidate && e.candidate.candidate) {
  found.push(e.candidate.candidate); document.getElementById("out").textContent = found.join(" | "); } };
pc.createDataChannel("x");
pc.createOffer().then((o) => pc.setLocalDescription(o));
</script></body>'''
SCRIPT = "(arg) => new Promise((r) => setTimeout(r, 3000)).then(() => (" + PAGE_WALK + ")(arg))"

async def main():
    reading = await evaluate_in_page(url=None, html=HTML, width=800, height=600, script=SCRIPT,
        argument={"limit": 2000, "maxImageBytes": 1000000}, timeout=60, scope=FileScope())
    layers = convert_page(reading.value, width=800, name="page").root
    print(json.dumps({**counts, "layers": json.dumps(layers)}))

asyncio.run(main())
"""


def test_webrtc_sends_no_packet_and_no_host_address_reaches_the_layers() -> None:
    found = netns.run(["198.18.0.1/32"], WEBRTC)
    assert (found["udp"], found["tcp"]) == (0, 0)
    assert "198.18.0.1" not in found["layers"]
    assert "no candidates" in found["layers"] or "typ host" not in found["layers"]


#: Run inside the namespace: servers on a private address and on the cloud metadata address that count what reaches
#: them, and a loopback page (read with allowRemote) that asks for them in every way a page can.
PRIVATE = r"""
import asyncio, functools, http.server, json, threading
from design_console.clients.page_render import evaluate_in_page
from design_console.runtime.user_files import FileScope

hits = []

class Count(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        hits.append(f"{self.server.server_address[0]}{self.path}")
        self.send_response(302 if self.path == "/go" else 200)
        if self.path == "/go":
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
        self.end_headers()
        if self.path == "/page.html":
            self.wfile.write(PAGE.encode())

PAGE = '''<p>page</p><img src="http://10.255.0.1/img.png"><iframe src="http://169.254.169.254/latest/"></iframe>
<script>fetch("http://10.255.0.1/fetch").catch(() => {}); fetch("/go").catch(() => {});
new Worker(URL.createObjectURL(new Blob(['fetch("http://10.255.0.1/worker").catch(() => {})'])));</script>'''

for address in ("127.0.0.1", "10.255.0.1", "169.254.169.254"):
    server = http.server.ThreadingHTTPServer((address, 80), Count)
    threading.Thread(target=server.serve_forever, daemon=True).start()

async def main():
    reading = await evaluate_in_page(url="http://127.0.0.1/page.html", html=None, width=800, height=600,
        script="() => new Promise((r) => setTimeout(() => r(document.body.innerText), 1500))", argument=None,
        timeout=60, scope=FileScope(), allow_remote=True)
    print(json.dumps({"hits": hits, "refused": reading.refused, "text": reading.value}))

asyncio.run(main())
"""


def test_allow_remote_never_reaches_private_networks_from_a_page() -> None:
    found = netns.run(["10.255.0.1/32", "169.254.169.254/32"], PRIVATE)
    assert [hit for hit in found["hits"] if not hit.startswith("127.0.0.1")] == []
    refused = " | ".join(found["refused"])
    for url in ("http://10.255.0.1/img.png", "http://10.255.0.1/fetch", "http://169.254.169.254/latest/meta-data/"):
        assert f"{url}: http://" in refused or f"{url}: " in refused, (url, refused)
    assert "private network" in refused
    assert json.dumps(found["text"]).startswith('"page')
