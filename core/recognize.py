"""Recognition: what a finished torrent is and what each of its files is for.

``parse_release`` reads a torrent name or a file path (guessit, plus fixes for the
places where guessit guesses wrong), ``classify_files`` tells the main videos from
samples and extras, ``subtitle_language`` reads a subtitle's language from its
name, ``parse_hint`` reads what a person wrote, and ``recognize`` puts it all
together with the hints and overrides of a download.

Everything here is pure. A guessit call is CPU-bound (tens of milliseconds), so
callers run ``parse_release`` and ``recognize`` off the event loop (jellybit
uses a worker process); results of guessit are kept in an LRU cache per
(text, options), so a name seen before is free.
"""

import datetime
import re
import threading
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import Any, Literal

from guessit.api import GuessItApi, GuessitException

from core.errors import InvalidInputError

Kind = Literal["movie", "series", "unknown"]
MediaKind = Literal["movie", "series"]
Role = Literal["video", "subtitle", "skip"]

VIDEO_EXTENSIONS = frozenset(
    {"mkv", "mp4", "avi", "m4v", "mov", "wmv", "ts", "m2ts", "webm", "mpg", "mpeg"}
)
SUBTITLE_EXTENSIONS = frozenset({"srt", "ass", "ssa", "sub", "vtt", "idx", "sup"})
OVERRIDE_FIELDS = frozenset({"kind", "title", "year", "season", "episode_offset"})

# A video whose name says sample/extra is skipped while it is smaller than this share
# of the largest video; at or above it, it is a main video whatever it is called (an
# episode titled "The Sample" is still an episode).
MARKED_EXTRA_MAX_SHARE = 0.5
# A video without any marker is skipped only when it is tiny beside the main video
# and does not carry an episode number: a promo clip next to a movie.
UNMARKED_EXTRA_MAX_SHARE = 0.05

_GUESSIT_CACHE_SIZE = 4096


# --- results --------------------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    kind: Kind
    title: str | None
    year: int | None
    season: int | None  # None for a movie, absolute numbering and multi-season packs
    episodes: tuple[int, ...]  # what the name says it holds; () for a whole season
    alt_title: str | None = None  # the other-script title of "Дюна / Dune (2021)"
    date: datetime.date | None = None  # air date of a daily show's episode


@dataclass(frozen=True)
class TorrentFile:
    path: str  # inside the torrent, "/"-separated, with the torrent's folder if any
    size: int  # bytes


@dataclass(frozen=True)
class FileRole:
    path: str
    role: Role
    reason: str


@dataclass(frozen=True)
class Hint:
    kind: MediaKind | None
    title: str | None
    year: int | None
    season: int | None = None
    episode: int | None = None


@dataclass(frozen=True)
class RecognizedFile:
    path: str
    role: Role
    season: int | None
    episodes: tuple[int, ...]
    language: str | None  # ISO 639-1, subtitles only
    flags: tuple[str, ...]  # subtitles: "forced", "sdh", "default"
    video: str | None = None  # the video a subtitle belongs to
    reason: str = ""
    date: datetime.date | None = None


@dataclass(frozen=True)
class Recognized:
    kind: Kind
    title: str | None
    year: int | None
    season: int | None
    files: tuple[RecognizedFile, ...]
    alt_title: str | None = None


# --- guessit, cached ------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    raw: str


@dataclass(frozen=True)
class _Guess:
    """What one guessit call found, frozen so that the cache can hand it out."""

    type: str | None
    title: str | None
    title_span: _Span | None
    years: tuple[int, ...]
    year_spans: tuple[_Span, ...]
    seasons: tuple[int, ...]
    episodes: tuple[int, ...]
    date: datetime.date | None
    year_read_as_episode: bool  # "Blade Runner 2049" read as S20E49
    split_part: bool  # "Dune.Part.Two": guessit took "Part Two" out of the title
    country_after_title: str | None  # "The Office (US)": "US", which guessit drops


# guessit's default API object is shared, mutable state (it reconfigures itself per
# call): this module has its own, used under a lock, so threads never race on it.
_API = GuessItApi()
_API_LOCK = threading.Lock()


def _run_guessit(text: str, options: Mapping[str, object]) -> Any:
    with _API_LOCK:
        return _API.guessit(text, dict(options))


def _options(kind: MediaKind | None, keep_parts: bool) -> dict[str, object]:
    # Country codes are never split from a title: "The.Last.of.Us" keeps its "Us",
    # "The.Office.US" stays "The Office US" (the country tells the two shows apart).
    # A movie's "Part Two" / "Vol. 1" is part of its title ("Dune: Part Two").
    excludes = ["country", "part", "volume"] if keep_parts else ["country"]
    options: dict[str, object] = {"excludes": excludes}
    if kind is not None:
        options["type"] = "movie" if kind == "movie" else "episode"
    return options


_COUNTRY_AFTER_TITLE = re.compile(r"[\s.]*\((US|UK|GB|AU|CA|NZ|IE)\)")


