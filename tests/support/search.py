"""A TMDB catalogue in memory for tests of the search and decision steps without HTTP,
and what a release name is taken for through it."""

from dataclasses import dataclass, field, replace

from recognition.candidates import AiredEpisode, Candidate, MediaKind, Query, Reading
from recognition.decide import Decision
from recognition.identify import Release, identify_download, parse_release_of
from recognition.lookups import Lookup
from recognition.recognize import Recognized, TorrentFile
from tests.support.tmdb import matches

AUTO = 0.85


@dataclass
class Search:
    """Searches as TMDB does: every word searched is a word of one of a title's names
    (``tests.support.tmdb.matches``); a result carries the title and original title
    only, as TMDB's does — alternative titles and translations come with details."""

    titles: list[Candidate]
    calls: list[str] = field(default_factory=list)

    async def search(
        self, kind: MediaKind, title: str, year: int | None, *, language: str
    ) -> list[Candidate]:
        self.calls.append(f"search {kind} {title}")
        return [
            replace(c, names=(), translations=())
            for c in self.titles
            if c.kind == kind and any(matches(title, name) for name in c.all_names())
        ]

    async def details(
        self, kind: MediaKind, tmdb_id: int | str, *, language: str | None = None
    ) -> Candidate:
        self.calls.append(f"details {kind} {tmdb_id}")
        return next(c for c in self.titles if (c.kind, c.provider_id) == (kind, str(tmdb_id)))

    async def find(self, external_id: str, source: str = "imdb_id") -> list[Candidate]:
        return []

    async def season(
        self, tmdb_id: int | str, number: int, *, language: str | None = None
    ) -> list[AiredEpisode]:
        return []


async def parse(release: Release, kind: MediaKind | None) -> Recognized:
    return parse_release_of(release, kind)


async def found(name: str, titles: list[Candidate]) -> tuple[str | None, int]:
    """What a one-file release ``name`` is taken for, and how many lookups that took."""
    catalogue = Search(titles)
    release = Release(name, (TorrentFile(f"{name}.mkv", 10**9),))
    decision = await identify_download(
        release, parse, Lookup(catalogue), auto_accept=AUTO, language="ru-RU"
    )
    chosen = decision.chosen
    return (chosen.provider_id if chosen else None), len(catalogue.calls)


def film(name: str, year: int | None = None) -> Query:
    """The query of a film's name (and year), as a release name gives it."""
    return Query("movie", (Reading(name, year),))


def chosen(decision: Decision) -> str | None:
    """The TMDB id a decision took, if any."""
    return decision.chosen.provider_id if decision.chosen else None


def offered(decision: Decision) -> set[str | None]:
    """The TMDB ids a decision offers the person."""
    return {c.provider_id for c in decision.candidates}
