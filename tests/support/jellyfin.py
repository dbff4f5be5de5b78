"""A fake Jellyfin server for tests: records library change reports.

jellybit's :class:`worker.jellyfin.JellyfinClient` is pointed at it by ``jellyfin.url =
fake.url``. It serves:

- ``POST /Library/Media/Updated`` — Jellyfin's ``MediaUpdateInfoDto`` body
  (``{"Updates": [{"Path": …, "UpdateType": "Created" | "Modified" | "Deleted" | null}]}``;
  ``Updates`` may be left out), in one of the content types Jellyfin's description lists
  (``application/json``, ``text/json``, ``application/*+json``), answered ``204``; a body of
  another shape (or none) is a ``400`` with ASP.NET's validation ``ProblemDetails``; another
  content type a ``415``. Jellyfin itself does not look at ``UpdateType``: the fake takes
  only the three values its description names, and no null ``Path`` (Jellyfin refuses it).
- ``GET /System/Info/Public`` (no auth) and ``GET /System/Info`` (auth), for checks.

The shapes are held to Jellyfin's published OpenAPI description by
``tests/contract/test_jellyfin.py`` (the parts jellybit uses: ``tests/data/jellyfin/``).

Auth as new Jellyfin (10.11) does it: ``Authorization: MediaBrowser Token="<key>"`` (other
comma-separated ``Key="value"`` pairs such as ``Client`` may come along; the ``Emby`` scheme
and the ``X-Emby-Authorization`` header are accepted too). The legacy ``X-Emby-Token`` header
and ``api_key`` parameter are off unless ``legacy_auth=True``, as in new Jellyfin. A missing
or wrong token is a ``401`` with an empty body.

Faults: ``fail_next(status, retry_after=None, times=1)`` (a ``503`` as Jellyfin's
description gives it: an HTML page, ``Retry-After`` when given; other statuses a
``ProblemDetails``), ``set_down(True)`` (connections closed without an answer),
``set_delay(seconds)``. ``calls`` logs every request with its
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
# The request body's content types in Jellyfin's description: application/json, text/json,
# application/*+json.
_JSON_TYPE = re.compile(r"application/json|text/json|application/[\w.+-]+\+json")
# ASP.NET Core's ProblemDetails "type" for a status (RFC 9110's section of it).
_PROBLEM_TYPES = {
    400: "https://tools.ietf.org/html/rfc9110#section-15.5.1",
    401: "https://tools.ietf.org/html/rfc9110#section-15.5.2",
    403: "https://tools.ietf.org/html/rfc9110#section-15.5.4",
    404: "https://tools.ietf.org/html/rfc9110#section-15.5.5",
    415: "https://tools.ietf.org/html/rfc9110#section-15.5.16",
    429: "https://tools.ietf.org/html/rfc6585#section-4",
    500: "https://tools.ietf.org/html/rfc9110#section-15.6.1",
}
_STARTING = "<html><body><p>Jellyfin is starting up. Please try again later.</p></body></html>"


@dataclass(frozen=True)
class _Html:
    """An answer body sent as ``text/html``."""

    text: str


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
            for update in call.body.get("Updates", [])
        ]

    # ---- handlers -----------------------------------------------------------------------
    async def _media_updated(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=True)
        if early is not None:
            return early
        if not _JSON_TYPE.fullmatch(request.content_type):
            return self._answer(call, _problem(415, "Unsupported Media Type"), 415)
        if not isinstance(call.body, dict):
            return self._answer(call, _invalid("dto", "The dto field is required."), 400)
        updates = call.body.get("Updates", [])
        if not isinstance(updates, list) or not all(
            isinstance(u, dict)
            and isinstance(u.get("Path"), str)
            and u.get("UpdateType") in {*UPDATE_TYPES, None}
            for u in updates
        ):
            return self._answer(
                call, _invalid("$.Updates", "The JSON value could not be converted."), 400
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
        return self._answer(
            call,
            {
                **self._public(),
                "OperatingSystemDisplayName": "Linux",
                "HasPendingRestart": False,
                "IsShuttingDown": False,
                "SupportsLibraryMonitor": True,
                "WebSocketPortNumber": 8096,
                "CompletedInstallations": [],
                "CanSelfRestart": True,
                "CanLaunchWebBrowser": False,
                "CastReceiverApplications": [],
                "HasUpdateAvailable": False,
            },
        )

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
        return _Html(_STARTING) if status == 503 else _problem(status, "Fault")

    def _answer(
        self, call: Call, body: Any, status: int = 200, headers: dict[str, str] | None = None
    ) -> web.Response:
        if isinstance(body, _Html):
            call.status = status
            return web.Response(
                status=status, text=body.text, content_type="text/html", headers=headers
            )
        return super()._answer(call, body, status, headers)

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
    """ASP.NET Core's ``ProblemDetails`` (``errors``: its validation problem's)."""
    body: dict[str, Any] = {
        "type": _PROBLEM_TYPES.get(status, "about:blank"),
        "title": title,
        "status": status,
    }
    if errors:
        body["errors"] = errors
    body["traceId"] = f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-00"
    return body


def _invalid(field: str, message: str) -> Any:
    return _problem(400, "One or more validation errors occurred.", {field: [message]})
