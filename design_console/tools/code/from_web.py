"""design_generate_from_web: a web page, laid out in the local headless browser, built as editable layers.

The page is read in the browser (:mod:`design_console.clients.page_render` running
:data:`~design_console.engines.web_import.page_walk.PAGE_WALK`), converted by
:mod:`design_console.engines.web_import.convert` against the file's local variables, and built by the plugin's
CREATE_NODE_TREE in one command: one undo step, all or nothing. Only pages of this machine are read unless the caller
passes ``allowRemote``: ``http(s)`` on a loopback address, or a ``file:`` page inside the folders the AI app shares.
"""

from __future__ import annotations

import base64
import io
import re
import time
from pathlib import PurePosixPath
from typing import Annotated, Any
from urllib.parse import unquote, urlsplit

from msgspec import Meta

from design_console.clients.addresses import is_loopback
from design_console.engines.web_import.convert import LocalVariable, convert_page, entry_path
from design_console.engines.web_import.page_walk import PAGE_WALK
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import FILL_FORMATS, Method
from design_console.protocol import ToolOutput
from design_console.runtime.user_files import FileScope, read_bytes, resolve
from design_console.tools.args import NodeId
from design_console.tools.base import Args, ok, plugin_write
from design_console.tools.code.mappings import mapped_components
from design_console.tools.context import ApiContext

#: Loading, laying out and reading a page; a page that takes longer is not one to import whole.
PAGE_TIMEOUT_S = 60.0
#: The walk reads at most this many entries per allowed layer: most elements of a page leave no layer of their own.
ENTRIES_PER_NODE = 5
#: An image larger than this is left out (the plugin takes images up to 32 MiB; a page rarely needs one this big).
MAX_IMAGE_BYTES = 8 * 1024 * 1024
#: All images of one page together, as base64: the whole tree travels to the plugin in one bridge frame (64 MiB).
MAX_IMAGES_CHARS = 40 * 1024 * 1024
MAX_HTML_BYTES = 2_000_000
#: The image formats a layer takes as they are (Pillow's names); others are converted to PNG.
LAYER_FORMATS = set(FILL_FORMATS)


class FromWebArgs(Args):
    url: str | None = None
    html: str | None = None
    width: Annotated[int, Meta(ge=200, le=4000)] = 1280
    height: Annotated[int, Meta(ge=200, le=4000)] = 800
    name: str | None = None
    parentId: NodeId | None = None
    maxNodes: Annotated[int, Meta(ge=1, le=20000)] = 3000
    allowRemote: bool = False


