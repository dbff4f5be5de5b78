"""qBittorrent's own search as a source: its search plugins, through ``QbtClient``.

One search is one job in qBittorrent: the enabled plugins are listed
(``search/plugins``), the job started (``search/start``), its status asked about
once a second until it stops (qBittorrent itself ends a job after 3 minutes), its
rows read page by page (``search/results``, at most ``MAX_RESULTS``), and then the
job is always stopped and deleted (``search/stop``, ``search/delete``): also when
the search fails or is cancelled (the orchestrator's timeout), shielded from that
cancel and bounded in time. docs/search.md has the whole flow and how 4.x and 5.x
differ.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from common.logs import Logger, get_logger
from core import clock
from core.errors import ExternalError, InvalidInputError, UnreachableError
from core.magnet import parse_magnet
from core.reasons import Reason
from core.search import MAX_RESULTS, Found, SourceAnswer, Terms
from worker.qbt import QbtClient, SearchBusyError

NAME = "qbittorrent"
POLL_S = 1.0  # how often the job's status is asked
PAGE = 200  # rows asked for at once
CLEAN_UP_S = 5.0  # stop + delete, together, at most this long
PLUGIN_ERROR = "plugin_error"
# The category asked for by what is looked for; "all" when unknown.
_CATEGORY = {"movie": "movies", "tv": "tv"}


class QbtSearchSource:
    """``patience``: after this many seconds the rows found so far are taken and the job
    is stopped (None: wait until every plugin is done). Set it below the orchestrator's
    timeout, which otherwise cancels the search with nothing."""

    name = NAME

    def __init__(
        self,
        client: QbtClient,
        *,
        patience: float | None = None,
        poll_s: float = POLL_S,
        clean_up_s: float = CLEAN_UP_S,
        log: Logger | None = None,
    ) -> None:
        self._client = client
        self._patience = patience
        self._poll_s = poll_s
        self._clean_up_s = clean_up_s
        self._log = log or get_logger(source=NAME)
        self._cleaning: set[asyncio.Task[None]] = set()  # held until done (the loop holds weakly)

    async def search(self, terms: Terms) -> SourceAnswer:
        try:
            plugins = await self._client.search_plugins()
            enabled = [p for p in plugins if p.get("enabled") and p.get("name")]
            if not enabled:
                return self._answer(problem=Reason("search.qbt_no_plugins", {"source": NAME}))
            search_id = await self._start(terms.text, enabled, _category(terms, enabled))
        except SearchBusyError as error:
            busy = Reason("search.qbt_busy", {"source": NAME, "detail": error.detail})
            return self._answer(problem=busy)
        except ExternalError as error:
            return self._answer(problem=_problem(error))
        cancelled = False
        try:
            rows = await self._rows(search_id)
        except ExternalError as error:
            return self._answer(problem=_problem(error))
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            clean_up = self._spawn_clean_up(search_id)
            if not cancelled:  # a canceller does not wait for it; anyone else does
                await asyncio.shield(clean_up)
        return self._answer(found=tuple(self._found(rows)))

    def _answer(
        self, *, found: tuple[Found, ...] = (), problem: Reason | None = None
    ) -> SourceAnswer:
        return SourceAnswer(NAME, found=found, problem=problem)

    async def _start(self, pattern: str, plugins: list[dict[str, Any]], category: str) -> int:
        """The job's id. The start is shielded: cancelled while qBittorrent starts it,
        the job is still stopped and deleted once its id is known."""
        names = [str(p["name"]) for p in plugins]
        start = asyncio.ensure_future(self._client.search_start(pattern, names, category))
        try:
            return await asyncio.shield(start)
        except asyncio.CancelledError:
            start.add_done_callback(self._clean_up_late)
            raise

    def _clean_up_late(self, start: asyncio.Future[int]) -> None:
        if not start.cancelled() and start.exception() is None:
            self._spawn_clean_up(start.result())

    async def _rows(self, search_id: int) -> list[dict[str, Any]]:
        """The job's rows once it stopped (or once ``patience`` ran out)."""
        deadline = None if self._patience is None else clock.monotonic() + self._patience
        while (await self._client.search_status(search_id)).get("status") != "Stopped":
            if deadline is not None and clock.monotonic() >= deadline:
                break
            await asyncio.sleep(self._poll_s)
        rows: list[dict[str, Any]] = []
        while len(rows) < MAX_RESULTS:
            limit = min(PAGE, MAX_RESULTS - len(rows))
            page = await self._client.search_results(search_id, offset=len(rows), limit=limit)
            listed = list(page.get("results") or [])
            rows += listed[:limit]
            if len(listed) < limit or len(rows) >= int(page.get("total") or 0):
                break
        return rows

    def _spawn_clean_up(self, search_id: int) -> asyncio.Task[None]:
        """Stop and delete the job in a task of its own: a cancel of the search does
        not cancel it."""
        task = asyncio.ensure_future(self._stop_and_delete(search_id))
        self._cleaning.add(task)
        task.add_done_callback(self._cleaning.discard)
        return task

    async def _stop_and_delete(self, search_id: int) -> None:
        try:
            async with asyncio.timeout(self._clean_up_s):
                for step in (self._client.search_stop, self._client.search_delete):
                    try:
                        await step(search_id)
                    except ExternalError as error:  # logged by the adapter; delete anyway
                        self._log.debug(
                            "search.clean_up_failed", step=step.__name__, error=str(error)
                        )
        except TimeoutError:
            self._log.warning(
                "search.clean_up_timeout", search_id=search_id, seconds=self._clean_up_s
            )

    def _found(self, rows: Sequence[Mapping[str, Any]]) -> list[Found]:
        found: list[Found] = []
        for row in rows:
            made = _read(row)
            if isinstance(made, Found):
                found.append(made)
            elif made == PLUGIN_ERROR:  # the plugin's own words, never its link (a key)
                self._log.info("search.plugin_error", message=str(row.get("fileName"))[:300])
            else:
                self._log.debug("search.row_skipped", why=made)
        return found


