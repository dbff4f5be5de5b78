"""A Torznab indexer (Prowlarr's ``/{id}/api``, Jackett's ``…/torznab/api``) as a search
source, and the fetch of a release's download link on a tap.

One source is one configured endpoint. Its caps are asked once and kept for an hour
(a failure is not kept: the next search asks again); a search is one request, built by
``core.torznab.search_query`` from the caps, read as it arrives (``ResultsReader``)
and answered as a ``SourceAnswer`` whatever the indexer said. A 429 is remembered: until
its ``Retry-After`` has passed the source answers ``search.rate_limited`` without asking.

The URL carries the API key, and an indexer's download links carry it too: neither is
ever logged, put in a reason or in an exception's text; the logs name the source only.
docs/search.md, "Torznab", tells the whole of it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from urllib.parse import urlencode

import aiohttp
from fastbencode import bdecode  # type: ignore[attr-defined]  # no __all__
from yarl import URL

from common.logs import Logger, external_call, get_logger
from core import clock
from core.config import TorznabEndpoint
from core.errors import InvalidInputError
from core.magnet import parse_magnet
from core.reasons import Reason, reason
from core.search import SourceAnswer, Terms, deduplicated
from core.torrent_file import MAX_NESTING, MAX_TORRENT_BYTES, TOO_LARGE_REASON
from core.torznab import (
    MAX_CAPS_BYTES,
    Caps,
    Page,
    ResultsReader,
    is_web_page,
    parse_caps,
    parse_results,
    search_query,
)

SYSTEM = "torznab"
DEFAULT_TIMEOUT = 15.0  # seconds, each request
CAPS_TTL = 3600.0  # seconds a caps answer is kept: indexers are added and changed
MAX_REDIRECTS = 5  # hops a download link may take to its magnet or .torrent
# A 429 without a Retry-After: Jackett's own default; a longer hint is kept to a day.
DEFAULT_RETRY_AFTER = 60.0
MAX_RETRY_AFTER = 86400.0
_CHUNK = 64 * 1024
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class SourceProblem(Exception):
    """What a source said instead of an answer; ``str()`` is the reason's English
    (never the URL)."""

    def __init__(self, problem: Reason, retry_after: float | None = None, cause: str = "") -> None:
        super().__init__(f"{problem.english()} ({cause})" if cause else problem.english())
        self.problem = problem
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    retry_after: str | None
    page: Page = field(default_factory=Page)  # the results, read (a search's)
    body: bytes = b""  # another answer's body, whole (at most its bound)


class TorznabSource:
    def __init__(
        self,
        endpoint: TorznabEndpoint,
        session: aiohttp.ClientSession,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        log: Logger | None = None,
    ) -> None:
        self.name = endpoint.name
        self._url = endpoint.url.strip()
        self._key = endpoint.api_key.strip()
        self._session = session
        self._timeout = timeout
        self._log = (log or get_logger()).bind(source=endpoint.name)
        self._caps: Caps | None = None
        self._caps_at = 0.0
        self._caps_lock = asyncio.Lock()
        self._quiet_until = 0.0  # monotonic: no request before this (a 429)

    async def caps(self) -> Caps:
        """The indexer's caps, asked once an hour at most; ``SourceProblem`` when it
        would not say them (the failure is not kept)."""
        async with self._caps_lock:
            if self._caps is not None and clock.monotonic() - self._caps_at < CAPS_TTL:
                return self._caps
            response = await self._get((("t", "caps"),), "caps", read_page=False)
            caps = parse_caps(response.body, self.name)
            if isinstance(caps, Reason):
                raise SourceProblem(self._unless_status(response, caps))
            self._caps, self._caps_at = caps, clock.monotonic()
            return caps

    async def search(self, terms: Terms) -> SourceAnswer:
        """One page of releases for ``terms``, each once; never raises for what the
        indexer says."""
        try:
            caps = await self.caps()
            query = search_query(terms, caps)
            response = await self._get(query.params, "search", read_page=True)
        except SourceProblem as problem:
            self._log.warning("torznab.problem", code=problem.problem.code)
            return SourceAnswer(self.name, problem=problem.problem, retry_after=problem.retry_after)
        page = response.page
        if page.skipped:
            self._log.info("torznab.skipped", skipped=dict(page.skipped))
        if page.problem is not None:
            said = self._unless_status(response, page.problem)
            self._log.warning("torznab.problem", code=said.code)
            return SourceAnswer(self.name, problem=said, ids_used=query.ids_used)
        return SourceAnswer(
            self.name, found=tuple(deduplicated(page.found)), ids_used=query.ids_used
        )

    async def _get(
        self, params: tuple[tuple[str, str], ...], operation: str, *, read_page: bool
    ) -> _Response:
        """One request; ``SourceProblem`` for what its status or the network says."""
        wait = self._quiet_until - clock.monotonic()
        if wait > 0:
            raise SourceProblem(self._rate_limited(wait), retry_after=wait)
        query = urlencode([*params, ("apikey", self._key)] if self._key else params)
        url = f"{self._url}{'&' if '?' in self._url else '?'}{query}"
        timeout = aiohttp.ClientTimeout(total=self._timeout)
        async with external_call(self._log, SYSTEM, operation):
            try:
                async with self._session.get(
                    URL(url, encoded=True), timeout=timeout, allow_redirects=False
                ) as answer:
                    response = await self._read(answer, read_page)
            except TimeoutError:
                raise SourceProblem(
                    reason("search.timeout", source=self.name, seconds=self._timeout)
                ) from None
            except aiohttp.ClientError as error:
                # Only the type: aiohttp's texts may hold the URL, and so the key.
                raise SourceProblem(
                    reason("search.unreachable", source=self.name), cause=type(error).__name__
                ) from None
        return self._checked(response)

    async def _read(self, answer: aiohttp.ClientResponse, read_page: bool) -> _Response:
        retry_after = answer.headers.get("Retry-After")
        if read_page and answer.status < 300:
            reader = ResultsReader(self.name)
            async for chunk in answer.content.iter_chunked(_CHUNK):
                if not reader.feed_chunk(chunk):
                    break
            return _Response(answer.status, retry_after, page=reader.page())
        body, _ = await read_bounded(answer, MAX_CAPS_BYTES)
        page = parse_results(body, self.name) if read_page else Page()
        return _Response(answer.status, retry_after, page=page, body=body)

    def _checked(self, response: _Response) -> _Response:
        """The statuses that say it all, whatever the body: 429, 410, 401/403."""
        status = response.status
        if status == 429:
            wait = _retry_after(response.retry_after)
            self._quiet_until = clock.monotonic() + wait
            raise SourceProblem(self._rate_limited(wait), retry_after=wait)
        if status == 410:
            raise SourceProblem(reason("search.disabled", source=self.name))
        if status in (401, 403):
            if is_web_page(response.body):  # Cloudflare's challenge, a proxy's login
                raise SourceProblem(reason("search.blocked", source=self.name))
            raise SourceProblem(reason("search.bad_api_key", source=self.name))
        if status in _REDIRECTS:  # to a login page: an API answers, it does not send away
            raise SourceProblem(reason("search.blocked", source=self.name))
        return response

    def _unless_status(self, response: _Response, problem: Reason) -> Reason:
        """The body's problem, with its words freed of the key; a body that says
        nothing readable on an error status is that status."""
        if problem.code == "search.unreadable" and response.status >= 400:
            return reason("search.error", source=self.name, detail=f"HTTP {response.status}")
        detail = problem.params.get("detail")
        if isinstance(detail, str) and self._key and self._key in detail:
            return Reason(problem.code, {**problem.params, "detail": self._redact(detail)})
        return problem

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "…") if self._key else text

    def _rate_limited(self, wait: float) -> Reason:
        return reason("search.rate_limited", source=self.name, seconds=round(wait))


def _retry_after(value: str | None) -> float:
    """Seconds from a ``Retry-After`` (delta-seconds or an HTTP date), within bounds."""
    seconds: float | None = None
    text = (value or "").strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            moment = parsedate_to_datetime(text)
            if moment.tzinfo is not None:
                seconds = (clock.to_ms(moment) - clock.now_ms()) / 1000
        except (TypeError, ValueError, IndexError):
            seconds = None
    if seconds is None or seconds != seconds:  # absent, unreadable, NaN
        return DEFAULT_RETRY_AFTER
    return min(max(seconds, 1.0), MAX_RETRY_AFTER)


async def read_bounded(answer: aiohttp.ClientResponse, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the body, and whether there was more (not read)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in answer.content.iter_chunked(_CHUNK):
        room = limit - size
        chunks.append(chunk[:room])
        size += min(len(chunk), room)
        if len(chunk) > room:
            return b"".join(chunks), True
    return b"".join(chunks), False


# ---- a release's link, on a tap ------------------------------------------------------


async def fetch_release(
    session: aiohttp.ClientSession,
    link: str,
    *,
    source: str,
    request_timeout: float = DEFAULT_TIMEOUT,
    log: Logger | None = None,
) -> str | bytes | Reason:
    """What an http(s) release link gives: a magnet link (a redirect to one, or a body
    that is one), the bytes of a .torrent file (at most ``MAX_TORRENT_BYTES``), or why
    neither. Redirects are followed by hand, http(s) only, ``MAX_REDIRECTS`` at most;
    each request has ``request_timeout`` seconds. ``source`` names the link's source in
    the logs (the link itself may hold an API key and is never logged)."""
    logger = (log or get_logger()).bind(source=source)
    url = link.strip()
    result: str | bytes | Reason = reason("search.not_a_torrent")  # too many hops
    try:
        async with external_call(logger, SYSTEM, "fetch_release"):
            for _hop in range(MAX_REDIRECTS + 1):
                outcome = await _fetch_once(session, url, source, request_timeout)
                if isinstance(outcome, URL):
                    url = str(outcome)
                    continue
                result = outcome
                break
    except SourceProblem as problem:
        return problem.problem
    if isinstance(result, Reason):
        logger.info("torznab.fetch_refused", code=result.code)
    return result


async def _fetch_once(
    session: aiohttp.ClientSession, url: str, source: str, seconds: float
) -> URL | str | bytes | Reason:
    """One hop: where it sends (a URL), or what it is."""
    try:
        target = URL(url)
    except ValueError:
        return reason("search.not_a_torrent")
    if target.scheme not in ("http", "https") or not target.host:
        return reason("search.not_a_torrent")
    try:
        async with session.get(
            target, timeout=aiohttp.ClientTimeout(total=seconds), allow_redirects=False
        ) as answer:
            if answer.status in _REDIRECTS:
                return _redirect(target, answer.headers.get("Location", ""))
            if answer.status in (404, 410):
                return reason("search.gone")
            if answer.status == 429:
                wait = _retry_after(answer.headers.get("Retry-After"))
                return reason("search.rate_limited", source=source, seconds=round(wait))
            if answer.status != 200:
                return reason("search.not_a_torrent")
            if (answer.content_length or 0) > MAX_TORRENT_BYTES:
                return TOO_LARGE_REASON
            body, more = await read_bounded(answer, MAX_TORRENT_BYTES)
    except TimeoutError:
        raise SourceProblem(reason("search.timeout", source=source, seconds=seconds)) from None
    except aiohttp.ClientError as error:
        raise SourceProblem(
            reason("search.unreachable", source=source), cause=type(error).__name__
        ) from None
    if more:
        return TOO_LARGE_REASON
    return _release_body(body)


def _redirect(current: URL, location: str) -> URL | str | Reason:
    location = location.strip()
    if location[:7].lower() == "magnet:":
        return _magnet(location)
    try:
        following = current.join(URL(location))
    except ValueError:
        return reason("search.not_a_torrent")
    if following.scheme not in ("http", "https"):
        return reason("search.not_a_torrent")
    return following


def _release_body(body: bytes) -> str | bytes | Reason:
    """A .torrent (a bencoded dictionary with an ``info`` dictionary), or a magnet link
    written as the body (some indexers' links answer so), or neither."""
    if body[:7].lower() == b"magnet:":
        return _magnet(body.decode("utf-8", "replace"))
    if body[:1] == b"d":
        try:
            decoded = bdecode(body.rstrip(), max_depth=MAX_NESTING)
        except (ValueError, TypeError, OverflowError, RecursionError):
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get(b"info"), dict):
            return body
    return reason("search.not_a_torrent")


def _magnet(text: str) -> str | Reason:
    try:
        return parse_magnet(text).uri
    except InvalidInputError:
        return reason("search.not_a_torrent")
