"""Searching from the chat, the page and the API: the titles, then their releases,
then one taken (docs/search.md).

``Finder`` is the use case. A search is a row of the store first; its work runs
in the background (``run``: a ``Loop`` that starts what is due, each search a task
of its own), so no front door waits on TMDB or a source. Every source is asked at
once, each bounded by ``[search] timeout``, and each answer is stored as it
arrives: the chat's message and the page show it then.
"""

import asyncio
import re
from typing import Protocol

import aiohttp

from common.logs import get_logger
from core.config import SearchSettings
from core.errors import AppError, InvalidInputError, NotFoundError, RejectedError, UnreachableError
from core.ids import Id
from core.models import Origin
from core.reasons import Reason
from core.search import Found, Kind, SortBy, SourceAnswer, Terms, arranged
from recognition.candidates import Candidate
from recognition.folding import title_key
from store import Store
from store.search import RELEASES, TITLES, Search
from worker.ingest import Created, Duplicate, Ingest, IngestResult
from worker.pacing import Loop
from worker.qbt import QbtClient
from worker.qbt_search import QbtSearchSource
from worker.tmdb import TmdbClient
from worker.torznab import TorznabSource, fetch_release

TITLES_SHOWN = 8  # titles offered for the words
# The loop is woken for each search started or title picked; it ticks by itself only
# to purge old searches (and once at start, for the searches a restart interrupted).
TICK = 600.0
PATIENCE_MARGIN = 2.0  # seconds: qBittorrent's job ends this long before its timeout
PURGE_EVERY = 3600.0
_YEAR = re.compile(r"^(.*\S)\s+\(?((?:19|20)\d\d)\)?$")
_TMDB_ID = re.compile(r"^tmdb:(movie|tv)?/?(\d{1,9})$", re.I)
_IMDB_ID = re.compile(r"^imdb:(tt\d{7,10})$", re.I)
TMDB_SITE = "https://www.themoviedb.org"
_LEADING_TAGS = re.compile(r"^(?:\s*[\[(【][^\])】]*[\])】])+")
_ANY_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


class SearchSource(Protocol):
    name: str

    async def search(self, terms: Terms) -> SourceAnswer: ...


