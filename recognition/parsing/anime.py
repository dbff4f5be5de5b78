"""Fansub names, read with anitopy: ``[Group] Title - 05 (1080p) [ABCD1234].mkv``.

guessit was made for scene names and misses much of anime naming (absolute numbers
after `` - ``, CRCs, batches, ``2nd Season``); anitopy was made for it. On the anime
set (``tests/data/anime.tsv``, ``tests/test_anime_names.py`` prints the figures)
anitopy gets title and episodes right far more often, so names of this shape go to
anitopy first and to guessit only when anitopy finds no title.
"""

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from core.numbers import ascii_int

# What ends a title without being part of it: a cour or part of a season, and the
# words of specials (whose numbers are not the show's episodes).
_COUR = re.compile(r"(?i)[\s\-:]+(?:Part|Cour)\s*(\d{1,2})$")
_PART_ALONE = re.compile(r"(?i)(?:Part|Cour)\s*(\d{1,2})")  # "2nd Season Part 2 - 01"
_SPECIAL = re.compile(r"(?i)[\s\-]+(?:OVA|OAD|ONA|SP|Specials?|NC(?:OP|ED)\d*)$")
_OVA_IN_BRACKETS = re.compile(r"(?i)\s*\((OVA|OAD|ONA)\)$")
_OVA_AT_END = re.compile(r"(?i)[\s\-]+(OVA|OAD|ONA)$")
_TYPE_IN_BRACKETS = re.compile(r"(?i)\[(?:OVA|OAD|ONA)\]")  # "Show [OVA] - 04"
_MOVIE = re.compile(r"(?i)[\s\-]+(?:The\s+)?Movie$")
_MOVIE_WORD = re.compile(r"(?i)(?:the\s+)?movie")
_ENGLISH_IN_BRACKETS = re.compile(r"^(?P<title>.+?)\s*\((?P<other>[^()]*[A-Za-z][^()]*)\)$")
# What anitopy leaves in a title: "Title - S01E01", "01 - Title" (the episode first),
# "2nd Season", and a dash before a subtitle ("Show - Subtitle": a later season's
# name, or the rest of a longer title).
_EPISODE_IN_TITLE = re.compile(r"(?i)\s*-?\s*S(\d{1,2})E(\d{1,4})(?:\s*-\s*(?P<rest>.*))?$")
_EPISODE_FIRST = re.compile(r"^(\d{1,4})\s+-\s+(?P<title>.+)$")
_NTH_SEASON = re.compile(r"(?i)\s+(\d{1,2})(?:st|nd|rd|th)\s+Season$")
_SUBTITLE = re.compile(r"^(?P<title>.+?)\s+[-–~]\s+(?P<subtitle>.+)$")
# More numbers after a batch's range: "493-498 & 500-507".
_MORE_RANGES = re.compile(r"^[\s.&+,]*(\d{1,4})(?:\s*-\s*(\d{1,4}))?")
_FRACTION = re.compile(r"^\d{1,4}(?:\.\d|[a-cA-C])$")  # "07.5" (a recap), "01b", "111C"
_EPISODE_AT_END = re.compile(r"(?i)[\s_-]+ep\.?\s*(\d{1,4})$")
_BRACKETED = re.compile(r"[\[【]([^\]】]+)[\]】]")
_LEADING_NUMBER = re.compile(r"^\s*(\d{1,4})(?:v\d)?(?:\D.*)?$")
_ZERO_AFTER_TITLE = re.compile(r"\s+0+\s*[(\[]")
_NUMBER_BEFORE_DASH = re.compile(r"^\s+(\d{1,3}(?:\.\d)?)\s+-\s+\S")
# What anitopy read as the episode's title after a number glued to the title: the
# episode, written with two digits or more, maybe after a season ("III 03", "2 03").
_GLUED = re.compile(r"(?:(?P<mark>I{2,3}|IV|VI{0,3}|[1-9]\d?)\s+)?(?P<episode>\d{2,4})(?:v\d)?")
# Brackets of technical words, not titles.
_TAGS = re.compile(
    r"(?i)\b(?:\d{3,4}p|\d{3,4}x\d{3,4}|[0-9a-f]{8}|x26[45]|h\.?26[45]|hevc|avc|xvid|divx"
    r"|aac|ac3|dts|flac|mp3|ogg|bd|dvd|web|raws?)\b"
)
_GROUP_LIKE = re.compile(r"(?i)(?:raws|subs|fansubs?|sub)$|-")
_FRACTION_AT_END = re.compile(r"\s+-\s+\d{1,4}\.\d$")  # "Hidamari Sketch x365 - 04.1"
_SPECIAL_WORDS = frozenset({"pv", "pilot", "ova", "oad", "ona", "special", "sp", "cm"})


