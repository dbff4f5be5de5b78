"""guessit, cached, with the facts jellybit needs from its matches.

guessit's default API object is shared, mutable state (it reconfigures itself per
call): this module has its own, one per options set, used under a lock, so threads
never race on them.
A call is CPU-bound (~15 ms); results are kept in an LRU cache per (text, options),
and a season's files are read from their sibling (``_Siblings``).
"""

import datetime
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise
from typing import Any, Literal

from babelfish import Error as BabelfishError
from babelfish import Language, LanguageConvertError

MediaKind = Literal["movie", "series"]
CACHE_SIZE = 4096


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    raw: str


@dataclass(frozen=True)
class Guess:
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
    language: str | None = None  # the one language tagged ("KOREAN": "ko"), ISO 639-1
    service: str | None = None  # the streaming service tagged ("NF": "Netflix")
    episode_title: str | None = None  # "S01E05.The.Gift": "The Gift"
    # "Avatar - The Last Airbender (Complete Series)": what follows the title's dash,
    # which guessit takes for another title.
    subtitle: str | None = None
    alternative: str | None = None  # "Doctor.Who.2005.The.Christmas.Invasion": after the year
    # "12.Monkeys.1080p", "21.Jump.Street.720p": guessit's episode 12 of "Monkeys", a
    # number that opens the name with nothing else marking an episode.
    number_opens_title: bool = False
    # "The.Hateful.Eight.Extended.Version.S01": the edition guessit read right after a
    # show's title, as written ("Extended Version"): a film's cut released as a series.
    edition_after_title: str | None = None


# guessit is imported where names are parsed (the parser processes), not by every
# process that imports recognition: ~14 MiB and 0.1 s jellybit's own process never uses.
_RULES: Any = None  # guessit's API holding the rules, built once; every options set shares them
_APIS: dict[tuple[tuple[str, str], ...], Any] = {}
_API_LOCK = threading.Lock()


def build_rules() -> None:
    """Build guessit's rules now (~0.2 s) rather than at the first call: the fork server
    of the parser processes does, so that they start with them built (worker/cpu.py)."""
    with _API_LOCK:
        _built_rules()


def _built_rules() -> Any:
    """guessit's rules, built at the first need (under ``_API_LOCK``)."""
    global _RULES
    if _RULES is None:
        from guessit.api import GuessItApi  # where names are parsed only

        from recognition.parsing import rebulk_fast

        rebulk_fast.install()
        _RULES = GuessItApi()
        _RULES.configure({})
    return _RULES.rebulk


def _run_guessit(text: str, options: Mapping[str, object]) -> Any:
    # One API object per options set: guessit re-merges (deep-copies) its whole
    # configuration whenever a call's options differ from the previous call's.
    key = tuple(sorted((name, repr(value)) for name, value in options.items()))
    with _API_LOCK:
        api = _APIS.get(key)
        if api is None:
            rules = _built_rules()
            api = _APIS[key] = type(_RULES)()
            api.configure(dict(options), rules_builder=lambda _config: rules)
        return api.guessit(text, dict(options))


def _options(kind: MediaKind | None, keep_parts: bool) -> dict[str, object]:
    # Country codes are never split from a title: "The.Last.of.Us" keeps its "Us",
    # "The.Office.US" stays "The Office US" (the country tells the two shows apart).
    # A movie's "Part Two" / "Vol. 1" is part of its title ("Dune: Part Two").
    excludes = ["country", "part", "volume"] if keep_parts else ["country"]
    options: dict[str, object] = {"excludes": excludes}
    if kind is not None:
        options["type"] = "movie" if kind == "movie" else "episode"
    return options


_COUNTRY_CODES = frozenset({"US", "UK", "GB", "AU", "CA", "NZ", "IE"})
_COUNTRY_AFTER_TITLE = re.compile(r"[\s.]*\((US|UK|GB|AU|CA|NZ|IE)\)")


