"""A file of a series that names its episode other ways than by a number: by the
episode's title ("Lost - Season 1/Tabula Rasa.avi", "20 Hours in L.A.avi"), or as a
special numbered on its own ("OVA 02", "Specials/Show - 01.mkv").

Such a name only says which episode it is once the show's episode list is known
(TMDB's names, its specials): ``recognition.weigh`` matches them. Here the name is
only read: the words that may be an episode's title, a special and its own number,
whether the name numbers its season itself.
"""

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from recognition.folding import fold, title_key

# "Season" in the languages releases are named in: the one list every reader of a
# season word uses.
SEASON_WORDS = (
    "season", "series", "temporada", "staffel", "saison", "stagione", "sezon", "sezonul",
    "sezona", "sezóna", "säsong", "sæson", "sesong", "seizoen", "kausi", "évad", "сезон",
    "сезона", "saeson", "sasong",
)  # fmt: skip
SEASON_WORD = "|".join(SEASON_WORDS)  # as a regular expression's alternatives
# What numbers an episode outright, and wins over any title: "S01E05", "1x05",
# "Episode 5", "Ep. 05", "E05", "#05", "Серия 5", "5 серия", an episode word of
# another language ("Folge 5", "Capítulo 5", "Afsnit 5", "第05話", "5화").
_EXPLICIT = re.compile(
    r"(?i)(?<![a-z0-9])(?:s\d{1,4}[ ._-]?e\d{1,4}|\d{1,2}x\d{2,3}"
    r"|(?:episode|ep|e|folge|episodio|épisode|episódio|capitulo|capítulo|cap|odcinek|jakso"
    r"|afsnit|avsnitt|aflevering|afl|epizoda|епизода|díl|серија|bölüm|#)[ ._-]{0,2}\d{1,4})"
    r"(?![a-z0-9])|сери[яийе]|эпизод[\s._-]*\d|\d[\s._-]*эпизод\s*$|第\s*\d{1,4}\s*[話话集]|\d{1,4}\s*[화회](?!\w)"
    r"|\s[-–]\s\d{1,4}(?:v\d)?\s*$"  # "Show 2nd Season - 05": a fansub's number
)
# A season written in the name ("Temporada 2", "2nd Season", "Staffel 3"): no words of
# an episode's title.
_SEASON_MARK = re.compile(
    rf"(?i)(?<![^\W_])(?:(?:{SEASON_WORD}|シーズン|시즌)[\s._-]*\d{{1,4}}"
    r"|\d{1,2}(?:st|nd|rd|th|ª|º|\.)?[\s._-]*(?:season|temporada|сезон))(?![^\W_])"
)
# A number that opens the name and is set apart from what follows: "03 - Title",
# "03. Title", "03_Title", a bare "03". "12.00 A.M." and "20 Hours" are not.
_LEADING_NUMBER = re.compile(r"^\d{1,3}(?:v\d)?(?:\s*[-–._)]+\s*(?=[^\d\s])|\s+[-–]\s+|\s*$)")
_LEADING_YEAR = re.compile(r"^(?:19|20)\d\d\s+(?=\S)")
_TRAILING_YEAR = re.compile(r"[\s._]+\(?(?:19|20)\d\d\)?$")
# Tags in brackets: a group's, a CRC, "(BD 1080p FLAC)".
_BRACKETS = re.compile(
    r"\[[^\]]*\]|【[^】]*】|\([^)]*\b(?:\d{3,4}p|BD|DVD|WEB|x26[45]|HEVC)\b[^)]*\)"
)
# Where a scene name's tags begin: nothing after them is the title.
_TAGS = re.compile(
    r"(?i)(?<![a-z0-9])(?:\d{3,4}p|dvdrip|bdrip|brrip|bluray|web-?dl|webrip|web|hdtv|hdrip|"
    r"x26[45]|h\.?26[45]|xvid|divx|hevc|aac\d?|ac3|dts|dd5|remux)(?![a-z0-9])"
)
# A season written in the file's own name: "S02", "S02E05", "2x05", "Season 2", "2 сезон".
_OWN_SEASON = re.compile(
    r"(?i)(?<![a-z0-9])(?:s\d{1,4}(?![a-z0-9])|s\d{1,4}[ ._-]?e\d|\d{1,2}x\d{2,3}"
    rf"|{SEASON_WORD})"
)
# Folders that hold specials, and the word that marks one ("OVA 2", "SP01", "OAD - 03").
_SPECIAL_FOLDERS = frozenset(
    {"sp", "sps", "special", "specials", "ova", "ovas", "oad", "oads", "ona", "onas"}
    | {"спецвыпуск", "спецвыпуски"}
)
# "Special" alone is also an episode's title ("Lost - Season 1/Special.avi"): only
# with a number.
_SPECIAL_MARK = re.compile(
    r"(?i)(?<![a-z0-9])(?:(?:ova|oad|ona|sp)(?:[\s._-]*(\d{1,3}))?"
    r"|specials?[\s._-]*(?:\(?(?:part|pt)[\s._-]*)?(\d{1,3}))"  # "Christmas Special (Part 1)"
    r"(?![a-z0-9])"
)
_MARK_IN_BRACKETS = re.compile(r"(?i)[\[(](?:ova|oad|ona|sp)[\])]")
_FANSUB_NUMBER = re.compile(r"\s[-–]\s(\d{1,3})(?:v\d)?\s*$")
_SEASON_EPISODE = re.compile(
    r"(?i)(?<![a-z0-9])(?:s\d{1,4}[ ._-]?e\d{1,4}|\d{1,2}x\d{2,3})(?![0-9])"
)
_NUMBER = re.compile(r"(?<![\d.])(\d{1,3})(?![\d.])")


