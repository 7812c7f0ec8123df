"""The request body's bounds, before any route: ``BodyLimit``, an ASGI middleware."""

from __future__ import annotations

import asyncio

from alphazero_jax.play import refusals


class BodyLimit:
    """ASGI middleware: reads a request's body first, at most ``limit`` bytes; a larger one
    (by its Content-Length or as it arrives) gets a 413 before the app sees it, and one
    that has not arrived within ``seconds`` a 408 (a slow client holds only its own
    request, but not for ever)."""

    def __init__(self, app, limit: int, seconds: float):
        self.app, self.limit, self.seconds = app, limit, seconds

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:  # leading zeros aside, at most 20 digits reach int()
            length = length.lstrip(b"0") or b"0"
            length = length if len(length) <= 20 else b"x"
        refused = refusals.error(
            413, f"The request body is too large: expected at most {self.limit} bytes."
        )
        if length is not None and not (length.isdigit() and int(length[-20:]) <= self.limit):
            return await refused(scope, receive, send)
        chunks, size, more = [], 0, True
        deadline = asyncio.get_running_loop().time() + self.seconds
        while more:
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                late = refusals.error(
                    408, f"The request body did not arrive within {self.seconds:g} s."
                )
                return await late(scope, receive, send)
            if message["type"] != "http.request":  # the client went away
                return None
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await refused(scope, receive, send)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)
