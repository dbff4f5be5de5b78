"""A torrent name or a file path: kind, title, year, season and episodes.

guessit reads scene names, with fixes for where it reads them wrongly; anitopy reads
fansub names (``recognition.parsing.anime``); Russian tracker names (``Дюна / Dune (…)
[2021, …]``) are split on their `` / `` first. See docs/recognition.md for each trap.
"""

import datetime
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from babel import Locale

from recognition.folding import fold
from recognition.parsing.anime import found_numbers, parse_anime
from recognition.parsing.dates import DATED, read_dates
from recognition.parsing.episodes import SEASON_WORD
from recognition.parsing.files import VIDEO_EXTENSIONS
from recognition.parsing.guess import Guess, MediaKind
from recognition.parsing.guess import guess as guess_name

Kind = Literal["movie", "series", "unknown"]

# Country tags that tell same-name shows apart ("The.Office.US", "Shameless (UK)").
COUNTRY_TAGS = frozenset({"US", "UK", "GB", "AU", "CA", "NZ", "IE"})


@dataclass(frozen=True)
class Parsed:
    kind: Kind
    title: str | None
    year: int | None
    season: int | None  # None for a movie, absolute numbering and multi-season packs
    episodes: tuple[int, ...]  # what the name says it holds; () for a whole season
    alt_title: str | None = None  # the other-script title of "Дюна / Dune (2021)"
    date: datetime.date | None = None  # air date of a daily show's episode
    country: str | None = None  # "US" of "The.Office.US"
    # The title with the number read as the year kept: "Wonder Woman 1984" of
    # "Wonder.Woman.1984.1080p". Which reading is right is for the metadata to say.
    title_with_year: str | None = None
    special: bool = False  # an OVA/SP of an anime: its number is not an episode
    # "Title S3 - 59": the number counts on from the first season (fansubs do this);
    # ``SxxEyy`` never does.
    absolute: bool = False
    seasons: tuple[int, ...] = ()  # every season the name names ("S01-S03": 1, 2, 3)
    # "Show - Subtitle - 01": what follows the title's dash. The title is the whole;
    # the part before the dash is another reading, under which the subtitle must be
    # explained by the candidate (a season's name, an alternative title).
    subtitle: str | None = None
    # "S01E05 The Gift": an episode's name; words after a title and year with no
    # episode ("Doctor.Who.2005.The.Christmas.Invasion"): maybe a special's name.
    episode_title: str | None = None
    language: str | None = None  # the language tag ("KOREAN": "ko"), ISO 639-1
    service: str | None = None  # the streaming service tag ("NF": "Netflix")
    # The countries a Russian tracker lists ("[2019, США, Великобритания, драма]"):
    # production countries, weaker than a scene's "US"/"UK" tag (``country``).
    countries: tuple[str, ...] = ()
    # "The Final Season Part 2 - 01": a fansub's part (cour) of a season, whose numbers
    # may be the part's own: TMDB counts a season's parts together.
    part: int | None = None
    # "Open.Season.2006", "Open.Season.2.2008": a season read from "Season N" right after
    # the title, which may as well be a word of a film's title ("Open Season", "Open
    # Season 2"); None when the season is marked otherwise.
    season_title: str | None = None
    # "Jeopardy.05.06.2024": the date could be read two ways and the name's country does
    # not say which (``recognition.parsing.dates``): ``date`` is one of them, asked.
    date_doubt: bool = False


