"""ASGI middleware that bounds what a request's body costs the server (`RequestGuard`).

- A body over ``max_request_bytes`` gets 413.  The rest of it is read and
  discarded first (up to `DISCARD_BYTES`): a client that sends its whole body
  before it reads (urllib, requests) would otherwise find the connection reset
  and never see the answer.  Starlette's ``RequestBodyLimitMiddleware`` answers
  at once, as curl expects but these clients do not.  A client that waits for
  ``100 Continue`` is answered at once, having sent nothing.
- A body that stalls (nothing for ``body_seconds``) gets 408.
- A request that comes while ``max_concurrent_requests`` are in flight in this process
  gets 503 (the server is overloaded: send it again later), its body read and
  discarded first as for a 413: the requests in flight, each within its size limits,
  bound the process's memory.  uvicorn's own ``limit_concurrency`` answers at once,
  unread (a reset for urllib and requests once the body outgrows the socket buffers: a
  4 MiB one did on loopback), in plain text, and counts idle keep-alive connections.
- Once shutdown begins (uvicorn calls `RequestGuard.drain` through
  `arcwise.service.connection`), a body that stalls for `SHUTDOWN_STALL_SECONDS`
  gets 503, and a request that uvicorn cancels when ``--graceful-seconds``
  run out gets 503 rather than uvicorn's 500 (the request ends there: the
  cancellation has done its work).

An answer sent before the whole body was read closes the connection.
"""

from __future__ import annotations

import asyncio
import logging

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from arcwise.service.errors import RequestError, Stalled, TooLarge, Unavailable
from arcwise.service.limits import Limits, raise_with

DISCARD_BYTES = 64 << 20  # an oversized body this long is read to its end before the 413
SHUTDOWN_STALL_SECONDS = 2.0  # once shutdown begins, how long a body may stall
DRAIN = "arcwise.drain"  # lifespan state: RequestGuard.drain, for the HTTP protocol

log = logging.getLogger("arcwise.serve")


def refusal(error: RequestError) -> HTTPException:
    """`error` as the HTTPException that the app's handlers answer (FastAPI turns any other
    exception raised while it reads a body into a 400)."""
    return HTTPException(error.status, str(error))


class RequestGuard:
    """ASGI middleware: the body's size and pace, and shutdown (see the module docstring)."""

    def __init__(self, app, limits: Limits):
        self.app, self.limits = app, limits
        self.draining = False
        self.windows: set[asyncio.Timeout] = set()  # the body reads under way
        self.in_flight = 0  # requests let through to the app, not yet answered

    def drain(self) -> None:
        """Shutdown has begun: bodies under way have SHUTDOWN_STALL_SECONDS to go on."""
        if self.draining:
            return
        self.draining = True
        soon = asyncio.get_running_loop().time() + SHUTDOWN_STALL_SECONDS
        for window in self.windows:
            if window.when() is None or window.when() > soon:
                window.reschedule(soon)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan" and "state" in scope:  # a server starts
            self.draining = False
            scope["state"][DRAIN] = self.drain
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = _Request(self, scope, receive, send)
        if self.in_flight >= self.limits.max_concurrent_requests:
            await request.refuse(Unavailable(
                f"the server is overloaded: {self.in_flight:,} requests in flight, its limit"
                f"{raise_with('max_concurrent_requests')}; send it again later"))
            return
        self.in_flight += 1
        try:
            await request.run()
        finally:
            self.in_flight -= 1


class _Request:
    """One request under `RequestGuard`: how much of its body has arrived."""

    def __init__(self, guard: RequestGuard, scope, receive, send):
        self.guard, self.limits = guard, guard.limits
        self.scope, self._receive, self._send = scope, receive, send
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"")
        self.length = _size(length)
        self.waits_to_continue = headers.get(b"expect", b"").lower() == b"100-continue"
        self.received = 0
        self.complete = not self.length and b"transfer-encoding" not in headers
        self.started = False

    async def run(self) -> None:
        try:
            if self.length is not None and self.length > self.limits.max_request_bytes:
                await self.discard()
                raise refusal(self.too_large())
            await self.guard.app(self.scope, self.receive, self.send)
        except HTTPException as error:  # raised here, or by receive outside the app's routes
            if self.started:
                raise
            await self.answer(error.status_code, error.detail)
        except asyncio.CancelledError:  # uvicorn's graceful shutdown ran out of time
            if self.started:
                raise
            await self.answer(503, "the server shut down before answering: send it again")
            log.warning("%s %s cut off by shutdown (--graceful-seconds): answered 503",
                        self.scope["method"], self.scope["path"])

    async def refuse(self, error: RequestError) -> None:
        """Answer `error` without the app, the body read and discarded first (`discard`)."""
        try:
            await self.discard()
        except HTTPException as stalled:  # the body stalled meanwhile: that is the answer
            await self.answer(stalled.status_code, stalled.detail)
            return
        await self.answer(error.status, str(error))

    def too_large(self) -> TooLarge:
        limit = self.limits.max_request_bytes
        return TooLarge(f"request body over the limit of {limit:,} bytes"
                        f"{raise_with('max_request_bytes')}")

    async def receive(self):
        """The client's next message, counted: past the byte limit, the body is discarded
        and the request refused."""
        message = await self.next_message()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            self.complete = not message.get("more_body", False)
            if self.received > self.limits.max_request_bytes:
                await self.discard()
                raise refusal(self.too_large())
        elif message["type"] == "http.disconnect":
            self.complete = True
        return message

    async def discard(self) -> None:
        """Read the rest of the body (up to DISCARD_BYTES in all; not when the client waits
        for 100 Continue), so that the client reads the answer instead of a reset."""
        if self.waits_to_continue or (self.length or 0) > DISCARD_BYTES:
            return
        while not self.complete and self.received <= DISCARD_BYTES:
            message = await self.next_message()
            self.received += len(message.get("body", b""))
            self.complete = message["type"] != "http.request" or not message.get("more_body")

    async def next_message(self):
        """The client's next message within body_seconds (408), or once shutdown has begun,
        within SHUTDOWN_STALL_SECONDS (503)."""
        guard = self.guard
        seconds = SHUTDOWN_STALL_SECONDS if guard.draining else self.limits.body_seconds
        window = asyncio.timeout(seconds)
        try:
            async with window:
                guard.windows.add(window)
                return await self._receive()
        except TimeoutError:
            if guard.draining:
                raise refusal(Unavailable("the server is shutting down and the request body "
                                          "stalled: send it again")) from None
            raise refusal(Stalled(f"request body stalled: nothing received for "
                                  f"{self.limits.body_seconds:g} s"
                                  f"{raise_with('body_seconds')}")) from None
        finally:
            guard.windows.discard(window)

    async def send(self, message) -> None:
        """Send, closing the connection after an answer given before the whole body came."""
        if message["type"] == "http.response.start":
            self.started = True
            if not self.complete:
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"connection", b"close")]}
        await self._send(message)

    async def answer(self, status: int, error: str) -> None:
        await JSONResponse({"error": error}, status_code=status)(self.scope, None, self.send)


def _size(digits: bytes) -> int | None:
    """A Content-Length header's value (None if it is not a number), read without `int` on
    a number too long to be a size (int refuses over 4,300 digits): such a one is 10**19,
    over any limit."""
    if not digits.isdigit():
        return None
    digits = digits.lstrip(b"0")
    return int(digits or b"0") if len(digits) <= 19 else 10**19
