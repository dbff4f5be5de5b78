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

from recognition.folding import fold

# What numbers an episode outright, and wins over any title: "S01E05", "1x05",
# "Episode 5", "Ep.05", "E05", "Серия 5", "5 серия".
_EXPLICIT = re.compile(
    r"(?i)(?<![a-z0-9])(?:s\d{1,4}[ ._-]?e\d{1,4}|\d{1,2}x\d{2,3}"
    r"|(?:episode|ep|e)[ ._-]?\d{1,4})(?![a-z0-9])|сери[яийе]|эпизод"
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
    r"(?i)(?<![a-z0-9])(?:s\d{1,4}(?![a-z0-9])|s\d{1,4}[ ._-]?e\d|\d{1,2}x\d{2,3}|season|series)"
    r"|сезон"
)
# Folders that hold specials, and the word that marks one ("OVA 2", "SP01", "OAD - 03").
_SPECIAL_FOLDERS = frozenset(
    {"sp", "sps", "special", "specials", "ova", "ovas", "oad", "oads", "ona", "onas"}
    | {"спецвыпуск", "спецвыпуски"}
)
# "Special" alone is also an episode's title ("Lost - Season 1/Special.avi"): only
# with a number.
_SPECIAL_MARK = re.compile(
    r"(?i)(?<![a-z0-9])(?:(?:ova|oad|ona|sp)(?:[\s._-]*(\d{1,3}))?|specials?[\s._-]*(\d{1,3}))"
    r"(?![a-z0-9])"
)
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
    words = fold(stem)
    for title in sorted({fold(t) for t in titles if t}, key=len, reverse=True):
        if title and (words == title or words.startswith(title + " ")):
            words = words[len(title) :].strip()
            break
    rest = _after(stem, words)
    rest = _TRAILING_YEAR.sub("", _LEADING_YEAR.sub("", rest)).strip(" -–._")
    if not re.search(r"[^\W\d_]", rest) or _LEADING_NUMBER.match(rest):
        return None
    return rest


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
    in_folder = any(fold(part) in _SPECIAL_FOLDERS for part in pure.parts[:-1])
    if mark is None and not in_folder:
        return False, None
    if mark is not None and (own := mark.group(1) or mark.group(2)):
        return True, int(own)
    if len(episodes) == 1:
        return True, episodes[0]
    numbers = _NUMBER.findall(stem[mark.end() :] if mark is not None else stem)
    return True, int(numbers[0]) if len(numbers) == 1 else None


def names_season(path: str) -> bool:
    """The file's own name says its season ("S02E05", "2x05", "Season 2", "2 сезон"),
    rather than only its folder."""
    return _OWN_SEASON.search(PurePosixPath(path.replace("\\", "/")).stem) is not None


_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def counts_on(path: str) -> bool:
    """A Russian channel's numbering: "Сезон 3/Серия 41.mkv" may count on from the first
    season (the channel numbers across seasons, TMDB from 1 in each). Only a file whose
    own name names no season, in a Cyrillic-named season pack."""
    return _CYRILLIC.search(path) is not None and not names_season(path)
