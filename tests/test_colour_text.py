"""One colour text everywhere ("Colour text" in docs/bridge-protocol.md): the plugin's ``toHex`` and every Python
path that writes a design colour (node reads, component trees, variables, styles, history, token exports, generated
CSS) write the same colour as the same text, and only design_console/tokens/values.py writes hex digits."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import design_console
from design_console import tokens
from design_console.engines import history_diff, shaping, token_sources
from design_console.engines.codegen import css
from design_console.tokens.model import Collection, Token, TokenSet
from design_console.tokens.values import design_color, hex_text
from design_console.tools.components.component_data import layer_tree
from design_console.tools.variable_data import VariableView, shape_variables

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(design_console.__file__).parent

#: Colours as the design tool gives them; alphas of 0.3 and 0.7 land on a half (76.5, 178.5), where Python's round()
#: and JavaScript's Math.round part ways, and the last colour is out of range.
COLOURS: list[dict[str, float]] = [
    {"r": 1, "g": 0, "b": 0.5, "a": 1},
    {"r": 0.2, "g": 0.4, "b": 0.9, "a": 0.3},
    {"r": 0.0196, "g": 0.5, "b": 0.999, "a": 0.7},
    {"r": 1.2, "g": -0.1, "b": 0.5, "a": 1},
]

PLUGIN_HEX = """
const root = process.argv[1];
const { toHex } = await import(root + "/plugin/src/code/colors.js");
const colours = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify(colours.map(toHex)));
"""


@pytest.fixture(scope="module")
def plugin_hex() -> list[str]:
    """Each of COLOURS as the plugin writes it."""
    node = shutil.which("node")
    assert node, "Node.js is needed to run the plugin's colour code (apt-get install nodejs)"
    run = subprocess.run(
        [node, "--no-warnings", "--input-type=module", "-e", PLUGIN_HEX, str(ROOT), json.dumps(COLOURS)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    written: list[str] = json.loads(run.stdout)
    return written


def python_paths(colour: dict[str, float]) -> dict[str, str]:
    """The text each Python path writes for ``colour``."""
    paint = {"type": "SOLID", "color": colour}
    raw = {
        "variableCollections": [
            {"id": "C:1", "name": "Brand", "modes": [{"modeId": "1:0", "name": "Light"}], "defaultModeId": "1:0"}
        ],
        "variables": [
            {
                "id": "V:1",
                "name": "brand/primary",
                "resolvedType": "COLOR",
                "variableCollectionId": "C:1",
                "valuesByMode": {"1:0": colour},
            }
        ],
    }
    items, _ = shape_variables(raw, VariableView())
    token = TokenSet([Collection("brand", ["light"], [Token("primary", "color", {"light": design_color(colour)})])])
    (exported,) = tokens.export(token, "css-vars").values()
    declared = re.search(r"--primary: (\S+);", exported)
    assert declared is not None, exported
    style = token_sources.style_css({"type": "FILL"}, {"fills": [paint]})
    assert style is not None
    return {
        "values.hex_text": hex_text(design_color(colour)),
        "node fills (shaping)": shaping.short_paints([paint])[0],
        "component tree (component_data)": layer_tree({"id": "1:1", "type": "RECTANGLE", "fills": [paint]}, 0)["fills"][
            0
        ]["color"],
        "variables (variable_data)": items[0]["values"]["Light"],
        "style css (token_sources)": style["color"],
        "history (history_diff)": history_diff.describe(colour, 80),
        "token export (css-vars)": declared.group(1),
    }


@pytest.mark.parametrize("index", range(len(COLOURS)))
def test_every_path_writes_a_colour_as_the_plugin_does(plugin_hex: list[str], index: int) -> None:
    colour = COLOURS[index]
    expected = plugin_hex[index]
    assert re.fullmatch(r"#[0-9A-F]{6}([0-9A-F]{2})?", expected), expected
    written = python_paths(colour)
    assert written == dict.fromkeys(written, expected)
    # Generated CSS writes an opaque colour as the same hex (a translucent one as rgba()).
    if colour["a"] >= 1:
        assert css.color(colour) == expected


def test_shadow_text_is_the_token_exports() -> None:
    """design_get_styles' CSS of an effect style is the text the token export writes for its shadow token."""
    drop = {"type": "DROP_SHADOW", "color": COLOURS[1], "offset": {"x": 0, "y": 2}, "radius": 8}
    inner = {"type": "INNER_SHADOW", "color": COLOURS[0], "offset": {"x": 0, "y": 1}, "spread": -1}
    style = {"name": "Elevation/Raised", "type": "EFFECT"}
    node = {"effects": [drop, inner]}
    css_text = token_sources.style_css(style, node)
    ts, skipped = token_sources.style_token_set([(style, node)])
    assert not skipped and css_text == {"box-shadow": "0px 2px 8px 0px #3366E64D, inset 0px 1px 0px -1px #FF0080"}
    (exported,) = tokens.export(ts, "css-vars").values()
    assert f"--elevation-raised: {css_text['box-shadow']};" in exported


#: Hex digits written by a format spec (``:02x``, ``:02X``) or by JavaScript's ``toString(16)``.
_HEX_WRITERS = re.compile(r":0?2[xX]\}|toString\(16\)")


def test_only_the_values_module_writes_hex_digits() -> None:
    """A second writer is how one tool came to answer #FF0000 and another #ff0000; scripts the plugin runs for a
    tool return colours as they are and Python writes them."""
    writers = {
        str(path.relative_to(PACKAGE)): _HEX_WRITERS.findall(path.read_text())
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "values.py" or path.parent.name != "tokens"
    }
    assert {path: found for path, found in writers.items() if found} == {}


def test_the_check_sees_each_form() -> None:
    assert _HEX_WRITERS.findall('f"{r:02x}" f"{g:02X}" x.toString(16)') == [":02x}", ":02X}", "toString(16)"]
