"""What a person wrote about a download: ``это Дюна 2021``, ``Dark S02E05``, ``фильм``."""

import re
import unicodedata
from dataclasses import dataclass

from recognition.parsing.guess import MediaKind
from recognition.parsing.identifiers import find_identifiers, without_identifiers


@dataclass(frozen=True)
class Hint:
    kind: MediaKind | None
    title: str | None
    year: int | None
    season: int | None = None
    episode: int | None = None
    title_with_year: str | None = None  # "Wonder Woman 1984": the number kept in the title
    identifiers: tuple[str, ...] = ()  # "imdb:tt…", "tmdb:movie/…"
    # A description rather than a name ("мультик, а не старый фильм"): the person is
    # asked to pick, for jellybit cannot read which title it says.
    unread: str | None = None
    country: str | None = None  # "британские Призраки", "the American one": ISO 3166


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
# "британские Призраки", "the American one": a country said as an adjective (the
# stem of a Russian one, the English word).
_COUNTRY_STEMS = {
    "британск": "GB",
    "английск": "GB",
    "british": "GB",
    "english": "GB",
    "американск": "US",
    "american": "US",
    "корейск": "KR",
    "korean": "KR",
    "японск": "JP",
    "japanese": "JP",
    "испанск": "ES",
    "spanish": "ES",
    "французск": "FR",
    "french": "FR",
    "немецк": "DE",
    "german": "DE",
    "итальянск": "IT",
    "italian": "IT",
    "австралийск": "AU",
    "australian": "AU",
    "канадск": "CA",
    "canadian": "CA",
    "российск": "RU",
    "русск": "RU",
    "russian": "RU",
}
# What is left of "the 2024 one", "the new version": no title at all.
_DESCRIBING = frozenset(
    {"the", "one", "a", "an", "version", "new", "old", "original", "remake", "newer", "older"}
    | {"latest", "that", "этот", "тот", "новый", "новая", "старый", "старая", "версия"}
    | {"ремейк", "оригинал", "который", "которая"}
)
_SAYING = _DESCRIBING - {"the", "one", "a", "an", "that", "этот", "тот"}
# Words that make a hint a description of what the title is not.
_NEGATIONS = frozenset({"не", "нет", "ни", "not", "no", "isn't", "isnt", "nicht", "pas"})
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
_YEAR_INSIDE = re.compile(r"(?i)(?<!\d)((?:18|19|20)\d\d)\s*(?:года|год|г\.)(?!\w)")


def parse_hint(text: str) -> Hint:
    """What a person's free text says: ``это Дюна 2021``, ``Dune 2021``,
    ``сериал Тьма 2 сезон``, ``фильм``, ``show``.

    Season and episode phrases are read and removed; filler and kind words are
    dropped at the start and the end of the text (and the kind kept), never
    inside it; English kind words at the end only after a separator, a year or in
    brackets, so "The Truman Show" and "Scary Movie" keep theirs. A trailing
    year-like number is the year, and the title with it is another reading of the
    title ("Wonder Woman 1984"); alone ("2021") it is a year: a person correcting a
    download says the year, the title is in the torrent's name. Links and ids
    (IMDb, TMDB) are taken out first.
    """
    text = unicodedata.normalize("NFC", text)
    identifiers = find_identifiers(text)
    season, episode, rest = _season_and_episode(without_identifiers(text))
    kind, words = _strip_leading(rest.split())
    trailing_kind, words = _strip_trailing(words)
    year, title_with_year, more_kind, words = _trailing_year(words)
    if year is None:
        year, words = _year_inside(words)
    kind = trailing_kind or more_kind or kind
    if kind is None and (season is not None or episode is not None):
        kind = "series"
    country, words = _country_said(words)
    year, words = _only_describing(words, year, country)
    unread = text.strip() if any(_word(w) in _NEGATIONS for w in words) else None
    return Hint(
        kind=kind,
        title=None if unread else _title(" ".join(words)) or None,
        unread=unread,
        country=country,
        year=year,
        season=season,
        episode=episode,
        title_with_year=title_with_year,
        identifiers=identifiers,
    )