def _category(terms: Terms, plugins: list[dict[str, Any]]) -> str:
    """The kind's category when every plugin has it: qBittorrent's ``nova2.py`` skips a
    plugin that lacks the category asked for, so otherwise "all"."""
    wanted = _CATEGORY.get(terms.kind or "", "all")
    for plugin in plugins:
        ids = {c.get("id") for c in plugin.get("supportedCategories") or [] if isinstance(c, dict)}
        if wanted not in ids:
            return "all"
    return wanted


def _read(row: Mapping[str, Any]) -> Found | str:
    """One ``search/results`` row as a ``Found``, or why it is skipped."""
    size = _integer(row.get("fileSize"))
    if size == -1:
        return PLUGIN_ERROR  # a plugin's message row (size, seeds, leechers -1)
    name = str(row.get("fileName") or "").strip()
    if not name:
        return "no_name"
    link = str(row.get("fileUrl") or "").strip()
    infohash = None
    if link.lower().startswith("magnet:"):
        try:
            infohash = parse_magnet(link).infohashes[0]
        except InvalidInputError:
            return "bad_magnet"
    elif urlsplit(link).scheme not in ("http", "https") or not urlsplit(link).hostname:
        return "bad_link"
    published = _integer(row.get("pubDate"))
    return Found(
        name=name,
        link=link,
        source=NAME,
        size=size if size is not None and size > 0 else None,  # 0: the plugin gave none
        seeders=_count(row.get("nbSeeders")),
        leechers=_count(row.get("nbLeechers")),
        infohash=infohash,
        indexer=_indexer(row),
        published=datetime.fromtimestamp(published, UTC) if published and published > 0 else None,
    )


def _indexer(row: Mapping[str, Any]) -> str | None:
    """5.x names the plugin (``engineName``); 4.x only gives the site's address."""
    engine = str(row.get("engineName") or "").strip()
    if engine:
        return engine
    return urlsplit(str(row.get("siteUrl") or "")).hostname or None


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _count(value: object) -> int | None:
    number = _integer(value)
    return number if number is not None and number >= 0 else None


def _problem(error: ExternalError) -> Reason:
    if isinstance(error, UnreachableError):
        return Reason("search.unreachable", {"source": NAME, "detail": error.detail})
    return Reason("search.error", {"source": NAME, "detail": error.detail})
