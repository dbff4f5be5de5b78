"""One download's recognition start to end without a network: ``identify_download``
over a catalogue held in memory (``recognition.lookups.Catalogue``), the way jellybit
runs it over TMDB. What TMDB answers is held to its description elsewhere
(``tests/contract/test_tmdb.py``); here the lookups' order, bound and the decision."""

from dataclasses import dataclass, field

import pytest

from core.errors import RejectedError, UnreachableError
from recognition.candidates import AiredEpisode, Candidate, MediaKind, Season
from recognition.folding import title_key
from recognition.identify import Release, identify_download, parse_release_of
from recognition.lookups import Lookup
from recognition.recognize import Recognized, TorrentFile


def film(id: str, title: str, year: int, popularity: float) -> Candidate:
    return Candidate("tmdb", id, "movie", title, title, year, None, None, popularity)


def show(id: str, title: str, year: int, popularity: float, episodes: int) -> Candidate:
    candidate = Candidate("tmdb", id, "series", title, title, year, None, None, popularity)
    return Candidate(**{**candidate.__dict__, "seasons": (Season(1, episodes, year),)})


@dataclass
class Shelf:
    """A catalogue in memory: search by title key, details by id; ``down`` answers
    nothing, as TMDB out of reach."""

    titles: list[Candidate]
    down: bool = False
    calls: list[str] = field(default_factory=list)

    async def search(
        self, kind: MediaKind, title: str, year: int | None, *, language: str
    ) -> list[Candidate]:
        self._call(f"search {kind} {title}")
        return [c for c in self.titles if c.kind == kind and title_key(c.title) == title_key(title)]

    async def details(
        self, kind: MediaKind, tmdb_id: int | str, *, language: str | None = None
    ) -> Candidate:
        self._call(f"details {kind} {tmdb_id}")
        found = [c for c in self.titles if (c.kind, c.provider_id) == (kind, str(tmdb_id))]
        if not found:
            raise RejectedError("tmdb", f"no {kind} {tmdb_id}")
        return found[0]

    async def find(self, external_id: str, source: str = "imdb_id") -> list[Candidate]:
        self._call(f"find {external_id}")
        if source == "tvdb_id":
            return [c for c in self.titles if str(c.tvdb_id) == external_id]
        return [c for c in self.titles if c.imdb_id == external_id]

    async def season(
        self, tmdb_id: int | str, number: int, *, language: str | None = None
    ) -> list[AiredEpisode]:
        self._call(f"season {tmdb_id} {number}")
        return []

    def _call(self, what: str) -> None:
        if self.down:
            raise UnreachableError("tmdb", "timeout")
        self.calls.append(what)


async def parse(release: Release, kind: MediaKind | None) -> Recognized:
    return parse_release_of(release, kind)


def release(name: str, *files: str) -> Release:
    return Release(name, tuple(TorrentFile(path, 10**9) for path in files or (f"{name}.mkv",)))


DUNES = [film("438631", "Dune", 2021, 120.0), film("841", "Dune", 1984, 30.0)]


async def test_the_year_chooses_between_two_films_of_one_name() -> None:
    shelf = Shelf(DUNES)
    found = await identify_download(
        release("Dune.2021.1080p.WEB-DL"), parse, Lookup(shelf), auto_accept=0.85, language="en"
    )
    assert found.chosen is not None
    assert found.chosen.provider_id == "438631"
    assert found.reason.code.startswith("auto.")
    assert shelf.calls[0] == "search movie Dune"


async def test_without_a_year_two_close_films_are_the_persons_choice() -> None:
    found = await identify_download(
        release("Dune.1080p.WEB-DL"), parse, Lookup(Shelf(DUNES)), auto_accept=0.85, language="en"
    )
    assert found.chosen is None
    assert found.reason.code == "review.ambiguous"
    assert {c.provider_id for c in found.candidates} == {"438631", "841"}


async def test_a_season_pack_the_film_cannot_hold_is_the_show() -> None:
    shelf = Shelf([film("10", "Fargo", 1996, 40.0), show("60622", "Fargo", 2014, 60.0, 10)])
    files = [f"Fargo.S01/Fargo.S01E{n:02d}.mkv" for n in range(1, 11)]
    found = await identify_download(
        release("Fargo.S01.1080p", *files), parse, Lookup(shelf), auto_accept=0.85, language="en"
    )
    assert found.chosen is not None
    assert (found.chosen.kind, found.chosen.provider_id) == ("series", "60622")


async def test_one_recognition_asks_the_catalogue_at_most_its_bound() -> None:
    shelf = Shelf(DUNES)
    lookup = Lookup(shelf, limit=1)
    found = await identify_download(
        release("Dune.1080p"), parse, lookup, auto_accept=0.85, language="en"
    )
    assert lookup.spent == len(shelf.calls) == 1
    assert found.chosen is None  # details never came: nothing is guessed


async def test_a_catalogue_out_of_reach_is_said_not_guessed() -> None:
    with pytest.raises(UnreachableError):
        await identify_download(
            release("Dune.2021.1080p"),
            parse,
            Lookup(Shelf(DUNES, down=True)),
            auto_accept=0.85,
            language="en",
        )