@lru_cache(maxsize=CACHE_SIZE)
def guess(text: str, kind: MediaKind | None, keep_parts: bool = False) -> Guess:
    """What guessit reads in ``text`` (as ``kind`` when it is known; ``keep_parts``: a
    movie's "Part Two" stays in its title)."""
    key = (kind, keep_parts)
    if (found := _SIBLINGS.read(text, key)) is not None:
        return found
    from guessit.api import GuessitException  # loaded by _run_guessit

    try:
        result = _run_guessit(text, _options(kind, keep_parts))
    except GuessitException:
        return Guess(None, None, None, (), (), (), (), None, False, False, None)
    matches: Mapping[str, Sequence[Any]] = getattr(result, "matches", None) or {}
    found = _guess(text, result, matches)
    _SIBLINGS.remember(text, key, found, matches)
    return found


def _guess(text: str, result: Mapping[str, Any], matches: Mapping[str, Sequence[Any]]) -> Guess:
    title_spans = _spans(text, matches, "title")
    title = _title(result.get("title"))
    word = _word_before_title(text, _spans(text, matches, "release_group"), title_spans)
    if title is not None and word is not None:
        end = title_spans[0].end
        title, title_spans = f"{word.raw}-{title}", (_Span(0, end, text[:end]),)
    alternatives = _spans(text, matches, "alternative_title")
    languages = _spans(text, matches, "language")
    country_tag = _country_tag(languages, title_spans)
    language = None if country_tag else _language(result.get("language"))
    episode_title = _str_or_none(result.get("episode_title"))
    if language is None and not country_tag:
        language, title, title_spans, alternatives = _scene_language(
            title, title_spans, alternatives
        )
        if language is None and episode_title and (code := _language_word(episode_title)):
            language, episode_title = code, None  # "Show.S01E01.THAI.1080p"
    return Guess(
        type=_str_or_none(result.get("type")),
        title=title,
        title_span=title_spans[0] if title_spans else None,
        years=_ints(result.get("year")),
        year_spans=_spans(text, matches, "year"),
        seasons=() if _season_is_year(text, matches) else _ints(result.get("season")),
        episodes=_ints(result.get("episode")),
        date=result.get("date") if isinstance(result.get("date"), datetime.date) else None,
        year_read_as_episode=_year_read_as_episode(text, matches),
        split_part=bool(matches.get("part") or matches.get("volume")),
        country_after_title=country_tag or _country_in_brackets(text, title_spans),
        language=_audio_language(text, language, title_spans),
        service=_str_or_none(result.get("streaming_service")),
        episode_title=episode_title,
        subtitle=_after_dash(text, title_spans, alternatives),
        alternative=next((s.raw.strip(" ._-") for s in alternatives), None),
        number_opens_title=_number_opens_title(text, matches),
        edition_after_title=_edition_after_title(text, matches, title_spans),
    )


def _spans(text: str, matches: Mapping[str, Sequence[Any]], name: str) -> tuple[_Span, ...]:
    """Where guessit found each ``name`` (a property: "title", "year"), as written."""
    found = []
    for match in matches.get(name) or ():
        start, end = int(match.start), int(match.end)
        found.append(_Span(start, end, text[start:end]))
    return tuple(found)


def _title(value: object) -> str | None:
    """The title guessit read (the first of several), if it has any letters."""
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, str) and value.strip() else None


def _country_tag(languages: Sequence[_Span], titles: Sequence[_Span]) -> str | None:
    """ "Shameless.UK.S04E07": guessit reads "UK" as Ukrainian; in capitals after the
    title it is the country tag."""
    return next(
        (
            s.raw
            for s in languages
            if s.raw in _COUNTRY_CODES and titles and s.start >= titles[0].end
        ),
        None,
    )


def _country_in_brackets(text: str, titles: Sequence[_Span]) -> str | None:
    """ "The Office (US)": the country tag in brackets right after the title."""
    return next(
        (
            found.group(1)
            for span in titles
            if (found := _COUNTRY_AFTER_TITLE.match(text, span.end)) is not None
        ),
        None,
    )


