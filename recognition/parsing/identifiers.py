"""Ids that name a title exactly, in any text: an ``.nfo``, a magnet's ``dn``, a hint.

``imdb:tt0111161`` (an IMDb id, bare or in an ``imdb.com/title/…`` link) and
``tmdb:movie/550`` / ``tmdb:tv/1399`` (a ``themoviedb.org`` link; a TMDB id as Jellyfin,
Plex and Emby name folders, ``[tmdbid-550]``, ``{tmdb-550}``, ``[tmdbid=550]``, or as a
Kodi ``.nfo`` gives it, ``<uniqueid type="tmdb">550</uniqueid>``, is the kind's the
text says: a Kodi ``<tvshow>``, else the release's), and ``tvdb:81189``: TheTVDB's id as
media servers name folders (``[tvdbid-81189]``, ``{tvdb-81189}``), as Kodi gives it, or in a
``thetvdb.com`` link that carries it (``?tab=series&id=81189``, ``/dereferrer/series/81189``;
a link by name, ``/series/breaking-bad``, carries none). Kinopoisk, MyAnimeList or AniDB
links name nothing TMDB can be asked by: they are no ids here.
"""

import re
from typing import Literal

# An id is ASCII digits only: ``\d`` also takes "٥٥٠" (Arabic-Indic) or "５５０"
# (full-width), which int() reads as 550. A digit of any script next to it means
# it is not an id at all.
_IMDB = re.compile(r"(?<![A-Za-z\d])(tt[0-9]{7,9})(?!\d)")
_TMDB = re.compile(r"themoviedb\.org/(?:[a-z]{2}(?:-[A-Z]{2})?/)?(movie|tv)/([0-9]{1,9})(?!\d)")
# "[tmdbid-550]", "{tmdb-550}", "[tmdbid=550]": a media server's folder name.
_TMDB_TAG = re.compile(r"(?i)[\[{(]tmdb(?:id)?[-=]([0-9]{1,9})[\]})]")
# A Kodi .nfo: <uniqueid type="tmdb">550</uniqueid>, <tmdbid>550</tmdbid>.
_TMDB_NFO = re.compile(
    r"(?i)<uniqueid\b[^>]*\btype=[\"']tmdb[\"'][^>]*>\s*([0-9]{1,9})\s*</uniqueid>"
    r"|<tmdbid>\s*([0-9]{1,9})\s*</tmdbid>"
)
# TheTVDB numbers shows, films and episodes apart: an id says which only by where it is.
_TVDB_TAG = re.compile(r"(?i)[\[{(]tvdb(?:id)?[-=]([0-9]{1,9})[\]})]")
_TVDB_LINK = re.compile(
    r"(?i)thetvdb\.com/(?:index\.php)?\?(?:[^\s#]*&)?tab=series&(?:[^\s#]*&)?id=([0-9]{1,9})(?!\d)"
    r"|thetvdb\.com/dereferrer/series/([0-9]{1,9})(?!\d)"
)
_TVDB_NFO = re.compile(
    r"(?i)<uniqueid\b[^>]*\btype=[\"']tvdb[\"'][^>]*>\s*([0-9]{1,9})\s*</uniqueid>"
    r"|<tvdbid>\s*([0-9]{1,9})\s*</tvdbid>"
)
_KODI_SHOW = re.compile(r"(?i)<(?:tvshow|episodedetails)\b")
# A Kodi or Jellyfin episode's .nfo: its tmdb and tvdb uniqueids are the episode's own,
# numbered apart from shows ("<uniqueid type="tvdb">349232" is Breaking Bad's Pilot).
_KODI_EPISODE = re.compile(r"(?i)<episodedetails\b")
_LINK = re.compile(r"(?:https?://|www\.)\S+|(?<![A-Za-z\d])tt[0-9]{7,9}(?!\d)")


def find_identifiers(text: str, kind: Literal["movie", "tv"] = "movie") -> tuple[str, ...]:
    """Every id in ``text``, in order of appearance, each once; ``kind``: what a TMDB id
    that does not say its kind names (TMDB numbers films and shows apart)."""
    found: list[tuple[int, str]] = [(m.start(), f"imdb:{m.group(1)}") for m in _IMDB.finditer(text)]
    found += [(m.start(), f"tmdb:{m.group(1)}/{int(m.group(2))}") for m in _TMDB.finditer(text)]
    found += [(m.start(), f"tmdb:{kind}/{int(m.group(1))}") for m in _TMDB_TAG.finditer(text)]
    nfo_kind = "tv" if _KODI_SHOW.search(text) else kind
    episode = _KODI_EPISODE.search(text) is not None and "<tvshow" not in text.lower()
    found += [
        (m.start(), f"tmdb:{nfo_kind}/{int(m.group(1) or m.group(2))}")
        for m in _TMDB_NFO.finditer(text)
        if not episode
    ]
    found += [
        (m.start(), f"tvdb:{int(next(g for g in m.groups() if g))}")
        for pattern in (_TVDB_TAG, _TVDB_LINK) + (() if episode else (_TVDB_NFO,))
        for m in pattern.finditer(text)
    ]
    return tuple(dict.fromkeys(ident for _, ident in sorted(found)))


def without_identifiers(text: str) -> str:
    """``text`` without links and bare ids: what is left is words."""
    return " ".join(_LINK.sub(" ", text).split())
