"""The markdown of a component's documentation, built from what design_generate_component_doc gathered (no I/O).

Input: the plugin's component record (GET_COMPONENT), its deep tree with variable names (DEEP_GET_COMPONENT), the
variant analysis of a set (ANALYZE_COMPONENT_SET), annotations, the design API's metadata, version and git history,
and what the caller says about the code (``codeInfo``). Each section is written only when there is something to say,
so a missing source shortens the page instead of filling it with placeholders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

SECTIONS = (
    "overview",
    "anatomy",
    "statesAndVariants",
    "visualSpecs",
    "typography",
    "contentGuidelines",
    "behavior",
    "implementation",
    "accessibility",
    "designAnnotations",
    "relatedComponents",
    "changelog",
    "parity",
)
#: Layers listed in the anatomy; a deeper or wider tree is summarised by a count.
MAX_ANATOMY_LINES = 40
ANATOMY_DEPTH = 3
MAX_TABLE_ROWS = 40
#: Smallest pointer target WCAG 2.2 accepts (2.5.8, AA), in px.
MIN_TARGET = 24
#: Text below this size is hard to read; design systems rarely go lower.
MIN_TEXT_SIZE = 12
STATE_AXIS = re.compile(r"^(state|status|interaction)$", re.IGNORECASE)


class CodeInfo(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """What the caller knows about the code of the component."""

    props: list[Any] | dict[str, Any] | None = None
    events: list[Any] | None = None
    slots: list[Any] | None = None
    importStatement: str | None = None
    usageExamples: list[Any] | None = None
    changelog: list[Any] | None = None
    filePath: str | None = None
    packageName: str | None = None
    variantDefinition: Any = None
    subComponents: list[Any] | None = None
    sourceFiles: list[str] | None = None
    baseComponent: str | None = None


class Sections(msgspec.Struct, forbid_unknown_fields=True):
    """Which sections to write; each defaults to on and is skipped when it has no data."""

    overview: bool = True
    anatomy: bool = True
    statesAndVariants: bool = True
    visualSpecs: bool = True
    typography: bool = True
    contentGuidelines: bool = True
    behavior: bool = True
    implementation: bool = True
    accessibility: bool = True
    designAnnotations: bool = True
    relatedComponents: bool = True
    changelog: bool = True
    parity: bool = True


@dataclass
class DocData:
    """Everything the page is written from; ``notes`` says which sources could not be read."""

    component: dict[str, Any]
    file_key: str
    tree: dict[str, Any] | None = None
    analysis: dict[str, Any] | None = None
    annotations: list[dict[str, Any]] = field(default_factory=list)
    published: dict[str, Any] | None = None
    versions: list[dict[str, Any]] = field(default_factory=list)
    commits: list[dict[str, Any]] = field(default_factory=list)
    code: CodeInfo = field(default_factory=CodeInfo)
    system: str = ""
    generated: str = ""
    notes: list[str] = field(default_factory=list)


#: Characters a shell acts on (and markdown's own): escaped with a backslash, which markdown shows as the character.
_ACTIVE = re.compile(r"([\\`$;|&<>(){}\[\]*!'\"])")


def inert(text: str) -> str:
    """Text from the design file (or git) made safe to place in the page: on one line, with every character a shell
    acts on escaped (markdown shows them as they were), so no part of it runs if the file is ever sourced."""
    return _ACTIVE.sub(r"\\\1", " ".join(text.split()))


def _inert(value: Any) -> Any:
    if isinstance(value, str):
        return inert(value)
    if isinstance(value, list):
        return [_inert(item) for item in value]
    if isinstance(value, dict):
        return {inert(str(k)): _inert(v) for k, v in value.items()}
    return value


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    # Design text arrives with its pipes escaped already; the page's own values are escaped here.
    return re.sub(r"(?<!\\)\|", r"\\|", text).replace("\n", " ")


def _table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows[:MAX_TABLE_ROWS]]
    if len(rows) > MAX_TABLE_ROWS:
        out.append(f"\n_{len(rows) - MAX_TABLE_ROWS} more rows not shown._")
    return out


def _walk(node: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    if not node:
        return
    yield node
    for child in node.get("children") or []:
        yield from _walk(child)


def _prop_name(name: str) -> str:
    """A property's name without the ``#id`` suffix the design tool gives text, boolean and swap properties."""
    return name.split("#", 1)[0]