def _word_before_title(text: str, groups: Sequence[_Span], titles: Sequence[_Span]) -> _Span | None:
    """ "Spider-Man.No.Way.Home", "Vice-Versa.2.2024": guessit takes the capitalized
    word before the title's hyphen for a release group; it is the title's first word
    (a group in front is written "grp-" or "GROUP-")."""
    if not groups or not titles or groups[0].start != 0 or titles[0].start != groups[0].end + 1:
        return None
    word = groups[0]
    joined = text[word.end] == "-" and _CAPITALIZED.fullmatch(word.raw) is not None
    return word if joined and text[titles[0].start].isalpha() else None


_CAPITALIZED = re.compile(r"[A-Z][a-z]+")
# A tag that says the audio is a dub: "Hindi Dubbed", "Dublado", "PL.DUBBING", "Dublaj",
# "Lektor", Spanish dubs' "Latino" and "Castellano" (guessit reads Catalan). Its
# language is the dub's, not the original's.
_DUBBED = re.compile(
    r"(?i)(?<![a-z])(?:dubbed|dublado|dublaj|dubbing|dub|lektor|latino|castellano)(?![a-z])"
)


def _audio_language(text: str, language: str | None, titles: Sequence[_Span]) -> str | None:
    """The language tag as the original's language: none for a dub (words after the
    title only)."""
    after = text[titles[0].end :] if titles else text
    return None if _DUBBED.search(after) else language


def _after_dash(text: str, titles: Sequence[_Span], alternatives: Sequence[_Span]) -> str | None:
    """The alternative title right after the title and a spaced dash, as written."""
    if not titles or not alternatives:
        return None
    title, alternative = titles[0], alternatives[0]
    joined = re.fullmatch(r"(.*?\S)\s+-\s+(\S.*?)\s*", text[title.start : alternative.end])
    if joined and (joined.group(1), joined.group(2)) == (
        title.raw.strip(),
        alternative.raw.strip(),
    ):
        return joined.group(2)
    return None


# Language words guessit does not know as languages, and names babelfish does not.
_LANGUAGE_NAMES = {
    "mandarin": "zh", "cantonese": "zh", "filipino": "tl", "farsi": "fa", "greek": "el",
    "malay": "ms", "punjabi": "pa", "flemish": "nl",
}  # fmt: skip
# A scene's language tag: capitals, its "i" often lower-case ("TURKISH", "DANiSH").
_SCENE_WORD = re.compile(r"[A-Zi]*[A-Z][A-Zi]*[A-Z][A-Zi]*")


def _scene_language(
    title: str | None, titles: tuple[_Span, ...], alternatives: tuple[_Span, ...]
) -> tuple[str | None, str | None, tuple[_Span, ...], tuple[_Span, ...]]:
    """ "Film.2019.TURKISH.1080p", "Film.DANiSH.1080p": a language tag guessit does not
    know (it reads another title, or a word of the title). Only a word in capitals
    after a title that is not: "Zorba.the.Greek" keeps its Greek. Returns the language
    and the title and alternative titles without it."""
    if alternatives and (code := _language_word(alternatives[0].raw.strip(" ._-"))):
        return code, title, titles, alternatives[1:]
    if title is None or not titles or " " not in title.strip():
        return None, title, titles, alternatives
    rest, last = title.strip().rsplit(" ", 1)
    code = _language_word(last)
    if code is None or _SCENE_WORD.fullmatch(rest.replace(" ", "")):
        return None, title, titles, alternatives
    span = titles[0]
    cut = span.raw.rstrip(" ._-")
    cut = cut[: len(cut) - len(last)].rstrip(" ._-")
    return code, rest, (_Span(span.start, span.start + len(cut), cut), *titles[1:]), alternatives


def _language_word(word: str) -> str | None:
    """The ISO 639-1 code of a scene's language word ("TURKiSH": "tr"), not English."""
    if not _SCENE_WORD.fullmatch(word) or len(word) < 4:
        return None
    name = word.lower()
    code = _LANGUAGE_NAMES.get(name)
    if code is None:
        try:
            code = str(Language.fromname(name.capitalize()).alpha2)
        except (BabelfishError, ValueError):
            return None
    return code if code != "en" else None


