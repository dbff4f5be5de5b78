"""Candidates as the store keeps them, for tests that set up a recognition by hand."""

from typing import Any

from core.ids import new_id
from recognition.candidates import Candidate, Evidence, MediaKind
from store.recognition import StoredCandidate


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
    """A TMDB candidate of a recognition; its original title is ``title`` unless
    ``more`` says otherwise, what a test does not care about is empty."""
    fields: dict[str, Any] = {"original_title": title, "overview": None, "poster_path": None}
    fields.update(more)
    candidate = Candidate(
        "tmdb",
        provider_id,
        kind,
        title,
        year=year,
        popularity=popularity,
        score=score,
        evidence=evidence,
        **fields,
    )
    return StoredCandidate(new_id(), candidate, selected)