@dataclass(frozen=True)
class AnimeName:
    title: str
    alt_title: str | None
    year: int | None
    season: int | None
    episodes: tuple[int, ...]
    special: bool  # OVA, SP, NCOP…: its number is not an episode of the show
    movie: bool
    subtitle: str | None = None  # "Show - Subtitle - 01": the words after the dash
    episode_title: str | None = None
    # "The Final Season Part 2 - 01": the part (cour) of a season; its numbers may be
    # the part's own, which TMDB does not know (it counts a season's parts together).
    part: int | None = None


@lru_cache(maxsize=4096)
def parse_anime(name: str) -> AnimeName | None:
    """The name's parts, or None when anitopy finds no title in it."""
    import anitopy  # where names are parsed only (as guessit)

    try:
        found: dict[str, Any] = anitopy.parse(name) or {}
    except Exception:  # anitopy has no error type of its own; any failure is "no title"
        return None
    fraction = any(_FRACTION.match(n) for n in _values(found.get("episode_number")))
    title, season, episodes, episode_title = _numbers_in_title(
        _text(found.get("anime_title")),
        _number(found.get("anime_season")),
        _episodes(found.get("episode_number")),
        _text(found.get("episode_title")),
    )
    title, episodes = _title_in_brackets(name, title, episodes, _text(found.get("release_group")))
    if title is None:
        return None
    numbered = (title, episodes)
    anime_type = _text(found.get("anime_type"))
    title, episodes, episode_title = _number_of_the_title(
        name, title, episodes, episode_title, anime_type
    )
    if episodes == (0,) and _ZERO_AFTER_TITLE.match(name.replace("_", " ").partition(title)[2]):
        # "Jujutsu Kaisen 0 (2021)": a 0 right after the title (no " - ") is its own
        title, episodes = f"{title} 0", ()
    fraction = fraction and (title, episodes) == numbered  # "Memories Off 3.5 - 04"
    if (end := _FRACTION_AT_END.search(title)) is not None:
        title, fraction = title[: end.start()], True
    episodes, episode_title = _more_ranges(episodes, episode_title)
    if (nth := _NTH_SEASON.search(title)) is not None:
        season, title = int(nth.group(1)), title[: nth.start()]
    movie = _MOVIE.search(title) is not None or anime_type == "Movie"
    if episode_title and _MOVIE_WORD.fullmatch(episode_title) and len(episodes) == 1:
        # "Jujutsu Kaisen 0 - The Movie": the number is the film's, not an episode.
        title, episodes, episode_title, movie = f"{title} {episodes[0]}", (), None, True
    special = _SPECIAL.search(title) is not None or fraction
    if not special and not movie and _TYPE_IN_BRACKETS.search(name):
        title, special = f"{title} (OVA)", True  # "Show [OVA] - 04", read as "Show (OVA) - 04"
    part = _COUR.search(title) or _PART_ALONE.fullmatch(episode_title or "")
    if part is not None and part.re is _PART_ALONE:
        episode_title = None
    named = _named(
        title,
        year=_number(found.get("anime_year")),
        season=season,
        episodes=() if fraction else episodes,
        special=special,
        movie=movie,
        episode_title=episode_title,
    )
    return named if part is None else replace(named, part=int(part.group(1)))


