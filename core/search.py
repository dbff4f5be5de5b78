"""Search: what a person looks for, what a source found, and what a source said.

Pure. The sources (Torznab indexers, qBittorrent's search plugins) live in
``worker/``; they read their answers into ``Found`` rows and ``SourceAnswer``s,
and everything after that (deduplication, grouping, sorting) works on these
types alone. docs/search.md tells the whole flow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from core.reasons import Reason

Kind = Literal["movie", "tv"]
# At most this many results are kept from all sources of one search together.
MAX_RESULTS = 1000


@dataclass(frozen=True, slots=True)
class Terms:
    """What to look for. ``text`` is what a source without ids searches for
    ("Dune 2021", "Severance"); the ids and the season narrow it where a source
    can use them (Torznab's ``supportedParams``)."""

    text: str
    kind: Kind | None = None
    title: str | None = None
    year: int | None = None
    season: int | None = None
    tmdb_id: int | None = None
    imdb_id: str | None = None  # "tt0000000"
    tvdb_id: int | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """One release a source offers.

    ``link`` is a magnet or the source's download URL; a URL may carry the
    indexer's API key, so it is fetched by jellybit only, never shown, logged or
    handed to qBittorrent (``worker/search`` fetches it on a tap)."""

    name: str
    link: str
    source: str  # the configured source's name: "prowlarr", "qbittorrent"
    size: int | None = None  # bytes
    seeders: int | None = None
    leechers: int | None = None
    infohash: str | None = None  # lower-case hex, 40 (v1) or 64 (v2) characters
    indexer: str | None = None  # the tracker behind the source: "RuTracker", "1337x"
    published: datetime | None = None  # aware, UTC
    freeleech: bool = False
    imdb_id: str | None = None
    tmdb_id: int | None = None
    tvdb_id: int | None = None


@dataclass(frozen=True, slots=True)
class SourceAnswer:
    """What one source answered: its rows, or why it has none (a reason code of
    ``core/reasons.py``, ``search.*``). ``retry_after`` is the seconds a source
    asked to be left alone (a 429)."""

    source: str
    found: tuple[Found, ...] = ()
    problem: Reason | None = None
    retry_after: float | None = None
    ids_used: tuple[str, ...] = field(default=())  # the id parameters sent ("tmdbid")

    @property
    def failed(self) -> bool:
        return self.problem is not None