_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# Country names as Russian trackers write them: Babel's, and the short forms they use.
_RU_COUNTRIES = {
    **{name.lower(): code for code, name in Locale("ru").territories.items() if len(code) == 2},
    "сша": "US",
    "англия": "GB",
    "корея": "KR",
    "южная корея": "KR",
    "корея южная": "KR",
    "ссср": "SU",
}
_COUNTRY_WORD = re.compile(
    r"(?<!\w)(?:"
    + "|".join(re.escape(n) for n in sorted(_RU_COUNTRIES, key=len, reverse=True))
    + r")(?!\w)",
    re.IGNORECASE,
)
# Trackers that write a name in two scripts ("Дюна / Dune", "间谍过家家 / SPY×FAMILY").
_OTHER_SCRIPT = re.compile(r"[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
# "37 [Ruberia]_Death_Note", "EvoBot.[Watakushi]_Akuma": something before the group.
_BEFORE_GROUP = re.compile(r"^[^\[\s]{1,10}[ .]?(?=\[[^\]]+\][\s_]*[^\W\d])")
_LATIN = re.compile(r"[A-Za-z]")
_TILDE_RANGE = re.compile(r"(?<=\d)\s*~\s*(?=\d)")
_YEAR_RANGE = re.compile(r"(?<!\d)((?:19|20)\d\d)\s*[-–]\s*(?:19|20)\d\d(?!\d)")
_FIRST_YEAR = re.compile(r"(?<![\w.])(?:19|20)\d\d(?![\w.])")
_LEADING_GROUPS = re.compile(r"^(?:\s*\[[^\]]*\])+\s*")
# What a name may start with that is not its title: "[rutracker.org]", "[GROUP]",
# "【高清影视之家 www.x.com】", "[h265 - HEVC]", "www.site.tld - ".
_TLD = r"(?:com|org|net|ru|info|tv|me|io|cc|to|in|co|xyz|club|site|pics|world|party|vip|cam|show)"
_LEADING_TAG = re.compile(r"^\s*(?:\[[^\]]*\]|【[^】]*】)[\s._-]*")
_IN_TAG_SITE = re.compile(rf"(?i)[\w-]+\.{_TLD}\b")
_SITE = re.compile(
    r"(?i)^\s*(?:www\.[\w-]+(?:\.[\w-]+)+[\s._]*[-–_][\s._-]*"
    rf"|[\w-]+\.{_TLD}\s+[-–]\s+)(?=\S)"
)
# A name that says nothing of the title: a tracker's topic id ("5493016", "t4353426"),
# an info hash (hex or base32), a site's name ("NNM-Club.me", "www.site.org").
_NO_IDENTITY = re.compile(
    rf"(?i)^(?:\d{{5,}}|t\d{{5,}}|[0-9a-f]{{32}}|[0-9a-f]{{40}}|[a-z2-7]{{32}}|(?:www\.)?[\w-]+\.{_TLD})$"
)
_GENERIC_FOLDERS = frozenset(
    {
        "new folder",
        "новая папка",
        "nouveau dossier",
        "neuer ordner",
        "nueva carpeta",
        "movies",
        "movie",
        "films",
        "film",
        "фильмы",
        "фильм",
        "кино",
        "video",
        "videos",
        "видео",
        "series",
        "сериалы",
        "downloads",
        "download",
        "загрузки",
        "torrents",
        "торренты",
        "complete",
        "incoming",
    }
)
_CRC = re.compile(r"[\[(][0-9A-Fa-f]{8}[\])]")
_DASH_NUMBER = re.compile(
    r"\s-\s(?:(?:Episode|Ep\.?)\s*)?\d{1,4}(?:\.5)?(?:v\d)?(?=[\s\[(.]|$)"
    r"|(?i:\d(?:st|nd|rd|th)\s+Season|[\s_-]ep\.?\s*\d)"
)

# What scene names carry and fansub names do not: words joined by dots
# ("Le.Prestige.DVDRip"), a language word ("Fight Club French 1080p").
_SCENE = re.compile(
    r"(?i)(?<![a-z0-9])(?:FRENCH|TRUEFRENCH|GERMAN|ITALIAN|SPANISH|RUSSIAN|KOREAN|VOSTFR)"
    r"(?![a-z0-9])"
)
_DOT_JOIN = re.compile(r"[^\W_]\.[^\W_]")
_PREFIX_NOISE = re.compile(r"[\s._\-]*(?:\[[^\]]*\][\s._\-]*)*")
_ONE_WORD = re.compile(r"[^\W\d_][\w'’]*")
_SEPARATORS_ONLY = re.compile(r"[\s._\-]*")
_ENDS_IN_NUMBER = re.compile(r"\d$")
_PART_RANGE = re.compile(
    r"(?i)\s+(?:parts?|pt|chapters?|episodes?|eps?|серии|части)\s*\d{1,3}\s*[-–~]\s*\d{1,3}$"
)
# "La Casa de Papel - Parte 3", "Lupin.Partie.2": a part of a show (Netflix's parts, which
# TMDB may list as seasons named "Part N"), or of a film ("Dune Part Two").
_PART_AT_END = re.compile(
    r"(?i)[\s._:,-]+(?:part|parte|partie|teil|część|czesc)[\s._]*"
    r"(\d{1,2}|[IVX]{1,4}|one|two|three|four|five|six|seven|eight|nine|ten)$"
)
_ONLY_YEARS = re.compile(r"\(?\s*(?:19|20)\d\d(?:\s*[-–]\s*(?:19|20)\d\d)?\s*\)?")
# Russian season and episode words: "Сезон: 1-3", "2 сезон", "1-3 сезоны", "2-й сезон",
# "Серии: 1-26 из 26", "1-9 серии из 9", "Серия 3".
_RANGE = r"(\d{1,4})(?:\s*[-–]\s*(\d{1,4}))?"
# A number before "сезон" is not a year ("Cosmos 2019 Сезон 1"); one after it that is
# followed by "серия" is the episode ("5-го сезон 9 серия").
_RU_SEASON_BEFORE = re.compile(
    r"(?<!\d)(?!(?:19|20)\d\d\s*сезон)" + _RANGE + r"\s*(?:-?(?:й|ый|ой|го)\s*)?сезон",
    re.IGNORECASE,
)
_RU_SEASON_AFTER = re.compile(
    r"сезон[ыа]?\s*[:№]?\s*" + _RANGE + r"(?!\d|\s*-?(?:я\s*)?(?:сери|эпизод))", re.IGNORECASE
)
_RU_ANIME_SEASON = re.compile(r"\[(?:TV|ТВ)-?(\d{1,2})\]", re.IGNORECASE)  # "[TV-1]", "[ТВ-2]"
_RU_ALL_EPISODES = re.compile(r"(?<![\d-])(\d{1,4})\s+из\s+(\d{1,4})", re.IGNORECASE)
# "серія"/"серії": the Ukrainian words.
_RU_EPISODE_AFTER = re.compile(r"(?:сер[иі][яиї]|эпизод[ыа]?)\s*[:№]?\s*" + _RANGE, re.IGNORECASE)
_RU_EPISODE_BEFORE = re.compile(_RANGE + r"\s*(?:-?я\s*)?(?:сер[иі][яийеї]|эпизод)", re.IGNORECASE)


def parse_release(name: str, *, kind: MediaKind | None = None) -> Parsed:
    """Kind, title, year, season and episodes of a torrent name or a file path.

    ``kind`` is what is already known (the torrent is a series, so its files are
    episodes); the result then has that kind.
    """
    parsed = _parse_release(name, kind)
    if parsed.date is not None and read_dates(name)[1]:
        return replace(parsed, date_doubt=True)
    return parsed


def _parse_release(name: str, kind: MediaKind | None) -> Parsed:
    text = _TILDE_RANGE.sub("-", unicodedata.normalize("NFC", name).strip())
    text = local_numbers(_BRITISH_SERIES.sub(_as_season, text))
    text = read_dates(text)[0]
    text = _year_seasons(text)
    if not text:
        return Parsed("unknown", None, None, None, ())
    if (marked := _tv_season_marked(text, kind)) is not None:
        return marked
    if " / " in text and _OTHER_SCRIPT.search(text):
        return _parse_titled(text, kind)
    folder, _, basename = text.replace("\\", "/").rpartition("/")
    rest = strip_tags(basename)
    ru = _russian_numbers(basename) if _CYRILLIC.search(basename) else None
    if (
        not (ru and any(ru))  # "Одни из нас - 2 сезон, 01 серия": the words say it, not " - 2"
        and _anime_shaped(basename, rest)
        and (anime := _parse_anime(_BEFORE_GROUP.sub("", basename), kind)) is not None
    ):
        return _in_folder(anime, folder)
    if rest != basename or folder:  # the tags say nothing of the title
        bare = "/".join(strip_tags(part) for part in folder.split("/")) if folder else ""
        text = f"{bare}/{rest}" if folder else rest
    parsed = _in_folder(_parse_scene(text, kind, ru), folder)
    # the name as written: "Season 2006" was made "S2006" above
    written = unicodedata.normalize("NFC", name).replace("\\", "/").rpartition("/")[2]
    return replace(parsed, season_title=_season_title(parsed, written))


# "Title.Season.N" with nothing numbering an episode after it.
_SEASON_WORD_AFTER = re.compile(r"(?i)[ ._-]+season[ ._-]+(\d{1,4})(?![\d\w])")


def _season_title(parsed: Parsed, basename: str) -> str | None:
    """ "Open Season" of "Open.Season.2006", "Open Season 2" of "Open.Season.2.2008": the
    title with the season word (and a number that is no year) when guessit took the
    word for a season right after the title."""
    if parsed.kind != "series" or parsed.episodes or parsed.date or parsed.special:
        return None
    if parsed.title is None or parsed.season is None:
        return None
    found = _SEASON_WORD_AFTER.search(basename)
    if found is None or int(found.group(1)) != parsed.season:
        return None
    if fold(basename[: found.start()].replace(".", " ").replace("_", " ")) != fold(parsed.title):
        return None
    number = found.group(1)
    return f"{parsed.title} Season" + ("" if _PREFIX_YEAR.fullmatch(number) else f" {number}")


def _tv_season_marked(text: str, kind: MediaKind | None) -> Parsed | None:
    """ "Title [TV-2]", "Title_TV-2_[01]": Russian trackers' and fansubs' season mark,
    read as that season of the name without it (unless the rest says otherwise)."""
    marker = _TV_SEASON.search(text)
    if marker is None or kind == "movie":
        return None
    number = int(marker.group(1) or marker.group(2))
    found = parse_release(text[: marker.start()] + " " + text[marker.end() :], kind=kind)
    if found.kind != "movie" and found.season in (None, number) and not found.seasons[1:]:
        return replace(found, kind="series", season=number, seasons=(number,))
    return None


def _parse_scene(
    text: str, kind: MediaKind | None, ru: tuple[tuple[int, ...], tuple[int, ...]] | None
) -> Parsed:
    """A scene name (its tags taken off), read by guessit with jellybit's fixes: the
    title and year, a named special ("Extras.Christmas.Special.2007"), a country tag,
    a subtitle after the title's dash; ``ru``: the Russian words' season and episodes."""
    guess = _guessed(text, kind)
    title, year, title_with_year = _fix_title_and_year(text, guess)
    if title_with_year is None and kind != "series":
        title_with_year = _number_titled(text, guess, title)
    if title_with_year is None and title and guess.edition_after_title and guess.type == "episode":
        # "The.Hateful.Eight.Extended.Version.S01": a film's cut that is a series of its own
        title_with_year = f"{title} {guess.edition_after_title}"
    if title is not None and (complete := _COMPLETE_AT_END.search(title)) is not None:
        title = title[: complete.start()]  # "Show Complete + Film": guessit's tag, kept
    named_special = _NAMED_SPECIAL.search(title or "") if kind != "movie" else None
    if title is not None and named_special is not None and named_special.start() > 0:
        # "Extras.Christmas.Special.2007": a special of the show "Extras".
        title, title_with_year = title[: named_special.start()].strip(), None
    title, country = _country(text, title, guess.country_after_title)
    title = _without_part_range(title)
    if title is not None and guess.subtitle and country is None:
        title = f"{title} - {guess.subtitle}"  # explained by the candidate, or partial
    if ru is not None:
        title = _before_russian_numbers(title, text)
    also = _also_known_as(title)[1]  # the title stays whole, as guessit reads it
    if also is not None:
        title_with_year = None  # the year follows the other name
    parsed = _assemble(guess, kind, title, year, _bracketed_title(text, guess) or also, ru)
    if (
        parsed.episode_title
        and title
        and _IS_VERSION.search(title)
        and fold(parsed.episode_title) in fold(title)
    ):
        parsed = replace(parsed, episode_title=None)  # guessit's rest of a versioned title
    if named_special is not None and named_special.start() > 0:
        episode_title = named_special.group(1)
        if title and year and (shows := _SHOW_YEAR.search(title)) and int(shows[1]) != year:
            # "Doctor.Who.2005.Christmas.Special.2010": the show's year, then the special's
            title, episode_title = title[: shows.start()], f"{episode_title} {year}"
            parsed = replace(parsed, title=title, year=int(shows[1]))
        parsed = replace(
            parsed,
            kind="series",
            special=True,
            season=None,
            episodes=(),
            episode_title=episode_title,
        )
    return replace(parsed, country=country, title_with_year=title_with_year)


def _bracketed_title(text: str, guess: Guess) -> str | None:
    """ "Del revés 2 (Inside Out 2) (2024)": a dub named by its local title, with the
    original in brackets right after it. The bracket is a title when guessit reads
    nothing else in it (not a year, tag, edition or country)."""
    if guess.title_span is None:
        return None
    found = _BRACKET_AFTER.match(text, guess.title_span.end)
    if found is None:
        return None
    inner = _clean(re.sub(r"[._]", " ", found.group(1)))
    if inner is None or inner.upper() in COUNTRY_TAGS or fold(inner) in _NOT_TITLES:
        return None
    alone = guess_name(inner, "movie", keep_parts=True)  # "(Dune Part Two)"
    if alone.title != inner or alone.years or alone.language or alone.service:
        return None
    return inner


_BRACKET_AFTER = re.compile(r"[\s._]*[(\[]([^()\[\]]*[^\W\d_][^()\[\]]*)[)\]]")
_NOT_TITLES = frozenset(
    {"movie", "the movie", "film", "tv", "series", "tv series", "miniseries", "mini series"}
    | {"complete", "ova", "anime", "extended", "unrated", "uncut", "remastered", "theatrical"}
)


# "Der Untergang aka Downfall", "Hagane no Renkinjutsushi Brotherhood | Fullmetal Alchemist
# Brotherhood": two names of one title ("Aka" capitalized may be a word of one: not read).
_AKA = re.compile(r"\s+(?:aka|AKA|a\.k\.a\.?|A\.K\.A\.?|\|)\s+")


def _also_known_as(title: str | None) -> tuple[str | None, str | None]:
    """(title, alt_title): a title written with the other name it is also known as."""
    first, *other = _AKA.split(title or "", maxsplit=1)
    if other and _clean(first) and _clean(other[0]):
        return _clean(first), _clean(other[0])
    return title, None


def _guessed(text: str, kind: MediaKind | None) -> Guess:
    """guessit's reading, read again as a movie when it took a year for an episode
    ("Blade Runner 2049") or a number that opens the name for one ("12 Monkeys"), and with
    a movie's "Part Two" kept in its title."""
    guessed_as = kind
    guess = guess_name(text, kind)
    if (guess.year_read_as_episode or guess.number_opens_title) and kind != "series":
        guessed_as = "movie"
        guess = guess_name(text, guessed_as)
    if guess.split_part and guess.type == "movie":
        guess = guess_name(text, guessed_as, keep_parts=True)
    return guess


def local_numbers(text: str) -> str:
    """Season and episode words guessit does not know, as "Season N" / "Episode N"
    ("Karppi.Kausi.2", "Σασμός Σεζόν 2", "פאודה עונה 4", "스위트홈 시즌2 1화",
    "進撃の巨人 第2期 第01話", "その着せ替え人形は恋をする 2期",
    "مسلسل الهيبة الجزء الثاني الحلقة 5"); a season word and its number in Arabic
    ("الجزء" only beside an episode or "مسلسل": else a film's part)."""
    if _ARABIC_SERIES.search(text) or _ARABIC_EPISODE.search(text):
        text = _ARABIC_PART.sub(lambda m: f" Season {_local_number(m.group(1))} ", text)
    text = _ARABIC_KIND.sub("", text)
    text = _SEASON_SPAN_AFTER.sub(_as_span, _SEASON_SPAN_BEFORE.sub(_as_span, text))
    for pattern, word in _LOCAL_NUMBERS:
        text = pattern.sub(_written_as(word), text)
    return _ALL_EPISODES.sub(" ", text)


def _as_span(found: re.Match[str]) -> str:
    """ "1ª a 5ª Temporada", "Staffel 1 bis 3" as "Season 1-5", "Season 1-3"; a list or
    a number that does not count on is left as it is."""
    first, last = int(found.group(1)), int(found.group(2))
    return f" Season {first}-{last} " if first < last <= 50 else found.group(0)


def _written_as(word: str) -> Callable[[re.Match[str]], str]:
    """A replacement: the number of the match after ``word`` ("Season 2")."""
    return lambda found: f" {word} {_local_number(found.group(1))} "


def _local_number(written: str) -> str:
    """ "2", "1-5", "二", "الثاني", "دوم", "۵" as digits."""
    written = re.sub(r"\d", lambda digit: str(int(digit.group())), written.strip())
    if written in _ARABIC_ORDINALS:
        return str(_ARABIC_ORDINALS[written])
    if all(ch in _HAN_DIGITS for ch in written):
        tens, _, ones = written.rpartition("十")
        if "十" not in written:
            return str(_HAN_DIGITS[written]) if len(written) == 1 else written
        return str((_HAN_DIGITS.get(tens, 1) if tens else 1) * 10 + _HAN_DIGITS.get(ones, 0))
    return re.sub(r"\s*[-–]\s*", "-", written)


def _as_season(found: re.Match[str]) -> str:
    gap, first, last = found.group(1), found.group(2), found.group(3)
    return f"{gap}Season{gap}{first}" + (f"-{last}" if last else "")


def identityless(name: str) -> bool:
    """A torrent name that names nothing: a tracker's topic id, a hash, a site, a
    folder's default or generic name ("New folder", "Новая папка", "Фильмы")."""
    rest = strip_tags(name).strip(" ._-[]")
    generic = re.sub(r"\s*\(\d{1,2}\)$", "", rest).casefold()  # "Новая папка (2)"
    return not rest or _NO_IDENTITY.match(rest) is not None or generic in _GENERIC_FOLDERS


def strip_tags(name: str) -> str:
    """The name without the site and group tags it starts with."""
    while True:
        rest = _SITE.sub("", _LEADING_TAG.sub("", name), count=1)
        if rest == name or not rest.strip():
            return name
        name = rest


def anime_shaped(name: str) -> bool:
    """Whether a name (a path's last part is read) is of a fansub's shape."""
    basename = name.replace("\\", "/").rpartition("/")[2]
    return _anime_shaped(basename, strip_tags(basename))


def _anime_shaped(basename: str, rest: str) -> bool:
    """A fansub name: a CRC, an absolute number after " - ", "2nd Season", or a group
    tag in front of a name that has nothing of a scene name (words joined by dots, a
    language word)."""
    if DATED.search(rest):
        return False  # "[예능] 놀면 뭐하니 2024.05.11": a genre's tag before a dated episode
    if _CRC.search(basename) or _DASH_NUMBER.search(rest):
        return True
    scene = _SCENE.search(rest) is not None or len(_DOT_JOIN.findall(rest)) >= 3
    lead = _LEADING_TAG.match(basename)
    if lead is not None and _IN_TAG_SITE.search(lead.group(0)):
        return False  # "[ACESSE SITE.COM] Title 1ª Temporada": a site's tag, not a group's
    return rest != basename and basename.lstrip().startswith(("[", "【")) and not scene


def _in_folder(parsed: Parsed, folder: str) -> Parsed:
    """A series file whose name has no season takes its folder's ("Show S03/Show - 07")."""
    if parsed.kind != "series" or parsed.season is not None or parsed.seasons or not folder:
        return parsed
    season = folder_season(folder)
    return parsed if season is None else replace(parsed, season=season, seasons=(season,))


def folder_season(folder: str) -> int | None:
    """The season the nearest folder names: "Season 2", "Series 2", "Сезон 2",
    "Staffel 2", "2ª Temporada", "Kausi 2", "Show S03", "Show.S03.1080p"."""
    for name in reversed(local_numbers(folder).split("/")):
        if _SEASON_RANGE.search(name):
            continue  # "Show S01-S03": no one season
        found = _SEASON_FOLDER.match(name.strip()) or _SEASON_IN_FOLDER.search(name)
        if found is not None:
            return int(found.group(1) or found.group(2))
    return None


def _parse_anime(basename: str, kind: MediaKind | None) -> Parsed | None:
    anime = parse_anime(basename)
    if anime is None or not anime.title:
        return None
    if anime.alt_title is None and (also := _also_known_as(anime.title))[1] is not None:
        anime = replace(anime, title=also[0] or anime.title, alt_title=also[1])
    found_kind: Kind
    if kind is not None:
        found_kind = kind
    elif anime.movie:
        found_kind = "movie"
    elif anime.episodes or anime.season is not None or anime.special:
        found_kind = "series"
    else:
        found_kind = "unknown"  # "[Group] Title [BD 1080p]": the files will tell
    numbered = _numbered_title(basename, anime.title, anime.episodes, anime.episode_title)
    if kind is None and numbered is not None:
        # "[Group] Psycho-Pass 3 - First Inspector": the whole name first, a film's; read
        # as a show's episode again when a show is chosen (its files are then read so).
        return Parsed("unknown", numbered, anime.year, None, (), title_with_year=anime.title)
    if found_kind != "series":
        return Parsed(
            found_kind, anime.title, anime.year, None, (), anime.alt_title, subtitle=anime.subtitle
        )
    return Parsed(
        found_kind,
        anime.title,
        anime.year,
        anime.season,
        () if anime.special else anime.episodes,
        anime.alt_title,
        special=anime.special,
        absolute=(_STRICT_EPISODE.search(basename) is None and anime.season is None)
        or (_STRICT_EPISODE.search(basename) is None and bool(anime.episodes)),
        seasons=() if anime.season is None else (anime.season,),
        subtitle=anime.subtitle,
        episode_title=anime.episode_title,
        part=anime.part,
    )


def _numbered_title(
    basename: str, title: str, episodes: tuple[int, ...], episode_title: str | None
) -> str | None:
    """ "[Group] Psycho-Pass 3 - First Inspector": a number written bare (episodes are
    written "03") between the title and a dash before words may be the title's, a film
    of the franchise."""
    if len(episodes) != 1 or not episode_title or episode_title[0].isdigit():
        return None
    if found_numbers(basename, title) != [str(episodes[0])] or episodes[0] > 9:
        return None
    return f"{title} {episodes[0]} {episode_title}"


def _fix_title_and_year(text: str, guess: Guess) -> tuple[str | None, int | None, str | None]:
    """(title, year, title_with_year): the year of a range is its first; a lone number
    is the title; a number before the title opens it; a year right after the title
    might be part of it (``title_with_year``)."""
    title = _clean(guess.title)
    year = guess.years[0] if guess.years else None
    range_start = _YEAR_RANGE.search(text)
    if range_start and year is not None and str(year) in range_start.group(0):
        year = int(range_start.group(1))  # "1994-2004": the first year is the show's
    if year is None or len(guess.years) != 1 or len(guess.year_spans) != 1:
        return title, year, None
    year_span = guess.year_spans[0]
    basename_start = max(text.rfind("/"), text.rfind("\\")) + 1
    if title is None:
        before = text[basename_start : year_span.start].strip(" ._-")
        if _ONE_WORD.fullmatch(before):
            return before, year, None  # "Cam.2018": guessit took the title for a tag
        # "1917", "2012": a lone number is the title, not a year.
        return year_span.raw, None, None
    title_span = guess.title_span
    title_start = title_span.start if title_span else -1
    if title_span is not None and guess.type == "movie" and not guess.episodes:
        versioned = _versioned_title(text[title_start : year_span.start])
        if versioned is not None:
            return versioned, year, None
    prefix = text[basename_start : year_span.start] if year_span.start >= basename_start else "x"
    if _PREFIX_NOISE.fullmatch(prefix) and title_start > year_span.start:
        # "2001 A Space Odyssey": the number opens the title.
        return f"{year_span.raw} {title}", None, None
    between = text[title_span.end : year_span.start] if title_span else "x"
    follows = title_span is not None and title_span.end <= year_span.start
    # Only a bare number right after the title, and never a second one: "(2001)" is a
    # year, "Wonder Woman 1984 2020" has its year already.
    bare = year_span.raw.isdigit()
    if (
        follows
        and bare
        and _SEPARATORS_ONLY.fullmatch(between)
        and not _ENDS_IN_NUMBER.search(title)
    ):
        return title, year, f"{title} {year_span.raw}"
    return title, year, None


# A number right after the title, set apart by a dot or a space only; "05" is an episode's.
_BARE_NUMBER = re.compile(r"(?<=[ .])([1-9]\d{0,2})(?=[ .]|$)")


def _number_titled(text: str, guess: Guess, title: str | None) -> str | None:
    """ "Apollo.13.720p.BluRay": guessit's episode 13 of "Apollo", with no season, no
    episode word and no year; the number may as well end a film's title ("Apollo 13").
    Both readings go to the decision (as ``title_with_year``)."""
    if title is None or guess.title_span is None or guess.type != "episode":
        return None
    if guess.seasons or guess.years or len(guess.episodes) != 1:
        return None
    found = _BARE_NUMBER.match(text, guess.title_span.end)
    if found is None or int(found.group(1)) != guess.episodes[0]:
        return None
    return f"{title} {found.group(1)}"


# A version in a title: "2.0", "3.33", "3.0+1.01", "1+1" (guessit takes "2.0" for audio
# channels, "+" for the end of the title).
_VERSION = r"\d+(?:\.\d+)*(?:\+\d+(?:\.\d+)*)+|\d+(?:\.\d+)+"
_TITLE_TOKEN = re.compile(rf"(?:{_VERSION}|[^\W_][\w'’]*)(?=[ ._]|$)")
_IS_VERSION = re.compile(_VERSION)


def _versioned_title(before_year: str) -> str | None:
    """ "Ghost.in.the.Shell.2.0.2008", "Evangelion.3.0+1.01.Thrice.Upon.a.Time.2021",
    "1+1.2011": the words before the year with the version they hold, written as it is.
    None: no version there, or something else than words."""
    text = before_year.strip(" ._-")
    tokens: list[str] = []
    at = 0
    while at < len(text):
        found = _TITLE_TOKEN.match(text, at)
        if found is None:
            return None
        tokens.append(found.group(0))
        at = found.end()
        while at < len(text) and text[at] in " ._":
            at += 1
    if not any(_IS_VERSION.fullmatch(t) for t in tokens):
        return None
    return " ".join(tokens)


def without_part(title: str) -> str | None:
    """The title without the part it ends in ("La Casa de Papel - Parte 3" → "La Casa
    de Papel"); None when it names no part."""
    found = _PART_AT_END.search(title)
    if found is None:
        return None
    return title[: found.start()].strip(" -:") or None


def title_part(title: str) -> int | None:
    """The number of the part a title ends in ("Lupin Partie 2": 2; "Part II": 2)."""
    found = _PART_AT_END.search(title)
    if found is None:
        return None
    written = found.group(1).casefold()
    if written.isdigit():
        return int(written)
    return _NUMBER_WORDS.get(written) or _ROMAN_NUMBERS.get(written)


def _without_part_range(title: str | None) -> str | None:
    """ "Generation Kill Part 1-7" → "Generation Kill": a range of parts names the
    files, not the title (one movie part, "Part 1", stays)."""
    if title is None:
        return None
    return _PART_RANGE.sub("", title).strip() or title


def _country(text: str, title: str | None, bracketed: str | None) -> tuple[str | None, str | None]:
    """A country tag after the title: "The Office (US)" or "The.Office.US" → ("The
    Office", "US"). Only an upper-case tag after a title that is not all upper case:
    "The.Last.of.Us" and "THE.LAST.OF.US" keep their "Us"."""
    if title is None:
        return None, None
    if bracketed is not None:
        return title, bracketed
    words = title.split()
    rest = " ".join(words[:-1])
    if len(words) > 1 and words[-1] in COUNTRY_TAGS and not rest.isupper():
        return rest, words[-1]
    return title, None


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
        if not _is_title(head) and not _year_named(segments, index, head):
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
    guess = guess_name(probe, kind)
    # The first year-like number of the rest: "(2021)", "[2021, США, …]", "/ 2021 /",
    # "[2017-2020, …]" (a series' first year).
    found_year = _FIRST_YEAR.search(remainder)
    year = int(found_year.group(0)) if found_year else guess.years[0] if guess.years else None
    ru = _russian_numbers(remainder) if _CYRILLIC.search(remainder) else None
    parsed = _assemble(guess, kind, title, year, alt_title, ru)
    return replace(parsed, countries=tracker_countries(remainder))


def tracker_countries(text: str) -> tuple[str, ...]:
    """ISO 3166 codes of the countries a Russian tracker's name lists."""
    words = _COUNTRY_WORD.findall(text)
    return tuple(dict.fromkeys(code for w in words if (code := _RU_COUNTRIES.get(w.lower()))))


def _assemble(
    guess: Guess,
    kind: MediaKind | None,
    title: str | None,
    year: int | None,
    alt_title: str | None,
    ru: tuple[tuple[int, ...], tuple[int, ...]] | None,
) -> Parsed:
    """What guessit read, with the title and year found and the seasons and episodes
    the Russian words name (``ru``: they win over guessit's)."""
    ru_seasons, ru_episodes = ru or ((), ())
    seasons, episodes = ru_seasons or guess.seasons, ru_episodes or guess.episodes
    found_kind = _kind_found(guess, kind, seasons, episodes)
    if title is None and year is None and found_kind == "movie":
        found_kind = "unknown"
    language, service = guess.language, guess.service
    if found_kind != "series":
        return Parsed(
            found_kind,
            title,
            year,
            None,
            (),
            alt_title,
            language=language,
            service=service,
            episode_title=guess.episode_title or (None if guess.subtitle else guess.alternative),
        )
    named = _unique_sorted(seasons)
    # A multi-season pack: the numbers belong to each file, not to the torrent.
    pack = len(named) > 1
    return Parsed(
        found_kind,
        title,
        year,
        None if pack or not seasons else seasons[0],
        () if pack else _unique_sorted(episodes),
        alt_title,
        guess.date,
        seasons=named,
        episode_title=None if pack else guess.episode_title,
        language=language,
        service=service,
    )


def _kind_found(
    guess: Guess, kind: MediaKind | None, seasons: tuple[int, ...], episodes: tuple[int, ...]
) -> Kind:
    """The kind already known, else a series when anything numbers episodes, else
    what guessit says."""
    if kind is not None:
        return kind
    if guess.type == "episode" or seasons or episodes or guess.date:
        return "series"
    return "movie" if guess.type == "movie" else "unknown"


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


def _before_russian_numbers(title: str | None, text: str) -> str | None:
    """A title without the season and episode words guessit leaves in it ("Кухня
    Сезоны 1-2"), or the first number of a range of seasons ("Мажор 1-4 сезон")."""
    if title is None:
        return None
    span = _RU_SEASON_BEFORE.search(text)
    if span is not None and span.group(2) and title.endswith(f" {span.group(1)}"):
        title = title[: -len(span.group(1))].strip()
    patterns = (_RU_SEASON_BEFORE, _RU_SEASON_AFTER, _RU_EPISODE_AFTER, _RU_EPISODE_BEFORE)
    starts = [m.start() for p in patterns if (m := p.search(title)) is not None]
    if not starts or min(starts) == 0:
        return title
    return title[: min(starts)].strip(" .,:;-–(") or title


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


def _year_named(segments: Sequence[str], index: int, head: str) -> bool:
    """A year alone that is the title ("1917 / 1917 (2019)", "1899 / 1899 / Сезон: 1"):
    it opens the name, and a year of its own follows it."""
    if index > 1 or not _ONLY_YEARS.fullmatch(head) or "(" in head:
        return False
    if index == 1 and _split_at_bracket(segments[0])[0] != head:
        return False
    later = " / ".join(segments[index + 1 :]) + _split_at_bracket(segments[index])[1]
    return any(m.group(0) != head for m in _FIRST_YEAR.finditer(later))


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


def _unique_sorted(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(set(values)))


# --- file names ----------------------------------------------------------------------

# "Show.S01E05", "S01E01E02" (a list), "S01E01-E03" / "S01E01-03" (a range): read without
# guessit. The number after a "-" must end there, so "S01E05-1080p" is not a range.
_STRICT_EPISODE = re.compile(
    r"(?i)(?<![a-z0-9])S(\d{1,3})[ ._-]?E(\d{1,4})((?:(?:-E?|E)\d{1,4}(?![0-9a-z]))*)(?![0-9a-z])"
)
_DOTTED_EPISODE = re.compile(
    r"(?P<title>.+?)\s+-\s+(?P<season>\d{1,2})\.(?P<episode>\d{2,3})(?:\s+-\s+.*)?"
)
_MORE_EPISODES = re.compile(r"(?i)(-E?|E)(\d{1,4})")
_PREFIX_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
# A file of a season that carries only its number: "03. Title.mkv", "03 - Title.mkv",
# "Episode 05.mkv", "E05.mkv", "Part 1.mkv", "Part.One.mkv", "Серия 3.mkv".
_NUMBERED = re.compile(
    r"(?i)^\s*(?:(?:episode|ep|e|part|pt|chapter|серия|эпизод|часть|глава)[\s._-]*)?"
    r"(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten)(?:v\d)?(?![\w'])"
)
_PART_WORD = re.compile(
    r"(?i)(?:^|[\s._\-(\[])(?:part|pt|episode|ep|chapter|серия|часть|эпизод|глава)[\s._-]*"
    r"(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten)(?![\w'])"
)
# A season's folder: "Season 2", "Series 2" (British), "Сезон 2".
_COMPLETE_AT_END = re.compile(r"(?i)(?<=\w)\s+complete$")
_NAMED_SPECIAL = re.compile(
    r"(?i)\s+((?:christmas|xmas|holiday|halloween|easter|new\s+year'?s?(?:\s+(?:day|eve))?"
    r"|reunion|anniversary)\s+special(?:\s+part\s+\d+)?)$"
)
_SHOW_YEAR = re.compile(r"(?<=\S)\s+\(?((?:19|20)\d\d)\)?$")  # "Doctor Who 2005"
# "Sherlock.Series.1-4", "Peep Show Series 3": a British season, after a title.
_BRITISH_SERIES = re.compile(
    r"(?i)(?<=[^\W_])(?:\s-)?([ ._])series[ ._](\d{1,2})(?:[ ._]?-[ ._]?(\d{1,2}))?(?![\d])"
)
# "[ТВ-3]" in Cyrillic letters too, only in square brackets: "(ТВ-3)" is a channel.
_TV_SEASON = re.compile(r"(?i)[\[(]?(?<![a-z0-9])TV-(\d{1,2})(?![a-z0-9])[\])]?|\[ТВ-?(\d{1,2})\]")
# "Season 2023": a season numbered by its year (TMDB's and TVDB's for some annual and
# daily shows), read as "S2023" (guessit reads "Season 2023" as a year).
_YEAR_SEASON = re.compile(r"(?i)(?<![a-z0-9])season[ ._-]*((?:19|20)\d\d)(?!\d)")
_SEASON_AFTER = re.compile(r"(?i)(?<![a-z0-9])s\d{1,2}(?:e\d{1,4})*(?![a-z0-9])")
_VIDEO_NAME = re.compile(r"(?i)\.(?:" + "|".join(sorted(VIDEO_EXTENSIONS)) + r")$")


def _year_seasons(text: str) -> str:
    """ "Season 2023" of a season pack (a folder, a torrent's name) as season 2023; a
    video's own name keeps guessit's reading (a title word and the year)."""
    cut = max(text.rfind("/"), text.rfind("\\")) + 1
    if _VIDEO_NAME.search(text[cut:]):
        return _YEAR_SEASON.sub(_year_season, text[:cut]) + text[cut:]
    return _YEAR_SEASON.sub(_year_season, text)


def _year_season(found: re.Match[str]) -> str:
    """ "S2023", unless a season is numbered after it: "The.Long.Season.2023.S01" is a
    title that ends in "Season", then the show's year."""
    if _SEASON_AFTER.search(found.string, found.end()):
        return found.group(0)
    return f"S{found.group(1)}"


# "the first" … "the tenth": Arabic names number seasons ("parts") so.
_ARABIC_ORDINALS = {
    name: number
    for number, name in enumerate(
        [
            "الأول",
            "الثاني",
            "الثالث",
            "الرابع",
            "الخامس",
            "السادس",
            "السابع",
            "الثامن",
            "التاسع",
            "العاشر",
        ],
        start=1,
    )
}
# Persian names its seasons so too: "فصل دوم" is the second season.
_ARABIC_ORDINALS |= {
    name: number
    for number, name in enumerate(
        ["اول", "دوم", "سوم", "چهارم", "پنجم", "ششم", "هفتم", "هشتم", "نهم", "دهم"], start=1
    )
}
_HAN_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_HAN_DIGITS |= {"十": 10}
_LOCAL_NUMBER = r"(\d{1,4}(?:\s*[-–]\s*\d{1,4})?|" + "|".join(_ARABIC_ORDINALS) + r")(?![\d\w])"
# A range of seasons in words guessit does not read as one: "1ª a 5ª Temporada", "1-4.
# Sezon", "Staffel 1 bis 3", "Saisons 1 à 4", "Sesong 1 til 3", plurals ("Sezony 1-3",
# "Staffeln 1-4"). Not English ones: guessit reads them ("The Complete Seasons 1 to 5").
_SPAN_PLURALS = (
    r"(?:temporadas|saisons|staffeln|stagioni|sezony|sezonlar|s[äa]songer|sesonger"
    r"|s[æa]e?soner|seizoenen|kaudet|évadok)"
)
_SPAN_WORDS = (
    r"(?:temporada|saison|staffel|stagione|sezon|s[äa]song|sesong|s[æa]e?son|seizoen"
    r"|kausi|évad|" + _SPAN_PLURALS + ")"
)
# A dash between the numbers, not around them: "Season 2 - 05" is a fansub's episode.
_SPAN_BETWEEN = r"(?:[-–]|\s+(?:a|à|al|bis|til|till|to|do)\s+)"
# Before the word, the numbers marked as ordinals ("1ª a 5ª", "1-4.") or the word a
# plural: "Show 1-2 Season 3" names no range.
_SEASON_SPAN_BEFORE = re.compile(
    rf"(?i)(?<![\w.])(\d{{1,2}})\s*[ªº°.]?{_SPAN_BETWEEN}(\d{{1,2}})"
    rf"(?:\s*[ªº°.][\s._]*{_SPAN_WORDS}|[\s._]+{_SPAN_PLURALS})(?!\w)"
)
_SEASON_SPAN_AFTER = re.compile(
    rf"(?i)(?<!\w){_SPAN_WORDS}[\s._:]*(\d{{1,2}}){_SPAN_BETWEEN}(\d{{1,2}})(?![\d\w])"
)
# Finnish, Italian plural, Greek, Hebrew, Arabic, Korean, Danish and Swedish written
# without their letters: the word, then the number; Korean and Japanese glued to the
# name before it ("오징어게임시즌2").
_LOCAL_NUMBERS = (
    (
        re.compile(
            r"(?i)(?:(?<!\w)(?:kausi|stagioni|σεζόν|σεζον|κύκλος|κυκλος|עונה|الموسم|فصل|sezona"
            r"|sezóna|сезона|saeson|sasong|सीज\u093c?न)|시즌|シーズン|ซีซั่?น)[\s._:]*" + _LOCAL_NUMBER
        ),
        "Season",
    ),
    (
        re.compile(
            r"(?i)(?:(?<!\w)(?:jakso|επεισόδιο|επεισοδιο|פרק|الحلقة|قسمت|afsnit|epizoda|епизода"
            r"|серија|díl|episódio|capítulo|एपिसोड)|ตอน(?:ที่)?)[\s._:]*(\d{1,4})(?![\d\w])"
        ),
        "Episode",
    ),
    (re.compile(r"(?<![\d\w])(?:제\s*)?(\d{1,4})\s*[화회](?!\w)"), "Episode"),  # "1화", "제5회"
    (re.compile(r"(?<!\d)(\d{1,2})\s*기(?!\w)"), "Season"),  # Korean "2기"
    # "第2期", "第二季", "第5シリーズ"; "2期" in digits without "第" ("一期" is a word too:
    # "一期一会")
    (re.compile(r"第\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*(?:[期季]|シリーズ)"), "Season"),
    (re.compile(r"(?<![\d第])(\d{1,2})\s*期"), "Season"),
    (re.compile(r"第\s*(\d{1,4})\s*[話话]"), "Episode"),  # "第01話"
)
_ALL_EPISODES = re.compile(r"全\s*\d{1,4}\s*[話话集]")  # "全12話": all twelve episodes
_ARABIC_SERIES = re.compile(r"(?<!\w)مسلسل(?!\w)")
_ARABIC_KIND = re.compile(r"^\s*(?:مسلسل|فيلم)\s+")  # "series", "film" before the title
_ARABIC_EPISODE = re.compile(r"(?<!\w)الحلقة(?!\w)")
_ARABIC_PART = re.compile(r"(?<!\w)الجزء[\s._:]*" + _LOCAL_NUMBER)
_SEASON_FOLDER = re.compile(
    rf"(?i)^(?:(?:{SEASON_WORD})[\s._-]*(\d{{1,2}})"
    rf"|(\d{{1,2}})(?:ª|º|\.|-?я|-?й)?[\s._-]*(?:{SEASON_WORD}))$"
)
_SEASON_IN_FOLDER = re.compile(
    rf"(?i)(?<![a-z0-9])(?:S|(?:{SEASON_WORD})[\s._-]?)(\d{{1,2}})(?![\dxe])"
)
_SEASON_RANGE = re.compile(
    rf"(?i)(?<![a-z0-9])(?:S|(?:{SEASON_WORD})[\s._-]?)\d{{1,2}}\s*[-–~]\s*(?:S|Season\s*)?\d"
)
_WORD_SPLIT = re.compile(r"[\s._\-]+")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_NUMBER_WORDS |= {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_ROMAN_NUMBERS = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8}
_ROMAN_NUMBERS |= {"ix": 9, "x": 10}


def parse_file(path: str, *, kind: MediaKind | None = None) -> Parsed:
    """``parse_release`` for a file of a torrent: a plain ``SxxEyy`` in the file's own
    name is read at once (most files of a season pack); in a series a file whose
    name starts with a number ("03. Title.mkv") is that episode."""
    text = unicodedata.normalize("NFC", path)
    basename = text.replace("\\", "/").rsplit("/", 1)[-1]
    strict = list(_STRICT_EPISODE.finditer(basename))
    if len(strict) == 1 and kind != "movie" and not _CYRILLIC.search(basename):
        return _strict(basename, strict[0])
    dotted = _DOTTED_EPISODE.fullmatch(basename.rsplit(".", 1)[0]) if kind == "series" else None
    if dotted is not None:  # "Succession - 4.01 - The Munsters": season 4, episode 1
        numbers = int(dotted.group("season")), (int(dotted.group("episode")),)
        return Parsed("series", _clean(dotted.group("title")), None, *numbers)
    parsed = parse_release(text, kind=kind)
    if parsed.kind != "series":
        return parsed
    folder = text.replace("\\", "/").rpartition("/")[0]
    if folder and len(parsed.seasons) > 1 and (season := folder_season(folder)) is not None:
        # "Show Stagioni 1-5/Stagione 3/Show - Episodio 05.mkv": the torrent's range of
        # seasons is not this file's; its own name and its season's folder are.
        alone = parse_release(basename, kind=kind)
        if alone.season is None:
            alone = replace(alone, season=season, seasons=(season,))
        parsed = replace(alone, title=alone.title or parsed.title, year=alone.year or parsed.year)
    if folder and ((parsed.date is not None and parsed.episodes) or len(parsed.episodes) > 1):
        # The folder's numbers are not the file's: "Show.2024.02/Show.2024.02.12.mkv"
        # (a month), "Show Серии 1-4 из 9/01.mkv" (the folder's range).
        own = parse_release(basename, kind=kind).episodes
        if own or parsed.date is not None:
            parsed = replace(parsed, episodes=own)
    if parsed.season is None and not parsed.seasons and (season := folder_season(folder)):
        parsed = replace(parsed, season=season, seasons=(season,))
    if parsed.special or parsed.episodes:
        return parsed
    stem = basename.rsplit(".", 1)[0] if "." in basename else basename
    numbered = _NUMBERED.match(_after_title(stem, parsed.title))
    if numbered is not None and not parsed.date:
        # "07 - The Spirit World (Winter Solstice, Part 1)": the number in front
        return replace(parsed, episodes=(_number(numbered.group(1)),))
    if (part := _PART_WORD.search(stem)) is not None:
        # "Chernobyl.2019.Part.1.1.23.45": the part, not the date guessit sees.
        return replace(parsed, episodes=(_number(part.group(1)),), date=None)
    return parsed


def _after_title(stem: str, title: str | None) -> str:
    """The file name without the show's title in front: "Ликвидация.01" → "01"."""
    words = _WORD_SPLIT.split(stem.strip())
    own = fold(title or "").split()
    if own and [fold(w) for w in words[: len(own)]] == own:
        return " ".join(words[len(own) :])
    return stem


def numbered_episode(basename: str) -> int | None:
    """The number a file name starts with, or its "Part N" / "Episode N" ("Lonesome.
    Dove.Part.One.Leaving.mkv"): the episode of a file of a series that has no other."""
    stem = basename.rsplit(".", 1)[0] if "." in basename else basename
    found = _NUMBERED.match(stem) or _PART_WORD.search(stem)
    return None if found is None else _number(found.group(1))


def _number(word: str) -> int:
    return _NUMBER_WORDS.get(word.casefold()) or int(word)


def _strict(basename: str, found: re.Match[str]) -> Parsed:
    first = int(found.group(2))
    episodes = [first]
    for step, number in _MORE_EPISODES.findall(found.group(3)):
        last = int(number)
        if step.startswith("-") and episodes[-1] < last <= episodes[-1] + 50:
            episodes.extend(range(episodes[-1] + 1, last + 1))
        else:
            episodes.append(last)
    prefix = _LEADING_GROUPS.sub("", basename[: found.start()])
    year = _PREFIX_YEAR.search(prefix)
    title = _clean(re.sub(r"[._]", " ", _PREFIX_YEAR.sub(" ", prefix)))
    if title is None and year is not None:
        title, year = year.group(0), None  # "1923.S02E01": the number is the title
    return Parsed(
        "series",
        title,
        int(year.group(0)) if year else None,
        int(found.group(1)),
        _unique_sorted(episodes),
    )
