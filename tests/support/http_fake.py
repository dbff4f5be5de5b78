"""The machinery the fake HTTP servers share: lifecycle, request log and faults.

A subclass registers its handlers in ``_routes(app)``, says who may in ``_authorized``, and
shapes its own errors in ``_fault_body`` and ``_unauthorized``. Each handler starts with
``call, early = await self._begin(request)`` and returns ``early`` when it is not None.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, ClassVar, Self

from aiohttp import web


@dataclass
class Call:
    """One request: ``at`` is ``time.monotonic()`` on arrival; ``status`` None if dropped."""

    method: str
    path: str  # without the fake's prefix
    headers: dict[str, str]
    params: dict[str, str]
    at: float
    body: Any = None  # the parsed JSON, or None
    status: int | None = None


@dataclass
class _Fault:
    status: int
    retry_after: float | str | None


@dataclass(kw_only=True)
class HttpFake:
    prefix: ClassVar[str] = ""  # cut from ``Call.path``

    calls: list[Call] = field(default_factory=list)
    _faults: list[_Fault] = field(default_factory=list, repr=False)
    _down: bool = field(default=False, repr=False)
    _delay: float = field(default=0.0, repr=False)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _runner: web.AppRunner | None = field(default=None, repr=False)
    _port: int | None = field(default=None, repr=False)

    # ---- hooks --------------------------------------------------------------------------
    def _routes(self, app: web.Application) -> None:
        raise NotImplementedError

    def _authorized(self, request: web.Request) -> bool:
        return True

    def _unauthorized(self, call: Call) -> web.Response:
        return self._answer(call, None, 401)

    def _fault_body(self, status: int) -> Any:
        return None

    # ---- lifecycle ----------------------------------------------------------------------
    async def start(self) -> None:
        app = web.Application()
        self._routes(app)
        self._stopping.clear()
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self._port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        self._stopping.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def _origin(self) -> str:
        assert self._port is not None, f"{type(self).__name__} is not started"
        return f"http://127.0.0.1:{self._port}"

    # ---- control ------------------------------------------------------------------------
    def fail_next(
        self, status: int, retry_after: float | str | None = None, times: int = 1
    ) -> None:
        """Answer the next ``times`` requests with this fake's error for ``status``."""
        self._faults += [_Fault(status, retry_after)] * times

    def set_down(self, down: bool = True) -> None:
        """While down, every request gets its connection closed without an answer."""
        self._down = down

    def set_delay(self, seconds: float) -> None:
        """Hold every answer ``seconds`` long (0 = answer at once)."""
        self._delay = seconds

    def calls_to(self, path: str) -> list[Call]:
        return [call for call in self.calls if call.path == path]

    # ---- requests -----------------------------------------------------------------------
    async def _begin(
        self, request: web.Request, *, auth: bool = True
    ) -> tuple[Call, web.StreamResponse | None]:
        """Log the call; an early answer for outages, faults and (with ``auth``) bad keys."""
        raw = await request.read()
        body: Any = None
        with contextlib.suppress(ValueError):
            body = json.loads(raw) if raw else None
        call = Call(
            method=request.method,
            path=request.path.removeprefix(self.prefix),
            headers=dict(request.headers),
            params=dict(request.query),
            at=time.monotonic(),
            body=body,
        )
        self.calls.append(call)
        if self._delay:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self._delay)
        if self._down or self._stopping.is_set():
            if request.transport is not None:
                request.transport.close()
            return call, web.Response(status=503)  # never reaches the client
        if self._faults:
            fault = self._faults.pop(0)
            headers = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
            return call, self._answer(call, self._fault_body(fault.status), fault.status, headers)
        if auth and not self._authorized(request):
            return call, self._unauthorized(call)
        return call, None

    def _answer(
        self, call: Call, body: Any, status: int = 200, headers: dict[str, str] | None = None
    ) -> web.Response:
        """Record ``status`` and answer ``body`` as JSON (None: an empty body)."""
        call.status = status
        if body is None:
            return web.Response(status=status, headers=headers)
        return web.json_response(
            body, status=status, headers=headers, dumps=lambda o: json.dumps(o, ensure_ascii=False)
        )
