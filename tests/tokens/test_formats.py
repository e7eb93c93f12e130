"""Every format: export → parse → export gives the same files, and parsing gives back the tokens, less exactly
the losses the format's module documents (stated here per format)."""

from __future__ import annotations

from typing import Any

import pytest

from design_console import tokens
from design_console.errors import DesignError, ErrorCode
from design_console.tokens import ExportOptions, ParseOptions
from design_console.tokens.model import Alias, Collection, Token, TokenSet, resolve_all
from design_console.tokens.values import Color, hex_text
from tokens.gen import token_set

FORMATS = list(tokens.FORMATS)


@pytest.fixture(scope="module")
def source() -> TokenSet:
    return token_set(500)


def canon(value: Any) -> Any:
    if isinstance(value, Color):
        return hex_text(value, alpha=True)
    if isinstance(value, Alias):
        return ("alias", value.collection, value.name)
    if isinstance(value, float):
        return round(value, 6)
    return value


def facts(ts: TokenSet, descriptions: bool = True) -> dict[tuple[str, str], Any]:
    """What a round trip must keep: per token its type, per-mode values, aliases (and descriptions)."""
    return {
        (c.name, t.name): (
            t.type,
            {m: canon(v) for m, v in t.values.items()},
            t.description if descriptions else "",
        )
        for c, t in ts.tokens()
    }


def expected(fmt: str, ts: TokenSet) -> TokenSet:
    """The tokens a format can carry, per its documented losses."""
    if fmt == "ts-module":
        # Aliases are resolved; descriptions are not written.
        return resolve_all(ts)
    if fmt == "tailwind-v3":
        # First mode only, aliases resolved, collections merged into one, only colours and dimensions.
        flat = Collection("tokens", ["default"])
        for c, t in resolve_all(ts).tokens():
            if t.type in ("color", "dimension"):
                flat.tokens.append(Token(t.name, t.type, {"default": t.values[c.modes[0]]}))
        return TokenSet([flat])
    return ts


#: Formats that do not carry descriptions.
NO_DESCRIPTIONS = {"ts-module", "tailwind-v3", "json-flat", "json-nested"}
VARIANTS = [(fmt, ExportOptions()) for fmt in FORMATS] + [("dtcg", ExportOptions(dtcg_dialect="2025"))]


@pytest.mark.parametrize(("fmt", "opts"), VARIANTS, ids=[f"{f}-{o.dtcg_dialect}" for f, o in VARIANTS])
def test_round_trip_keeps_tokens(source: TokenSet, fmt: tokens.Format, opts: ExportOptions) -> None:
    files = tokens.export(source, fmt, opts)
    back = tokens.parse(files, fmt)
    keep = fmt not in NO_DESCRIPTIONS
    assert facts(back, keep) == facts(expected(fmt, source), keep)
    assert tokens.export(back, fmt, opts) == files
    for path, text in files.items():
        assert tokens.detect(path, text) == fmt
        assert tokens.detect("pasted", text) == fmt


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "tailwind-v3"])
@pytest.mark.parametrize(("by_mode", "by_coll"), [(True, False), (False, True), (True, True)])
def test_split_files_merge_back(source: TokenSet, fmt: tokens.Format, by_mode: bool, by_coll: bool) -> None:
    small = token_set(60)
    whole = tokens.parse(tokens.export(small, fmt), fmt)
    files = tokens.export(small, fmt, ExportOptions(split_by_mode=by_mode, split_by_collection=by_coll))
    assert len(files) == (3 if by_mode else 1) * (2 if by_coll else 1)
    keep = fmt not in NO_DESCRIPTIONS
    assert facts(tokens.parse(files, "auto"), keep) == facts(whole, keep)


def test_modes_option_keeps_only_those_modes(source: TokenSet) -> None:
    files = tokens.export(source, "css-vars", ExportOptions(modes=["dark"]))
    back = tokens.parse(files)
    assert [c.modes for c in back.collections] == [["dark"], ["dark"]]


def test_resolve_aliases_writes_literals(source: TokenSet) -> None:
    back = tokens.parse(tokens.export(source, "dtcg", ExportOptions(resolve_aliases=True)))
    assert not any(isinstance(v, Alias) for _, t in back.tokens() for v in t.values.values())
    assert facts(back) == facts(resolve_all(source))