def _default_variant(data: DocData) -> dict[str, Any] | None:
    """The layer tree that stands for the component: its default variant for a set, itself otherwise."""
    tree = data.tree
    if not tree or tree.get("type") != "COMPONENT_SET":
        return tree
    default_id = ((data.analysis or {}).get("defaultVariant") or {}).get("id")
    kids = tree.get("children") or []
    return next((k for k in kids if k.get("id") == default_id), kids[0] if kids else None)


def _variables(node: dict[str, Any]) -> dict[str, str]:
    """field → variable name(s) bound on one node."""
    out: dict[str, str] = {}
    for fld, bound in (node.get("boundVariables") or {}).items():
        items = bound if isinstance(bound, list) else [bound]
        names = [str(b.get("name") or b.get("id")) for b in items if isinstance(b, dict)]
        if names:
            out[fld] = ", ".join(dict.fromkeys(names))
    return out


def _paints(paints: Any) -> str:
    if not isinstance(paints, list):
        return str(paints or "")
    return ", ".join(p.get("color") or p.get("type", "") for p in paints if p.get("visible", True)) or "none"


def _axes(data: DocData) -> dict[str, list[str]]:
    if data.analysis and data.analysis.get("axes"):
        return dict(data.analysis["axes"])
    axes: dict[str, list[str]] = {}
    for variant in data.component.get("variants") or []:
        for axis, value in (variant.get("variantProperties") or {}).items():
            axes.setdefault(axis, [])
            if value not in axes[axis]:
                axes[axis].append(value)
    return axes


def _properties(data: DocData) -> dict[str, dict[str, Any]]:
    defs = data.component.get("componentPropertyDefinitions") or (data.published or {}).get("properties") or {}
    return {name: d for name, d in defs.items() if isinstance(d, dict)}


# Sections -----------------------------------------------------------------------------------------------------------


def _overview(data: DocData) -> list[str]:
    comp = data.component
    description = (
        comp.get("descriptionMarkdown") or comp.get("description") or (data.published or {}).get("description") or ""
    )
    # Design text never starts a line: a line's first word is what a shell would run.
    shown = f"**Description:** {description.strip()}" if description.strip() else ""
    lines = [shown or "_No description in the design file yet._", ""]
    facts = [["Type", comp.get("type", "")], ["Node", comp.get("id", "")]]
    if comp.get("key"):
        facts.append(["Component key", comp["key"]])
    if comp.get("variants"):
        facts.append(["Variants", len(comp["variants"])])
    if comp.get("width") is not None:
        facts.append(["Size", f"{comp['width']:g} × {comp['height']:g}"])
    lines += _table(["", ""], facts)
    props = _properties(data)
    if props:
        lines += ["", "**Properties**", ""]
        rows = [
            [_prop_name(n), d.get("type", ""), d.get("defaultValue", ""), ", ".join(d.get("variantOptions") or [])]
            for n, d in props.items()
        ]
        lines += _table(["Property", "Type", "Default", "Options"], rows)
    return lines


def _anatomy(data: DocData) -> list[str]:
    root = _default_variant(data)
    if not root:
        return []
    lines: list[str] = []
    hidden = 0

    def visit(node: dict[str, Any], depth: int) -> None:
        nonlocal hidden
        if len(lines) >= MAX_ANATOMY_LINES:
            hidden += 1
            return
        marks = " (hidden)" if node.get("visible") is False else ""
        lines.append(f"{'  ' * depth}- **{node.get('name')}** `{node.get('type')}`{marks}")
        for child in node.get("children") or []:
            if depth + 1 <= ANATOMY_DEPTH:
                visit(child, depth + 1)

    visit(root, 0)
    if hidden:
        lines.append(f"\n_{hidden} more layers not shown._")
    return lines


def _states(data: DocData) -> list[str]:
    axes = _axes(data)
    if not axes:
        return []
    lines = _table(["Axis", "Values"], [[axis, ", ".join(values)] for axis, values in axes.items()])
    analysis = data.analysis or {}
    if analysis.get("defaultVariant"):
        lines += ["", f"Default variant: **{analysis['defaultVariant'].get('name')}**."]
    changes = [v for v in analysis.get("variants") or [] if v.get("changes")]
    if changes:
        lines += ["", "What each variant changes against the default:", ""]
        lines += _table(
            ["Variant", "Changes"],
            [
                [v.get("name"), ", ".join(f"{k}: {_short(c.get('to'))}" for k, c in v["changes"].items())]
                for v in changes
            ],
        )
    return lines


