"""The TMDB adapter: search and details as :class:`~core.scoring.Candidate`.

Authentication is decided by the shape of ``metadata.tmdb_api_key``: a v4 read
access token (a JWT: three dot-separated parts) goes in ``Authorization:
Bearer …``, anything else is a v3 key and goes in the ``api_key`` query
parameter. The key never appears in logs or error messages.

Every HTTP call is logged through ``external_call`` with its own timeout. 5xx
and 429 answers are retried a few times (a 429's ``Retry-After`` is honoured
up to ``max_retry_wait``; a longer one is not waited for), then raise
:class:`RetryLaterError` (an ``UnreachableError``): the caller retries later,
this client never loops forever. A connection failure or timeout raises
``UnreachableError`` at once; 401 ``AuthFailedError``; any other 4xx
``RejectedError``.
"""

import asyncio
import contextlib
from email.utils import parsedate_to_datetime
from typing import Any, Literal

import aiohttp

from core import clock
from core.config import MetadataSettings
from core.errors import AuthFailedError, RejectedError, UnreachableError
from core.scoring import Candidate, MediaKind
from jellybit.logs import Logger, external_call, get_logger

SYSTEM = "tmdb"
DEFAULT_TIMEOUT = 10.0
MAX_TRIES = 3
MAX_RETRY_WAIT = 30.0
# Waits before the 2nd and 3rd try when the answer did not say how long.
BACKOFF = (0.5, 1.0)

_PATHS: dict[MediaKind, str] = {"movie": "movie", "series": "tv"}

Json = dict[str, Any]


class RetryLaterError(UnreachableError):
    """TMDB answered 5xx or 429 on every try; ``retry_after`` is its hint, if any."""

    def __init__(self, system: str, detail: str, retry_after: float | None = None) -> None:
        super().__init__(system, detail)
        self.retry_after = retry_after


def auth_kind(key: str) -> Literal["bearer", "api_key"]:
    """How a configured key is sent: a v4 token (JWT) as Bearer, else a v3 ``api_key``."""
    parts = key.strip().split(".")
    return "bearer" if len(parts) == 3 and all(parts) else "api_key"


