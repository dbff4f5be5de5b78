"""A fake Jellyfin server for tests: records library change reports.

jellybit's :class:`worker.jellyfin.JellyfinClient` is pointed at it by ``jellyfin.url =
fake.url``. It serves:

- ``POST /Library/Media/Updated`` — Jellyfin's ``MediaUpdateInfoDto`` body
  (``{"Updates": [{"Path": …, "UpdateType": "Created" | "Modified" | "Deleted"}]}``),
  answered ``204``; a body of another shape is a ``400`` with ASP.NET's validation problem
  JSON; a non-JSON content type a ``415``.
- ``GET /System/Info/Public`` (no auth) and ``GET /System/Info`` (auth), for checks.

Auth as new Jellyfin (10.11) does it: ``Authorization: MediaBrowser Token="<key>"`` (other
comma-separated ``Key="value"`` pairs such as ``Client`` may come along; the ``Emby`` scheme
and the ``X-Emby-Authorization`` header are accepted too). The legacy ``X-Emby-Token`` header
and ``api_key`` parameter are off unless ``legacy_auth=True``, as in new Jellyfin. A missing
or wrong token is a ``401`` with an empty body.

Faults: ``fail_next(status, retry_after=None, times=1)``, ``set_down(True)`` (connections
closed without an answer), ``set_delay(seconds)``. ``calls`` logs every request with its
headers, JSON body, arrival time (``time.monotonic()``) and status (None when dropped);
``updated_paths`` lists the paths of the accepted reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from aiohttp import web

VERSION = "10.11.0"
UPDATE_TYPES = frozenset({"Created", "Modified", "Deleted"})
_PAIR = re.compile(r'(\w+)="([^"]*)"')


@dataclass
class Call:
    method: str
    path: str
    headers: dict[str, str]
    params: dict[str, str]
    body: Any  # the parsed JSON, or None
    at: float
    status: int | None = None


@dataclass
class _Fault:
    status: int
    retry_after: float | str | None


def parse_authorization(value: str) -> tuple[str, dict[str, str]]:
    """``MediaBrowser Token="x", Client="y"`` -> ("MediaBrowser", {"Token": "x", ...})."""
    scheme, _, rest = value.strip().partition(" ")
    return scheme, dict(_PAIR.findall(rest))


@dataclass
class FakeJellyfin:
    api_key: str = field(default_factory=lambda: secrets.token_hex(16))
    legacy_auth: bool = False
    server_id: str = field(default_factory=lambda: secrets.token_hex(16))
    calls: list[Call] = field(default_factory=list)
    _faults: list[_Fault] = field(default_factory=list, repr=False)
    _down: bool = field(default=False, repr=False)
    _delay: float = field(default=0.0, repr=False)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _runner: web.AppRunner | None = field(default=None, repr=False)
    _port: int | None = field(default=None, repr=False)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/Library/Media/Updated", self._media_updated)
        app.router.add_get("/System/Info/Public", self._public_info)
        app.router.add_get("/System/Info", self._info)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
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
    def url(self) -> str:
        """What ``jellyfin.url`` should be."""
        assert self._port is not None, "FakeJellyfin is not started"
        return f"http://127.0.0.1:{self._port}"

    # ---- control ------------------------------------------------------------------------
    def fail_next(
        self, status: int, retry_after: float | str | None = None, times: int = 1
    ) -> None:
        """Answer the next ``times`` requests with ``status`` (a ProblemDetails body)."""
        self._faults += [_Fault(status, retry_after)] * times

    def set_down(self, down: bool = True) -> None:
        """While down, every request gets its connection closed without an answer."""
        self._down = down

    def set_delay(self, seconds: float) -> None:
        self._delay = seconds

    def calls_to(self, path: str) -> list[Call]:
        return [call for call in self.calls if call.path == path]

    @property
    def updated_paths(self) -> list[str]:
        """Paths of every accepted ``/Library/Media/Updated`` report, in order."""
        return [
            update["Path"]
            for call in self.calls_to("/Library/Media/Updated")
            if call.status == 204
            for update in call.body["Updates"]
        ]

    # ---- handlers -----------------------------------------------------------------------
    async def _media_updated(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=True)
        if early is not None:
            return early
        if request.content_type != "application/json":
            return _answer(call, _problem(415, "Unsupported Media Type"), 415)
        updates = call.body.get("Updates") if isinstance(call.body, dict) else None
        if not isinstance(updates, list) or not all(
            isinstance(u, dict)
            and isinstance(u.get("Path"), str)
            and u.get("UpdateType", "Created") in UPDATE_TYPES
            for u in updates
        ):
            return _answer(
                call,
                _problem(400, "One or more validation errors occurred.", {"$": ["bad body"]}),
                400,
            )
        call.status = 204
        return web.Response(status=204)

    async def _public_info(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=False)
        if early is not None:
            return early
        return _answer(call, self._public())

    async def _info(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=True)
        if early is not None:
            return early
        return _answer(call, {**self._public(), "OperatingSystemDisplayName": "Linux"})

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=False)
        if early is not None:
            return early
        call.status = 404
        return web.Response(status=404)

    def _public(self) -> dict[str, Any]:
        return {
            "LocalAddress": self.url,
            "ServerName": "fake-jellyfin",
            "Version": VERSION,
            "ProductName": "Jellyfin Server",
            "OperatingSystem": "",
            "Id": self.server_id,
            "StartupWizardCompleted": True,
        }

    async def _begin(
        self, request: web.Request, *, auth: bool
    ) -> tuple[Call, web.StreamResponse | None]:
        raw = await request.read()
        body: Any = None
        with contextlib.suppress(ValueError):
            body = json.loads(raw) if raw else None
        call = Call(
            method=request.method,
            path=request.path,
            headers=dict(request.headers),
            params=dict(request.query),
            body=body,
            at=time.monotonic(),
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
            return call, _answer(call, _problem(fault.status, "Fault"), fault.status, headers)
        if auth and not self._authorized(request):
            call.status = 401
            return call, web.Response(status=401)
        return call, None

    def _authorized(self, request: web.Request) -> bool:
        tokens = []
        for header in ("Authorization", "X-Emby-Authorization"):
            scheme, pairs = parse_authorization(request.headers.get(header, ""))
            if scheme in ("MediaBrowser", "Emby") and "Token" in pairs:
                tokens.append(pairs["Token"])
        if self.legacy_auth:
            tokens += [request.headers.get("X-Emby-Token", ""), request.query.get("api_key", "")]
        return any(secrets.compare_digest(token, self.api_key) for token in tokens if token)


def _problem(status: int, title: str, errors: dict[str, list[str]] | None = None) -> Any:
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status}
    if errors:
        body["errors"] = errors
    return body


def _answer(
    call: Call, body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    call.status = status
    return web.json_response(body, status=status, headers=headers)