@pytest.mark.parametrize("unit", ["px", "rem", "pt", "dp"])
@pytest.mark.parametrize("fmt", ["css-vars", "dtcg", "tokens-studio"])
def test_size_units_read_back_as_px(source: TokenSet, unit: Any, fmt: tokens.Format) -> None:
    opts = ExportOptions(size_unit=unit, rem_base=10)
    back = tokens.parse(tokens.export(source, fmt, opts), fmt, ParseOptions(rem_base=10))
    assert facts(back) == facts(source)


@pytest.mark.parametrize("color_format", ["hex8", "rgba", "hsl", "oklch"])
def test_colour_formats_read_back(source: TokenSet, color_format: Any) -> None:
    back = tokens.parse(tokens.export(source, "css-vars", ExportOptions(color_format=color_format)))
    exact = color_format in ("hex8", "rgba")
    for (key, (kind, values, _)), (_, (_, want, _)) in zip(facts(back).items(), facts(source).items(), strict=True):
        assert kind == facts(source)[key][0]
        for mode, value in values.items():
            if kind != "color" or isinstance(value, tuple):
                assert value == want[mode]
            elif exact:
                assert value == want[mode]
            else:
                got, wanted = bytes.fromhex(value[1:]), bytes.fromhex(want[mode][1:])
                assert max(abs(a - b) for a, b in zip(got, wanted, strict=True)) <= 1, (key, mode)


def test_prefix_is_written_and_taken_off(source: TokenSet) -> None:
    files = tokens.export(source, "scss", ExportOptions(prefix="ds"))
    assert "$ds-color-red-0:" in files["tokens.scss"]
    assert facts(tokens.parse(files, "scss", ParseOptions(prefix="ds"))) == facts(source)


def test_hand_written_css_is_read_by_syntax() -> None:
    css = (
        ':root {\n  --brand-blue: #0af;\n  --gap-s: 0.5rem;\n  --ratio: 1.5;\n  --label: "Hi";\n'
        "  --link: var(--brand-blue);\n}\n"
        '[data-theme="dark"] { --brand-blue: rgb(0 0 0); }\n'
    )
    back = tokens.parse({"theme.css": css})
    (coll,) = back.collections
    assert coll.modes == ["default", "dark"]
    got = {t.name: (t.type, {m: canon(v) for m, v in t.values.items()}) for t in coll.tokens}
    assert got == {
        "brand/blue": ("color", {"default": "#00AAFFFF", "dark": "#000000FF"}),
        "gap/s": ("dimension", {"default": 8.0}),
        "ratio": ("number", {"default": 1.5}),
        "label": ("string", {"default": "Hi"}),
        "link": ("color", {"default": ("alias", "tokens", "brand/blue")}),
    }


def test_unknown_content_is_refused() -> None:
    with pytest.raises(DesignError, match="cannot tell") as err:
        tokens.detect("notes.txt", "hello")
    assert err.value.code == ErrorCode.BAD_ARGUMENT
    with pytest.raises(DesignError, match="unknown token format"):
        tokens.parse({"a.json": "{}"}, "yaml")  # type: ignore[arg-type]


def test_unreadable_file_is_named() -> None:
    with pytest.raises(DesignError, match=r"broken\.json is not a readable dtcg file"):
        tokens.parse({"broken.json": '{"a": {"$value": '}, "dtcg")
    with pytest.raises(DesignError, match=r"tokens\.ts is not a readable ts-module"):
        tokens.parse({"tokens.ts": "export default 1;"})


def test_names_that_collide_are_refused() -> None:
    ts = TokenSet(
        [
            Collection("A", ["m"], [Token("color/red", "color", {"m": Color(1, 0, 0)})]),
            Collection("B", ["m"], [Token("Color/Red", "color", {"m": Color(0, 0, 1)})]),
        ]
    )
    with pytest.raises(DesignError, match="A/color/red and B/Color/Red both become --color-red"):
        tokens.export(ts, "css-vars")
    assert len(tokens.export(ts, "css-vars", ExportOptions(split_by_collection=True))) == 2
    with pytest.raises(DesignError, match="inside another token's name"):
        tokens.export(_one([Token("a", "number", {"m": 1.0}), Token("a/b", "number", {"m": 2.0})]), "json-nested")


