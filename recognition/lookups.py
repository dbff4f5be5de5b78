"""TMDB as recognition sees it: a small interface (:class:`Catalogue`), and
:class:`Lookup`, one recognition's bounded, cached use of it.

``worker/tmdb.py`` ``TmdbClient`` is the catalogue jellybit runs with; anything with
these four calls will do, so the decision runs and is tested without a network.
"""

from dataclasses import dataclass, field
from typing import Any, Protocol

from recognition.candidates import AiredEpisode, Candidate, MediaKind

MAX_REQUESTS = 10  # room for the seasons air dates and specials need


class Catalogue(Protocol):
    """Where candidates come from (TMDB). Each call raises ``UnreachableError`` when
    the catalogue cannot answer, ``RejectedError`` for an id it refuses."""

    async def search(
        self, kind: MediaKind, title: str, year: int | None, *, language: str
    ) -> list[Candidate]: ...

    async def details(self, kind: MediaKind, tmdb_id: int | str) -> Candidate: ...

    async def find(self, imdb_id: str) -> list[Candidate]: ...

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

    async def details(self, candidate: Candidate) -> Candidate | None:
        key = ("details", candidate.kind, candidate.provider_id)
        if not self._has_room(key):
            return None
        if key not in self.cache:
            self.spent += 1
            self.cache[key] = await self.catalogue.details(
                candidate.kind, candidate.provider_id or ""
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

    async def find(self, imdb_id: str) -> list[Candidate]:
        key = ("find", imdb_id)
        if not self._has_room(key):
            return []
        if key not in self.cache:
            self.spent += 1
            self.cache[key] = await self.catalogue.find(imdb_id)
        found: list[Candidate] = self.cache[key]
        return found