def checked_url(url: str, scope: FileScope, allow_remote: bool) -> str:
    """``url`` as the browser loads it, once it is allowed: http(s) on a loopback address or a ``file:`` page in
    the shared folders, anything http(s) with ``allow_remote``. Raises DesignError otherwise."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "file":
        path = resolve(unquote(parts.path), scope, argument="url")
        return path.as_uri()
    if scheme not in ("http", "https") or not parts.hostname:
        raise DesignError(
            ErrorCode.URL_NOT_ALLOWED,
            f"url {url!r} is not an http(s) address or a file: path.",
            "Pass http://127.0.0.1:PORT/… for a page served on this machine, or file:///path/page.html.",
        )
    if not allow_remote and not is_loopback(parts.hostname):
        raise DesignError(
            ErrorCode.URL_NOT_ALLOWED,
            f"{parts.hostname} is not a loopback address: pass allowRemote: true to read a page of another host.",
            "Pass allowRemote: true if the user wants this page read (it is fetched from the network), or serve the "
            "page locally.",
        )
    return url


def local_variables(data: dict[str, Any]) -> list[LocalVariable]:
    """The file's colour and number variables with their default mode's value (aliases left out), from
    GET_VARIABLES_DATA."""
    default_mode = {c["id"]: c.get("defaultModeId") for c in data.get("variableCollections") or []}
    found = []
    for var in data.get("variables") or []:
        if var.get("remote") or var.get("resolvedType") not in ("COLOR", "FLOAT"):
            continue
        value = (var.get("valuesByMode") or {}).get(default_mode.get(var.get("variableCollectionId")))
        scopes = tuple(var.get("scopes") or ("ALL_SCOPES",))
        if isinstance(value, dict) and "r" in value:
            color = (float(value["r"]), float(value["g"]), float(value["b"]), float(value.get("a", 1)))
            found.append(LocalVariable(var["id"], var["name"], color, scopes))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found.append(LocalVariable(var["id"], var["name"], float(value), scopes))
    return found


def component_names(mappings: list[dict[str, Any]], wanted: set[str]) -> dict[str, str]:
    """Each ``data-component`` value of ``wanted`` that names a mapped component (its export, its source module's
    name or the component's name) → the component's id."""
    found: dict[str, str] = {}
    for mapping in sorted(mappings, key=lambda m: str(m.get("componentId"))):
        if "invalid" in mapping:
            continue
        export = mapping.get("exportName") or ""
        module = PurePosixPath(str(mapping.get("source") or "")).stem
        names = {str(mapping.get("name") or ""), module, export if export != "default" else ""} - {""}
        for value in wanted & names:
            found.setdefault(value, str(mapping["componentId"]))
    return found


def _linked_image(data: bytes, as_vector: bool) -> dict[str, str]:
    """A linked file's bytes as the walk would have carried them: PNG, JPEG and GIF as they are, an SVG as markup
    (where a vector may stand), any other image Pillow reads as PNG. Raises ValueError naming what it is not."""
    head = data[:512].lstrip()
    if head.startswith((b"<svg", b"<?xml")) and b"<svg" in head:
        if not as_vector:
            raise ValueError("an SVG background of a file: page is not carried (serve the page over http instead)")
        return {"svg": data.decode("utf-8", "replace")}
    # Here, not at the top: listing the catalog must not load Pillow.
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.format in LAYER_FORMATS:
                return {"data": base64.b64encode(data).decode()}
            out = io.BytesIO()
            img.convert("RGBA").save(out, "PNG")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ValueError(f"not an image this machine can read ({exc})") from None
    return {"data": base64.b64encode(out.getvalue()).decode()}


def _read_linked_images(page: dict[str, Any], scope: FileScope, warnings: list[str]) -> None:
    """Replace each image a ``file:`` page names (``{"file": url}``) by its bytes, when it is in a shared folder;
    one that cannot be read is left out and named."""
    entries = page["entries"]
    for index, entry in enumerate(entries):
        slots: list[tuple[dict[str, Any], str, bool]] = [(entry, "image", entry.get("tag") == "img")]
        slots += [(layer, "image", False) for layer in entry.get("backgrounds") or []]
        for holder, key, as_vector in slots:
            ref = holder.get(key)
            if not isinstance(ref, dict):
                continue
            url = str(ref.get("file", ""))
            holder[key] = None
            try:
                data = read_bytes(unquote(urlsplit(url).path), scope, max_bytes=MAX_IMAGE_BYTES, argument="image")
                found = _linked_image(data, as_vector)
            except DesignError as exc:
                warnings.append(f"image of {entry_path(entries, index)} ({url}) left out: {exc.message}")
                continue
            except ValueError as exc:
                warnings.append(f"image of {entry_path(entries, index)} ({url}) left out: {exc}")
                continue
            if "svg" in found:
                entry["svg"] = _sized_svg(found["svg"], entry["w"], entry["h"])
            else:
                holder[key] = found["data"]


def _sized_svg(markup: str, width: float, height: float) -> str:
    """SVG markup whose root says the size it is shown at."""
    root = re.search(r"<svg\b[^>]*>", markup)
    if root is None:
        return markup
    tag = re.sub(r'\s(width|height)="[^"]*"', "", root.group())
    tag = tag[:4] + f' width="{width:g}" height="{height:g}"' + tag[4:]
    return markup[: root.start()] + tag + markup[root.end() :]


@plugin_write(
    "design_generate_from_web",
    "Build a web page (url or html, via headless Chrome) as layers in one undo step.",
    toolset="code",
    open_world=True,
    uses_files=True,
)
async def design_generate_from_web(ctx: ApiContext, args: FromWebArgs) -> ToolOutput:
    """Read the page, convert it against the file's variables, and build it through the plugin."""
    if (args.url is None) == (args.html is None):
        raise DesignError(
            ErrorCode.BAD_ARGUMENT, "Pass url or html (one of them).", "Give the page's address or markup."
        )
    if args.html is not None and len(args.html.encode()) > MAX_HTML_BYTES:
        raise DesignError(
            ErrorCode.TOO_LARGE,
            f"html is over {MAX_HTML_BYTES:,} bytes.",
            "Serve the page on this machine and pass its url instead.",
        )
    url = checked_url(args.url, ctx.file_scope, args.allowRemote) if args.url is not None else None
    started = time.monotonic()
    await ctx.progress(0, 3, "Reading the file's variables")
    variables = local_variables(await ctx.bridge(Method.GET_VARIABLES_DATA))
    await ctx.progress(1, 3, "Loading and laying out the page")
    # Imported here, in the api worker that runs this: the browser client's WebSocket stack would slow designd's start.
    from design_console.clients.page_render import evaluate_in_page

    read_at = time.monotonic()
    reading = await evaluate_in_page(
        url=url,
        html=args.html,
        width=args.width,
        height=args.height,
        script=PAGE_WALK,
        argument={"limit": args.maxNodes * ENTRIES_PER_NODE, "maxImageBytes": MAX_IMAGE_BYTES},
        timeout=PAGE_TIMEOUT_S,
        scope=ctx.file_scope,
        allow_remote=args.allowRemote,
        allow_private=ctx.config.image_private_hosts,
        browser=ctx.config.browser_path,
    )
    page = reading.value
    if page.get("truncated"):
        raise _too_many(f"{page.get('elements', 0):,} elements, too many to read whole", args.maxNodes)
    convert_at = time.monotonic()
    warnings = reading.refusal_warnings()
    _read_linked_images(page, ctx.file_scope, warnings)
    name = args.name or page.get("title") or (args.url or "Web page")
    wanted = {str(e["component"]) for e in page["entries"] if e.get("component")}
    components: dict[str, str] = {}
    if wanted:
        mapped = await mapped_components(ctx)
        components = component_names(mapped, wanted)
    result = convert_page(page, width=args.width, name=str(name)[:200], variables=variables, components=components)
    if result.node_count > args.maxNodes:
        raise _too_many(f"{result.node_count:,} layers", args.maxNodes)
    warnings.extend(within_image_budget(result.images))
    await ctx.progress(2, 3, f"Building {result.node_count:,} layers")
    params: dict[str, Any] = {"spec": result.root, "images": result.images}
    if args.parentId is not None:
        params["parentId"] = args.parentId
    build_at = time.monotonic()
    built = await ctx.bridge(Method.CREATE_NODE_TREE, params)
    done_at = time.monotonic()
    # No step of our own after the build: the plugin's progress (layers built of all) ends the call's, and a step
    # counted in threes after it would go backwards.
    return ok(
        {
            "rootId": built["rootId"],
            "name": built.get("name", name),
            "width": args.width,
            "height": result.root["height"],
            "counts": built.get("counts", {}),
            "boundVariables": [{"name": k, **v} for k, v in sorted(result.bound.items())],
            "warnings": [*warnings, *result.warnings, *built.get("warnings", [])],
            "seconds": round(done_at - started, 2),
            # Where the time went: loading and reading the page, converting it, building it in the design tool.
            "timings": {
                "page": round(convert_at - read_at, 2),
                "convert": round(build_at - convert_at, 2),
                "build": round(done_at - build_at, 2),
            },
        }
    )


def within_image_budget(images: list[str]) -> list[str]:
    """Leaves the largest images out (emptied in place: the plugin names each layer that used one) until all of them
    fit in one build; says which."""
    total = sum(len(data) for data in images)
    left_out = []
    for index in sorted(range(len(images)), key=lambda i: -len(images[i])):
        if total <= MAX_IMAGES_CHARS:
            break
        total -= len(images[index])
        left_out.append(f"images[{index}] ({len(images[index]) * 3 // 4:,} bytes)")
        images[index] = ""
    if not left_out:
        return []
    return [
        f"the page's images are over the {MAX_IMAGES_CHARS * 3 // 4:,} bytes one build carries: "
        f"{', '.join(left_out)} left out, the largest first"
    ]


def _too_many(what: str, limit: int) -> DesignError:
    return DesignError(
        ErrorCode.TOO_LARGE,
        f"The page has {what}; maxNodes is {limit:,}. Nothing was built.",
        "Raise maxNodes (up to 20,000), or pass a smaller page or part of it (html).",
    )