def episode_name(path: str, titles: Iterable[str | None]) -> str | None:
    """The words of a file's name that may be its episode's title, without the show's
    name (``titles``: the names the release gives it), its tags and a year; None when
    the name numbers the episode itself ("S01E05", "1x05", "Episode 5", "03 - Title")
    or has no words past its number."""
    stem = _without_tags(PurePosixPath(path.replace("\\", "/")).stem)
    if _EXPLICIT.search(stem):
        return None
    rest = _SEASON_MARK.sub(" ", _past_title(stem, titles)).strip(" -–._")
    rest = _TRAILING_YEAR.sub("", _LEADING_YEAR.sub("", rest)).strip(" -–._")
    if not re.search(r"[^\W\d_]", rest) or _LEADING_NUMBER.match(rest):
        return None
    return rest


def _past_title(stem: str, titles: Iterable[str | None]) -> str:
    """The words of ``stem`` after the show's name, as written."""
    words = fold(stem)
    # "Gavin & Stacey" is written "Gavin.and.Stacey" too.
    spelled = {form for t in titles if t for form in (fold(t), fold(t.replace("&", " and ")))}
    for title in sorted(spelled, key=len, reverse=True):
        if title and (words == title or words.startswith(title + " ")):
            words = words[len(title) :].strip()
            break
    return _after(stem, words)


def number_name(path: str, titles: Iterable[str | None]) -> str | None:
    """The number a name is made of alone, past the show's name ("42.avi", "Doctor Who
    - 42.avi"): in a pack named by titles, maybe an episode's title (Doctor Who's "42")."""
    stem = _without_tags(PurePosixPath(path.replace("\\", "/")).stem)
    rest = _past_title(stem, titles).strip(" -–._")
    return rest if re.fullmatch(r"\d{1,4}", rest) else None


# A disc's folder of a DVD or Blu-ray box ("Disc 1", "DVD2", "Диск 1"): the number that
# opens a file's name in it may be the disc's track, not the episode.
_DISC = re.compile(r"(?i)^(?:dis[ck]|dvd|bd|cd|диск)[\s._-]*(\d{1,2})$")
_TRACK = re.compile(r"^\d{1,3}(?![\d:])[\s._)-]*")