@lru_cache(maxsize=_GUESSIT_CACHE_SIZE)
def _guess(text: str, kind: MediaKind | None, keep_parts: bool = False) -> _Guess:
    try:
        result = _run_guessit(text, _options(kind, keep_parts))
    except GuessitException:
        return _Guess(None, None, None, (), (), (), (), None, False, False, None)
    matches: Mapping[str, Sequence[Any]] = getattr(result, "matches", None) or {}

    def spans(name: str) -> tuple[_Span, ...]:
        found = []
        for match in matches.get(name) or ():
            start, end = int(match.start), int(match.end)
            found.append(_Span(start, end, text[start:end]))
        return tuple(found)

    title = result.get("title")
    if isinstance(title, list):
        title = title[0] if title else None
    title_spans = spans("title")
    return _Guess(
        type=_str_or_none(result.get("type")),
        title=title if isinstance(title, str) and title.strip() else None,
        title_span=title_spans[0] if title_spans else None,
        years=_ints(result.get("year")),
        year_spans=spans("year"),
        seasons=() if _season_is_year(matches) else _ints(result.get("season")),
        episodes=_ints(result.get("episode")),
        date=result.get("date") if isinstance(result.get("date"), datetime.date) else None,
        year_read_as_episode=_year_read_as_episode(text, matches),
        split_part=bool(matches.get("part") or matches.get("volume")),
        country_after_title=next(
            (
                found.group(1)
                for span in title_spans
                if (found := _COUNTRY_AFTER_TITLE.match(text, span.end)) is not None
            ),
            None,
        ),
    )


def clear_cache() -> None:
    """Forget every cached guessit result (tests; a long-lived process never needs it)."""
    _guess.cache_clear()


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _ints(value: object) -> tuple[int, ...]:
    if isinstance(value, bool):
        return ()
    if isinstance(value, int):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, int) and not isinstance(v, bool))
    return ()


def _season_is_year(matches: Mapping[str, Sequence[Any]]) -> bool:
    """guessit reads "[2013, BDRip]" as both year and season 2013: it is a year."""
    years = {(int(m.start), int(m.end)) for m in matches.get("year") or ()}
    seasons = matches.get("season") or ()
    return bool(seasons) and all((int(m.start), int(m.end)) in years for m in seasons)


def _year_read_as_episode(text: str, matches: Mapping[str, Sequence[Any]]) -> bool:
    """guessit reads a bare 4-digit number after a title as season+episode
    ("Blade Runner 2049" → S20E49); a year-like one is a title's number instead."""
    seasons, episodes = matches.get("season") or (), matches.get("episode") or ()
    if len(seasons) != 1 or len(episodes) != 1:
        return False
    season, episode = seasons[0], episodes[0]
    if "weak-episode" not in (season.tags or ()) or season.end != episode.start:
        return False
    return re.fullmatch(r"(?:19|20)\d\d", text[int(season.start) : int(episode.end)]) is not None


# --- parse_release ----------------------------------------------------------------------

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")
_TILDE_RANGE = re.compile(r"(?<=\d)\s*~\s*(?=\d)")
_YEAR_RANGE = re.compile(r"(?<!\d)((?:19|20)\d\d)\s*[-–]\s*(?:19|20)\d\d(?!\d)")
_FIRST_YEAR = re.compile(r"(?<![\w.])(?:19|20)\d\d(?![\w.])")
_LEADING_GROUPS = re.compile(r"^(?:\s*\[[^\]]*\])+\s*")
_PREFIX_NOISE = re.compile(r"[\s._\-]*(?:\[[^\]]*\][\s._\-]*)*")
_ONLY_YEARS = re.compile(r"\(?\s*(?:19|20)\d\d(?:\s*[-–]\s*(?:19|20)\d\d)?\s*\)?")
# Russian season and episode words: "Сезон: 1-3", "2 сезон", "1-3 сезоны", "2-й сезон",
# "Серии: 1-26 из 26", "1-9 серии из 9", "Серия 3".
_RANGE = r"(\d{1,4})(?:\s*[-–]\s*(\d{1,4}))?"
_RU_SEASON_BEFORE = re.compile(_RANGE + r"\s*(?:-?(?:й|ый|ой)\s*)?сезон", re.IGNORECASE)
_RU_SEASON_AFTER = re.compile(r"сезон[ыа]?\s*[:№]?\s*" + _RANGE, re.IGNORECASE)
_RU_ANIME_SEASON = re.compile(r"\[TV-?(\d{1,2})\]", re.IGNORECASE)  # "[TV-1]", "[TV2]"
_RU_ALL_EPISODES = re.compile(r"(?<![\d-])(\d{1,4})\s+из\s+(\d{1,4})", re.IGNORECASE)
_RU_EPISODE_AFTER = re.compile(r"(?:сери[яи]|эпизод[ыа]?)\s*[:№]?\s*" + _RANGE, re.IGNORECASE)
_RU_EPISODE_BEFORE = re.compile(_RANGE + r"\s*(?:-?я\s*)?(?:сери[яийе]|эпизод)", re.IGNORECASE)
# Titles whose last word is a number guessit would take for the year. Only used when
# the name has no other year: "Wonder.Woman.1984.2020" needs no table.
_NUMBER_TITLES = frozenset(
    {
        "blade runner 2049",
        "wonder woman 1984",
        "class of 1984",
        "death race 2000",
        "godzilla 2000",
        "space 1999",
        "fear street 1994",
        "fear street 1978",
        "бегущий по лезвию 2049",
        "чудо женщина 1984",
    }
)


