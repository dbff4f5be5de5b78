"""Search: what a person looks for, what a source found, and what a source said.

Pure. The sources (Torznab indexers, qBittorrent's search plugins) live in
``worker/``; they read their answers into ``Found`` rows and ``SourceAnswer``s,
and everything after that (deduplication, grouping, sorting) works on these
types alone. docs/search.md tells the whole flow.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
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


# What a release's name says of its quality and its part of a show: read with a few
# patterns, not the recogniser (a thousand names must group in well under 0.2 s;
# the recogniser reads the one downloaded).
_RESOLUTION = re.compile(r"(?<![0-9a-z])(2160|1080|720|576|480)[pi](?![0-9a-z])|\b(4k|uhd)\b", re.I)
_SOURCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Remux", re.compile(r"remux\b", re.I)),
    ("BluRay", re.compile(r"\b(blu-?ray|bd-?rip|br-?rip|bdremux|bd(?:25|50)?)\b", re.I)),
    ("WEB-DL", re.compile(r"\bweb[ .-]?dl\b|\bweb\b", re.I)),
    ("WEBRip", re.compile(r"\bweb-?rip\b", re.I)),
    ("HDTV", re.compile(r"\b(hdtv|hdtvrip|tvrip|sat-?rip)\b", re.I)),
    ("DVD", re.compile(r"\b(dvd-?rip|dvd(?:5|9)?|dvdscr)\b", re.I)),
    ("CAM", re.compile(r"\b(cam-?rip|camrip|hdcam|telesync|ts-?rip|hdts)\b", re.I)),
)
_EPISODE = re.compile(r"\bS(\d{1,4})[ ._-]?E(\d{1,4})\b", re.I)
_SEASON = re.compile(
    r"\bS(\d{1,2})\b(?![ ._-]?E\d)"
    r"|\b(?:season|saison|temporada|staffel|stagione|sezon)[ ._-]?(\d{1,2})\b"
    r"|\bсезон[ ._-]?(\d{1,2})\b|\b(\d{1,2})[ ._-]?(?:й[ ._-])?сезон",
    re.I,
)
_SEASONS = re.compile(r"\bS(\d{1,2})[ ._]?-[ ._]?S?(\d{1,2})\b", re.I)  # S01-04: several
_COMPLETE = re.compile(r"\b(complete|полный|все сезоны)\b", re.I)
SOURCE_RANK = {"Remux": 6, "BluRay": 5, "WEB-DL": 4, "WEBRip": 3, "HDTV": 2, "DVD": 1, "CAM": -1}
SortBy = Literal["quality", "size", "seeders"]
SORTS: tuple[SortBy, ...] = ("quality", "size", "seeders")


@dataclass(frozen=True, slots=True)
class Traits:
    """A release's quality and, for a show, which part of it: a whole season
    (``pack``), one episode, or the complete show (``season`` None, ``pack``)."""

    resolution: int | None = None
    source: str | None = None
    season: int | None = None
    episode: int | None = None
    pack: bool = False


def traits_of(name: str) -> Traits:
    resolution_match = _RESOLUTION.search(name)
    resolution = None
    if resolution_match:
        resolution = int(resolution_match.group(1) or 2160)
    source = next((label for label, pattern in _SOURCES if pattern.search(name)), None)
    episode = _EPISODE.search(name)
    if episode:
        return Traits(resolution, source, int(episode.group(1)), int(episode.group(2)))
    if _SEASONS.search(name):
        return Traits(resolution, source, pack=True)
    season = _SEASON.search(name)
    if season:
        number = next(group for group in season.groups() if group)
        return Traits(resolution, source, int(number), None, pack=True)
    return Traits(resolution, source, pack=bool(_COMPLETE.search(name)))


def _name_key(name: str) -> str:
    return re.sub(r"[\W_]+", " ", name.casefold()).strip()


def deduplicated(found: Iterable[Found]) -> list[Found]:
    """One row per torrent over every source: the same infohash, else the same name
    and size, is one release (the row with the most seeders is kept)."""
    best: dict[tuple[str, ...], Found] = {}
    for row in found:
        key = (
            ("hash", row.infohash) if row.infohash else ("name", _name_key(row.name), str(row.size))
        )
        kept = best.get(key)
        if kept is None or (row.seeders or 0) > (kept.seeders or 0):
            best[key] = row
        if len(best) >= MAX_RESULTS:
            break
    return list(best.values())


def arranged(found: Iterable[Found], sort: SortBy, *, show: bool = False) -> list[Found]:
    """The releases in the order a person picks from: seedless ones only when no
    other is left, a show's season packs before its single episodes (by season),
    then by ``sort``."""
    rows = deduplicated(found)
    seeded = [row for row in rows if row.seeders is None or row.seeders > 0]
    rows = seeded or rows

    def order(row: Found) -> tuple[float, ...]:
        traits = traits_of(row.name)
        seeders = float(row.seeders or 0)
        size = float(row.size or 0)
        quality = (
            float(traits.resolution or 0),
            float(SOURCE_RANK.get(traits.source or "", 0)),
        )
        by = {
            "quality": (*quality, seeders),
            "size": (size, seeders),
            "seeders": (seeders, *quality),
        }[sort]
        part: tuple[float, ...] = ()
        if show:  # packs first (the whole show, then by season), then episodes
            if traits.pack:
                part = (0.0, float(traits.season or 0))
            elif traits.episode is not None:
                part = (1.0, float(traits.season or 0), float(traits.episode))
            else:
                part = (2.0,)
            return (*part, *(-value for value in by))
        return tuple(-value for value in by)

    return sorted(rows, key=order)
