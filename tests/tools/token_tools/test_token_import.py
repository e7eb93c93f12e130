"""design_import_tokens through the whole chain: token files read and diffed in the tokens worker, applied by the
real plugin's APPLY_TOKEN_CHANGES, read back with design_export_tokens."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import OpenFile, call, js, one_undo_step, plugin_chain, refused
from mcp import Client
from procs import DaemonProcess
from tokens import primer
from tokens.gen import token_set

from design_console import tokens
from design_console.tokens.model import RESOLVED_TYPE, Alias, TokenSet, resolve_all
from design_console.tokens.values import Color, hex_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROOT = Path(__file__).resolve().parents[3]
SOURCE = token_set(500)
SOURCE_DTCG = next(iter(tokens.export(SOURCE, "dtcg").values()))
#: Every format with the export's options that write it; the import takes the same names.
FORMATS: list[tuple[str, dict[str, Any]]] = [(fmt, {"format": fmt}) for fmt in tokens.FORMATS] + [
    ("dtcg-2025", {"format": "dtcg", "dtcgDialect": "2025"})
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("import")
    (base / "app").mkdir()
    return base / "app"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess, project: Path) -> AsyncIterator[Client]:
    async with plugin_chain(chain_daemon.env, OpenFile("importFile", "Import File"), cwd=project) as session:
        yield session


async def empty(client: Client) -> None:
    """Remove every variable collection: the file is as a new one."""
    await js(client, "for (const c of await figma.variables.getLocalVariableCollectionsAsync()) c.remove(); return 0;")


async def variable_count(client: Client) -> int:
    return int(await js(client, "return (await figma.variables.getLocalVariablesAsync()).length;"))


def canon(tokens_: TokenSet, *, types: bool = True) -> dict[tuple[str, str], Any]:
    """Collection/name → type, description and per-mode values (colours as hex, numbers rounded, aliases by name)."""

    def value(v: Any) -> Any:
        if isinstance(v, Alias):
            return ("alias", v.collection, v.name)
        if isinstance(v, Color):
            return hex_text(v) + f"/{round(v.a * 255)}"
        if isinstance(v, float):
            return round(v, 4)
        return v

    return {
        (c.name, t.name): (
            t.type if types else RESOLVED_TYPE[t.type],
            t.description,
            {m: value(v) for m, v in t.values.items()},
        )
        for c, t in tokens_.tokens()
    }


async def exported(client: Client, project: Path, args: dict[str, Any], path: str) -> str:
    await call(client, "design_export_tokens", {**args, "outputPath": path, "strategy": "replace"})
    return (project / path).read_text()


async def test_an_import_into_an_empty_file_holds_the_generated_tokens(client: Client) -> None:
    await empty(client)
    done = await one_undo_step(client, "design_import_tokens", {"payload": SOURCE_DTCG})
    assert done["applied"] is True
    assert done["done"]["variablesCreated"] == 500 and done["counts"]["create"] == {"apply": 500}
    back = await call(client, "design_export_tokens", {"format": "json-flat"})
    assert back["tokens"] == 500
    dtcg = await call(client, "design_export_tokens", {"format": "dtcg", "outputPath": "source.json"})
    assert dtcg["tokens"] == 500
    again = await call(client, "design_import_tokens", {"payload": SOURCE_DTCG})
    assert again["applied"] is False and again["unchanged"] is True


async def test_an_import_reports_the_plugins_progress_to_the_ai_app(client: Client) -> None:
    # The tokens worker sends the change set; the plugin's progress on it comes back to the AI app's call, so a long
    # import keeps the app's wait alive.
    await empty(client)
    seen: list[tuple[float, float | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total))

    result = await client.call_tool("design_import_tokens", {"payload": SOURCE_DTCG}, progress_callback=progress)
    assert not result.is_error, result.content
    assert seen, "no progress reached the AI app"
    assert seen[-1][0] == seen[-1][1], f"the last progress is not the end of the work: {seen[-1]}"
    assert [value for value, _ in seen] == sorted(value for value, _ in seen)


@pytest.mark.parametrize(("label", "export_args"), FORMATS, ids=[label for label, _ in FORMATS])
async def test_round_trip_through_an_empty_file(
    client: Client, project: Path, label: str, export_args: dict[str, Any]
) -> None:
    """Export → import into an empty file → export gives the same tokens; what the format cannot carry (see the
    README's token section) is lost the same way both times."""
    await empty(client)
    await call(client, "design_import_tokens", {"payload": SOURCE_DTCG})
    suffix = tokens.FORMATS[export_args["format"]].EXTENSION
    first = await exported(client, project, export_args, f"rt/{label}.1.{suffix}")
    await empty(client)
    fmt = export_args["format"]
    done = await one_undo_step(
        client, "design_import_tokens", {"files": [{"path": f"rt/{label}.1.{suffix}"}], "format": fmt}
    )
    assert done["applied"] is True
    second = await exported(client, project, export_args, f"rt/{label}.2.{suffix}")
    name = f"tokens.{suffix}"
    assert canon(tokens.parse({name: second}, fmt)) == canon(tokens.parse({name: first}, fmt))
    if export_args["format"] in ("dtcg", "style-dictionary-v3", "json-nested", "json-flat", "tokens-studio"):
        # These carry collections, modes, names and aliases: the file holds the generator's tokens again, typed as
        # the design tool types them (a FLOAT is a number or a dimension by its name).
        kept = canon(tokens.parse({name: second}, fmt), types=False)
        source = canon(SOURCE, types=False)
        if export_args["format"].startswith("json"):
            kept = {k: (t, "", v) for k, (t, _d, v) in kept.items()}
            source = {k: (t, "", v) for k, (t, _d, v) in source.items()}
        assert kept == source


async def test_renames_updates_and_deletes_with_their_policies(client: Client) -> None:
    await empty(client)
    base = {
        "Brand": {
            "$extensions": {"com.design-console": {"modes": ["Light", "Dark"]}},
            "color": {
                "blue": {
                    "$type": "color",
                    "$value": "#3366ff",
                    "$extensions": {"com.design-console": {"modes": {"Dark": "#6699ff"}}},
                },
                "bg": {"$type": "color", "$value": "{Brand.color.blue}"},
            },
            "space": {"4": {"$type": "dimension", "$value": "16px"}, "8": {"$type": "dimension", "$value": "32px"}},
        }
    }
    await call(client, "design_import_tokens", {"payload": json.dumps(base)})
    ids = await js(
        client,
        "const o = {}; for (const v of await figma.variables.getLocalVariablesAsync()) o[v.name] = v.id; return o;",
    )
    changed = json.loads(json.dumps(base))
    brand = changed["Brand"]
    brand["color"]["brand"] = brand["color"].pop("blue")
    brand["color"]["bg"]["$value"] = "{Brand.color.brand}"
    brand["space"]["4"]["$value"] = "20px"
    del brand["space"]["8"]

    asked = await call(client, "design_import_tokens", {"payload": json.dumps(changed)})
    assert asked["applied"] is False and "onConflict" in asked["hint"]
    kinds = {(c["kind"], c["action"]) for c in asked["changes"]}
    assert {("rename", "ask"), ("update", "ask"), ("delete", "list")} <= kinds
    assert (
        await js(client, f"return (await figma.variables.getVariableByIdAsync({ids['space/4']!r})).valuesByMode;") != {}
    )
    assert await variable_count(client) == 4

    dry = await call(
        client, "design_import_tokens", {"payload": json.dumps(changed), "onConflict": "code-wins", "dryRun": True}
    )
    assert dry["applied"] is False and dry["dryRun"] is True

    merged = await one_undo_step(
        client, "design_import_tokens", {"payload": json.dumps(changed), "onConflict": "code-wins"}
    )
    assert merged["applied"] is True and merged["done"]["renamed"] == 1
    after = await js(
        client,
        "const o = {}; for (const v of await figma.variables.getLocalVariablesAsync()) o[v.name] = v.id; return o;",
    )
    assert after["color/brand"] == ids["color/blue"] and "space/8" in after
    value = await js(
        client,
        f"const v = await figma.variables.getVariableByIdAsync({ids['space/4']!r});"
        "return Object.values(v.valuesByMode);",
    )
    assert value == [20, 16]

    replaced = await call(
        client,
        "design_import_tokens",
        {"payload": json.dumps(changed), "onConflict": "code-wins", "strategy": "replace"},
    )
    assert replaced["done"]["deleted"] == 1 and await variable_count(client) == 3

    kept = await call(
        client,
        "design_import_tokens",
        {"payload": json.dumps(base), "onConflict": "figma-wins"},
    )
    assert kept["counts"]["rename"] == {"keep-design": 1}
    names = await js(client, "return (await figma.variables.getLocalVariablesAsync()).map((v) => v.name).sort();")
    assert "color/brand" in names and "space/8" in names


async def test_a_renamed_token_with_new_values_keeps_its_variable_by_the_exported_id(client: Client) -> None:
    await empty(client)
    small = token_set(40, seed=5)
    await call(client, "design_import_tokens", {"payload": next(iter(tokens.export(small, "dtcg").values()))})
    exported_ = json.loads(
        next(iter((await call(client, "design_export_tokens", {"format": "dtcg"}))["files"].values()))
    )
    space = exported_["Core"]["space"]
    old_key = next(iter(space))
    old_id = space[old_key]["$extensions"]["com.design-console"]["id"]
    space["moved"] = space.pop(old_key)
    space["moved"]["$value"] = "999px"
    done = await one_undo_step(
        client, "design_import_tokens", {"payload": json.dumps(exported_), "onConflict": "code-wins"}
    )
    assert done["counts"]["rename"] == {"apply": 1} and "delete" not in done["counts"]
    moved = await js(
        client, f"const v = await figma.variables.getVariableByIdAsync({old_id!r}); return [v.name, v.valuesByMode];"
    )
    assert moved[0] == "space/moved" and 999 in moved[1].values()


async def test_mappings_put_tokens_into_the_design_files_names(client: Client, project: Path) -> None:
    await empty(client)
    css = ':root {\n  --space-4: 16px;\n  --gap: var(--space-4);\n}\n[data-theme="dark"] {\n  --space-4: 12px;\n}\n'
    (project / "web.css").write_text(css)
    options = {"format": "css-vars", "collectionMapping": {"tokens": "Web"}, "modeMapping": {"default": "Light"}}
    (project / "import.json").write_text(json.dumps(options))
    await call(
        client,
        "design_import_tokens",
        {
            "files": [{"path": "web.css"}],
            "configPath": "import.json",
            "modeMapping": {"default": "Light", "dark": "Dark"},
        },
    )
    shape = await js(
        client,
        "const c = (await figma.variables.getLocalVariableCollectionsAsync())[0];"
        "return [c.name, c.modes.map((m) => m.name)];",
    )
    assert shape == ["Web", ["Light", "Dark"]]
    outside = await refused(client, "design_import_tokens", {"files": [{"path": "../elsewhere.css"}]})
    assert "outside the folders this AI app shares" in outside


async def test_refusals_name_the_problem_and_write_nothing(client: Client) -> None:
    await empty(client)
    broken = await refused(
        client, "design_import_tokens", {"payload": '{\n  "a": {"$value": "#fff",\n', "format": "dtcg"}
    )
    assert "payload" in broken and "line 3" in broken

    def dtcg(tree: dict[str, Any]) -> str:
        return json.dumps(tree)

    missing = await refused(
        client, "design_import_tokens", {"payload": dtcg({"a": {"$type": "color", "$value": "{nope.x}"}})}
    )
    assert "tokens/a" in missing and "nope/x" in missing
    loop = await refused(
        client,
        "design_import_tokens",
        {"payload": dtcg({"a": {"$type": "color", "$value": "{b}"}, "b": {"$type": "color", "$value": "{a}"}})},
    )
    assert "loop" in loop and "tokens/a → tokens/b → tokens/a" in loop
    mismatch = await refused(
        client,
        "design_import_tokens",
        {"payload": dtcg({"a": {"$type": "color", "$value": "#fff"}, "b": {"$type": "dimension", "$value": "{a}"}})},
    )
    assert "Type mismatch" in mismatch and "tokens/b" in mismatch
    twice = await refused(
        client,
        "design_import_tokens",
        {
            "files": [
                {"path": "one.json", "content": dtcg({"a": {"$type": "color", "$value": "#fff"}})},
                {"path": "two.json", "content": dtcg({"a": {"$type": "dimension", "$value": "4px"}})},
            ]
        },
    )
    assert "Conflicting token tokens/a" in twice and "one.json" in twice and "two.json" in twice

    def named(collection: str, value: str) -> str:
        ext = {"com.design-console": {"modes": ["default"]}}
        return dtcg({collection: {"$extensions": ext, "x": {"$type": "dimension", "$value": value}}})

    mapped = await refused(
        client,
        "design_import_tokens",
        {
            "files": [
                {"path": "a.json", "content": named("A", "1px")},
                {"path": "b.json", "content": named("B", "2px")},
            ],
            "collectionMapping": {"A": "One", "B": "One"},
        },
    )
    assert "Conflicting names: x" in mapped and "One" in mapped
    assert await variable_count(client) == 0


async def test_a_failure_mid_apply_leaves_the_file_untouched(client: Client) -> None:
    await empty(client)
    small = token_set(60, seed=3)
    await call(client, "design_import_tokens", {"payload": next(iter(tokens.export(small, "dtcg").values()))})
    before = await call(client, "design_export_tokens", {"format": "dtcg"})
    await js(client, "figma.testControl.failOn('setValueForMode', 150); return 0;")
    failed = await refused(client, "design_import_tokens", {"payload": SOURCE_DTCG, "onConflict": "code-wins"})
    assert "Simulated failure of setValueForMode" in failed and "Nothing was kept" in failed
    assert await call(client, "design_export_tokens", {"format": "dtcg"}) == before


async def test_a_dry_run_writes_nothing(client: Client) -> None:
    await empty(client)
    dry = await call(client, "design_import_tokens", {"payload": SOURCE_DTCG, "strategy": "dry-run"})
    assert dry["dryRun"] is True and dry["counts"]["create"] == {"apply": 500}
    assert await variable_count(client) == 0


async def test_files_placed_as_modes_and_tokens_no_variable_holds_reported(client: Client) -> None:
    """One file per theme becomes one mode (a later file of the same mode overrides token by token); a shadow, a
    duration and an em size are skipped with their reasons, and so is an alias of one; nothing else is lost."""
    await empty(client)

    def tree(bg: str, fg: str) -> str:
        return json.dumps({"color": {"$type": "color", "bg": {"$value": bg}, "fg": {"$value": fg}}})

    extra = {
        "text": {"$type": "color", "$value": "{color.fg}"},
        "shadow": {
            "$type": "shadow",
            "$value": {"color": "#000000", "offsetX": "0px", "offsetY": "1px", "blur": "2px", "spread": "0px"},
        },
        "fast": {"$type": "duration", "$value": {"value": 100, "unit": "ms"}},
        "enter": {"$value": "{fast}"},
        "tracking": {"$type": "dimension", "$value": {"value": 0.1, "unit": "em"}},
    }
    files = [
        {"path": "light.json", "content": tree("#ffffff", "#111111"), "collection": "Theme", "mode": "Light"},
        {"path": "dark.json", "content": tree("#000000", "#eeeeee"), "collection": "Theme", "mode": "Dark"},
        {"path": "dimmed-base.json", "content": tree("#000000", "#eeeeee"), "collection": "Theme", "mode": "Dimmed"},
        {"path": "dimmed.json", "content": tree("#22272e", "#eeeeee"), "collection": "Theme", "mode": "Dimmed"},
        {"path": "extra.json", "content": json.dumps(extra), "collection": "Theme", "mode": "Light"},
    ]
    done = await one_undo_step(client, "design_import_tokens", {"files": files})
    assert done["done"]["variablesCreated"] == 3
    assert done["skipped"]["count"] == 4 and set(done["skipped"]["tokens"]) == {
        "Theme/shadow",
        "Theme/fast",
        "Theme/enter",
        "Theme/tracking",
    }
    assert done["skipped"]["tokens"]["Theme/enter"] == "aliases Theme/fast, which is skipped"
    assert done["skipped"]["tokens"]["Theme/tracking"].startswith("unit em")
    assert done["skipped"]["tokens"]["Theme/fast"].startswith("duration:")
    back = tokens.parse(
        {"back.json": next(iter((await call(client, "design_export_tokens", {"format": "dtcg"}))["files"].values()))},
        "dtcg",
    )
    (theme,) = back.collections
    assert theme.modes == ["Light", "Dark", "Dimmed"]
    got = {t.name: {m: hex_text(v) if isinstance(v, Color) else v for m, v in t.values.items()} for t in theme.tokens}
    assert got["color/bg"] == {"Light": "#FFFFFF", "Dark": "#000000", "Dimmed": "#22272E"}
    assert got["color/fg"] == {"Light": "#111111", "Dark": "#EEEEEE", "Dimmed": "#EEEEEE"}
    assert set(got["text"].values()) == {Alias("color/fg", "Theme")}
    # A variable the files name but skip is still theirs: replacing keeps it.
    await js(
        client,
        "const c = (await figma.variables.getLocalVariableCollectionsAsync())[0];"
        "figma.variables.createVariable('shadow', c, 'STRING'); return 0;",
    )
    again = await call(client, "design_import_tokens", {"files": files, "strategy": "replace"})
    assert again["applied"] is False and again["unchanged"] is True and await variable_count(client) == 4
    ours = next(iter((await call(client, "design_export_tokens", {"format": "dtcg"}))["files"].values()))
    for placing, word in (
        ({"mode": "Light"}, "names its own modes"),
        ({"collection": "X"}, "names its own collections"),
    ):
        said = await refused(
            client, "design_import_tokens", {"files": [{"path": "ours.json", "content": ours, **placing}]}
        )
        assert word in said and "ours.json" in said


@pytest.mark.skipif(not primer.SOURCE.is_dir(), reason="npm packages are missing: run `npm ci`")
async def test_primer_primitives_import_and_export_back(client: Client, project: Path) -> None:
    """GitHub's Primer design tokens (61 DTCG files in JSON5, read with the json5 package), placed as
    :mod:`tokens.primer` says: base colours with nine themes as modes of one collection, sizes, typography and
    z-index, functional and component colours whose themes are modes and whose values alias the base colours, the
    fine/coarse pointer sizes as two modes. Every token that arrives exports back with Primer's value: colours by
    hex, sizes by px, aliases naming Primer's targets, and each themed colour resolves to what Primer's own design
    tool build (``dist/figma/themes``) gives.

    An alias with Primer's ``alpha`` arrives as the colour it resolves to per mode (the alias is lost: a variable
    alias cannot change alpha). Not imported, each counted under its reason: composite tokens (shadows, borders,
    typography, transitions), cubic-bézier curves, durations and an ``em`` size (sent: the import skips them and
    says so), media-query ranges and text with references inside (not sent); and the themes not made modes
    (dark-dimmed-high-contrast and the high-contrast colour-blind ones, which Primer's design-tool build leaves out
    too)."""
    plan = primer.primer_import()
    assert plan.source_files == 61 and plan.tokens_read == 2028
    assert len(plan.expected) + sum(plan.skipped.values()) == plan.distinct
    await empty(client)
    # Nine themes are nine modes: more than the stand-in's starting plan allows (4), as on a paid plan.
    await js(client, "figma.testControl.setModeLimit(10); return 0;")
    try:
        done = await one_undo_step(client, "design_import_tokens", {"files": plan.files, "format": "dtcg"})
    finally:
        await js(client, "figma.testControl.setModeLimit(4); return 0;")
    assert done["done"]["variablesCreated"] == len(plan.expected) > 1200
    # What variables cannot hold in DTCG terms the import skips itself, and says so: the same tokens, reason by
    # reason, as our reading of Primer counts.
    said = Counter[str]()
    for reason, count in done["skipped"]["byReason"].items():
        head = reason.split(":")[0]
        key = {"unit em": "em", "aliases a skipped token": "aliases-skipped"}.get(head, head)
        said["composite" if key in ("shadow", "border", "typography", "transition") else key] += count
    assert said == plan.engine_skipped and done["skipped"]["count"] == sum(plan.engine_skipped.values())
    back = tokens.parse({"back.json": await exported(client, project, {"format": "dtcg"}, "primer-back.json")}, "dtcg")
    got = {(c.name, t.name): t.values for c, t in back.tokens()}
    assert set(got) == set(plan.expected)
    modes = {c.name: c.modes for c in back.collections}
    assert modes["base/color"] == modes["functional/color"] == list(primer.MODES)
    assert modes["functional/size/pointer"] == ["fine", "coarse"]
    assert set(modes) == {coll for coll, _ in plan.expected}  # no collection made empty by skipping
    # Real alias chains across collections: component → functional colour → base colour.
    chains = {
        key
        for key, values in got.items()
        for v in values.values()
        if isinstance(v, Alias)
        and v.collection != key[0]
        and any(isinstance(w, Alias) and w.collection != v.collection for w in got[(v.collection, v.name)].values())
    }
    assert {coll for coll, _ in chains} == {"component"} and len(chains) > 80
    checked = Counter[str]()
    for key, by_mode in plan.expected.items():
        for mode, raw in by_mode.items():
            value = got[key][mode]
            if primer.is_alias(raw):
                assert isinstance(value, Alias) and value.name == raw[1:-1].replace(".", "/"), (key, mode)
                checked["alias"] += 1
            elif (isinstance(raw, dict) and "hex" in raw) or (isinstance(raw, str) and raw.startswith("#")):
                want = raw["hex"] if isinstance(raw, dict) else raw
                assert isinstance(value, Color) and hex_text(value, alpha=len(want) == 9) == want.upper(), (key, mode)
                checked["colour"] += 1
            elif isinstance(raw, dict) and raw.get("unit") in ("px", "rem"):
                assert value == raw["value"] * (16 if raw["unit"] == "rem" else 1), (key, mode)
                checked["size"] += 1
            else:
                assert value == raw, (key, mode)
                checked["other"] += 1
    assert sum(checked.values()) == sum(len(v) for v in plan.expected.values())
    # Against Primer's own build for design tools: each themed colour resolves to the same colour in every theme.
    resolved = {(c.name, t.name): t.values for c, t in resolve_all(back).tokens()}
    for mode in primer.MODES:
        theirs = primer.figma_theme(mode)
        for (coll, name), values in resolved.items():
            if coll in ("functional/color", "component") and name in theirs and isinstance(values[mode], Color):
                rgba = theirs[name]["value"]
                ours = values[mode]
                assert max(abs(ours.r - rgba["r"]), abs(ours.g - rgba["g"]), abs(ours.b - rgba["b"])) < 1 / 255, (
                    name,
                    mode,
                )
                # Primer's build leaves alpha null in three entries (an override's ``alpha: null``): opaque here.
                assert abs(ours.a - (1 if rgba["a"] is None else rgba["a"])) < 1 / 255, (name, mode)
                checked["theme"] += 1
    assert checked["theme"] > 3000
