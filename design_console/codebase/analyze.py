"""What a codebase is built with and what its UI is made of: frameworks, styling, vendored UI layers, the components
it defines and renders ranked by use, and the shape of its folders."""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from design_console.codebase.source import COMPONENT_SUFFIXES, SCRIPT_SUFFIXES, TEMPLATE_SUFFIXES, blank, scan_script
from design_console.codebase.walk import TSCONFIG, SourceFile

#: A dependency that names a framework → the framework.
FRAMEWORK_PACKAGES: dict[str, str] = {
    "next": "next",
    "react": "react",
    "preact": "preact",
    "react-native": "react-native",
    "vue": "vue",
    "nuxt": "nuxt",
    "svelte": "svelte",
    "@sveltejs/kit": "sveltekit",
    "astro": "astro",
    "@angular/core": "angular",
    "solid-js": "solid",
    "lit": "web-components",
    "@stencil/core": "web-components",
    "@remix-run/react": "remix",
    "react-router": "react-router",
    "vite": "vite",
    "@storybook/react": "storybook",
    "storybook": "storybook",
}
#: Files whose extension alone says which framework wrote them.
FRAMEWORK_SUFFIXES = {".vue": "vue", ".svelte": "svelte", ".astro": "astro", ".tsx": "react", ".jsx": "react"}
#: A dependency that names a way of styling → that styling.
STYLING_PACKAGES: dict[str, str] = {
    "tailwindcss": "tailwind",
    "@tailwindcss/vite": "tailwind",
    "@tailwindcss/postcss": "tailwind",
    "sass": "scss",
    "node-sass": "scss",
    "less": "less",
    "styled-components": "styled-components",
    "@emotion/react": "emotion",
    "@emotion/styled": "emotion",
    "@vanilla-extract/css": "vanilla-extract",
    "@stitches/react": "stitches",
    "class-variance-authority": "cva",
    "bootstrap": "bootstrap",
    "@mui/material": "mui",
    "@chakra-ui/react": "chakra",
    "@radix-ui/themes": "radix-themes",
    "antd": "antd",
}
#: Packages whose components a codebase builds on: their imports form a vendor layer.
UI_LIBRARIES = re.compile(
    r"^(radix-ui|@radix-ui/|@headlessui/|@mui/|@chakra-ui/|@mantine/|antd|react-bootstrap|@ark-ui/|@base-ui|"
    r"react-aria|@react-aria/|lucide-react|@heroicons/|react-icons|@tabler/icons|vaul|cmdk|sonner|bits-ui|"
    r"reka-ui|@nextui-org/|@heroui/|primereact|@fluentui/|@shoelace-style/)"
)
#: Folders whose name says what part of an app they hold.
ROLE_DIRS: dict[str, str] = {
    "app": "routes",
    "pages": "routes",
    "routes": "routes",
    "views": "routes",
    "components": "components",
    "ui": "components",
    "hooks": "hooks",
    "composables": "hooks",
    "lib": "lib",
    "utils": "lib",
    "styles": "styles",
    "theme": "styles",
    "tokens": "styles",
    "stories": "stories",
    "assets": "assets",
    "store": "state",
    "stores": "state",
    "api": "api",
}


@dataclass(slots=True)
class Component:
    """A component of the inventory: where it is defined (if in the code), where it comes from otherwise, and use."""

    name: str
    file: str = ""
    line: int = 0
    target: str = ""
    package: str = ""
    uses: int = 0
    used_in: set[str] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        """The component as a result entry (empty fields left out)."""
        out: dict[str, Any] = {"name": self.name, "uses": self.uses, "files": len(self.used_in)}
        if self.file:
            out["defined"] = f"{self.file}:{self.line}"
        if self.package:
            out["package"] = self.package
        return out