def _season_and_episode(text: str) -> tuple[int | None, int | None, str]:
    """(season, episode, the text without them): "S02E05", "2 сезон", "серия 5"."""
    season: int | None = None
    episode: int | None = None
    both = _HINT_SEASON_EPISODE.search(text)
    if both is not None:
        season, episode = int(both.group(1)), int(both.group(2))
        text = _HINT_SEASON_EPISODE.sub(" ", text, count=1)
    if season is None and (found := _number_of(_HINT_SEASON, text)) is not None:
        season = found
        text = _HINT_SEASON.sub(" ", text, count=1)
    if episode is None and (found := _number_of(_HINT_EPISODE, text)) is not None:
        episode = found
        text = _HINT_EPISODE.sub(" ", text, count=1)
    return season, episode, text


def _trailing_year(
    words: list[str],
) -> tuple[int | None, str | None, MediaKind | None, list[str]]:
    """(year, title_with_year, kind, the words before them) of a hint that ends in a
    year: "Дюна 2021", "Дюна 2021 года", "фильм Дюна 2021". A bare number may be the
    title's own ("Wonder Woman 1984"); a kind word before the year is stripped."""
    if (
        len(words) > 1
        and _word(words[-1]) in _YEAR_WORDS
        and _HINT_YEAR.fullmatch(_word(words[-2]))
    ):
        words = words[:-1]  # "2021 года"
    if not words or not _HINT_YEAR.fullmatch(_word(words[-1])):
        return None, None, None, words
    bare = words[-1].isdigit()
    year = int(_word(words[-1]))
    words = words[:-1]
    kind, before = _strip_trailing(words)
    title_with_year = None
    if bare and before == words and words:
        title_with_year = f"{_title(' '.join(words))} {year}"  # "Wonder Woman 1984"
    return year, title_with_year, kind, before


def _year_inside(words: list[str]) -> tuple[int | None, list[str]]:
    """A year said with "года" inside the hint: "сериал Моффата 2020 года, BBC"."""
    inside = _YEAR_INSIDE.search(" ".join(words))
    if inside is None:
        return None, words
    return int(inside.group(1)), _YEAR_INSIDE.sub(" ", " ".join(words), count=1).split()


def _country_said(words: list[str]) -> tuple[str | None, list[str]]:
    """ "the British one", "американский ремейк": a country said only as an adjective
    among describing words ("American Psycho" keeps its "American"), and the words
    without it."""
    country = next((c for w in words if (c := _country_of(_word(w))) is not None), None)
    others = [w for w in words if _country_of(_word(w)) is None]
    if country is not None and all(_word(w) in _DESCRIBING for w in others):
        return country, others
    return None, words


def _only_describing(
    words: list[str], year: int | None, country: str | None
) -> tuple[int | None, list[str]]:
    """ "the 2024 one", "the new version": words that describe a version and name no
    title; the year (or the country) is all they say, and no title is left."""
    years = [int(_word(w)) for w in words if _HINT_YEAR.fullmatch(_word(w))]
    describing = all(_word(w) in _DESCRIBING or _HINT_YEAR.fullmatch(_word(w)) for w in words)
    says = country is not None or len(years) == 1 or any(_word(w) in _SAYING for w in words)
    if not (words and describing and says):
        return year, words
    return (year if year is not None else (years[0] if len(years) == 1 else None)), []


def _country_of(word: str) -> str | None:
    return next((code for stem, code in _COUNTRY_STEMS.items() if word.startswith(stem)), None)


def _title(words: str) -> str:
    title = words.strip(" \"'«»“”„.,:;!?-–—|")
    return re.sub(r"\s*(?:\(\s*\)|\[\s*\])", "", title).strip()


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