def _language(value: object) -> str | None:
    """The one language a name is tagged with, but English and "MULTi" (they say
    nothing of where a title is from)."""
    found = set()
    for language in value if isinstance(value, list) else [value]:
        if not isinstance(language, Language):
            continue
        try:
            code = language.alpha2
        except LanguageConvertError:  # "mul", "und": no 639-1 code
            code = None
        if isinstance(code, str) and code != "en":
            found.add(code)
    return found.pop() if len(found) == 1 else None


def clear_cache() -> None:
    """Forget every cached guessit result (tests; a long-lived process never needs it)."""
    guess.cache_clear()
    _SIBLINGS.clear()


class _Siblings:
    """A season's files read from one of them: "Show.S01E02.1080p.mkv" differs from
    "Show.S01E01.1080p.mkv" only inside the numbers guessit read as its season and
    episode, and guessit reads it the same way but for them (measured: the same Guess
    on every renumbered name of the recognition sets and the public suites,
    tests/recognition/test_guess_siblings.py). A name is read from the last one with
    its shape (digits masked) and options when every character where they differ lies
    inside such a number (``_Read``). A season of 24 files then costs one guessit call
    instead of 24."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, tuple[MediaKind | None, bool]], _Read] = {}
        self._lock = threading.Lock()

    def read(self, text: str, key: tuple[MediaKind | None, bool]) -> Guess | None:
        with self._lock:
            last = self._last.get((_DIGIT.sub("#", text), key))
        return None if last is None else last.sibling(text)

    def remember(
        self,
        text: str,
        key: tuple[MediaKind | None, bool],
        found: Guess,
        matches: Mapping[str, Sequence[Any]],
    ) -> None:
        read = _Read.of(text, found, matches)
        if read is None:
            return
        with self._lock:
            if len(self._last) >= CACHE_SIZE:
                self._last.clear()
            self._last[(_DIGIT.sub("#", text), key)] = read

    def clear(self) -> None:
        with self._lock:
            self._last.clear()


_Spans = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class _Read:
    """A name guessit read, with where its season's and episode's numbers are written."""

    text: str
    guess: Guess
    seasons: _Spans
    episodes: _Spans
    renumberable: frozenset[int]  # where a sibling's digits may differ

    @classmethod
    def of(cls, text: str, found: Guess, matches: Mapping[str, Sequence[Any]]) -> "_Read | None":
        """The read, if its siblings can be read from it: one season and one episode at
        most (the season's number may be written twice, in a folder and a file), each
        number as written and alone (``_lone``), and no other bare number in the name
        but one guessit read as something else than words ("Tokyo 3" of an episode's
        title is episode 3 to guessit beside episode 2, not beside 6; "Bleach_264" is no
        episode, "Bleach_250" is). Digits may differ in those numbers and in a part's
        or a disc's ("Part.2", "CD2")."""
        if found.year_read_as_episode or found.number_opens_title:
            return None
        episodes = _numbers(text, matches, "episode")
        seasons = _numbers(text, matches, "season") if found.seasons else ()  # not a year's
        if seasons is None or episodes is None:
            return None
        counters = [
            *(_numbers(text, matches, "part") or ()),
            *(_numbers(text, matches, "cd") or ()),
        ]
        numbers = sorted({*seasons, *episodes, *counters})
        if any(end >= start for (_, end), (start, _) in pairwise(numbers)):
            return None  # "2049" read as S20E49, "101" as S01E01
        if not all(_lone(text, start, end) for start, end in numbers):
            return None
        if (_value(text, seasons), _value(text, episodes)) != (found.seasons, found.episodes):
            return None  # "E01-E03" is 1, 2 and 3
        others = _read_as(matches, lambda name: name not in _NUMBERED)
        technical = _read_as(matches, lambda name: name not in _NUMBERED | _WORDS)
        for bare in _DIGITS.finditer(text):
            start, end = bare.span()
            if (start, end) in numbers or _joined(text, start, end):
                continue
            if not technical.issuperset(range(start, end)):
                return None
        digits = {i for start, end in numbers for i in range(start, end)}
        return cls(text, found, seasons, episodes, frozenset(digits - others))

    def sibling(self, text: str) -> Guess | None:
        """What guessit reads in ``text``, a name of the same shape, if it is a sibling."""
        if text == self.text:
            return None
        changed = {i for i, (a, b) in enumerate(zip(self.text, text, strict=True)) if a != b}
        seasons, episodes = _value(text, self.seasons), _value(text, self.episodes)
        if not changed <= self.renumberable or seasons is None or episodes is None:
            return None
        if any(
            int(text[start:end]) == 0 or int(self.text[start:end]) == 0
            for start, end in (m.span() for m in _DIGITS.finditer(text))
            if not changed.isdisjoint(range(start, end))
        ):
            return None  # "Part 0" may be read as an episode, "Part 1" is not
        if _opening_number(text) != _opening_number(self.text):
            return None  # "01.avi" opens with no title's number, "12.avi" may
        return replace(self.guess, seasons=seasons, episodes=episodes)


def _numbers(text: str, matches: Mapping[str, Sequence[Any]], name: str) -> _Spans | None:
    """Where the digits are of each ``name`` guessit read ("01" of "[01]"), a match
    inside another left out ("01" holds "1"); None if a match holds other than one
    number."""
    spans = {(int(m.start), int(m.end)) for m in matches.get(name) or ()}
    found = []
    for start, end in sorted(spans):
        if any(o != (start, end) and o[0] <= start and end <= o[1] for o in spans):
            continue
        digits = [m.span() for m in _DIGITS.finditer(text, start, end)]
        if len(digits) != 1:
            return None
        found.append(digits[0])
    return tuple(found)


def _value(text: str, spans: _Spans) -> tuple[int, ...] | None:
    """The one number written at every span (none, or None if they differ)."""
    values = {int(text[start:end]) for start, end in spans}
    return tuple(values) if len(values) <= 1 else None


def _read_as(matches: Mapping[str, Sequence[Any]], named: Callable[[str], bool]) -> set[int]:
    """Where guessit read a property ``named`` accepts."""
    return {
        i
        for name, found in matches.items()
        if named(name)
        for m in found
        for i in range(int(m.start), int(m.end))
    }


def _joined(text: str, start: int, end: int) -> bool:
    """Digits joined to a letter: a word of their own ("x264", "1080p", "DD5"), not a
    number with its version ("03v2")."""
    return (start > 0 and _LETTER.match(text, start - 1) is not None) or (
        _LETTER_AFTER.match(text, end) is not None
    )


def _lone(text: str, start: int, end: int) -> bool:
    """1 to 3 digits with no other number beside them but for separators: guessit reads
    the two together by their values ("E10.11" is episodes 10 and 11, "E01.11" episode
    1). A number joined to letters is a word of its own ("E01.1080p")."""
    return (
        _WRITTEN_NUMBER.fullmatch(text, start, end) is not None
        and _NUMBER_AFTER.match(text, end) is None
        and _NUMBER_BEFORE.search(text, 0, start) is None
    )


_DIGIT = re.compile(r"[0-9]")
_WRITTEN_NUMBER = re.compile(r"[0-9]{1,3}")
_DIGITS = re.compile(r"[0-9]+")
_LETTER = re.compile(r"[^\W\d_]")
_LETTER_AFTER = re.compile(r"(?![vV][0-9])[^\W\d_]")  # a version ("03v2") joins nothing
# What guessit reads with a number whose value a Guess holds, or holds nothing of.
_NUMBERED = frozenset({"season", "episode", "part", "cd"})
# What guessit reads as words, where a number may be an episode's to it by its value.
_WORDS = frozenset({"title", "episode_title", "alternative_title", "film_title", "release_group"})
_NUMBER_AFTER = re.compile(
    r"(?:v[0-9]+)?(?:[\W_]|to|and)*[0-9]+(?:v[0-9]+)?(?![^\W_])", re.IGNORECASE
)
_NUMBER_BEFORE = re.compile(r"(?<![^\W_])[0-9]+(?:v[0-9]+)?(?:[\W_]|to|and)*\Z", re.IGNORECASE)
_SIBLINGS = _Siblings()


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


def _season_is_year(text: str, matches: Mapping[str, Sequence[Any]]) -> bool:
    """guessit may read a year as both year and season: with no episode beside it, it
    is a year ("[2013, BDRip]"); with one, it is a season named by its year
    ("Pawn.Stars.S2014E18", "Looney Tunes 1940x01")."""
    years = {(int(m.start), int(m.end)) for m in matches.get("year") or ()}
    seasons = matches.get("season") or ()
    if any(_written_as_season(text, m, matches.get("episode") or ()) for m in seasons):
        return False
    return bool(seasons) and all((int(m.start), int(m.end)) in years for m in seasons)


def _written_as_season(text: str, season: Any, episodes: Sequence[Any]) -> bool:
    """ "S2014" or "1940x01": a number that a season marker makes a season."""
    start, end = int(season.start), int(season.end)
    if start and text[start - 1] in "Ss":
        return True
    return any(int(e.start) == end + 1 and text[end] in "xX" for e in episodes)


# A number (no leading zero) opening a name, a word of letters after it.
_OPENING_NUMBER = re.compile(r"[1-9]\d{0,2}(?=[ ._][^\W\d_])")


def _opening_number(text: str) -> tuple[int, int] | None:
    """Where the number ``_number_opens_title`` looks for is, in a file's name."""
    found = _OPENING_NUMBER.match(text, text.rfind("/") + 1)
    return found.span() if found else None


def _number_opens_title(text: str, matches: Mapping[str, Sequence[Any]]) -> bool:
    """ "12.Monkeys.1080p", "21.Jump.Street", "13.Going.on.30": every season and episode
    guessit found is a bare number (no "S01E05", "1x05", episode word), one of them the
    number the name opens with, and the name is a release's, its format named. No release
    names an episode that way: the number is the title's first word (a pack's "12 The
    Gift.avi" names no format: its number stays the episode's)."""
    found = [*(matches.get("season") or ()), *(matches.get("episode") or ())]
    if not found or any("weak-episode" not in (m.tags or ()) for m in found):
        return False
    if not any(matches.get(tag) for tag in ("screen_size", "source", "video_codec")):
        return False
    opening = _opening_number(text)
    return opening is not None and any(
        int(m.start) == opening[0] and int(m.end) <= opening[1] for m in found
    )


def _edition_after_title(
    text: str, matches: Mapping[str, Sequence[Any]], title_spans: Sequence[_Span]
) -> str | None:
    """The words of an edition guessit read right after the title ("Extended Version"
    of "The.Hateful.Eight.Extended.Version.S01"), as written."""
    if not title_spans:
        return None
    end = title_spans[0].end
    for match in matches.get("edition") or ():
        between = text[end : int(match.start)]
        if between.strip(" ._-") == "" and (words := text[int(match.start) : int(match.end)]):
            return re.sub(r"[._]+", " ", words).strip(" -")
    return None


def _year_read_as_episode(text: str, matches: Mapping[str, Sequence[Any]]) -> bool:
    """guessit reads a bare 4-digit number after a title as season+episode
    ("Blade Runner 2049" → S20E49); a year-like one is a title's number instead. A file's
    path reads it in the folder and the file alike: one such number each."""
    seasons, episodes = matches.get("season") or (), matches.get("episode") or ()
    if not seasons or len(seasons) != len(episodes):
        return False
    for season, episode in zip(seasons, episodes, strict=True):
        if "weak-episode" not in (season.tags or ()) or season.end != episode.start:
            return False
        if re.fullmatch(r"(?:19|20)\d\d", text[int(season.start) : int(episode.end)]) is None:
            return False
    return True