def _short(value: Any) -> str:
    if isinstance(value, list):
        return _paints(value)
    return str(value)


def _visual(data: DocData) -> list[str]:
    root = _default_variant(data)
    if not root:
        return []
    bound = _variables(root)
    rows: list[list[Any]] = []
    if root.get("width") is not None:
        rows.append(["Size", f"{root['width']:g} × {root['height']:g}", bound.get("width", "")])
    if root.get("fills") is not None:
        rows.append(["Fill", _paints(root["fills"]), bound.get("fills", "")])
    if root.get("strokes"):
        rows.append(
            ["Stroke", f"{_paints(root['strokes'])} {root.get('strokeWeight', '')}px", bound.get("strokes", "")]
        )
    if root.get("cornerRadius"):
        radius_vars = ", ".join(dict.fromkeys(v for k, v in bound.items() if "Radius" in k))
        rows.append(["Corner radius", f"{root['cornerRadius']:g}px", radius_vars])
    layout = root.get("layout")
    if layout:
        top, right, bottom, left = layout.get("padding") or [0, 0, 0, 0]
        pad_vars = ", ".join(dict.fromkeys(v for k, v in bound.items() if k.startswith("padding")))
        rows.append(
            ["Layout", f"{layout.get('mode')}, gap {layout.get('itemSpacing')}px", bound.get("itemSpacing", "")]
        )
        rows.append(["Padding", f"{top} {right} {bottom} {left}", pad_vars])
    lines = _table(["Spec", "Value", "Token"], rows) if rows else []
    tokens: dict[str, set[str]] = {}
    for node in _walk(data.tree):
        for fld, names in _variables(node).items():
            for name in names.split(", "):
                tokens.setdefault(name, set()).add(fld)
    if tokens:
        lines += ["", "**Design tokens used**", ""]
        lines += _table(["Token", "Used for"], [[n, ", ".join(sorted(f))] for n, f in sorted(tokens.items())])
    return lines


def _texts(data: DocData) -> list[dict[str, Any]]:
    root = _default_variant(data)
    return [n for n in _walk(root) if n.get("type") == "TEXT"]


def _typography(data: DocData) -> list[str]:
    rows = []
    for node in _texts(data):
        font = node.get("fontName")
        family = f"{font.get('family')} {font.get('style')}" if isinstance(font, dict) else str(font or "")
        bound = _variables(node)
        tokens = ", ".join(dict.fromkeys(v for k, v in bound.items() if k.startswith(("font", "line", "letter"))))
        rows.append([node.get("name"), family, node.get("fontSize", ""), tokens])
    return _table(["Layer", "Font", "Size", "Tokens"], rows) if rows else []


def _content(data: DocData) -> list[str]:
    lines = []
    text_props = [(n, d) for n, d in _properties(data).items() if d.get("type") == "TEXT"]
    for name, d in text_props:
        lines.append(f"- **{_prop_name(name)}**: default “{d.get('defaultValue', '')}”.")
    for node in _texts(data):
        if node.get("characters"):
            lines.append(f"- Layer **{node.get('name')}** reads “{str(node['characters'])[:120]}”.")
    return lines


def _behavior(data: DocData) -> list[str]:
    lines = []
    axes = _axes(data)
    state = next((a for a in axes if STATE_AXIS.match(a)), None)
    if state:
        lines.append(f"- Interactive states ({state}): {', '.join(axes[state])}.")
    for name, d in _properties(data).items():
        if d.get("type") == "BOOLEAN":
            default = json.dumps(d.get("defaultValue"))
            lines.append(f"- **{_prop_name(name)}** toggles a part on or off (default {default}).")
        elif d.get("type") == "INSTANCE_SWAP":
            lines.append(f"- **{_prop_name(name)}** swaps a nested instance.")
    reactions = sum(int(n.get("reactions", 0)) for n in _walk(data.tree))
    if reactions:
        lines.append(f"- {reactions} prototype interactions are defined on its layers.")
    if data.code.events:
        lines.append("- Events: " + ", ".join(_name_of(e) for e in data.code.events) + ".")
    return lines


def _name_of(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("name") or item.get("event") or json.dumps(item))
    return str(item)


def _code_props(code: CodeInfo) -> dict[str, dict[str, Any]]:
    """``codeInfo.props`` as name → details, whether given as a list or an object."""
    if isinstance(code.props, dict):
        return {str(k): v if isinstance(v, dict) else {"type": v} for k, v in code.props.items()}
    out: dict[str, dict[str, Any]] = {}
    for p in code.props or []:
        if isinstance(p, dict) and p.get("name"):
            out[str(p["name"])] = p
        elif isinstance(p, str):
            out[p] = {}
    return out