def _numbers_in_title(
    title: str | None, season: int | None, episodes: tuple[int, ...], episode_title: str | None
) -> tuple[str | None, int | None, tuple[int, ...], str | None]:
    """(title, season, episodes, episode_title) with the numbers anitopy left in the
    title taken out: "Title - S01E01", "01 - Title", "Title-ep1"."""
    if title is not None and (inside := _EPISODE_IN_TITLE.search(title)) is not None:
        # "[0x539] Somali and the Forest Spirit - S01E01": an SxxEyy anitopy missed
        season, episodes = int(inside.group(1)), (int(inside.group(2)),)
        episode_title = inside.group("rest") or episode_title
        title = title[: inside.start()].strip()
    elif title is not None and (first := _EPISODE_FIRST.match(title)) is not None and not episodes:
        episodes, title = (int(first.group(1)),), first.group("title")  # "01 - Tari Tari"
    if title is not None and (tail := _EPISODE_AT_END.search(title)) is not None and not episodes:
        episodes, title = (int(tail.group(1)),), title[: tail.start()]  # "Gunbuster-ep1"
    return title, season, episodes, episode_title


def _more_ranges(
    episodes: tuple[int, ...], episode_title: str | None
) -> tuple[tuple[int, ...], str | None]:
    """A batch's further ranges that anitopy read as the episode title ("493-498 &
    500-507"): more episodes, and the episode title without them."""
    if not episode_title or (more := _MORE_RANGES.match(episode_title)) is None or not episodes:
        return episodes, episode_title
    first_more, last_more = int(more.group(1)), int(more.group(2) or more.group(1))
    if episodes[-1] < first_more <= last_more <= first_more + 2000:
        episodes = (*episodes, *range(first_more, last_more + 1))
        episode_title = episode_title[more.end() :].strip(" .&+,") or None
    return episodes, episode_title


def _named(
    title: str,
    *,
    year: int | None,
    season: int | None,
    episodes: tuple[int, ...],
    special: bool,
    movie: bool,
    episode_title: str | None,
) -> AnimeName:
    """The name, its title without what ends a title without being part of it (a
    cour, a special's or a movie's words), an English title in brackets and the words
    after a dash kept apart."""
    title = _COUR.sub("", title)
    if (marked := _OVA_IN_BRACKETS.search(title)) is not None:
        # "Hellsing (OVA) - 03": a special, as "Hellsing OVA - 03" is
        title, special = f"{title[: marked.start()]} {marked.group(1)}", True
    # An OVA series may be a show of its own on TMDB ("Hellsing OVA" of "Hellsing
    # Ultimate"): the name with its marker is another reading.
    ova = _OVA_AT_END.search(title)
    title = _MOVIE.sub("", _SPECIAL.sub("", title))
    alt_title = f"{title.strip(' -')} {ova.group(1)}" if ova is not None else None
    if (bracketed := _ENGLISH_IN_BRACKETS.match(title)) is not None:
        title, alt_title = bracketed.group("title"), bracketed.group("other").strip()
    # The whole title stays the title; what follows its dash is kept apart, for the
    # reading of the title before it ("Show" of "Show - Subtitle").
    dashed = _SUBTITLE.match(title.strip(" -"))
    subtitle = dashed.group("subtitle").strip(" -") if dashed is not None else None
    return AnimeName(
        title=title.strip(" -"),
        alt_title=alt_title,
        year=year,
        season=season,
        episodes=episodes,
        special=special,
        movie=movie,
        subtitle=subtitle or None,
        episode_title=episode_title,
    )