def parse_release(name: str, *, kind: MediaKind | None = None) -> Parsed:
    """Kind, title, year, season and episodes of a torrent name or a file path.

    ``kind`` is what is already known (the torrent is a series, so its files are
    episodes); the result then has that kind.
    """
    text = _TILDE_RANGE.sub("-", unicodedata.normalize("NFC", name).strip())
    if not text:
        return Parsed("unknown", None, None, None, ())
    if " / " in text:
        return _parse_titled(text, kind)
    guessed_as = kind
    guess = _guess(text, kind)
    if guess.year_read_as_episode and kind != "series":
        guessed_as = "movie"
        guess = _guess(text, guessed_as)
    if guess.split_part and guess.type == "movie":
        guess = _guess(text, guessed_as, keep_parts=True)
    title, year = _fix_title_and_year(text, guess, guessed_as)
    basename = text.replace("\\", "/").rsplit("/", 1)[-1]
    ru = _russian_numbers(basename) if _CYRILLIC.search(basename) else None
    return _assemble(guess, kind, title, year, None, ru)


def _fix_title_and_year(
    text: str, guess: _Guess, kind: MediaKind | None
) -> tuple[str | None, int | None]:
    title = _clean(guess.title)
    if title is not None and guess.country_after_title:
        title = f"{title} ({guess.country_after_title})"
    year = guess.years[0] if guess.years else None
    range_start = _YEAR_RANGE.search(text)
    if range_start and year is not None and str(year) in range_start.group(0):
        year = int(range_start.group(1))  # "1994-2004": the first year is the show's
    if year is None or len(guess.years) != 1 or len(guess.year_spans) != 1:
        return title, year
    year_span = guess.year_spans[0]
    basename_start = max(text.rfind("/"), text.rfind("\\")) + 1
    if title is None:
        # "1917", "2012": a lone number is the title, not a year.
        return year_span.raw, None
    title_start = guess.title_span.start if guess.title_span else -1
    prefix = text[basename_start : year_span.start] if year_span.start >= basename_start else "x"
    if _PREFIX_NOISE.fullmatch(prefix) and title_start > year_span.start:
        # "2001 A Space Odyssey": the number opens the title.
        return f"{year_span.raw} {title}", None
    if _fold(f"{title} {year_span.raw}") in _NUMBER_TITLES and kind != "series":
        return f"{title} {year_span.raw}", None
    return title, year


def _parse_titled(text: str, kind: MediaKind | None) -> Parsed:
    """Names of Russian trackers: ``Дюна / Dune (2021) …``, ``Тьма / Dark / Сезон: 2 /
    Серии: 1-8 из 8 (…) [2019, …]``, ``Одни из нас (1 сезон…) / The Last of Us / 2023 / …``.

    The leading " / "-separated parts that read as titles are titles (the first
    Latin one wins, a Cyrillic one is kept as ``alt_title``); guessit reads the rest.
    """
    segments = _split_top_level(_LEADING_GROUPS.sub("", text), " / ")
    titles: list[str] = []
    rest: list[str] = []
    for index, segment in enumerate(segments):
        head, tail = _split_at_bracket(segment)
        if not _is_title(head):
            rest.extend(segments[index:])
            break
        titles.append(head)
        rest.append(tail)
    latin = next((t for t in titles if not _CYRILLIC.search(t) and _LATIN.search(t)), None)
    cyrillic = next((t for t in titles if _CYRILLIC.search(t)), None)
    title = latin or cyrillic or (titles[0] if titles else None)
    alt_title = cyrillic if latin and cyrillic else None
    remainder = " ".join(part for part in rest if part).replace("/", " ")
    # guessit reads a placeholder title, so numbers in the real title ("Брат 2",
    # "Blade Runner 2049") are never taken for episodes or years.
    probe = f"Release {remainder}".strip()
    guess = _guess(probe, kind)
    # The first year-like number of the rest: "(2021)", "[2021, США, …]", "/ 2021 /",
    # "[2017-2020, …]" (a series' first year).
    found_year = _FIRST_YEAR.search(remainder)
    year = int(found_year.group(0)) if found_year else guess.years[0] if guess.years else None
    ru = _russian_numbers(remainder) if _CYRILLIC.search(remainder) else None
    return _assemble(guess, kind, title, year, alt_title, ru)


def _assemble(
    guess: _Guess,
    kind: MediaKind | None,
    title: str | None,
    year: int | None,
    alt_title: str | None,
    ru: tuple[tuple[int, ...], tuple[int, ...]] | None,
) -> Parsed:
    seasons, episodes = guess.seasons, guess.episodes
    if ru is not None:
        ru_seasons, ru_episodes = ru
        seasons = ru_seasons or seasons
        episodes = ru_episodes or episodes
    found_kind: Kind
    if kind is not None:
        found_kind = kind
    elif guess.type == "episode" or seasons or episodes or guess.date:
        found_kind = "series"
    elif guess.type == "movie":
        found_kind = "movie"
    else:
        found_kind = "unknown"
    if title is None and year is None and found_kind == "movie":
        found_kind = "unknown"
    if found_kind != "series":
        return Parsed(found_kind, title, year, None, (), alt_title)
    if len(set(seasons)) > 1:
        # A multi-season pack: the numbers belong to each file, not to the torrent.
        return Parsed(found_kind, title, year, None, (), alt_title, guess.date)
    season = seasons[0] if seasons else None
    return Parsed(found_kind, title, year, season, _unique_sorted(episodes), alt_title, guess.date)