def _implementation(data: DocData) -> list[str]:
    code = data.code
    lines: list[str] = []
    for label, value in (
        ("Package", code.packageName),
        ("Source", code.filePath),
        ("Extends", code.baseComponent),
    ):
        if value:
            lines.append(f"- {label}: `{value}`")
    if code.sourceFiles:
        lines.append("- Files: " + ", ".join(f"`{f}`" for f in code.sourceFiles))
    if code.importStatement:
        lines += ["", "```ts", code.importStatement, "```"]
    props = _code_props(code)
    if props:
        lines += ["", "**Props**", ""]
        lines += _table(
            ["Prop", "Type", "Default", "Description"],
            [[n, p.get("type", ""), p.get("default", ""), p.get("description", "")] for n, p in props.items()],
        )
    for title, items in (("Events", code.events), ("Slots", code.slots)):
        if items:
            lines += ["", f"**{title}**", ""] + [f"- {_name_of(i)}" for i in items]
    if code.variantDefinition:
        body = (
            code.variantDefinition
            if isinstance(code.variantDefinition, str)
            else json.dumps(code.variantDefinition, indent=2)
        )
        lines += ["", "**Variant definition**", "", "```", body, "```"]
    for example in code.usageExamples or []:
        shown: dict[str, Any] = example if isinstance(example, dict) else {"code": example}
        caption = shown.get("title")
        lines += [""] + ([f"_{caption}_", ""] if caption else [])
        lines += [f"```{shown.get('language', 'tsx')}", str(shown.get("code", "")), "```"]
    return lines


def _accessibility(data: DocData) -> list[str]:
    lines = []
    root = _default_variant(data)
    if root and root.get("width") is not None and min(root["width"], root["height"]) < MIN_TARGET:
        lines.append(
            f"- Target size {root['width']:g} × {root['height']:g} px is below {MIN_TARGET} × {MIN_TARGET} px "
            "(WCAG 2.5.8): add spacing or a larger hit area."
        )
    small = [
        n.get("name")
        for n in _texts(data)
        if isinstance(n.get("fontSize"), int | float) and n["fontSize"] < MIN_TEXT_SIZE
    ]
    if small:
        lines.append(f"- Text under {MIN_TEXT_SIZE}px: {', '.join(map(str, small))}.")
    axes = _axes(data)
    state = next((a for a in axes if STATE_AXIS.match(a)), None)
    if state and not any(re.search("focus", v, re.IGNORECASE) for v in axes[state]):
        lines.append(f"- No focus state among {', '.join(axes[state])}: design a visible focus indicator.")
    if root and not _texts(data) and not data.code.props:
        lines.append("- No text layer: the component needs an accessible name in code (aria-label).")
    return lines


def _annotations(data: DocData) -> list[str]:
    lines = []
    for note in data.annotations:
        for ann in note.get("annotations") or []:
            label = ann.get("labelMarkdown") or ann.get("label") or ""
            if label:
                lines.append(f"- **{note.get('name') or note.get('nodeId')}**: {label}")
    return lines


def _related(data: DocData) -> list[str]:
    names = {n.get("name") for n in _walk(data.tree) if n.get("type") == "INSTANCE"}
    lines = [f"- {name} (nested instance)" for name in sorted(map(str, names))]
    lines += [f"- {_name_of(s)} (sub-component)" for s in data.code.subComponents or []]
    if data.code.baseComponent:
        lines.append(f"- {data.code.baseComponent} (base component)")
    return lines


def _changelog(data: DocData) -> list[str]:
    lines: list[str] = []
    for entry in data.code.changelog or []:
        if isinstance(entry, dict):
            head = " ".join(str(entry[k]) for k in ("version", "date") if entry.get(k))
            changes = entry.get("changes") or entry.get("description") or ""
            body = "; ".join(map(str, changes)) if isinstance(changes, list) else str(changes)
            lines.append(f"- **{head}** {body}".rstrip())
        else:
            lines.append(f"- {entry}")
    if data.versions:
        lines += ["", "**Design file versions**", ""]
        for v in data.versions:
            title = v.get("label") or ("autosave" if v.get("autosave") else "version")
            text = f"- {str(v.get('created_at', ''))[:10]} **{title}**"
            if v.get("description"):
                text += f": {v['description']}"
            if v.get("user"):
                text += f" ({v['user']})"
            lines.append(text)
    if data.commits:
        lines += ["", "**Code history (git)**", ""]
        for c in data.commits:
            text = f"- {c['date']} `{c['hash']}` {c['subject']} ({c['author']})"
            if c.get("body"):
                text += "\n  " + c["body"].replace("\n", "\n  ")
            lines.append(text)
    return lines


