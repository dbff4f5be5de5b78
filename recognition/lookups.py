"""TMDB as recognition sees it: a small interface (:class:`Catalogue`), and
:class:`Lookup`, one recognition's bounded, cached use of it.

``worker/tmdb.py`` ``TmdbClient`` is the catalogue jellybit runs with; anything with
these four calls will do, so the decision runs and is tested without a network.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from recognition.candidates import AiredEpisode, Candidate, MediaKind

MAX_REQUESTS = 10  # room for the seasons air dates and specials need
# The ids TMDB's /find is asked by: IMDb's (films, shows) and TheTVDB's (shows).
FindSource = Literal["imdb_id", "tvdb_id"]
_AT_ONCE = 20  # seasons TMDB appends to one answer


class Catalogue(Protocol):
    """Where candidates come from (TMDB). Each call raises ``UnreachableError`` when
    the catalogue cannot answer, ``RejectedError`` for an id it refuses."""

    async def search(
        self, kind: MediaKind, title: str, year: int | None, *, language: str
    ) -> list[Candidate]: ...

    async def details(
        self, kind: MediaKind, tmdb_id: int | str, *, language: str | None = None
    ) -> Candidate: ...

    async def find(self, external_id: str, source: FindSource = "imdb_id") -> list[Candidate]: ...

    async def season(
        self, tmdb_id: int | str, number: int, *, language: str | None = None
    ) -> list[AiredEpisode]: ...


@dataclass
class Lookup:
    """The catalogue for one recognition: answers cached in ``cache`` (shared by a batch),
    at most ``limit`` requests made."""

    catalogue: Catalogue
    cache: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    limit: int = MAX_REQUESTS
    spent: int = 0

    def _has_room(self, key: tuple[Any, ...]) -> bool:
        return key in self.cache or self.spent < self.limit

    async def search(
        self, kind: MediaKind, title: str, year: int | None, language: str
    ) -> list[Candidate] | None:
        key = ("search", kind, title, year, language)
        if not self._has_room(key):
            return None
        if key not in self.cache:
            self.spent += 1
            self.cache[key] = await self.catalogue.search(kind, title, year, language=language)
        found: list[Candidate] = self.cache[key]
        return found

    async def details(self, candidate: Candidate, language: str | None = None) -> Candidate | None:
        """The candidate's details; ``language``: its names (its seasons') in it (the
        person's when None)."""
        key: tuple[Any, ...] = ("details", candidate.kind, candidate.provider_id)
        key += (language,) if language else ()
        if not self._has_room(key):
            return None
        if key not in self.cache:
            self.spent += 1
            kind, tmdb_id = candidate.kind, candidate.provider_id or ""
            self.cache[key] = await (
                self.catalogue.details(kind, tmdb_id, language=language)
                if language
                else self.catalogue.details(kind, tmdb_id)
            )
        detailed: Candidate = self.cache[key]
        return detailed

    async def season(
        self, candidate: Candidate, number: int, language: str | None = None
    ) -> list[AiredEpisode] | None:
        """The season's episodes; ``language``: their names in it (the person's when None)."""
        key = ("season", candidate.provider_id, number, language)
        if not self._has_room(key):
            return None
        if key not in self.cache:
            self.spent += 1
            self.cache[key] = await self.catalogue.season(
                candidate.provider_id or "", number, language=language
            )
        episodes: list[AiredEpisode] = self.cache[key]
        return episodes

    async def seasons(
        self, candidate: Candidate, numbers: Sequence[int], language: str | None = None
    ) -> dict[int, list[AiredEpisode]] | None:
        """Several seasons' episodes, cached as ``season`` caches each: in one request
        for twenty where the catalogue can (TMDB appends them to the show's details),
        else one each. None: the lookups are spent first."""
        fetch = getattr(self.catalogue, "seasons", None)
        key = candidate.provider_id
        missing = [n for n in numbers if ("season", key, n, language) not in self.cache]
        for start in range(0, len(missing) if fetch is not None else 0, _AT_ONCE):
            if self.spent >= self.limit:
                break
            chunk = missing[start : start + _AT_ONCE]
            self.spent += 1
            got = await fetch(candidate.provider_id or "", chunk, language=language)  # type: ignore[misc]
            for number in chunk:
                self.cache[("season", key, number, language)] = got.get(number, [])
        found = {}
        for number in numbers:
            listed = await self.season(candidate, number, language)
            if listed is None:
                return None
            found[number] = listed
        return found

    async def find(self, external_id: str, source: FindSource = "imdb_id") -> list[Candidate]:
        key = ("find", external_id, source)
        if not self._has_room(key):
            return []
        if key not in self.cache:
            self.spent += 1
            self.cache[key] = await self.catalogue.find(external_id, source)
        found: list[Candidate] = self.cache[key]
        return found
