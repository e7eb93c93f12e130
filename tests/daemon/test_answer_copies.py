"""A big answer is held about once on its way from designd to the shim: the response is encoded in one pass, and
image bytes go into it as base64 without a base64 copy beside them."""

from __future__ import annotations

import os
import tracemalloc

from design_console.protocol import ImageBlock, TextBlock, ToolOutput
from design_console.tools.wire.frames import call_frame, call_result, result_frame

IMAGE_BYTES = 8 * 2**20


def test_a_big_answer_is_encoded_in_one_pass_with_the_same_bytes() -> None:
    output = ToolOutput(
        content=[TextBlock('{"width": 4096}'), ImageBlock(data=os.urandom(IMAGE_BYTES), mime_type="image/png")]
    )
    tracemalloc.start()
    try:
        frame = call_frame(7, output)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The response itself is 4/3 of the image (base64); the encoder's growing buffer is all that comes on top. A
    # base64 copy, a result encoded on its own and the response joined from it came to 3.3 times the image more.
    assert peak < 2.2 * IMAGE_BYTES, f"{peak / IMAGE_BYTES:.1f} times the image held while encoding"
    assert frame == result_frame(7, call_result(output))