def parity_report(data: DocData) -> dict[str, list[str]]:
    """Properties and variant axes of the design against the code's props, by name (case and separators ignored)."""

    def norm(name: str) -> str:
        return re.sub(r"[^a-z0-9]", "", _prop_name(name).lower())

    design = {norm(n): _prop_name(n) for n in _properties(data)}
    for axis in _axes(data):
        design.setdefault(norm(axis), axis)
    code = {norm(n): n for n in _code_props(data.code)}
    return {
        "matched": sorted(design[k] for k in design.keys() & code.keys()),
        "designOnly": sorted(design[k] for k in design.keys() - code.keys()),
        "codeOnly": sorted(code[k] for k in code.keys() - design.keys()),
    }


def _parity(data: DocData) -> list[str]:
    if not data.code.props:
        return []
    report = parity_report(data)
    lines = [f"- In both: {', '.join(report['matched']) or 'none'}."]
    if report["designOnly"]:
        lines.append(f"- Only in the design: {', '.join(report['designOnly'])}.")
    if report["codeOnly"]:
        lines.append(f"- Only in code: {', '.join(report['codeOnly'])}.")
    return lines


_WRITERS: dict[str, tuple[str, Callable[[DocData], list[str]]]] = {
    "overview": ("Overview", _overview),
    "anatomy": ("Anatomy", _anatomy),
    "statesAndVariants": ("States and variants", _states),
    "visualSpecs": ("Visual specs", _visual),
    "typography": ("Typography", _typography),
    "contentGuidelines": ("Content", _content),
    "behavior": ("Behavior", _behavior),
    "implementation": ("Implementation", _implementation),
    "accessibility": ("Accessibility", _accessibility),
    "designAnnotations": ("Design annotations", _annotations),
    "relatedComponents": ("Related components", _related),
    "changelog": ("Changelog", _changelog),
    "parity": ("Design–code parity", _parity),
}


def _yaml(value: Any) -> str:
    """A YAML scalar. Strings are single-quoted on one line: nothing in them is special to YAML or to a shell."""
    if isinstance(value, str):
        return "'" + " ".join(value.split()).replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


def frontmatter(data: DocData) -> list[str]:
    """The YAML front matter: what a docs site or a search index needs to file the page."""
    comp = data.component
    fields: dict[str, Any] = {
        "title": comp.get("name"),
        "system": data.system or None,
        "type": comp.get("type"),
        "nodeId": comp.get("id"),
        "fileKey": data.file_key,
        "componentKey": comp.get("key") or None,
        "variants": len(comp.get("variants") or []) or None,
        "package": data.code.packageName,
        "source": data.code.filePath,
        "import": data.code.importStatement,
        "generated": data.generated or None,
    }
    return ["---", *(f"{k}: {_yaml(v)}" for k, v in fields.items() if v is not None), "---", ""]


def render(data: DocData, sections: Sections, *, include_frontmatter: bool) -> tuple[str, list[str]]:
    """The page, and the names of the sections it contains."""
    lines = frontmatter(data) if include_frontmatter else []
    data = replace(
        data,
        component=_inert(data.component),
        tree=_inert(data.tree),
        analysis=_inert(data.analysis),
        annotations=_inert(data.annotations),
        published=_inert(data.published),
        versions=_inert(data.versions),
        commits=_inert(data.commits),
        system=inert(data.system),
        notes=_inert(data.notes),
    )
    title = data.component.get("name") or "Component"
    lines += [f"# {title}", ""]
    if data.system:
        lines += [f"_Part of {data.system}._", ""]
    written = []
    for key in SECTIONS:
        heading, writer = _WRITERS[key]
        if not getattr(sections, key):
            continue
        body = writer(data)
        if not body:
            continue
        written.append(key)
        lines += [f"## {heading}", "", *body, ""]
    if data.notes:
        lines += ["---", "", *(f"_Note:_ {note}" for note in data.notes), ""]
    return "\n".join(lines).rstrip() + "\n", written