class TmdbClient:
    def __init__(
        self,
        settings: MetadataSettings,
        session: aiohttp.ClientSession | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_tries: int = MAX_TRIES,
        max_retry_wait: float = MAX_RETRY_WAIT,
        log: Logger | None = None,
    ) -> None:
        self._base = settings.tmdb_base.rstrip("/")
        self._key = settings.tmdb_api_key.strip()
        self._provider = settings.provider
        self._language = settings.language
        self._session = session
        self._owns_session = session is None
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._timeout_s = timeout
        self._max_tries = max(1, max_tries)
        self._max_retry_wait = max_retry_wait
        self._log = log or get_logger()

    @property
    def enabled(self) -> bool:
        """TMDB is the provider and a key is configured."""
        return self._provider == "tmdb" and bool(self._key)

    async def close(self) -> None:
        """Close the HTTP session if this client made it (a given one is the caller's)."""
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None

    async def search(self, kind: MediaKind, title: str, year: int | None) -> list[Candidate]:
        """The first page of TMDB's search for ``title`` (and ``year`` when known)."""
        params: dict[str, str] = {"query": title, "include_adult": "false", "page": "1"}
        if year is not None:
            params["year" if kind == "movie" else "first_air_date_year"] = str(year)
        answer = await self._get(f"search/{_PATHS[kind]}", params, f"search_{_PATHS[kind]}")
        results = answer.get("results")
        if not isinstance(results, list):
            raise UnreachableError(SYSTEM, "search answer without results")
        return [_candidate(kind, item) for item in results if isinstance(item, dict)]

    async def details(self, kind: MediaKind, tmdb_id: int | str) -> Candidate:
        """One movie or show by its TMDB id; an unknown id is a ``RejectedError``."""
        answer = await self._get(f"{_PATHS[kind]}/{int(tmdb_id)}", {}, f"{_PATHS[kind]}_details")
        return _candidate(kind, answer)

    async def _get(self, path: str, params: dict[str, str], operation: str) -> Json:
        params = {**params, "language": self._language}
        headers = {"Accept": "application/json"}
        if auth_kind(self._key) == "bearer":
            headers["Authorization"] = f"Bearer {self._key}"
        elif self._key:
            params["api_key"] = self._key
        url = f"{self._base}/{path}"
        for attempt in range(1, self._max_tries + 1):
            try:
                async with external_call(self._log, SYSTEM, operation, attempt=attempt):
                    return await self._once(url, params, headers)
            except RetryLaterError as error:
                wait = error.retry_after
                if wait is None:
                    wait = BACKOFF[min(attempt, len(BACKOFF)) - 1]
                if attempt == self._max_tries or wait > self._max_retry_wait:
                    raise
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _once(self, url: str, params: dict[str, str], headers: dict[str, str]) -> Json:
        session = self._ensure_session()
        try:
            async with session.get(
                url, params=params, headers=headers, timeout=self._timeout
            ) as response:
                status = response.status
                retry_after = _retry_after(response.headers.get("Retry-After"))
                body: object = None
                with contextlib.suppress(ValueError, aiohttp.ContentTypeError):
                    body = await response.json(content_type=None)
        except TimeoutError:
            raise UnreachableError(SYSTEM, f"no answer in {self._timeout_s:g} s") from None
        except aiohttp.ClientError as error:
            raise UnreachableError(SYSTEM, _describe(error)) from None
        message = _status_message(body)
        if status == 429 or status >= 500:
            detail = f"HTTP {status}" + (f": {message}" if message else "")
            raise RetryLaterError(SYSTEM, detail, retry_after)
        if status == 401:
            raise AuthFailedError(SYSTEM, message or "the API key was refused")
        if status >= 400:
            raise RejectedError(SYSTEM, f"HTTP {status}" + (f": {message}" if message else ""))
        if not isinstance(body, dict):
            raise UnreachableError(SYSTEM, f"HTTP {status} without a JSON object")
        return body

    def _ensure_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            if not self._owns_session:
                raise RuntimeError("the TMDB client's session is closed")
            self._session = aiohttp.ClientSession()
        return self._session


def _candidate(kind: MediaKind, item: Json) -> Candidate:
    if kind == "movie":
        title, original, date = item.get("title"), item.get("original_title"), "release_date"
    else:
        title, original, date = item.get("name"), item.get("original_name"), "first_air_date"
    title_text = _text(title) or _text(original) or ""
    return Candidate(
        provider="tmdb",
        provider_id=str(item["id"]) if item.get("id") is not None else None,
        kind=kind,
        title=title_text,
        original_title=_text(original),
        year=_year(item.get(date)),
        overview=_text(item.get("overview")),
        poster_path=_text(item.get("poster_path")),
        popularity=_float(item.get("popularity")),
    )


def _text(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return value.strip() or None


def _year(value: object) -> int | None:
    """The year of TMDB's "YYYY-MM-DD" (empty for titles without a date)."""
    if isinstance(value, str) and len(value) >= 4 and value[:4].isdigit():
        return int(value[:4])
    return None


def _float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value)


def _status_message(body: object) -> str | None:
    if isinstance(body, dict):
        message = body.get("status_message")
        if isinstance(message, str) and message:
            return message[:200]
    return None


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        return None
    return max(0.0, (clock.to_ms(moment) - clock.now_ms()) / 1000)


def _describe(error: aiohttp.ClientError) -> str:
    """An error's text without the URL (it may carry the ``api_key``)."""
    if isinstance(error, aiohttp.ClientConnectorError):
        reason = error.os_error.strerror or type(error.os_error).__name__
        return f"cannot connect to {error.host}:{error.port} ({reason})"
    if isinstance(error, aiohttp.ClientResponseError | aiohttp.InvalidURL):
        return type(error).__name__
    return f"{type(error).__name__}: {error}"[:300]
