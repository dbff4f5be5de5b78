"""The Jellyfin adapter: tell Jellyfin about files a layout batch made.

``POST /Library/Media/Updated`` with ``Authorization: MediaBrowser
Token="…"`` — the legacy ``X-Emby-Token`` header and ``api_key`` parameter are
off by default in new Jellyfin. One try per call, logged through
``external_call``: a connection failure, a timeout, a 5xx or a 429 raises
``UnreachableError`` (the caller retries later), 401/403 ``AuthFailedError``,
any other 4xx ``RejectedError``.
"""

import json
from collections.abc import Sequence

import aiohttp

from common.logs import Logger, external_call, get_logger
from core.config import JellyfinSettings
from core.errors import AuthFailedError, RejectedError, UnreachableError

SYSTEM = "jellyfin"
DEFAULT_TIMEOUT = 10.0


def auth_header(api_key: str) -> str:
    """Jellyfin's ``Authorization`` value for an API key."""
    return f'MediaBrowser Token="{api_key}"'


class JellyfinClient:
    def __init__(
        self,
        settings: JellyfinSettings,
        session: aiohttp.ClientSession | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        log: Logger | None = None,
    ) -> None:
        self._url = settings.url.strip().rstrip("/")
        self._key = settings.api_key.strip()
        self._session = session
        self._owns_session = session is None
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._timeout_s = timeout
        self._log = log or get_logger()

    @property
    def enabled(self) -> bool:
        """False when ``jellyfin.url`` is empty: no refresh is wanted."""
        return bool(self._url)

    async def close(self) -> None:
        """Close the HTTP session if this client made it (a given one is the caller's)."""
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None

    async def media_updated(self, paths: Sequence[str], log: Logger | None = None) -> None:
        """Report new files (paths as Jellyfin sees them); a no-op when disabled or empty."""
        if not self.enabled or not paths:
            return
        body = {"Updates": [{"Path": str(path), "UpdateType": "Created"} for path in paths]}
        async with external_call(log or self._log, SYSTEM, "media_updated", paths=len(paths)):
            await self._request("POST", "/Library/Media/Updated", body)

    async def version(self) -> str:
        """Jellyfin's version from ``GET /System/Info``, which needs the key
        (unlike ``/System/Info/Public``): a check that the key is accepted."""
        text = await self._request("GET", "/System/Info")
        try:
            info = json.loads(text)
        except ValueError:
            info = None
        if not isinstance(info, dict):
            raise RejectedError(SYSTEM, "the answer is not Jellyfin's system info")
        return str(info.get("Version", "?"))

    async def _request(self, method: str, path: str, body: object = None) -> str:
        """One call; the answer's text, or the error its status means."""
        session = self._ensure_session()
        headers = {"Authorization": auth_header(self._key)}
        try:
            async with session.request(
                method, f"{self._url}{path}", json=body, headers=headers, timeout=self._timeout
            ) as response:
                status = response.status
                text = (await response.text(errors="replace")).strip()
        except TimeoutError:
            raise UnreachableError(SYSTEM, f"no answer in {self._timeout_s:g} s") from None
        except aiohttp.ClientConnectorError as error:
            reason = error.os_error.strerror or type(error.os_error).__name__
            raise UnreachableError(
                SYSTEM, f"cannot connect to {error.host}:{error.port} ({reason})"
            ) from None
        except aiohttp.ClientError as error:
            raise UnreachableError(SYSTEM, f"{type(error).__name__}: {error}"[:300]) from None
        detail = f"HTTP {status}" + (f": {text[:200]}" if text else "")
        if status in (401, 403):
            raise AuthFailedError(SYSTEM, f"the API key was refused ({detail})")
        if status == 429 or status >= 500:
            raise UnreachableError(SYSTEM, detail)
        if status >= 400:
            raise RejectedError(SYSTEM, detail)
        return text

    def _ensure_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            if not self._owns_session:
                raise RuntimeError("the Jellyfin client's session is closed")
            self._session = aiohttp.ClientSession()
        return self._session
