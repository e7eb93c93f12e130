"""design_generate_from_web's share of one build for images: the largest are left out, and said, until the rest fit."""

from __future__ import annotations

import pytest

from design_console.tools.code import from_web


def test_the_largest_images_are_left_out_until_the_rest_fit_one_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(from_web, "MAX_IMAGES_CHARS", 100)
    images = ["a" * 40, "b" * 80, "c" * 30, "d" * 20]
    warnings = from_web.within_image_budget(images)
    assert images == ["a" * 40, "", "c" * 30, "d" * 20]
    assert warnings == [
        "the page's images are over the 75 bytes one build carries: images[1] (60 bytes) left out, the largest first"
    ]
    fitting = ["a" * 50, "b" * 50]
    assert from_web.within_image_budget(fitting) == [] and fitting == ["a" * 50, "b" * 50]
