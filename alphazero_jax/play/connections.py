"""How the play server bounds a connection before its app sees a request: uvicorn's options.

A request reaches the app (and ``body_limit.BodyLimit``'s ``body_seconds``) once its headers
have arrived. Until then only uvicorn holds the connection, and none of its options bounds
how long the headers take: ``timeout_keep_alive`` closes an idle connection between
requests, but the first byte of a request cancels it; ``h11_max_incomplete_event_size``
bounds the headers' size (16 KiB), not their pace, so a client sending a byte every few
seconds holds its connection for hours; ``limit_concurrency`` answers 503 to every client
once that many connections are open, slow ones included. ``HeaderDeadline`` is uvicorn's
h11 protocol with one more timer: a request's headers must arrive within ``header_seconds``
of the connection opening or of the answer before; a client that is later gets 408 and the
connection closes. ``uvicorn_options`` is what ``alphazero-serve`` passes to uvicorn.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


def header_deadline(header_seconds: float) -> type[asyncio.Protocol]:
    """Uvicorn's h11 protocol, with a request's headers due within ``header_seconds``."""
    message = f"The request headers did not arrive within {header_seconds:g} s."
    body = json.dumps({"error": message}).encode()
    late = (
        b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
        b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
    )

    class HeaderDeadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is not h11.IDLE:  # a request's headers are in
                self._disarm()

        def on_response_complete(self) -> None:
            self._arm()  # the next request's; a pipelined one already in disarms it
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(header_seconds, self._too_late)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_late(self) -> None:
            self._deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.write(late)
                self.transport.close()

    return HeaderDeadline


def uvicorn_options(*, header_seconds: float) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` (or ``uvicorn.Config``) that bound a
    connection: the ``HeaderDeadline`` protocol; uvicorn's own bounds otherwise (idle
    connections closed after 5 s, headers of at most 16 KiB)."""
    return {"http": header_deadline(header_seconds)}
