"""Files that ship beside the code: the Desktop Bridge plugin (``plugin/``) and the service units (``systemd/``).

The repository's folders are their only copies. A built wheel carries them as package data under
``design_console/_bundled/`` (setup.py copies them there at build time); an editable install reads them from the
checkout it was installed from, which the installer recorded in the distribution's ``direct_url.json`` (PEP 610).
"""

from __future__ import annotations

import json
from importlib import metadata, resources
from pathlib import Path
from urllib.parse import urlsplit

DISTRIBUTION = "design-console-mcp"
#: Package folder the build copies the bundled folders into; setup.py writes the same name.
BUNDLE = "_bundled"


def bundled_dir(name: str) -> Path | None:
    """The folder ``name`` (``plugin`` or ``systemd``) of this installation, or None when it has none."""
    packaged = resources.files("design_console") / BUNDLE / name
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    checkout = _editable_checkout()
    if checkout is not None and (checkout / name).is_dir():
        return checkout / name
    return None


def _editable_checkout() -> Path | None:
    """The source folder of an editable install, as its installer recorded it; None for any other install.

    Every distribution of the name on ``sys.path`` is asked, in path order: a checkout also holds the
    ``*.egg-info`` its editable build left there, which comes first when the checkout is the working directory.
    """
    # Imported here: urllib.request brings the HTTP client, which designd (syncing the plugin at start) need not load
    # for an installed wheel.
    from urllib.request import url2pathname

    for dist in metadata.distributions(name=DISTRIBUTION):
        try:
            info = json.loads(dist.read_text("direct_url.json") or "{}")
        except ValueError:
            continue
        if not isinstance(info, dict) or not isinstance(info.get("dir_info"), dict):
            continue
        url = info.get("url")
        if info["dir_info"].get("editable") and isinstance(url, str) and url.startswith("file:"):
            return Path(url2pathname(urlsplit(url).path))
    return None
