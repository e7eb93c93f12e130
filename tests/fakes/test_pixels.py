"""The screenshot comparison the design ↔ code loop is judged by."""

from __future__ import annotations

import io

from PIL import Image

from fakes.pixels import pixel_agreement


def _png(size: tuple[int, int], color: tuple[int, int, int], box: tuple[int, int, int, int] | None = None) -> bytes:
    image = Image.new("RGB", size, (255, 255, 255))
    if box:
        image.paste(color, box)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_agreement_counts_pixels_within_the_channel_tolerance() -> None:
    white = _png((10, 10), (0, 0, 0))
    assert pixel_agreement(white, white) == 1.0
    assert pixel_agreement(white, _png((10, 10), (240, 250, 255), (0, 0, 10, 10))) == 1.0
    assert pixel_agreement(white, _png((10, 10), (0, 0, 0), (0, 0, 5, 10))) == 0.5
    # Only one channel off by more than the tolerance is enough to disagree.
    assert pixel_agreement(white, _png((10, 10), (255, 255, 200), (0, 0, 10, 2))) == 0.8


def test_a_shorter_screenshot_disagrees_on_the_rows_it_lacks() -> None:
    tall = _png((10, 20), (0, 0, 0), (0, 10, 10, 20))
    assert pixel_agreement(_png((10, 10), (0, 0, 0)), tall) == 0.5
