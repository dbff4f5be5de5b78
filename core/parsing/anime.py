"""Fansub names, read with anitopy: ``[Group] Title - 05 (1080p) [ABCD1234].mkv``.

guessit was made for scene names and misses much of anime naming (absolute numbers
after `` - ``, CRCs, batches, ``2nd Season``); anitopy was made for it. On the anime
set (``tests/data/anime.tsv``, ``tests/test_anime_names.py`` prints the figures)
anitopy gets title and episodes right far more often, so names of this shape go to
anitopy first and to guessit only when anitopy finds no title.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import anitopy

from core.numbers import ascii_int

# What ends a title without being part of it: a cour or part of a season, and the
# words of specials (whose numbers are not the show's episodes).
_COUR = re.compile(r"(?i)[\s\-:]+(?:Part|Cour)\s*\d{1,2}$")
_SPECIAL = re.compile(r"(?i)[\s\-]+(?:OVA|OAD|ONA|SP|Specials?|NC(?:OP|ED)\d*)$")
_MOVIE = re.compile(r"(?i)[\s\-]+(?:The\s+)?Movie$")
_ENGLISH_IN_BRACKETS = re.compile(r"^(?P<title>.+?)\s*\((?P<other>[^()]*[A-Za-z][^()]*)\)$")


@dataclass(frozen=True)
class AnimeName:
    title: str
    alt_title: str | None
    year: int | None
    season: int | None
    episodes: tuple[int, ...]
    special: bool  # OVA, SP, NCOP…: its number is not an episode of the show
    movie: bool


@lru_cache(maxsize=4096)
def parse_anime(name: str) -> AnimeName | None:
    """The name's parts, or None when anitopy finds no title in it."""
    try:
        found: dict[str, Any] = anitopy.parse(name) or {}
    except Exception:  # anitopy has no error type of its own; any failure is "no title"
        return None
    title = _text(found.get("anime_title"))
    if title is None:
        return None
    movie = _MOVIE.search(title) is not None or _text(found.get("anime_type")) == "Movie"
    special = _SPECIAL.search(title) is not None
    title = _MOVIE.sub("", _SPECIAL.sub("", _COUR.sub("", title)))
    alt_title = None
    if (bracketed := _ENGLISH_IN_BRACKETS.match(title)) is not None:
        title, alt_title = bracketed.group("title"), bracketed.group("other").strip()
    return AnimeName(
        title=title.strip(" -"),
        alt_title=alt_title,
        year=_number(found.get("anime_year")),
        season=_number(found.get("anime_season")),
        episodes=_episodes(found.get("episode_number")),
        special=special,
        movie=movie,
    )


def _text(value: object) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    return value.strip() or None if isinstance(value, str) else None


def _number(value: object) -> int | None:
    text = _text(value)
    return None if text is None else ascii_int(text, 6)


def _episodes(value: object) -> tuple[int, ...]:
    """ "05" → (5,); a batch ["01", "12"] → 1…12; "11.5" (a recap) → ()."""
    values = value if isinstance(value, list) else [value]
    numbers = [_number(v) for v in values]
    if not numbers or any(n is None for n in numbers):
        return ()
    whole = [n for n in numbers if n is not None]
    if len(whole) == 2 and whole[0] < whole[1] <= whole[0] + 2000:
        return tuple(range(whole[0], whole[1] + 1))
    return tuple(sorted(set(whole)))
