"""Title text as jellybit compares it (pure): one place for folding titles.

``fold`` is for words in names (case, ``ё``, apostrophes, punctuation); ``title_key``
is what two titles are compared by: folded, without accents, ``&`` as ``and``, number
words and Roman numerals as digits, "Volume" as "Vol", without a leading article. "The
Lord of the Rings: The Two Towers" and "Lord.of.the.Rings.The.Two.Towers" have the same
key, and so do "Rocky II" / "Rocky 2", "Part One" / "Part 1" and "Volume 1" / "Vol. 1".
"""

import re
import unicodedata
from functools import lru_cache

_NON_WORD = re.compile(r"[\W_]+")
_APOSTROPHES = re.compile(r"['’`ʼ]")
ARTICLES = frozenset({"the", "a", "an"})
# Numbers written as words, by their value: "Ocean's Eleven", "Twelve Monkeys", "It
# Chapter Two": releases write them in digits too.
NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen", "twenty",
)  # fmt: skip
_NUMBER_WORDS = {word: str(number) for number, word in enumerate(NUMBER_WORDS) if number}
# Roman numerals that are never ordinary words; "I", "V", "X" and "L" are ("I, Robot",
# "V for Vendetta", "Malcolm X"), so they stay as they are.
_ROMAN = {
    "ii": "2",
    "iii": "3",
    "iv": "4",
    "vi": "6",
    "vii": "7",
    "viii": "8",
    "ix": "9",
    "xi": "11",
    "xii": "12",
    "xiii": "13",
}

# Letters NFKD leaves whole that releases write in plain Latin ("Muhtesem Yuzyil" of
# "Muhteşem Yüzyıl", "Slepnac od swiatel" of "Ślepnąc od świateł", "Ornen" of "Ørnen").
_PLAIN = str.maketrans({"ı": "i", "ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D"})

# Words TMDB's names abbreviate where releases write them out ("Kill Bill: Vol. 1").
_SHORT = {"volume": "vol"}


# Weighing candidates folds the same few names again and again (millions of calls over
# the recognition sets, a tenth of their time): the keys are kept, at most ~1 MiB.
@lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """Casefolded words: apostrophes dropped ("It's" = "Its"), other punctuation as
    spaces, ``ё`` as ``е``."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    return " ".join(_NON_WORD.sub(" ", _APOSTROPHES.sub("", folded)).split())


@lru_cache(maxsize=4096)
def title_key(title: str) -> str:
    """The comparable form of a title (see the module's docstring)."""
    text = unicodedata.normalize("NFKD", title.replace("&", " and ").translate(_PLAIN))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    words = [_NUMBER_WORDS.get(w, _ROMAN.get(w, _SHORT.get(w, w))) for w in fold(text).split()]
    if len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    return " ".join(words)


def compact(key: str) -> str:
    """A key without spaces: "Spider-Man" and "Spiderman" are one title."""
    return key.replace(" ", "")


_DIGITS_TO_ROMAN = {digit: roman.upper() for roman, digit in _ROMAN.items()}


def numerals_swapped(title: str) -> str | None:
    """The title with its sequel number written the other way ("Rocky 2" → "Rocky
    II", "Part II" → "Part 2"): a search may know only one of them. None: no number."""
    words = title.split()
    swapped = [
        _DIGITS_TO_ROMAN.get(w) or (_ROMAN.get(w.casefold()) if w.isupper() else None) or w
        for w in words
    ]
    return " ".join(swapped) if swapped != words else None