def _russian_numbers(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    seasons = (
        _first_range(_RU_SEASON_BEFORE, text)
        or _first_range(_RU_SEASON_AFTER, text)
        or _first_range(_RU_ANIME_SEASON, text)
    )
    episodes = _first_range(_RU_EPISODE_AFTER, text) or _first_range(_RU_EPISODE_BEFORE, text)
    complete = _RU_ALL_EPISODES.search(text)
    if not episodes and complete and complete.group(1) == complete.group(2):
        episodes = tuple(range(1, int(complete.group(2)) + 1))  # "[25 из 25]": all of them
    return seasons, episodes


def _first_range(pattern: re.Pattern[str], text: str) -> tuple[int, ...]:
    match = pattern.search(text)
    if match is None:
        return ()
    first = int(match.group(1))
    last = int(match.group(2)) if pattern.groups > 1 and match.group(2) else first
    if last < first or last - first > 2000:
        return (first,)
    return tuple(range(first, last + 1))


def _split_top_level(text: str, separator: str) -> list[str]:
    """Split outside brackets: "Dune (Дени Вильнёв / Denis Villeneuve)" is one part."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        char = text[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i].strip())
            i += len(separator)
            start = i
            continue
        i += 1
    parts.append(text[start:].strip())
    return parts


def _split_at_bracket(segment: str) -> tuple[str, str]:
    match = re.search(r"[(\[]", segment)
    if match is None:
        return segment.strip(), ""
    return segment[: match.start()].strip(), segment[match.start() :].strip()


def _is_title(head: str) -> bool:
    if not re.search(r"\w", head) or _ONLY_YEARS.fullmatch(head):
        return False
    if _RU_SEASON_AFTER.search(head) or _RU_SEASON_BEFORE.search(head):
        return False
    if _RU_EPISODE_AFTER.search(head) or _RU_EPISODE_BEFORE.search(head):
        return False
    return not re.fullmatch(r"(?i)S\d{1,2}(?:E\d{1,4})?|Season\s*\d+", head)


def _clean(title: str | None) -> str | None:
    if title is None:
        return None
    cleaned = re.sub(r"\s+", " ", title).strip(" -_.,")
    return cleaned or None


def _fold(text: str) -> str:
    """Casefolded, apostrophes dropped, other punctuation as spaces, ё as е: for
    comparing titles."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    folded = re.sub(r"['’`ʼ]", "", folded)  # "It's" and "Its" are one title
    return " ".join(re.sub(r"[\W_]+", " ", folded).split())


def _unique_sorted(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(set(values)))


# --- classify_files ---------------------------------------------------------------------

_EXTRA_FOLDERS = frozenset(
    {
        "sample",
        "samples",
        "extra",
        "extras",
        "featurette",
        "featurettes",
        "behind the scenes",
        "deleted scene",
        "deleted scenes",
        "interview",
        "interviews",
        "scenes",
        "shorts",
        "clips",
        "trailer",
        "trailers",
        "other",
        "bonus",
        "bonus features",
        "special features",
        "making of",
        "promos",
    }
)
_EXTRA_WORDS = re.compile(
    r"\b(?:samples?|trailers?|teaser|featurettes?|behindthescenes|deletedscenes?|"
    r"interviews?|makingof|extras|bonus|behind the scenes|deleted scenes?|making of)\b"
)
_EPISODE_MARK = re.compile(
    r"(?i)(?:\bS\d{1,3}[ ._-]?E\d{1,4}|\b\d{1,2}x\d{2,3}\b|\bEp?\.?\s?\d{1,4}\b|\s-\s\d{1,4}\b)"
)


def classify_files(files: Sequence[TorrentFile]) -> list[FileRole]:
    """Each file's role: a main video, a subtitle, or skipped (and why).

    Samples and extras are known by folder (``Sample/``, ``Featurettes/``, …), by
    name (``-trailer``, ``.sample.``) for a video smaller than half the largest one,
    and, without any marker, by being under 5% of the largest video with no episode
    number. Never by an absolute size: a 20-minute short film alone is a video.
    """
    media = [f for f in files if _extension(f.path) in VIDEO_EXTENSIONS | SUBTITLE_EXTENSIONS]
    largest = max((f.size for f in files if _extension(f.path) in VIDEO_EXTENSIONS), default=0)
    shared = _shared_folders([f.path for f in media])
    roles = []
    for file in files:
        extension = _extension(file.path)
        if extension not in VIDEO_EXTENSIONS and extension not in SUBTITLE_EXTENSIONS:
            roles.append(FileRole(file.path, "skip", "not a video or subtitle"))
            continue
        folders = _folders(file.path)[len(shared) :]
        extra_folder = next((f for f in folders if _fold(f) in _EXTRA_FOLDERS), None)
        if extra_folder is not None:
            roles.append(FileRole(file.path, "skip", f"in the {extra_folder!r} folder"))
            continue
        if extension in SUBTITLE_EXTENSIONS:
            roles.append(FileRole(file.path, "subtitle", "subtitle"))
            continue
        share = file.size / largest if largest > 0 else None
        percent = f"{share:.0%} of the largest video" if share is not None else "size unknown"
        stem = _stem(file.path)
        marker = _EXTRA_WORDS.search(" ".join(re.split(r"[\W_]+", stem.casefold())))
        if marker and (share is None or share < MARKED_EXTRA_MAX_SHARE):
            roles.append(FileRole(file.path, "skip", f"name says {marker.group(0)}, {percent}"))
        elif (
            share is not None
            and share < UNMARKED_EXTRA_MAX_SHARE
            and not _EPISODE_MARK.search(stem)
        ):
            roles.append(FileRole(file.path, "skip", f"small beside the main video, {percent}"))
        else:
            roles.append(FileRole(file.path, "video", "video"))
    return roles


def _extension(path: str) -> str:
    return PurePosixPath(path.replace("\\", "/")).suffix.lower().lstrip(".")


def _stem(path: str) -> str:
    return PurePosixPath(path.replace("\\", "/")).stem


def _folders(path: str) -> tuple[str, ...]:
    return PurePosixPath(path.replace("\\", "/")).parts[:-1]


def _shared_folders(paths: Sequence[str]) -> tuple[str, ...]:
    """Folders every media file is in (the torrent's own folder): never a marker,
    so a torrent named "Shorts" or "Extras" still has main videos."""
    if not paths:
        return ()
    shared = _folders(paths[0])
    for path in paths[1:]:
        folders = _folders(path)
        length = 0
        while length < min(len(shared), len(folders)) and shared[length] == folders[length]:
            length += 1
        shared = shared[:length]
    return shared


# --- subtitle_language -----------------------------------------------------------------


def _language_table() -> dict[str, str]:
    rows = {
        "en": "eng english англ английский английские англ.",
        "ru": "rus russian рус русский русские russkiy",
        "uk": "ukr ua ukrainian укр украинский украинские українська",
        "de": "ger deu german deutsch немецкий",
        "fr": "fre fra french francais français французский",
        "es": "spa spanish espanol español испанский",
        "it": "ita italian italiano итальянский",
        "pt": "por portuguese portugues português brazilian",
        "ja": "jpn jap jp japanese японский",
        "zh": "chi zho chs cht chinese китайский",
        "ko": "kor korean корейский",
        "pl": "pol polish polski польский",
        "cs": "cze ces czech",
        "nl": "dut nld dutch",
        "sv": "swe swedish",
        "no": "nor nob norwegian",
        "da": "dan danish",
        "fi": "fin finnish",
        "tr": "tur turkish",
        "ar": "ara arabic",
        "he": "heb hebrew",
        "hi": "hin hindi",
        "hu": "hun hungarian",
        "el": "gre ell greek",
        "ro": "rum ron romanian",
        "bg": "bul bulgarian",
        "sr": "srp serbian",
        "hr": "hrv croatian",
        "th": "tha thai",
        "vi": "vie vietnamese",
        "id": "ind indonesian",
        "fa": "per fas persian farsi",
        "et": "est estonian",
        "lv": "lav latvian",
        "lt": "lit lithuanian",
        "sk": "slo slk slovak",
        "sl": "slv slovenian",
        "be": "bel belarusian",
        "kk": "kaz kazakh",
        "ka": "geo kat georgian",
    }
    table = {}
    for code, names in rows.items():
        table[code] = code
        for word in names.split():
            table[word] = code
    return table


_LANGUAGES = _language_table()
_LANGUAGE_REGION = re.compile(
    r"(?<![^\W_])([A-Za-z]{2,3})-(?:[A-Za-z]{2}|Hans|Hant|Latn|Cyrl|\d{3})(?![^\W_])"
)
_FLAGS = {
    "forced": "forced",
    "forsed": "forced",
    "форсированные": "forced",
    "форсированный": "forced",
    "форс": "forced",
    "signs": "forced",
    "надписи": "forced",
    "sdh": "sdh",
    "cc": "sdh",
    "hi": "sdh",
    "default": "default",
}
# Words in a subtitle's name that say nothing about it; they neither stop nor decide.
_NEUTRAL = frozenset(
    {"sub", "subs", "subtitle", "subtitles", "full", "полные", "субтитры", "songs", "sign"}
)


def subtitle_language(path: str) -> tuple[str | None, tuple[str, ...]]:
    """ISO 639-1 language and flags ("forced", "sdh", "default") of a subtitle file:
    ``Movie.ru.srt``, ``Movie.rus.forced.srt``, ``Subs/2_English.srt``,
    ``Movie.en.sdh.srt``, ``[Russian].ass``, ``Subs/Rus/Movie.srt``."""
    pure = PurePosixPath(unicodedata.normalize("NFC", path).replace("\\", "/"))
    language, flags = _trailing_language(pure.stem)
    for folder in reversed(pure.parts[:-1]):
        if language is not None:
            break
        language, folder_flags = _trailing_language(folder)
        flags += tuple(f for f in folder_flags if f not in flags)
    return language, flags


def _trailing_language(name: str) -> tuple[str | None, tuple[str, ...]]:
    """The language and flags in the run of known words that ends a name."""
    # "pt-BR", "zh-Hans", "es-419": the language is the first part.
    name = _LANGUAGE_REGION.sub(
        lambda m: m.group(1) if m.group(1).casefold() in _LANGUAGES else m.group(0), name
    )
    tokens = [t for t in re.split(r"[\s._\-\[\]()]+", name.casefold()) if t]
    languages: list[str] = []
    flags: list[str] = []
    saw_hi = False
    for token in reversed(tokens):
        if token == "hi":
            saw_hi = True
        elif token in _FLAGS:
            if _FLAGS[token] not in flags:
                flags.insert(0, _FLAGS[token])
        elif token in _LANGUAGES:
            languages.append(_LANGUAGES[token])
        elif token not in _NEUTRAL:
            break
    if saw_hi:
        # "Movie.en.hi.srt" is hearing impaired; a lone "hi" is Hindi.
        if languages:
            flags.append("sdh")
        else:
            languages.append("hi")
    return (languages[0] if languages else None), tuple(flags)


# --- parse_hint ------------------------------------------------------------------------

_KIND_WORDS: dict[str, MediaKind] = {
    "фильм": "movie",
    "фильма": "movie",
    "фильмец": "movie",
    "кинофильм": "movie",
    "кино": "movie",
    "мультфильм": "movie",
    "мультик": "movie",
    "мульт": "movie",
    "сериал": "series",
    "сериала": "series",
    "сериальчик": "series",
    "мультсериал": "series",
    "movie": "movie",
    "film": "movie",
    "show": "series",
    "series": "series",
    "tv": "series",
    "tv-show": "series",
    "tvshow": "series",
}
_ENGLISH_KIND_WORDS = frozenset({"movie", "film", "show", "series", "tv", "tv-show", "tvshow"})
# Russian words a person puts around a title; dropped at the start and the end, never
# inside ("Очень страшное кино" keeps its "кино": it is dropped only at the start).
_RU_FILLERS = frozenset(
    {"это", "этот", "эта", "вот", "тут", "здесь", "называется", "ну", "пожалуйста", "плз", "аниме"}
)
_NOT_AT_END = frozenset({"кино"})
_EN_OPENERS = (("it's",), ("it", "is"), ("this", "is"), ("that's",), ("that", "is"))
_ARTICLES = frozenset({"a", "an", "the"})
_SEPARATORS = frozenset({"-", "–", "—", ",", ":", "|"})
_YEAR_WORDS = frozenset({"год", "года", "г", "г."})
_HINT_SEASON_EPISODE = re.compile(r"(?i)\bS(\d{1,3})\s?E(\d{1,4})\b")
_HINT_SEASON = re.compile(
    r"(?i)(?:\b(?:season|сезон)\s*(\d{1,3})\b|\b(\d{1,3})(?:\s*-?(?:й|ый|ой|th|st|nd|rd))?"
    r"\s*(?:сезон\w*|season)|\bS(\d{1,3})\b)"
)
_HINT_EPISODE = re.compile(
    r"(?i)(?:\b(?:episode|ep|серия|эпизод)\.?\s*(\d{1,4})\b|\b(\d{1,4})(?:\s*-?я)?"
    r"\s*(?:сери[яи]|эпизод))"
)
_HINT_YEAR = re.compile(r"(?:18|19|20)\d\d")


def parse_hint(text: str) -> Hint:
    """What a person's free text says: ``это Дюна 2021``, ``Dune 2021``,
    ``сериал Тьма 2 сезон``, ``фильм``, ``show``.

    Season and episode phrases are read and removed; filler and kind words are
    dropped at the start and the end of the text (and the kind kept), never
    inside it; English kind words at the end only after a separator, a year or in
    brackets, so "The Truman Show" and "Scary Movie" keep theirs. A trailing
    year-like number is the year unless it is part of a known title ("Wonder Woman
    1984"); alone ("2021") it is a year too: a person correcting a download says
    the year, the title is in the torrent's name.
    """
    rest = " ".join(unicodedata.normalize("NFC", text).split())
    season: int | None = None
    episode: int | None = None
    both = _HINT_SEASON_EPISODE.search(rest)
    if both is not None:
        season, episode = int(both.group(1)), int(both.group(2))
        rest = _HINT_SEASON_EPISODE.sub(" ", rest, count=1)
    if season is None and (found := _number_of(_HINT_SEASON, rest)) is not None:
        season = found
        rest = _HINT_SEASON.sub(" ", rest, count=1)
    if episode is None and (found := _number_of(_HINT_EPISODE, rest)) is not None:
        episode = found
        rest = _HINT_EPISODE.sub(" ", rest, count=1)

    words = rest.split()
    kind, words = _strip_leading(words)
    trailing_kind, words = _strip_trailing(words)
    year = None
    if (
        len(words) > 1
        and _word(words[-1]) in _YEAR_WORDS
        and _HINT_YEAR.fullmatch(_word(words[-2]))
    ):
        words = words[:-1]  # "2021 года"
    if words and _HINT_YEAR.fullmatch(_word(words[-1])):
        before = " ".join(words[:-1])
        if _fold(f"{before} {_word(words[-1])}") not in _NUMBER_TITLES:
            year = int(_word(words[-1]))
            words = words[:-1]
            more_kind, words = _strip_trailing(words)
            trailing_kind = trailing_kind or more_kind
    kind = trailing_kind or kind
    if kind is None and (season is not None or episode is not None):
        kind = "series"
    title = " ".join(words).strip(" \"'«»“”„.,:;!?-–—|")
    title = re.sub(r"\s*(?:\(\s*\)|\[\s*\])", "", title).strip()
    return Hint(kind=kind, title=title or None, year=year, season=season, episode=episode)


def _word(word: str) -> str:
    return word.casefold().strip("\"'«»“”„.,:;!?()[]")


def _number_of(pattern: re.Pattern[str], text: str) -> int | None:
    match = pattern.search(text)
    if match is None:
        return None
    return int(next(group for group in match.groups() if group is not None))


def _strip_leading(words: list[str]) -> tuple[MediaKind | None, list[str]]:
    """ "это фильм Дюна", "it's the show Dark", "movie Dune"."""
    kind: MediaKind | None = None
    while words:
        folded = [_word(w) for w in words[:2]]
        opener = next((o for o in _EN_OPENERS if tuple(folded[: len(o)]) == o), None)
        if opener is not None:
            words = words[len(opener) :]
        elif folded[0] in _RU_FILLERS or folded[0] in _SEPARATORS or not folded[0]:
            words = words[1:]
        elif folded[0] in _KIND_WORDS:
            kind = _KIND_WORDS[folded[0]]
            words = words[1:]
        elif folded[0] in _ARTICLES and len(folded) > 1 and folded[1] in _ENGLISH_KIND_WORDS:
            kind = _KIND_WORDS[folded[1]]
            words = words[2:]
        else:
            break
    return kind, words


def _strip_trailing(words: list[str]) -> tuple[MediaKind | None, list[str]]:
    """Kind and filler words that end a hint: "Тьма сериал", "Dune (movie)",
    "Dark - show", "Dune 2021 movie"."""
    kind: MediaKind | None = None
    while words:
        folded = _word(words[-1])
        if folded in _SEPARATORS or not folded or folded in _RU_FILLERS - _NOT_AT_END:
            words = words[:-1]
        elif folded in _KIND_WORDS and _kind_word_ends_hint(words):
            kind = kind or _KIND_WORDS[folded]
            words = words[:-1]
        else:
            break
    return kind, words


def _kind_word_ends_hint(words: list[str]) -> bool:
    last, folded = words[-1], _word(words[-1])
    if folded in _NOT_AT_END:
        return False
    if folded not in _ENGLISH_KIND_WORDS or len(words) == 1:
        return True
    previous = words[-2]
    return (
        last[0] in "(["
        or _word(previous) in _SEPARATORS
        or previous.endswith(",")
        or _HINT_YEAR.fullmatch(_word(previous)) is not None
    )


# --- recognize -------------------------------------------------------------------------


_NO_OVERRIDES: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class _Overrides:
    kind: MediaKind | None = None
    title: str | None = None
    year: int | None = None
    season: int | None = None
    episode_offset: int = 0


def recognize(
    torrent_name: str,
    files: Sequence[TorrentFile],
    hints: Sequence[str] = (),
    overrides: Mapping[str, str] = _NO_OVERRIDES,
) -> Recognized:
    """The torrent name is the base; each video's own path gives its season and
    episodes (a file's numbers win over the torrent's); subtitles go with a video
    of the same stem (or the only video, or the one with the same episode).

    Precedence per field, weakest first: torrent name, file path, hints (in order,
    the latest that says something about a field wins), overrides (``kind``,
    ``title``, ``year``, ``season``, ``episode_offset``; a bad value raises
    ``InvalidInputError``). ``episode_offset`` is added to every episode number.
    """
    fixed = _read_overrides(overrides)
    base = parse_release(torrent_name)
    hint = _merge_hints(parse_hint(text) for text in hints)
    roles = classify_files(files)
    videos = [role.path for role in roles if role.role == "video"]

    kind: Kind
    if fixed.kind or hint.kind:
        kind = fixed.kind or hint.kind or "unknown"
    elif base.kind == "series":
        kind = "series"
    else:
        # "Some Show/Some.Show.S01E01.mkv": the files know better than the name.
        own = [parse_release(path) for path in videos]
        if own and all(p.kind == "series" and (p.episodes or p.date) for p in own):
            kind = "series"
        elif base.kind == "movie" or own:
            kind = "movie"
        else:
            kind = "unknown"
    parses = {
        path: parse_release(path, kind=kind if kind != "unknown" else None) for path in videos
    }
    first = parses[videos[0]] if videos else None

    from_hint = hint.title is not None or fixed.title is not None
    title = fixed.title or hint.title or base.title or (first.title if first else None)
    alt_title = None if from_hint else base.alt_title
    year = _first_set(fixed.year, hint.year, base.year, first.year if first else None)
    season = _first_set(fixed.season, hint.season, base.season) if kind == "series" else None

    single = len(videos) == 1
    # A file's own numbers, with the torrent's where the file says nothing: what
    # subtitles are matched on, before hints and overrides renumber anything.
    natural = {
        path: _natural_numbers(parses[path], base, single=single) if kind == "series" else None
        for path in videos
    }
    if kind == "series" and season is None:
        # "Some Show/Some.Show.S01E01.mkv …": the season every file agrees on.
        seasons = {numbers[0] for numbers in natural.values() if numbers is not None}
        if len(seasons) == 1:
            season = seasons.pop()
    recognized = {
        path: _video_file(path, natural[path], parses[path].date or base.date, hint, fixed, single)
        for path in videos
    }
    result = []
    for role in roles:
        if role.role == "video":
            result.append(recognized[role.path])
        elif role.role == "subtitle":
            language, flags = subtitle_language(role.path)
            video = _video_of_subtitle(role.path, natural)
            if video is None:
                reason = "subtitle matches no video"
                result.append(
                    RecognizedFile(role.path, "skip", None, (), language, flags, None, reason)
                )
                continue
            owner = recognized[video]
            result.append(
                RecognizedFile(
                    role.path,
                    "subtitle",
                    owner.season,
                    owner.episodes,
                    language,
                    flags,
                    video=video,
                    reason="subtitle",
                    date=owner.date,
                )
            )
        else:
            result.append(RecognizedFile(role.path, "skip", None, (), None, (), reason=role.reason))
    return Recognized(kind, title, year, season, tuple(result), alt_title)


def _natural_numbers(
    parsed: Parsed, base: Parsed, *, single: bool
) -> tuple[int | None, tuple[int, ...]]:
    season = _first_set(parsed.season, base.season)
    episodes = parsed.episodes or (base.episodes if single else ())
    return season, episodes


def _video_file(
    path: str,
    numbers: tuple[int | None, tuple[int, ...]] | None,
    aired: datetime.date | None,
    hint: Hint,
    fixed: _Overrides,
    single: bool,
) -> RecognizedFile:
    if numbers is None:  # not a series
        return RecognizedFile(path, "video", None, (), None, (), reason="video")
    season, episodes = numbers
    season = _first_set(fixed.season, hint.season, season)
    if hint.episode is not None and single:
        episodes = (hint.episode,)
    if fixed.episode_offset:
        episodes = tuple(episode + fixed.episode_offset for episode in episodes)
        if any(episode < 0 for episode in episodes):
            raise InvalidInputError(
                f"episode_offset {fixed.episode_offset} makes an episode of {path} negative"
            )
    return RecognizedFile(path, "video", season, episodes, None, (), reason="video", date=aired)


def _video_of_subtitle(
    path: str, videos: Mapping[str, tuple[int | None, tuple[int, ...]] | None]
) -> str | None:
    """Same stem ("Movie.en.srt" beside "Movie.mkv", "Subs/Movie/2_English.srt"),
    else the only video, else the one video with the subtitle's episode numbers."""
    if not videos:
        return None
    stem = _fold(_stem(path))
    folders = {_fold(folder) for folder in _folders(path)}
    best: tuple[int, str] | None = None
    for video in videos:
        video_stem = _fold(_stem(video))
        same_stem = stem == video_stem or stem.startswith(video_stem + " ")
        if (same_stem or video_stem in folders) and (best is None or len(video_stem) > best[0]):
            best = (len(video_stem), video)
    if best is not None:
        return best[1]
    if len(videos) == 1:
        return next(iter(videos))
    if all(numbers is None for numbers in videos.values()):
        return None
    parsed = parse_release(path, kind="series")
    if not parsed.episodes:
        return None
    same = [
        video
        for video, numbers in videos.items()
        if numbers is not None
        and numbers[1] == parsed.episodes
        and parsed.season in (None, numbers[0])
    ]
    return same[0] if len(same) == 1 else None


def _read_overrides(overrides: Mapping[str, str]) -> _Overrides:
    unknown = sorted(set(overrides) - OVERRIDE_FIELDS)
    if unknown:
        raise InvalidInputError(f"unknown override field {unknown[0]!r}")
    kind = overrides.get("kind")
    if kind is not None and kind not in ("movie", "series"):
        raise InvalidInputError(f"kind must be movie or series, got {kind!r}")
    title = overrides.get("title")
    return _Overrides(
        kind="movie" if kind == "movie" else "series" if kind == "series" else None,
        title=title.strip() or None if title is not None else None,
        year=_int_override(overrides, "year", minimum=1800),
        season=_int_override(overrides, "season", minimum=0),
        episode_offset=_int_override(overrides, "episode_offset", minimum=None) or 0,
    )


def _int_override(overrides: Mapping[str, str], field: str, *, minimum: int | None) -> int | None:
    value = overrides.get(field)
    if value is None or not value.strip():
        return None
    try:
        number = int(value.strip())
    except ValueError:
        raise InvalidInputError(f"{field} must be a whole number, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise InvalidInputError(f"{field} must be at least {minimum}, got {number}")
    return number


def _merge_hints(hints: Iterable[Hint]) -> Hint:
    merged = Hint(None, None, None)
    for hint in hints:
        merged = Hint(
            kind=hint.kind or merged.kind,
            title=hint.title or merged.title,
            year=_first_set(hint.year, merged.year),
            season=_first_set(hint.season, merged.season),
            episode=_first_set(hint.episode, merged.episode),
        )
    return merged


def _first_set(*values: int | None) -> int | None:
    return next((value for value in values if value is not None), None)