class Finder:
    def __init__(
        self,
        store: Store,
        settings: SearchSettings,
        qbt: QbtClient,
        tmdb: TmdbClient | None,
        ingest: Ingest,
    ) -> None:
        """The sources ``[search]`` names, in its order: each Torznab endpoint, then
        qBittorrent's plugins."""
        self._store = store
        self._tmdb = tmdb
        self._ingest = ingest
        self._timeout = settings.timeout
        # One HTTP session for the indexers and the releases' links (None: no source).
        self._session = aiohttp.ClientSession() if settings.enabled else None
        self._sources: list[SearchSource] = [
            TorznabSource(endpoint, self._session, timeout=settings.timeout)
            for endpoint in settings.torznab
            if self._session is not None
        ]
        if settings.qbittorrent:
            # It ends its job a little before this timeout would cancel it, and
            # answers with the rows the plugins found by then.
            patience = max(1.0, settings.timeout - PATIENCE_MARGIN)
            self._sources.append(QbtSearchSource(qbt, patience=patience))
        self._working: dict[Id, asyncio.Task[None]] = {}
        self._purged_at = 0.0
        self.wake = asyncio.Event()
        self.loop = Loop("search", self.tick, interval=TICK, wake=self.wake)

    @property
    def enabled(self) -> bool:
        return bool(self._sources)

    @property
    def source_names(self) -> list[str]:
        return [source.name for source in self._sources]

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def run(self, stop: asyncio.Event) -> None:
        try:
            await self.loop.run(stop)
        finally:
            for task in self._working.values():
                task.cancel()
            await asyncio.gather(*self._working.values(), return_exceptions=True)

    async def tick(self) -> None:
        """Start what is due: a new search, a title picked, one a restart interrupted."""
        for search in await self._store.searches.running():
            if search.id not in self._working:
                task = asyncio.create_task(self._work(search), name=f"search {search.id}")
                self._working[search.id] = task
                task.add_done_callback(self._finished)
        now = asyncio.get_running_loop().time()
        if now - self._purged_at > PURGE_EVERY:
            self._purged_at = now
            await self._store.searches.purge()

    def _stop(self, search_id: Id) -> None:
        task = self._working.pop(search_id, None)
        if task is not None:
            task.cancel()

    def _finished(self, task: "asyncio.Task[None]") -> None:
        for search_id, running in list(self._working.items()):
            if running is task:
                del self._working[search_id]

    async def start(self, words: str) -> Id:
        """A search of the page or the API: the titles and the releases of the words
        (the chat's is stored with its reply, and asks for a title first)."""
        search_id = await self._store.searches.start_everything(words, self.source_names)
        self.wake.set()
        return search_id

    async def finished(self, search_id: Id, within: float) -> Search:
        """The search once every source answered, or as it stands after ``within`` s."""
        deadline = asyncio.get_running_loop().time() + within
        while True:
            search = await self._found(search_id)
            if not search.running or asyncio.get_running_loop().time() >= deadline:
                return search
            await asyncio.sleep(0.2)

    async def pick_title(self, result_id: Id) -> Search:
        """A title's button: its releases are asked for."""
        found = await self._store.searches.result(result_id)
        if found is None or found[1] != "title":
            raise NotFoundError("search result", result_id)
        search, _, data = found
        self._stop(search.id)  # the releases of a title picked before are not wanted now
        await self._store.searches.pick_title(
            search.id, Candidate.from_json(data), self.source_names
        )
        self.wake.set()
        return await self._found(search.id)

    async def words_only(self, search_id: Id) -> Search:
        """Releases for the words themselves (TMDB found nothing, or is not set)."""
        self._stop(search_id)
        await self._store.searches.pick_title(search_id, None, self.source_names)
        self.wake.set()
        return await self._found(search_id)

    async def take(
        self, result_id: Id, chat_id: int | None, origin: Origin = "telegram"
    ) -> IngestResult:
        """A release's button: fetched by jellybit (never handed to qBittorrent as a
        URL), ingested with its title's TMDB link as the hint, so it is recognized
        as that title unless its files say otherwise."""
        found = await self._store.searches.result(result_id)
        if found is None or found[1] != "release":
            raise NotFoundError("search result", result_id)
        search = found[0]
        release = next(row for rid, row in search.releases if rid == result_id)
        link: str | bytes = release.link
        if not release.link.startswith("magnet:"):  # the source's URL: fetched here, never shown
            if self._session is None:
                raise InvalidInputError(Reason("search.not_a_torrent", {}))
            fetched = await fetch_release(self._session, release.link, source=release.source)
            if isinstance(fetched, Reason):
                raise InvalidInputError(fetched)
            link = fetched
        if isinstance(link, str):
            result = await self._ingest.magnet(link, origin=origin, chat_id=chat_id)
        else:
            result = await self._ingest.torrent_file(link, origin=origin, chat_id=chat_id)
        if isinstance(result, Created | Duplicate):
            title = search.title or _listed_under(search, result_id)
            if title is not None and title.provider_id:
                hint = f"{TMDB_SITE}/{title.ref}"
                await self._store.telegram.add_hint(result.download.id, hint)
            await self._store.searches.taken(search.id, result.download.id)
        return result

    async def _found(self, search_id: Id) -> Search:
        search = await self._store.searches.find(search_id)
        if search is None:
            raise NotFoundError("search", search_id)
        return search

    async def _work(self, search: Search) -> None:
        log = get_logger(search_id=search.id)
        try:
            if search.phase == TITLES:
                await self._titles(search)
            elif search.phase == RELEASES and search.chat_id is None and not search.titles:
                await asyncio.gather(self._titles(search), self._releases(search))
            elif search.phase == RELEASES:
                await self._releases(search)
        except Exception:  # one search's bug is logged; the loop and the others go on
            log.exception("search.failed")
            if search.phase == TITLES:
                reason = Reason("search.error", {"source": "TMDB"})
                await self._store.searches.set_titles(search.id, [], reason)

    async def _titles(self, search: Search) -> None:
        if self._tmdb is None or not self._tmdb.enabled:  # no titles: the words' releases
            if search.phase == TITLES:
                await self._store.searches.pick_title(search.id, None, self.source_names)
                await self._releases(await self._found(search.id))
            return
        try:
            titles = await self._title_search(search.words)
        except (UnreachableError, RejectedError) as error:
            reason = Reason("search.unreachable", {"source": "TMDB", "detail": str(error)[:200]})
            await self._store.searches.set_titles(search.id, [], reason)
            return
        await self._store.searches.set_titles(search.id, titles[:TITLES_SHOWN])

    async def _title_search(self, words: str) -> list[Candidate]:
        assert self._tmdb is not None
        by_tmdb, by_imdb = _TMDB_ID.match(words), _IMDB_ID.match(words)
        if by_imdb:
            return await self._tmdb.find(by_imdb.group(1).lower())
        if by_tmdb:
            kinds: list[Kind] = ["tv"] if (by_tmdb.group(1) or "").lower() == "tv" else ["movie"]
            if by_tmdb.group(1) is None:
                kinds = ["movie", "tv"]
            found = []
            for kind in kinds:
                try:
                    found.append(
                        await self._tmdb.details(
                            "series" if kind == "tv" else "movie", by_tmdb.group(2)
                        )
                    )
                except RejectedError:
                    continue
            return found
        text, year = words, None
        dated = _YEAR.match(words)
        if dated:
            text, year = dated.group(1), int(dated.group(2))
        movies, shows = await asyncio.gather(
            self._tmdb.search("movie", text, year), self._tmdb.search("series", text, year)
        )
        # The titles named as the words first ("Dune" before "Dune: Part Two"), each
        # part by popularity, as TMDB's own search orders them.
        key = title_key(text)
        return sorted(
            [*movies, *shows],
            key=lambda c: (key not in {title_key(name) for name in c.all_names()}, -c.popularity),
        )

    async def _releases(self, search: Search) -> None:
        title = search.title
        # A row of TMDB's search has no ids: its details have them.
        bare = title is not None and title.imdb_id is None and title.tvdb_id is None
        if title is not None and bare and title.provider_id and self._tmdb is not None:
            try:
                title = await self._tmdb.details(title.kind, title.provider_id)
            except (UnreachableError, RejectedError) as error:  # the name is searched
                get_logger(search_id=search.id).info("search.no_details", reason=str(error))
        terms = terms_of(search.words, title)
        asked = [
            source
            for source in self._sources
            if not search.sources.get(source.name, None) or not search.sources[source.name].answered
        ]
        await asyncio.gather(*(self._ask(search.id, source, terms) for source in asked))

    async def _ask(self, search_id: Id, source: SearchSource, terms: Terms) -> None:
        log = get_logger(search_id=search_id, source=source.name)
        try:
            answer = await asyncio.wait_for(source.search(terms), self._timeout)
        except TimeoutError:
            answer = SourceAnswer(
                source.name,
                problem=Reason("search.timeout", {"source": source.name, "seconds": self._timeout}),
            )
        except Exception as error:  # a source's bug is its answer, never the search's end
            log.exception("search.source_failed")
            detail = str(error)[:200] if isinstance(error, AppError) else type(error).__name__
            answer = SourceAnswer(
                source.name,
                problem=Reason("search.error", {"source": source.name, "detail": detail}),
            )
        log.info(
            "search.answered",
            found=len(answer.found),
            problem=None if answer.problem is None else answer.problem.code,
        )
        await self._store.searches.add_answer(search_id, answer)


