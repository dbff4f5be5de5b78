"""Candidates as the store keeps them, for tests that set up a recognition by hand."""

from typing import Any

from core.ids import new_id
from recognition.candidates import Candidate, Evidence, MediaKind, Season
from store.recognition import StoredCandidate


def titled(
    provider_id: str,
    title: str,
    year: int | None,
    popularity: float = 1.0,
    *,
    kind: MediaKind = "movie",
    **more: Any,
) -> Candidate:
    """A TMDB candidate as a search finds it; its original title is ``title`` unless
    ``more`` says otherwise, what a test does not care about is empty."""
    fields: dict[str, Any] = {"original_title": title, "overview": None, "poster_path": None}
    fields.update(more)
    return Candidate("tmdb", provider_id, kind, title, year=year, popularity=popularity, **fields)


def with_seasons(
    provider_id: str,
    title: str,
    year: int | None,
    popularity: float,
    *,
    kind: MediaKind = "movie",
    seasons: tuple[tuple[int, int, int], ...] | None = None,
    **more: Any,
) -> Candidate:
    """``titled`` with ``seasons`` as (number, episodes, year) of each."""
    shaped = None if seasons is None else tuple(Season(n, c, y) for n, c, y in seasons)
    return titled(provider_id, title, year, popularity, kind=kind, seasons=shaped, **more)


def stored(
    provider_id: str,
    title: str,
    year: int | None,
    *,
    kind: MediaKind = "movie",
    selected: bool = False,
    popularity: float = 1.0,
    score: float = 1.0,
    evidence: Evidence | None = None,
    **more: Any,
) -> StoredCandidate:
    """A TMDB candidate of a recognition (``titled``), as the store keeps it."""
    candidate = titled(
        provider_id, title, year, popularity, kind=kind, score=score, evidence=evidence, **more
    )
    return StoredCandidate(new_id(), candidate, selected)
