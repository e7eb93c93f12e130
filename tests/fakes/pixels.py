"""How alike two screenshots are: the share of pixels whose every channel differs by at most a tolerance.

For the design ↔ code loop: a page built as layers and written back as HTML must render like the page itself.
Screenshots of different heights are compared over the taller one, the shorter padded with white (a page that grew or
shrank disagrees on the rows it lacks).
"""

from __future__ import annotations

import io

from PIL import Image, ImageChops

#: A channel may differ by this much (of 255) and the pixel still agrees: anti-aliasing and colour rounding.
CHANNEL_TOLERANCE = 16


def _rgb(png: bytes, size: tuple[int, int]) -> Image.Image:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    if image.size == size:
        return image
    canvas = Image.new("RGB", size, (255, 255, 255))
    canvas.paste(image, (0, 0))
    return canvas


def pixel_agreement(first: bytes, second: bytes, tolerance: int = CHANNEL_TOLERANCE) -> float:
    """The share (0..1) of pixels of two PNG screenshots that agree within ``tolerance`` on every channel."""
    sizes = [Image.open(io.BytesIO(png)).size for png in (first, second)]
    size = (max(s[0] for s in sizes), max(s[1] for s in sizes))
    diff = ImageChops.difference(_rgb(first, size), _rgb(second, size))
    # A pixel agrees when its largest channel difference is within the tolerance.
    worst = ImageChops.lighter(ImageChops.lighter(*diff.split()[:2]), diff.split()[2])
    histogram = worst.histogram()
    agreeing = sum(histogram[: tolerance + 1])
    return agreeing / (size[0] * size[1])
