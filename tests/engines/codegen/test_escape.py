"""Literals and names of generated code (engines/codegen/escape.py): whatever text goes in, each literal reads back as
that text in its language and holds nothing that ends it or the block around it; names and module sources are
refused where a design value would become markup, a handler or a URL."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
import tinycss2  # type: ignore[import-untyped]
from fuzz.strategies import CI_SETTINGS, json_values
from hypothesis import given
from hypothesis import strategies as st

from design_console.engines.codegen import css
from design_console.engines.codegen.escape import (
    css_string,
    is_js_identifier,
    is_safe_prop,
    jsx_attribute,
    module_source_problem,
    pascal,
    script_literal,
)
from design_console.engines.codegen.tailwind import arbitrary

#: Text a CSS string can carry unchanged: CSS reads NUL and lone surrogates as U+FFFD, whatever the escape.
css_text = st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)))


@CI_SETTINGS
@given(css_text)
def test_a_css_string_reads_back_as_the_text_and_cannot_end_its_style_block(text: str) -> None:
    written = css_string(text)
    tokens = [t for t in tinycss2.parse_component_value_list(written) if t.type != "whitespace"]
    assert [t.type for t in tokens] == ["string"] and tokens[0].value == text
    assert "<" not in written and "\n" not in written and "\r" not in written


@CI_SETTINGS
@given(css_text.filter(bool))
def test_a_font_in_a_tailwind_class_stays_one_css_string(family: str) -> None:
    value = arbitrary(css.font_family(family))
    assert '"' not in value
    # Tailwind turns the underscores back into spaces (but escaped ones) and writes the value as it is.
    text = value.replace("\\_", "\0").replace("_", " ").replace("\0", "_")
    tokens = [t for t in tinycss2.parse_component_value_list(text) if t.type != "whitespace"]
    assert [t.type for t in tokens][:1] == ["string"] and tokens[0].value == family
    assert [t.type for t in tokens][1:] in (["literal", "ident"], [])


@CI_SETTINGS
@given(json_values())
def test_a_script_literal_reads_back_as_the_value_and_holds_no_markup(value: Any) -> None:
    written = script_literal(value)
    assert json.loads(written) == value
    assert not set(written) & {"<", ">", "&", "\u2028", "\u2029", "\n"}


@CI_SETTINGS
@given(st.text())
def test_a_jsx_attribute_reads_back_as_the_text(text: str) -> None:
    written = jsx_attribute(text)
    assert written[0] == written[-1] == '"' and '"' not in written[1:-1]
    assert html.unescape(written[1:-1]) == text


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("size", True),
        ("withIcon", True),
        ("onlyIcon", True),
        ("on", True),
        ("_private", True),
        ("onClick", False),
        ("on_change", False),
        ("onclick", False),
        ("onload", False),
        ("innerHTML", False),
        ("dangerouslySetInnerHTML", False),
        ("href", False),
        ("xlinkHref", False),
        ("srcdoc", False),
        ("style", False),
        ("key", False),
        ("ref", False),
        ("is", False),
        ("class", False),
        ("x={alert(1)}", False),
        ("data-x", False),
        ("v-html", False),
        ("größe", False),
        ("", False),
    ],
)
def test_a_prop_a_design_value_may_set(name: str, safe: bool) -> None:
    assert is_safe_prop(name) is safe


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("@/components/Button", None),
        ("./Button", None),
        ("../ui/button.tsx", None),
        ("@acme/ui", None),
        ("/home/me/app/src/Button.tsx", None),
        ("C:\\app\\src\\Button.tsx", None),
        ("https://evil.example/x.js", "URL"),
        ("data:text/javascript,alert(1)", "URL"),
        ("javascript:alert(1)", "URL"),
        ("node:fs", "URL"),
        ("//evil.example/x.js", "host"),
        ("\\\\evil\\share\\x.js", "host"),
        ("a\nb", "line break"),
        ("a\u2028b", "line break"),
    ],
)
def test_a_module_source_is_a_package_alias_or_path(source: str, problem: str | None) -> None:
    found = module_source_problem(source)
    assert found is None if problem is None else problem in (found or "")


def test_names_are_identifiers_led_by_a_capital() -> None:
    assert [pascal(n) for n in ("login card", "$0 price", "</script>", "")] == [
        "LoginCard",
        "Design0Price",
        "Script",
        "Design",
    ]
    assert is_js_identifier("Button") and not is_js_identifier("class") and not is_js_identifier("a-b")
