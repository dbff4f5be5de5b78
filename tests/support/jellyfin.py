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

import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.http_fake import Call as Call
from tests.support.http_fake import HttpFake

VERSION = "10.11.0"
UPDATE_TYPES = frozenset({"Created", "Modified", "Deleted"})
_PAIR = re.compile(r'(\w+)="([^"]*)"')


def parse_authorization(value: str) -> tuple[str, dict[str, str]]:
    """``MediaBrowser Token="x", Client="y"`` -> ("MediaBrowser", {"Token": "x", ...})."""
    scheme, _, rest = value.strip().partition(" ")
    return scheme, dict(_PAIR.findall(rest))


@dataclass
class FakeJellyfin(HttpFake):
    api_key: str = field(default_factory=lambda: secrets.token_hex(16))
    legacy_auth: bool = False
    server_id: str = field(default_factory=lambda: secrets.token_hex(16))

    def _routes(self, app: web.Application) -> None:
        app.router.add_post("/Library/Media/Updated", self._media_updated)
        app.router.add_get("/System/Info/Public", self._public_info)
        app.router.add_get("/System/Info", self._info)
        app.router.add_route("*", "/{tail:.*}", self._unknown)

    @property
    def url(self) -> str:
        """What ``jellyfin.url`` should be."""
        return self._origin

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
            return self._answer(call, _problem(415, "Unsupported Media Type"), 415)
        updates = call.body.get("Updates") if isinstance(call.body, dict) else None
        if not isinstance(updates, list) or not all(
            isinstance(u, dict)
            and isinstance(u.get("Path"), str)
            and u.get("UpdateType", "Created") in UPDATE_TYPES
            for u in updates
        ):
            return self._answer(
                call,
                _problem(400, "One or more validation errors occurred.", {"$": ["bad body"]}),
                400,
            )
        return self._answer(call, None, 204)

    async def _public_info(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=False)
        if early is not None:
            return early
        return self._answer(call, self._public())

    async def _info(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=True)
        if early is not None:
            return early
        return self._answer(call, {**self._public(), "OperatingSystemDisplayName": "Linux"})

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=False)
        if early is not None:
            return early
        return self._answer(call, None, 404)

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

    def _fault_body(self, status: int) -> Any:
        return _problem(status, "Fault")

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
