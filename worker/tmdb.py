"""The TMDB adapter: search, details, ``/find`` and seasons as candidates
(:class:`~recognition.candidates.Candidate`).

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
import re
from collections.abc import Sequence
from dataclasses import replace
from email.utils import parsedate_to_datetime
from typing import Any, Literal

import aiohttp

from common.logs import Logger, external_call, get_logger
from core import clock
from core.config import MetadataSettings
from core.errors import AuthFailedError, RejectedError, UnreachableError
from core.numbers import ascii_int
from recognition.candidates import AiredEpisode, Candidate, MediaKind, Season
from recognition.lookups import FindSource

SYSTEM = "tmdb"
DEFAULT_TIMEOUT = 10.0
MAX_TRIES = 3
MAX_RETRY_WAIT = 30.0
# Waits before the 2nd and 3rd try when the answer did not say how long.
BACKOFF = (0.5, 1.0)

_PATHS: dict[MediaKind, str] = {"movie": "movie", "series": "tv"}
SEASONS_AT_ONCE = 20  # TMDB appends at most twenty parts to one answer

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

    async def search(
        self, kind: MediaKind, title: str, year: int | None, *, language: str | None = None
    ) -> list[Candidate]:
        """The first page of TMDB's search for ``title`` (and ``year`` when known), in
        ``language`` (default: ``metadata.language``)."""
        params: dict[str, str] = {"query": title, "include_adult": "false", "page": "1"}
        if year is not None:
            params["year" if kind == "movie" else "first_air_date_year"] = str(year)
        path = _PATHS[kind]
        answer = await self._get(f"search/{path}", params, f"search_{path}", language)
        results = answer.get("results")
        if not isinstance(results, list):
            raise UnreachableError(SYSTEM, "search answer without results")
        return _candidates(kind, results)

    async def details(
        self, kind: MediaKind, tmdb_id: int | str, *, language: str | None = None
    ) -> Candidate:
        """One movie or show by its TMDB id, with every name TMDB knows it by (its
        alternative titles and translations), its countries, seasons and IMDb id; an
        unknown id is a ``RejectedError``. ``language``: the names it gives (a show's
        title, its seasons') are in it (default: ``metadata.language``)."""
        number = parse_tmdb_id(tmdb_id)
        if number is None:
            raise RejectedError(SYSTEM, f"not a TMDB id: {str(tmdb_id)[:40]!r}")
        path = _PATHS[kind]
        params = {"append_to_response": "alternative_titles,translations,external_ids"}
        answer = await self._get(f"{path}/{number}", params, f"{path}_details", language)
        found = _candidate(kind, answer)
        if found is None:
            raise RejectedError(SYSTEM, "details answer without a valid id")
        return _detailed(found, answer)

    async def find(self, external_id: str, source: FindSource = "imdb_id") -> list[Candidate]:
        """Movies and shows with this IMDb id (``tt…``) or, ``source="tvdb_id"``, TheTVDB
        id: ``/find`` by external id."""
        answer = await self._get(f"find/{external_id}", {"external_source": source}, "find")
        movies, shows = answer.get("movie_results"), answer.get("tv_results")
        return [
            *_candidates("movie", movies if isinstance(movies, list) else []),
            *_candidates("series", shows if isinstance(shows, list) else []),
        ]

    async def season(
        self, tmdb_id: int | str, number: int, *, language: str | None = None
    ) -> list[AiredEpisode]:
        """The episodes of one season: number, name and air date ("YYYY-MM-DD"); the
        names in ``language`` (default: ``metadata.language``)."""
        show = parse_tmdb_id(tmdb_id)
        if show is None:
            raise RejectedError(SYSTEM, f"not a TMDB id: {str(tmdb_id)[:40]!r}")
        answer = await self._get(f"tv/{show}/season/{int(number)}", {}, "tv_season", language)
        return _episodes(int(number), answer)

    async def seasons(
        self, tmdb_id: int | str, numbers: Sequence[int], *, language: str | None = None
    ) -> dict[int, list[AiredEpisode]]:
        """The episodes of several seasons (twenty at most) in one request: the show's
        details with ``append_to_response=season/1,season/2,…``."""
        show = parse_tmdb_id(tmdb_id)
        if show is None:
            raise RejectedError(SYSTEM, f"not a TMDB id: {str(tmdb_id)[:40]!r}")
        wanted = [int(n) for n in numbers][:SEASONS_AT_ONCE]
        params = {"append_to_response": ",".join(f"season/{n}" for n in wanted)}
        answer = await self._get(f"tv/{show}", params, "tv_seasons", language)
        parts = {n: answer.get(f"season/{n}") for n in wanted}
        return {n: _episodes(n, part) for n, part in parts.items() if isinstance(part, dict)}

    async def _get(
        self, path: str, params: dict[str, str], operation: str, language: str | None = None
    ) -> Json:
        params = {**params, "language": language or self._language}
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


def parse_tmdb_id(value: object) -> int | None:
    """A TMDB id as TMDB gives it (a positive integer, or its ASCII digits), else None:
    an id that is not one never reaches a path or a library folder."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value < 10**10 else None
    if isinstance(value, str):
        return ascii_int(value, 10) or None
    return None


def _candidates(kind: MediaKind, items: list[Any]) -> list[Candidate]:
    found = (_candidate(kind, item) for item in items if isinstance(item, dict))
    return [candidate for candidate in found if candidate is not None]


def _candidate(kind: MediaKind, item: Json) -> Candidate | None:
    """A search result or details as a candidate; None when its id is not a TMDB id."""
    tmdb_id = parse_tmdb_id(item.get("id"))
    if tmdb_id is None:
        return None
    if kind == "movie":
        title, original, date = item.get("title"), item.get("original_title"), "release_date"
    else:
        title, original, date = item.get("name"), item.get("original_name"), "first_air_date"
    title_text = _text(title) or _text(original) or ""
    countries = item.get("origin_country")
    return Candidate(
        provider="tmdb",
        provider_id=str(tmdb_id),
        kind=kind,
        title=title_text,
        original_title=_text(original),
        year=_year(item.get(date)),
        overview=_text(item.get("overview")),
        poster_path=_text(item.get("poster_path")),
        popularity=_float(item.get("popularity")),
        countries=_texts(countries if isinstance(countries, list) else []),
        language=_text(item.get("original_language")),
        genres=_genre_ids(item.get("genre_ids")),
    )


def _detailed(found: Candidate, answer: Json) -> Candidate:
    """What details add: names (alternative titles, translations), countries,
    seasons with their episode counts, the IMDb id."""
    names: list[str] = []
    translated: list[str] = []
    alternative = answer.get("alternative_titles")
    if isinstance(alternative, dict):
        rows = alternative.get("titles", alternative.get("results"))
        names += [_text(r.get("title")) or "" for r in _dicts(rows)]
    translations = answer.get("translations")
    if isinstance(translations, dict):
        for row in _dicts(translations.get("translations")):
            data = row.get("data")
            if isinstance(data, dict):
                translated.append(_text(data.get("title")) or _text(data.get("name")) or "")
    names += translated
    countries = list(found.countries)
    countries += [
        _text(c.get("iso_3166_1")) or "" for c in _dicts(answer.get("production_countries"))
    ]
    seasons = None
    if found.kind == "series" and isinstance(answer.get("seasons"), list):
        seasons = tuple(
            Season(
                number,
                count,
                _year(row.get("air_date")),
                _own_name(row.get("name"), number),
                _text(row.get("air_date")),
            )
            for row in _dicts(answer.get("seasons"))
            if (number := _int(row.get("season_number"))) is not None
            and (count := _int(row.get("episode_count"))) is not None
        )
    external = answer.get("external_ids")
    imdb = _text(answer.get("imdb_id")) or (
        _text(external.get("imdb_id")) if isinstance(external, dict) else None
    )
    tvdb = _int(external.get("tvdb_id")) if isinstance(external, dict) else None
    known = {found.title, found.original_title}
    return replace(
        found,
        names=tuple(dict.fromkeys(n for n in names if n and n not in known)),
        translations=tuple(dict.fromkeys(n for n in translated if n and n not in known)),
        countries=tuple(dict.fromkeys(c for c in countries if c)),
        seasons=seasons,
        imdb_id=imdb,
        tvdb_id=tvdb if found.kind == "series" else None,
        language=_text(answer.get("original_language")) or found.language,
        runtime=_int(answer.get("runtime")) if found.kind == "movie" else None,
        networks=tuple(n for r in _dicts(answer.get("networks")) if (n := _text(r.get("name")))),
        genres=_genre_ids([r.get("id") for r in _dicts(answer.get("genres"))]) or found.genres,
        ended=_text(answer.get("last_air_date"))
        if answer.get("status") in ("Ended", "Canceled")
        else None,
    )


def _genre_ids(value: object) -> tuple[int, ...]:
    """TMDB's genre ids (a search result's ``genre_ids``, the ids of details' ``genres``)."""
    if not isinstance(value, list):
        return ()
    return tuple(g for g in value if isinstance(g, int) and not isinstance(g, bool))


def _own_name(value: object, number: int) -> str | None:
    """A season's name when it says more than its number ("Season 2", "Specials",
    "Сезон 2" say nothing)."""
    name = _text(value)
    if name is None or re.fullmatch(r"(?i)(?:season|series|сезон|staffel|saison)\s*\d+", name):
        return None
    if number == 0 and re.fullmatch(r"(?i)specials?|спецвыпуски|extras", name):
        return None
    return name


def _dicts(value: object) -> list[Json]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _texts(values: list[Any]) -> tuple[str, ...]:
    return tuple(text for value in values if (text := _text(value)) is not None)


def _episodes(number: int, answer: Json) -> list[AiredEpisode]:
    """A season's episodes from TMDB's answer: number, name and air date."""
    episodes = answer.get("episodes")
    found = []
    for item in episodes if isinstance(episodes, list) else []:
        if isinstance(item, dict) and (episode := _int(item.get("episode_number"))) is not None:
            found.append(
                AiredEpisode(number, episode, _text(item.get("name")), _text(item.get("air_date")))
            )
    return found


def _int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


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