def _dependencies(files: list[SourceFile]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """All dependencies named by the package.json files (name → version) and the packages themselves."""
    deps: dict[str, str] = {}
    packages = []
    for f in files:
        if f.name != "package.json":
            continue
        try:
            data = json.loads(f.text)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        for key in ("dependencies", "devDependencies", "peerDependencies"):
            section = data.get(key)
            if isinstance(section, dict):
                deps.update({str(k): str(v) for k, v in section.items()})
        entry: dict[str, Any] = {"path": f.path, "name": data.get("name", "")}
        if data.get("workspaces"):
            entry["workspaces"] = data["workspaces"]
        packages.append(entry)
    return deps, packages


def _resolve(importer: str, module: str) -> str:
    """The file stem a relative import points at (``./button`` from ``src/a.tsx`` → ``src/button``)."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))


def _stem(path: str) -> str:
    stem = posixpath.splitext(path)[0]
    return stem[: -len("/index")] if stem.endswith("/index") else stem


def _alias_resolve(module: str, aliases: dict[str, str]) -> str | None:
    for prefix, folder in aliases.items():
        if module == prefix or module.startswith(prefix + "/"):
            return posixpath.normpath(folder + module[len(prefix) :])
    return None


def _json_with_comments(text: str) -> Any:
    """A tsconfig-style JSON text (comments, trailing commas) as data; None when it cannot be read."""
    try:
        return json.loads(re.sub(r",(\s*[}\]])", r"\1", blank(text, strings=False)))
    except ValueError:
        return None


def path_aliases(files: list[SourceFile]) -> dict[str, str]:
    """Import aliases (``@/`` → ``src/``) from the ``paths`` of tsconfig/jsconfig files, else from conventions: the
    folder of shadcn's components.json, or ``src``. Longest first, so ``@components`` wins over ``@``."""
    aliases: dict[str, str] = {}
    for f in files:
        if not (TSCONFIG.match(f.name) or f.name == "jsconfig.json"):
            continue
        options = (_json_with_comments(f.text) or {}).get("compilerOptions") or {}
        paths = options.get("paths") if isinstance(options, dict) else None
        if not isinstance(paths, dict):
            continue
        base = posixpath.normpath(posixpath.join(posixpath.dirname(f.path), str(options.get("baseUrl") or ".")))
        for key, targets in paths.items():
            if isinstance(targets, list) and targets and isinstance(targets[0], str):
                aliases.setdefault(
                    key.removesuffix("/*"), posixpath.normpath(posixpath.join(base, targets[0].removesuffix("/*")))
                )
    for f in files:
        if f.name == "components.json":
            aliases.setdefault("@", posixpath.dirname(f.path) or ".")
    if "@" not in aliases and any(f.path.startswith("src/") for f in files):
        aliases["@"] = "src"
    aliases.setdefault("~", "src")
    return dict(sorted(aliases.items(), key=lambda kv: -len(kv[0])))


def analyze(files: list[SourceFile]) -> dict[str, Any]:
    """The full analysis of the files of a scan (see the module docstring); components ranked by use."""
    deps, packages = _dependencies(files)
    frameworks: Counter[str] = Counter()
    for dep in deps:
        if dep in FRAMEWORK_PACKAGES:
            frameworks[FRAMEWORK_PACKAGES[dep]] += 1
    for f in files:
        if f.suffix in FRAMEWORK_SUFFIXES:
            frameworks[FRAMEWORK_SUFFIXES[f.suffix]] += 1
    styling: Counter[str] = Counter(STYLING_PACKAGES[d] for d in deps if d in STYLING_PACKAGES)
    for f in files:
        if f.suffix in (".scss", ".sass"):
            styling["scss"] += 1
        elif f.suffix == ".less":
            styling["less"] += 1
        elif f.path.endswith(".module.css"):
            styling["css-modules"] += 1
        elif f.suffix == ".css":
            styling["css"] += 1
            if re.search(r"@import\s+[\"']tailwindcss|@tailwind\s+base|@theme\b", f.text):
                styling["tailwind"] += 1
        if f.name == "components.json" and '"aliases"' in f.text:
            styling["shadcn"] += 1
        if f.name.startswith("tailwind.config."):
            styling["tailwind"] += 1

    aliases = path_aliases(files)
    by_stem: dict[str, SourceFile] = {}
    scans = {}
    for f in files:
        if f.suffix in SCRIPT_SUFFIXES or f.suffix in TEMPLATE_SUFFIXES:
            by_stem[_stem(f"{f.target}\0{f.path}")] = f
            scans[f.path, f.target] = scan_script(f.text, f.suffix)
    defined: dict[tuple[str, str], Component] = {}
    by_name: dict[str, list[Component]] = {}
    for f in files:
        scan = scans.get((f.path, f.target))
        if scan is None:
            continue
        if f.suffix in TEMPLATE_SUFFIXES:
            name = posixpath.splitext(f.name)[0]
            if name[:1].isupper():
                comp = Component(name, f.path, 1, f.target)
                defined[f.target, f.path + "#" + name] = comp
                defined[f.target, f.path + "#default"] = comp
                by_name.setdefault(name, []).append(comp)
        if f.suffix not in COMPONENT_SUFFIXES:
            continue
        for d in scan.definitions:
            comp = Component(d.name, f.path, d.line, f.target)
            defined[f.target, f.path + "#" + d.name] = comp
            if d.default:
                defined[f.target, f.path + "#default"] = comp
            by_name.setdefault(d.name, []).append(comp)

    external: dict[str, Component] = {}
    vendor_imports: Counter[str] = Counter()
    for f in files:
        scan = scans.get((f.path, f.target))
        if scan is None:
            continue
        for module in set(scan.imports.values()):
            package = _package_name(module)
            if package and UI_LIBRARIES.match(package):
                vendor_imports[package] += 1
        for use in scan.usages:
            head = use.tag.split(".")[0]
            found = _find(f, head, use.tag, scan.imports, by_name, defined, aliases, by_stem)
            if found is None:
                source_module = scan.imports.get(head)
                package = _package_name(source_module) if source_module else ""
                if not package:
                    continue
                found = external.setdefault(use.tag, Component(use.tag, package=package))
            comp = found
            comp.uses += 1
            comp.used_in.add(f.path)

    unique = {id(c): c for c in defined.values()}  # a default export is listed under two keys
    components = sorted(
        [*unique.values(), *external.values()], key=lambda c: (-c.uses, c.package != "", c.name, c.file)
    )
    return {
        "frameworks": [name for name, _ in frameworks.most_common()],
        "styling": [name for name, _ in styling.most_common()],
        "vendorLayers": _vendor_layers(files, defined.values(), vendor_imports),
        "components": components,
        "architecture": _architecture(files, packages),
        "dependencies": deps,
    }


def _package_name(module: str) -> str:
    """The npm package an import names (empty for relative or aliased paths)."""
    if module.startswith((".", "/", "@/", "~/", "$lib")):
        return ""
    parts = module.split("/")
    return "/".join(parts[:2]) if module.startswith("@") and len(parts) > 1 else parts[0]


def _find(
    f: SourceFile,
    head: str,
    tag: str,
    imports: dict[str, str],
    by_name: dict[str, list[Component]],
    defined: dict[tuple[str, str], Component],
    aliases: dict[str, str],
    by_stem: dict[str, SourceFile],
) -> Component | None:
    """The component of the codebase a tag renders: defined in the same file, or imported from a file of the scan
    (a relative or aliased path); None for other tags."""
    name = tag if "." not in tag else tag.split(".")[-1]
    local = defined.get((f.target, f.path + "#" + head))
    if local is not None and "." not in tag:
        return local
    module = imports.get(head)
    if module is None:
        return None
    if module.startswith("."):
        stem = _resolve(f.path, module)
    else:
        stem = _alias_resolve(module, aliases) or ""
        if not stem:
            return None
    source = by_stem.get(_stem(f"{f.target}\0{stem}")) or by_stem.get(f"{f.target}\0{stem}")
    if source is not None:
        found = defined.get((f.target, source.path + "#" + (head if "." not in tag else name)))
        if found is None and "." not in tag:
            # A default import takes any local name: `import DocsIcon from "./IconDocumentation.vue"`.
            found = defined.get((f.target, source.path + "#default"))
        if found is not None:
            return found
    # A barrel file (index.ts re-exporting): the one definition of that name in the scan, if it is unique.
    candidates = [c for c in by_name.get(head if "." not in tag else name, []) if c.target == f.target]
    return candidates[0] if len(candidates) == 1 else None


def _vendor_layers(files: list[SourceFile], defined: Any, vendor_imports: Counter[str]) -> list[dict[str, Any]]:
    """Vendored UI layers: shadcn-style ``components/ui`` folders copied into the code, and UI libraries imported."""
    layers: list[dict[str, Any]] = []
    ui_dirs: Counter[str] = Counter()
    for comp in defined:
        folder = posixpath.dirname(comp.file)
        if posixpath.basename(folder) == "ui" and posixpath.basename(posixpath.dirname(folder)) == "components":
            ui_dirs[folder] += 1
    shadcn = any(f.name == "components.json" for f in files)
    for folder, count in sorted(ui_dirs.items()):
        layers.append({"kind": "shadcn-ui" if shadcn else "ui-kit", "path": folder, "components": count})
    for package, count in vendor_imports.most_common(15):
        layers.append({"kind": "package", "package": package, "importingFiles": count})
    return layers


def _architecture(files: list[SourceFile], packages: list[dict[str, Any]]) -> dict[str, Any]:
    """Top folders with their file counts and roles, and whether the code is a monorepo."""
    top: Counter[str] = Counter()
    roles: dict[str, set[str]] = {}
    for f in files:
        parts = f.path.split("/")
        key = "/".join(parts[:2]) if parts[0] in ("src", "app", "packages", "apps") and len(parts) > 2 else parts[0]
        if len(parts) > 1:
            top[key] += 1
        for part in parts[:-1]:
            if part in ROLE_DIRS:
                roles.setdefault(ROLE_DIRS[part], set()).add("/".join(parts[: parts.index(part) + 1]))
    out: dict[str, Any] = {
        "folders": dict(top.most_common(20)),
        "roles": {role: sorted(paths)[:10] for role, paths in sorted(roles.items())},
        "packages": packages[:20],
    }
    out["monorepo"] = len(packages) > 1 or any("workspaces" in p for p in packages)
    stories = sum(1 for f in files if ".stories." in f.name)
    tests = sum(1 for f in files if re.search(r"\.(test|spec)\.", f.name))
    out["files"] = {"total": len(files), "stories": stories, "tests": tests}
    return out