def disc_track(path: str, titles: Iterable[str | None]) -> tuple[int, str | None] | None:
    """(the disc, the title after the number) of a file whose name opens with a number,
    in a disc's folder ("Disc 2/01 The One with the Thumb.avi": (2, "The One with the
    Thumb")); None for any other file, and one that numbers its episode outright."""
    pure = PurePosixPath(path.replace("\\", "/"))
    disc = next((m for part in reversed(pure.parts[:-1]) if (m := _DISC.match(part.strip()))), None)
    stem = _without_tags(pure.stem)
    if disc is None or _EXPLICIT.search(stem) or not _TRACK.match(stem):
        return None
    rest = stem[_TRACK.match(stem).end() :]  # type: ignore[union-attr]
    title = episode_name(str(pure.with_name(rest + pure.suffix)), titles) if rest else None
    return int(disc.group(1)), title


def numbered_title(path: str, titles: Iterable[str | None]) -> str | None:
    """The title a name that numbers its episode gives it ("Firefly - 1x01 - The Train
    Job", "01 - Pilot", "Show.S01E05.The.Fire.720p"): the words after the number. TMDB's
    names tell whether the pack numbers its episodes as TMDB does (a DVD's order, a
    broadcaster's). None: no number, or no words after it."""
    stem = _without_tags(PurePosixPath(path.replace("\\", "/")).stem)
    if (explicit := _EXPLICIT.search(stem)) is not None:
        rest = stem[explicit.end() :]
    else:
        words = fold(stem)
        for title in sorted({fold(t) for t in titles if t}, key=len, reverse=True):
            if title and words.startswith(title + " "):
                words = words[len(title) :].strip()
                break
        after = _after(stem, words).strip(" -–._")
        if (number := _LEADING_NUMBER.match(after)) is None:
            return None
        rest = after[number.end() :]
    rest = _SEASON_MARK.sub(" ", rest).strip(" -–._")
    if not re.search(r"[^\W\d_]", rest) or _EXPLICIT.search(rest):
        return None
    return rest


# "Part I", "Part V": a Roman numeral that is a word elsewhere ("I, Robot") is a number
# after "Part" ("Exodus, Part I" is TMDB's "Exodus (1)").
_PART_ROMAN = {"i": "1", "v": "5", "x": "10"}
_PART_WORDS = frozenset({"part", "pt"})
_GLUED_PART = re.compile(r"(?i)(?<![a-z])(part|pt)(\d)")  # "exodus.part1"
# A name whose number leads it ("05 The One…", "Part One - Leaving"): the number is its
# own, not a word of its title.
_NUMBER_FIRST = re.compile(
    r"(?i)^(?:\d|(?:part|pt|chapter)[\s._-]*(?:\d|[ivx]+\b|one|two|three|four|five|six|seven"
    r"|eight|nine|ten))"
)


def name_key(name: str) -> str:
    """An episode's name as compared with TMDB's: ``title_key`` (accents, punctuation,
    "&" as "and", number words), "Part" dropped ("Pilot Part 2" = "Pilot (2)", "Exodus,
    Part I" = "Exodus (1)") and numbers without leading zeros ("OVA 01" = "OVA 1")."""
    words = title_key(_GLUED_PART.sub(r"\1 \2", name)).split()
    kept = []
    for before, word in zip(["", *words], words, strict=False):
        if word in _PART_WORDS:
            continue
        if before in _PART_WORDS:
            word = _PART_ROMAN.get(word, word)
        kept.append((word.lstrip("0") or "0") if word.isdigit() else word)
    return " ".join(kept)


def _without_tags(stem: str) -> str:
    """The name before its tags, words apart ("The.Train.Job.DVDRip" → "The Train Job")."""
    stem = _BRACKETS.sub(" ", stem)
    if (tags := _TAGS.search(stem)) is not None:
        stem = stem[: tags.start()]
    if " " not in stem.strip():
        stem = re.sub(r"[._]", " ", stem)  # a scene name's dots are its spaces
    return stem.strip()


def _after(stem: str, words: str) -> str:
    """The end of ``stem`` whose folded words are ``words``, as written (its
    punctuation kept: "L.A.", "12.00 A.M.")."""
    if not words:
        return ""
    wanted = words.split()
    parts = re.split(r"([\s._\-–]+)", stem.strip(" ._-–"))
    for start in range(0, len(parts), 2):
        if fold("".join(parts[start:])).split() == wanted:
            return "".join(parts[start:])
    return words


