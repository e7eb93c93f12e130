"""Real pages that none of us wrote, for the design ↔ code loop: example pages that open-source projects publish on
the npm registry, installed as pinned dev dependencies (package.json) by ``scripts/setup --test``, and served
offline from this machine.

Sources (each package's licence is MIT; its version is the one package.json pins):

- Start Bootstrap's templates (``startbootstrap-*``): Bootstrap 5 landing, blog, portfolio and sidebar pages, each
  with its compiled CSS and images in the package. Their web fonts, icon kit and Bootstrap script come from CDNs.
- HTML5 Boilerplate (``html5-boilerplate``): its starter page and its 404 page, with their own CSS.

A page loads nothing from outside: :func:`serving` answers only for the corpus packages on a loopback port, the
design tool's render refuses every request off this machine (clients/page_render.py), and a browser page opened
with :func:`keep_offline` aborts such requests at once, so CDN fonts and scripts simply do not load, the same way
on every machine.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Page, Route

NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"


@dataclass(frozen=True)
class RealPage:
    """One page of the corpus: a short name for reports, the npm package that ships it, its path in the package."""

    name: str
    package: str
    path: str

    @property
    def file(self) -> Path:
        """Where the installed package holds the page."""
        return NODE_MODULES / self.package / self.path

    def url(self, site: str) -> str:
        """The page's address on a site of :func:`serving`."""
        return f"{site}/{self.package}/{self.path}"


PAGES: tuple[RealPage, ...] = (
    RealPage("clean-blog", "startbootstrap-clean-blog", "dist/index.html"),
    RealPage("clean-blog-post", "startbootstrap-clean-blog", "dist/post.html"),
    RealPage("clean-blog-contact", "startbootstrap-clean-blog", "dist/contact.html"),
    RealPage("landing-page", "startbootstrap-landing-page", "dist/index.html"),
    RealPage("freelancer", "startbootstrap-freelancer", "dist/index.html"),
    RealPage("agency", "startbootstrap-agency", "dist/index.html"),
    RealPage("resume", "startbootstrap-resume", "dist/index.html"),
    RealPage("new-age", "startbootstrap-new-age", "dist/index.html"),
    RealPage("simple-sidebar", "startbootstrap-simple-sidebar", "dist/index.html"),
    RealPage("h5bp", "html5-boilerplate", "dist/index.html"),
    RealPage("h5bp-404", "html5-boilerplate", "dist/404.html"),
)

PACKAGES = frozenset(page.package for page in PAGES)


def missing() -> list[str]:
    """The corpus packages that are not installed (``scripts/setup --test`` or ``npm ci`` installs them)."""
    return sorted({page.package for page in PAGES if not page.file.is_file()})


class _CorpusHandler(http.server.SimpleHTTPRequestHandler):
    """Serves node_modules, but only the corpus packages: the rest of node_modules is not a page of anyone's."""

    def send_head(self) -> Any:
        package = urlsplit(self.path).path.lstrip("/").split("/", 1)[0]
        if package not in PACKAGES:
            self.send_error(404, f"{package or '/'} is not a package of the real-page corpus")
            return None
        return super().send_head()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serving() -> Iterator[str]:
    """The corpus served on a loopback port while the block runs; yields the site's base URL (no trailing slash)."""
    handler = functools.partial(_CorpusHandler, directory=str(NODE_MODULES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


_LOCAL_SCHEMES = {"data", "blob", "about"}
_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in _LOCAL_SCHEMES or (parts.hostname or "") in _LOOPBACK_HOSTS


async def _gate(route: Route) -> None:
    if _is_local(route.request.url):
        await route.continue_()
    else:
        await route.abort("internetdisconnected")


async def keep_offline(target: Page | BrowserContext) -> None:
    """Make ``target`` abort every request off this machine at once, as the design tool's render refuses them: the
    page looks the same in the reference screenshot as in the import, and nothing waits for a network timeout."""
    await target.route("**/*", _gate)