def _one(tokens_: list[Token]) -> TokenSet:
    return TokenSet([Collection("C", ["m"], tokens_)])


@pytest.mark.parametrize("fmt", ["css-vars", "tailwind-v4", "scss", "less"])
def test_stylesheet_loss_names_come_back_as_slugs(fmt: tokens.Format) -> None:
    ts = _one([Token("Brand/Primary-Blue", "color", {"m": Color(1, 0, 0)}, "Line one\nline two")])
    (token,) = tokens.parse(tokens.export(ts, fmt), fmt).collections[0].tokens
    assert (token.name, token.type, token.description) == ("brand/primary/blue", "color", "Line one line two")


@pytest.mark.parametrize("fmt", ["json-flat", "json-nested", "ts-module"])
def test_untyped_json_loss_strings_that_look_like_values_change_type(fmt: tokens.Format) -> None:
    ts = _one(
        [Token("a", "string", {"m": "#ffffff"}), Token("b", "string", {"m": "4px"}), Token("c", "string", {"m": "x"})]
    )
    back = tokens.parse(tokens.export(ts, fmt), fmt)
    assert [t.type for t in back.collections[0].tokens] == ["color", "dimension", "string"]


@pytest.mark.parametrize("fmt", ["dtcg", "tokens-studio", "style-dictionary-v3", "css-vars"])
def test_typed_formats_keep_strings_that_look_like_values(fmt: tokens.Format) -> None:
    ts = _one([Token("a", "string", {"m": "#ffffff"}), Token("b", "string", {"m": "4px"})])
    back = tokens.parse(tokens.export(ts, fmt), fmt)
    assert [(t.type, t.values["m"]) for t in back.collections[0].tokens] == [("string", "#ffffff"), ("string", "4px")]


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "tailwind-v3"])
def test_awkward_strings_survive(fmt: tokens.Format) -> None:
    text = 'a; b {c} "q" café \\ back\nline */ end'
    ts = _one([Token("s", "string", {"m": text})])
    (token,) = tokens.parse(tokens.export(ts, fmt), fmt).collections[0].tokens
    assert token.values == {"m": text}


@pytest.mark.parametrize("fmt", ["dtcg", "style-dictionary-v3"])
def test_aliases_into_collections_whose_names_hold_slashes(fmt: tokens.Format) -> None:
    """Design systems name collections by folder ("base/color"); a reference names its collection first, so the
    longest collection name that starts it is the one meant ("base" and "base/color" both exist here)."""
    ts = TokenSet(
        [
            Collection("base", ["m"], [Token("color/x", "color", {"m": Color(0, 0, 1)})]),
            Collection("base/color", ["m"], [Token("x", "color", {"m": Color(1, 0, 0)})]),
            Collection(
                "functional/color",
                ["m"],
                [
                    Token("fg", "color", {"m": Alias("x", "base/color")}),
                    Token("bg", "color", {"m": Alias("color/x", "base")}),
                ],
            ),
        ]
    )
    back = tokens.parse(tokens.export(ts, fmt), fmt)
    values = {(c.name, t.name): t.values["m"] for c, t in back.tokens()}
    assert values[("functional/color", "fg")] == Alias("x", "base/color")
    assert values[("functional/color", "bg")] == Alias("color/x", "base")


def test_dtcg_lists_what_no_variable_holds_instead_of_misreading_it() -> None:
    """A duration in ms or a size in em is no px size, a typography token no single value: each is listed with its
    reason, not read as a number of px or a value-less string."""
    text = (
        '{"fast": {"$type": "duration", "$value": {"value": 100, "unit": "ms"}},'
        ' "tracking": {"$type": "dimension", "$value": {"value": 0.1, "unit": "em"}},'
        ' "raised": {"$type": "typography", "$value": {"fontFamily": "Inter", "fontSize": "14px"}},'
        ' "gap": {"$type": "dimension", "$value": {"value": 1, "unit": "rem"}}}'
    )
    (coll,) = tokens.parse({"t.json": text}, "dtcg").collections
    assert [(t.name, t.values) for t in coll.tokens] == [("gap", {"default": 16.0})]
    assert sorted(coll.skipped) == ["fast", "raised", "tracking"]
    assert coll.skipped["tracking"].startswith("unit em") and coll.skipped["raised"].startswith("typography:")
