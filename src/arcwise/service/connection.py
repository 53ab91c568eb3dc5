"""uvicorn's HTTP protocol with a deadline for each request's header (`HTTPProtocol`).

uvicorn's ``timeout_keep_alive`` closes a connection left idle after an answer,
but its timer starts only after an answer and stops at any byte received: a
connection that sends nothing, or half a header and then nothing (or a byte
now and then), is kept open for ever.  `HTTPProtocol` closes a connection
that has not sent a whole request header within ``timeout_keep_alive`` seconds
of opening or of its last answer (``arcwise serve --keep-alive-seconds``), by
uvicorn's own keep-alive handler.  When uvicorn begins its graceful shutdown,
it tells `arcwise.service.guard.RequestGuard` (through the lifespan state), so
that bodies still under way do not hold the shutdown.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from arcwise.service.guard import DRAIN
from arcwise.service.limits import Limits


def uvicorn_options(limits: Limits) -> dict:
    """uvicorn's options that carry out `limits`: `HTTPProtocol` and its header deadline."""
    return {"http": HTTPProtocol, "timeout_keep_alive": limits.keep_alive_seconds}


class HTTPProtocol(AutoHTTPProtocol):  # httptools' protocol where installed, else h11's
    """uvicorn's HTTP/1.1 protocol, closing a connection whose header is late."""

    _header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._await_header()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._await_header()

    def connection_lost(self, exc) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        drain = self.app_state.get(DRAIN)
        if drain is not None:
            drain()
        super().shutdown()

    def _await_header(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
        self._header_deadline = self.loop.call_later(self.timeout_keep_alive, self._header_due)

    def _header_due(self) -> None:
        if self.cycle is None or self.cycle.response_complete:  # no request under way
            self.timeout_keep_alive_handler()
