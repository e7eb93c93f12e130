"""Design data as tokens: effect styles as shadow tokens, and the styles that become none with the reason."""

from __future__ import annotations

from design_console.engines import token_sources
from design_console.tokens import export


def test_effect_styles_become_shadow_tokens_and_blurs_are_skipped_with_the_reason() -> None:
    drop = {"type": "DROP_SHADOW", "color": {"r": 0, "g": 0, "b": 0, "a": 0.5}, "offset": {"x": 1, "y": 2}, "radius": 4}
    inner = {"type": "INNER_SHADOW", "color": {"r": 1, "g": 1, "b": 1}, "offset": {"x": 0, "y": 1}, "spread": 1}
    blur = {"type": "LAYER_BLUR", "radius": 6}
    styles = [
        ({"name": "Depth/Inset", "type": "EFFECT"}, {"effects": [drop, blur, inner]}),
        ({"name": "Glass", "type": "EFFECT"}, {"effects": [blur, {**drop, "visible": False}]}),
        ({"name": "Sky", "type": "FILL"}, {"fills": [{"type": "GRADIENT_LINEAR"}]}),
    ]
    tokens, skipped = token_sources.style_token_set(styles)
    assert [(t.name, t.type) for t in tokens.collections[0].tokens] == [("Depth/Inset", "shadow")]
    css = export(tokens, "css-vars")["tokens.css"]
    assert "  --depth-inset: 1px 2px 4px 0px #00000080, inset 0px 1px 0px 1px #FFFFFF;" in css
    assert set(skipped) == {"Glass", "Sky"} and skipped["Glass"].startswith("a blur (or hidden) effect has no token")
