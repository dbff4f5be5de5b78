"""Air dates in every form trackers write them, rewritten as ``YYYY.MM.DD`` before
guessit reads a name (pure).

guessit reads ``240512`` (a Korean or Japanese rip's ``YYMMDD``) as 24 May 2012 and
does not see ``2024年05月15日``, ``20 мая 2021`` or a six-digit date after a space; a
day and a month that could be either (``05.06.2024``) it reads day first whatever
the name's country. Here each is read once:

- ``YYMMDD`` standing alone (``E702.240512``, ``런닝맨 240512``): year, month, day — the
  trackers' form; ``[24051211]`` (a CRC), ``1440x1080`` or ``123456`` (no month 34)
  are no dates. A name of a day-first country (below) that reads as ``DDMMYY`` too is
  in doubt.
- ``YYYY年M月D日`` and ``D <Russian month> YYYY`` (``20 мая 2021``).
- ``DD.MM.YYYY`` (``-``, ``_`` too), which guessit reads: a day past 12 says which is which
  (``05.13.2024`` is May 13), else the name's country: Cyrillic, or a language tag of
  a country that writes the day first (``GERMAN``, ``FRENCH``, ``RUS``), reads
  ``05.06.2024`` as 5 June; any other name could mean either: in doubt.
- ``(Выпуск) от`` before a date (``Вечерний Ургант от 12.05.2024``) is no word of the
  title.
"""

import datetime
import re

_SEP = r"[.\-_ ]"
# Six digits standing alone: not beside a letter or a digit.
_SIX = re.compile(r"(?<![^\W_])(\d{2})(\d{2})(\d{2})(?![^\W_])")
_DAY_FIRST = re.compile(r"(?<!\d)(?<!\d\.)(\d{1,2})([.\-_])(\d{1,2})\2((?:19|20)\d\d)(?!\d)")
_KANJI = re.compile(r"((?:19|20)\d\d)\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日")
_RU_MONTHS = (
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
)
_RU_WRITTEN = re.compile(
    rf"(?i)(?<!\d)(\d{{1,2}})\s+({'|'.join(_RU_MONTHS)})\s+((?:19|20)\d\d)(?!\d)(?:\s*г\.)?"
)
_ISO = r"(?:19|20)\d\d\.\d\d\.\d\d"
# A name with a date so written is a dated episode's, never a fansub's.
DATED = re.compile(rf"(?<![\d.]){_ISO}(?![\d.])")
_ISSUE_OF = re.compile(
    rf"(?i)(?<!\w)(?:выпуск\s+)?от\s+(?=(?:{_ISO}|\d\d?{_SEP}\d\d?{_SEP}(?:19|20)\d\d)(?!\d))"
)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# Language tags of countries that write the day before the month.
_DAY_FIRST_TAGS = re.compile(
    r"(?i)(?<![^\W_])(?:german|deutsch|french|truefrench|vff|rus|russian|ukr|ita|italian"
    r"|spanish|castellano|polish|pl|dutch|nl|swedish|danish|norwegian|finnish|czech)(?![^\W_])"
)
_KOREAN_JAPANESE = re.compile(r"[\uac00-\ud7af\u3040-\u30ff]")


def _date(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


def _iso(day: datetime.date) -> str:
    return f"{day.year:04d}.{day.month:02d}.{day.day:02d}"


def _short_year(two: str) -> int | None:
    """ "24": 2024, "98": 1998; others name no year of a broadcast."""
    number = int(two)
    return 2000 + number if number < 40 else 1900 + number if number >= 90 else None


def day_first(text: str) -> bool:
    """The name is of a country that writes the day before the month."""
    return bool(_CYRILLIC.search(text) or _DAY_FIRST_TAGS.search(text))


def read_dates(text: str) -> tuple[str, bool]:
    """``text`` with its air dates written ``YYYY.MM.DD``, and whether one of them
    could be read two ways (the name does not say which)."""
    doubt = False
    first = day_first(text)

    def six(found: re.Match[str]) -> str:
        nonlocal doubt
        year = _short_year(found.group(1))
        day = _date(year, int(found.group(2)), int(found.group(3))) if year else None
        if day is None:
            return found.group(0)
        other_year = _short_year(found.group(3))
        other = _date(other_year, int(found.group(2)), int(found.group(1))) if other_year else None
        if first and other is not None and other != day and not _KOREAN_JAPANESE.search(text):
            doubt = True
        return _iso(day)

    def dotted(found: re.Match[str]) -> str:
        nonlocal doubt
        a, b, year = int(found.group(1)), int(found.group(3)), int(found.group(4))
        as_day_first, as_month_first = _date(year, b, a), _date(year, a, b)
        if as_day_first is None or as_month_first is None or as_day_first == as_month_first:
            return found.group(0)  # one reading, guessit's
        doubt = doubt or not first
        return found.group(0)  # guessit reads the day first, and keeps a time after it

    def written(found: re.Match[str]) -> str:
        month = _RU_MONTHS.index(found.group(2).lower()) + 1
        day = _date(int(found.group(3)), month, int(found.group(1)))
        return _iso(day) if day else found.group(0)

    def kanji(found: re.Match[str]) -> str:
        day = _date(int(found.group(1)), int(found.group(2)), int(found.group(3)))
        return f" {_iso(day)} " if day else found.group(0)

    text = _KANJI.sub(kanji, text)
    text = _RU_WRITTEN.sub(written, text)
    text = _DAY_FIRST.sub(dotted, text)
    text = _SIX.sub(six, text)
    return _ISSUE_OF.sub("", text), doubt
