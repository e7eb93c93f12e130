"""Reading HTTP bodies of unknown size without trusting their headers."""

from __future__ import annotations

import httpx


async def read_at_most(response: httpx.Response, limit: int) -> bytes | None:
    """The body of a streamed ``response``, or None as soon as it passes ``limit`` bytes (the rest is not read)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