def terms_of(words: str, title: Candidate | None) -> Terms:
    """What the sources are asked for: the title picked (its ids, its year), or the words."""
    if title is None:
        return Terms(text=words)
    kind: Kind = "tv" if title.kind == "series" else "movie"
    names = (title.original_title, title.title, *title.names)
    latin = [name for name in names if name and _latin(name)]
    name = next(iter(latin), None) or title.title
    text = f"{name} {title.year}" if kind == "movie" and title.year else name
    return Terms(
        text=text,
        kind=kind,
        title=name,
        year=title.year,
        tmdb_id=int(title.provider_id)
        if title.provider_id and title.provider_id.isdigit()
        else None,
        imdb_id=title.imdb_id,
        tvdb_id=title.tvdb_id,
    )


def _latin(text: str | None) -> bool:
    """Indexers are searched by a Latin name (the original, else an English one):
    most trackers name releases so, Russian ones beside their Cyrillic name."""
    return bool(text) and all(ord(ch) < 0x250 for ch in text or "")


Group = tuple[Candidate | None, list[tuple[Id, Found]]]


def grouped(search: Search, sort: SortBy) -> list[Group]:
    """The releases under the title each one names (its name starts with one of the
    title's names, and a film's year, when the name has one, is the title's), in the
    order of the titles; the rest under None, last. Each group in ``sort``'s order."""
    named = [
        (title, [key for key in {title_key(name) for name in title.all_names()} if key])
        for _, title in search.titles
    ]
    groups: dict[int, list[tuple[Id, Found]]] = {}
    for result_id, row in search.releases:
        name = title_key(_LEADING_TAGS.sub("", row.name))
        years = {int(year) for year in _ANY_YEAR.findall(row.name)}
        index = next(
            (
                number
                for number, (title, keys) in enumerate(named)
                if any(name == key or name.startswith(key + " ") for key in keys)
                and (title.kind == "series" or not years or title.year in years)
            ),
            len(named),
        )
        groups.setdefault(index, []).append((result_id, row))
    result: list[Group] = []
    for index in sorted(groups):
        title = named[index][0] if index < len(named) else None
        by_row = {id(row): (result_id, row) for result_id, row in groups[index]}
        order = arranged(
            [row for _, row in groups[index]], sort, show=bool(title and title.kind == "series")
        )
        result.append((title, [by_row[id(row)] for row in order]))
    return result


def _listed_under(search: Search, result_id: Id) -> Candidate | None:
    """The title a release of the page's search is listed under (None: under none)."""
    for title, rows in grouped(search, "quality"):
        if any(listed == result_id for listed, _ in rows):
            return title
    return None