# "Season 71 (2023)", "Series 7 [2012]", "S71 (2023)": a season and the year it aired.
_SEASON_YEAR = re.compile(
    rf"(?i)(?<![^\W_])(?:{SEASON_WORD}|s)"
    r"[\s._-]*(\d{1,3})[\s._-]*[(\[]((?:19|20)\d\d)[)\]]"
)


def season_years(path: str) -> tuple[tuple[int, int], ...]:
    """(season, year) of each season named with its year in ``path`` ("Panorama -
    Season 71 (2023)/…"): TMDB may number that season by the year."""
    return tuple((int(m.group(1)), int(m.group(2))) for m in _SEASON_YEAR.finditer(path))


def numbered_within(name: str) -> bool:
    """A name of words whose number is one of them ("Exodus Part 1", "Two Cars in
    Every Garage…", "Three Men and Adena"), not set in front of them ("05 The One…",
    "Part One Leaving"): in a pack named by titles, no episode number."""
    return _NUMBER_FIRST.match(name.strip()) is None and re.search(r"[^\W\d_]", name) is not None


def special_of(path: str, episodes: tuple[int, ...]) -> tuple[bool, int | None]:
    """Whether the file is a special numbered on its own, and its own number: a name
    marked "OVA 02", "SP1", "OAD - 03", or a file in a ``Specials/``, ``SP/`` or
    ``OVA/`` folder ("Specials/Show - 01.mkv": not the show's episode 1). A name that
    numbers its season itself ("S00E01", "S02E05") is no such special."""
    pure = PurePosixPath(path.replace("\\", "/"))
    stem = _without_tags(pure.stem)
    if _SEASON_EPISODE.search(stem):
        return False, None
    mark = _SPECIAL_MARK.search(stem)
    # "Specials/", "OVA/", and a folder of named specials ("Christmas Specials/")
    in_folder = any(
        fold(part) in _SPECIAL_FOLDERS or fold(part).endswith(" specials")
        for part in pure.parts[:-1]
    )
    bracketed = _MARK_IN_BRACKETS.search(pure.stem) is not None  # "Show [OVA] - 04"
    if mark is None and not in_folder and not bracketed:
        return False, None
    if mark is not None and (own := mark.group(1) or mark.group(2)):
        return True, int(own)
    if len(episodes) == 1:
        return True, episodes[0]
    if bracketed and (fansub := _FANSUB_NUMBER.search(stem)) is not None:
        return True, int(fansub.group(1))
    numbers = _NUMBER.findall(stem[mark.end() :] if mark is not None else stem)
    return True, int(numbers[0]) if len(numbers) == 1 else None


def names_season(path: str) -> bool:
    """The file's own name says its season ("S02E05", "2x05", "Season 2", "2 сезон"),
    rather than only its folder."""
    return _OWN_SEASON.search(PurePosixPath(path.replace("\\", "/")).stem) is not None


_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


# "131. Bölüm": Turkish channels number a show's episodes across its seasons too.
_BOLUM = re.compile(r"(?i)(?<!\d)\d{1,4}\.?\s*b[öo]l[üu]m(?!\w)")


# "Chapter 14", "Chapter 9 - The Marshal": shows whose episodes are chapters number
# them across seasons (House of Cards, The Mandalorian), TMDB from 1 in each.
_CHAPTER = re.compile(r"(?i)^(?:chapter|chapitre|kapitel|глава)[ ._-]*\d{1,3}(?!\d)")


def counts_on(path: str) -> bool:
    """A Russian or Turkish channel's numbering: "Сезон 3/Серия 41.mkv", "5. Sezon/131.
    Bölüm.mp4" may count on from the first season (the channel numbers across seasons,
    TMDB from 1 in each). Only a file whose own name names no season, in a
    Cyrillic-named season pack, numbered by "Bölüm", or named as a chapter
    ("Season 2/Chapter 14.mkv")."""
    if names_season(path):
        return False
    stem = PurePosixPath(path.replace("\\", "/")).stem
    return (
        _CYRILLIC.search(path) is not None
        or _BOLUM.search(stem) is not None
        or _CHAPTER.match(stem) is not None
    )