def _title_in_brackets(
    name: str, title: str | None, episodes: tuple[int, ...], group: str | None
) -> tuple[str | None, tuple[int, ...]]:
    """A title anitopy read as a bare number or a symbol ("[Keroro].148",
    "[AoJiaoZero][Mangaka-san …] 02", "【MMZYSUB】★【Golden Time】[24]"): the title is in
    brackets — the first one after the group's that has words, else the group's —
    and the number is the episode."""
    if title is not None and any(c.isalnum() for c in title) and not title.isdigit():
        return title, episodes  # "009-1" is a title
    if title is not None and title.isdigit() and group is not None and _GROUP_LIKE.search(group):
        return title, episodes  # "[TardRaws] 0": the group is a group
    if title is not None and title.isdigit() and episodes:
        return title, episodes  # "[Group] 86 - 03": a number titles, another numbers
    number = int(title) if title is not None and title.isdigit() else None
    inside = [b for b in _BRACKETED.findall(name) if any(c.isalpha() for c in b)]
    named = [b for b in inside if b != group and not _TAGS.search(b)]
    found = named[0] if named else group
    if found is None:
        return title, episodes
    if not episodes:
        digits = [b for b in _BRACKETED.findall(name) if _LEADING_NUMBER.match(b)]
        episodes = (
            (number,)
            if number is not None
            else _episodes(
                _LEADING_NUMBER.match(digits[0]).group(1) if digits else None  # type: ignore[union-attr]
            )
        )
    return found.strip(), episodes


def _number_of_the_title(
    name: str,
    title: str,
    episodes: tuple[int, ...],
    episode_title: str | None,
    kind: str | None,
) -> tuple[str, tuple[int, ...], str | None]:
    """ "Kiddy Grade 2 - Pilot", "Memories Off 3.5 - 04", "Rozen Maiden 3 - PV": the
    number anitopy took for the episode ends the title when what follows its dash is
    the episode or the name of a special."""
    if (glued := _glued_number(name, title, episodes, episode_title)) is not None:
        return glued
    numbers = _values(found_numbers(name, title))
    if len(numbers) != 1 or _OVA_AT_END.search(title):
        # "Show - OVA 2 - Title": the number after the marker is the special's own
        return title, episodes, episode_title
    if episode_title is not None and _LEADING_NUMBER.fullmatch(episode_title):
        return f"{title} {numbers[0]}", _episodes(episode_title.split("v")[0]), None
    if (episode_title or "").casefold() in _SPECIAL_WORDS or (
        kind or ""
    ).casefold() in _SPECIAL_WORDS:
        return f"{title} {numbers[0]}", (), episode_title
    return title, episodes, episode_title


def _glued_number(
    name: str, title: str, episodes: tuple[int, ...], episode_title: str | None
) -> tuple[str, tuple[int, ...], str | None] | None:
    """ "Title 2 03", "Mob Psycho 100 03", "Mob Psycho 100 III 03" (a raw's name, no
    dash): anitopy takes the number glued to the title for the episode and the episode
    for its title. A bare number (no leading zero) right after the title, then a
    written episode ("03", "12v2"), is the name's: a season or the title's own number,
    which the show's name on TMDB tells apart."""
    if len(episodes) != 1 or episode_title is None:
        return None
    glued = _GLUED.fullmatch(episode_title)
    after = name.replace("_", " ").partition(title)[2]
    if glued is None or not re.match(rf"\s+{episodes[0]}\s+{re.escape(episode_title)}", after):
        return None
    named = " ".join(w for w in (title, str(episodes[0]), glued.group("mark")) if w)
    return named, (int(glued.group("episode")),), None


def found_numbers(name: str, title: str) -> list[str]:
    """The number that follows the title in the name, before a " - "."""
    at = name.replace("_", " ").find(title)
    if at < 0:
        return []
    after = name.replace("_", " ")[at + len(title) :]
    number = _NUMBER_BEFORE_DASH.match(after)
    return [number.group(1)] if number else []


def _values(value: object) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [v for v in values if isinstance(v, str)]


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
