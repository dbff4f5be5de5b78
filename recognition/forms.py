"""Other forms of a release's title that TMDB's search may know (pure).

TMDB finds a title only when every word searched is a word of one of its names, so a
release that writes a name otherwise finds nothing: "It Chapter 2" for "It Chapter
Two", "Avatar 2 The Way of Water" for "Avatar: The Way of Water", "Evangelion 3.33 You
Can Not Redo" for "Evangelion: 3.0 You Can (Not) Redo", "Jujutsu Kaisen 0 The Movie"
for "Jujutsu Kaisen 0", "Romeo and Juliet" for "Romeo + Juliet", "Moskva slezam ne
verit" for "Москва слезам не верит". ``other_forms`` gives those forms, the likeliest
first; ``recognition.gather`` searches them while nothing strong is found. "Volume"
is searched as TMDB abbreviates it ("Kill Bill: Vol. 1").
"""

import re
from dataclasses import dataclass

from recognition.folding import NUMBER_WORDS
from recognition.parsing.genres import without_genre_words

_DIGITS = {word: str(number) for number, word in enumerate(NUMBER_WORDS) if number}
# A number in a title: "2", "3.33", "3.0+1.01", "1+1".
_NUMBER = re.compile(r"\d+(?:[.+]\d+)*")
_MOVIE_AT_END = re.compile(r"(?i)\s+(?:the\s+)?movie$")
_AND = re.compile(r"(?i)\s+(?:and|&)\s+")
_VOLUME = re.compile(r"(?i)(?<![^\W_])volume(?=\s+\S)")
# Words that say what a release is ("Сериал Сваты", "Интерны (сериал)", "(фильм)"): no
# words of its title ("фильм" only in brackets: "Мой любимый фильм" is a title).
_KIND_WORDS = re.compile(
    r"(?i)[(\[]?(?<![^\W_])(?:теле|мини-?|мульт)?сериал(?![^\W_])[)\]]?"
    r"|[(\[](?:теле|мульт)?фильм[)\]]"
)
# Words of English titles: a title with one of them is not a Russian name in Latin.
_ENGLISH = frozenset({"the", "of", "and", "a", "an", "in", "to", "for", "with", "my", "is", "at"})


@dataclass(frozen=True)
class Form:
    title: str
    weighed: bool = False  # also a reading the candidates are weighed by
    when_nothing: bool = False  # searched only while nothing at all is found


def other_forms(title: str, year: int | None) -> tuple[Form, ...]:
    """The forms of ``title`` a search may know, the likeliest first (none repeats
    ``title``). A form that drops a sequel number before a subtitle is a reading of its
    own only with a ``year``: "Deadpool 2 Super Duper Cut" must not read as "Deadpool"."""
    forms: list[Form] = []
    if (bare_kind := " ".join(_KIND_WORDS.sub(" ", title).split())) and bare_kind != title:
        forms.append(Form(bare_kind, weighed=True))  # "Сериал Сваты" is "Сваты"
    if (bare_genre := without_genre_words(title)) is not None:
        forms.append(Form(bare_genre, weighed=True))  # "Amazing Grace Concert Film"
    if (swapped := numbers_swapped(title)) is not None:
        forms.append(Form(swapped))  # title_key reads both the same
    if (short := _VOLUME.sub("Vol", title)) != title:
        forms.append(Form(short))  # "Kill Bill Volume 1": TMDB's "Vol. 1"; title_key too
    film = _MOVIE_AT_END.sub("", title).strip() or title  # "Jujutsu Kaisen 0 The Movie"
    if film != title:
        forms.append(Form(film))
    if (bare := without_inner_numbers(film)) is not None:
        forms.append(Form(bare, weighed=year is not None))
    if len(title.split()) >= 3 and (joined := _AND.sub(" ", title)) != title:
        forms.append(Form(joined))  # "Romeo + Juliet": TMDB's "+" is no word
    if (cyrillic := cyrillic_of(title)) is not None:
        forms.append(Form(cyrillic, weighed=True, when_nothing=True))
    return tuple(forms)


def numbers_swapped(title: str) -> str | None:
    """Numbers up to twenty written the other way: "It Chapter 2" → "It Chapter Two",
    "Twelve Monkeys" → "12 Monkeys". None: no such number, or the title is only one."""
    words = title.split()
    if len(words) < 2:
        return None
    numbers = [bool(_NUMBER.fullmatch(w)) for w in words]
    swapped = [
        NUMBER_WORDS[int(w)].capitalize()
        if w.isdigit()
        and 0 < int(w) < len(NUMBER_WORDS)
        and not any(numbers[i - 1 : i] + numbers[i + 1 : i + 2])
        else _DIGITS.get(w.casefold(), w)
        for i, w in enumerate(words)
    ]  # not a number beside another: "3 33" is a version
    return " ".join(swapped) if swapped != words else None


def without_inner_numbers(title: str) -> str | None:
    """The title without the numbers that have words before them and two or more
    after: a sequel's number the release adds ("Avatar 2 The Way of Water") or a
    version TMDB writes otherwise ("Evangelion 3.33 You Can Not Redo", "Evangelion 3
    0 1 01 Thrice Upon a Time")."""
    words = title.split()
    numbers = [bool(_NUMBER.fullmatch(w)) for w in words]
    kept = [
        w
        for i, w in enumerate(words)
        if not (numbers[i] and not all(numbers[:i]) and len(words) - i - sum(numbers[i:]) >= 2)
    ]
    return " ".join(kept) if len(kept) != len(words) else None


_LATIN_TO_CYRILLIC = (
    ("shch", "щ"), ("zh", "ж"), ("kh", "х"), ("ts", "ц"), ("ch", "ч"), ("sh", "ш"),
    ("ya", "я"), ("yu", "ю"), ("yo", "ё"), ("ye", "е"), ("ja", "я"), ("ju", "ю"), ("jo", "ё"),
    ("a", "а"), ("b", "б"), ("v", "в"), ("g", "г"), ("d", "д"), ("z", "з"), ("i", "и"),
    ("j", "й"), ("k", "к"), ("l", "л"), ("m", "м"), ("n", "н"), ("o", "о"), ("p", "п"),
    ("r", "р"), ("s", "с"), ("t", "т"), ("u", "у"), ("f", "ф"), ("h", "х"), ("x", "кс"),
    ("'", "ь"),
)  # fmt: skip
_VOWELS = frozenset("аеёиоуыэюя")


def cyrillic_of(title: str) -> str | None:
    """A Russian name written in Latin letters, back in Cyrillic ("Moskva slezam ne
    verit" → "Москва слезам не верит", "Kukhnya" → "Кухня"): TMDB knows a Russian title
    by its Russian name, rarely by a transliteration. None: the title is not such a
    name (letters no transliteration uses, English words)."""
    words = title.split()
    if not words or any(w.casefold() in _ENGLISH for w in words):
        return None
    written = []
    for word in words:
        if word.isdigit():
            written.append(word)
            continue
        if (cyrillic := _word_in_cyrillic(word.casefold())) is None:
            return None
        written.append(cyrillic)
    result = " ".join(written)
    return result[:1].upper() + result[1:] if result != title.casefold() else None


def _word_in_cyrillic(word: str) -> str | None:
    out = ""
    i = 0
    while i < len(word):
        latin, cyrillic = next(
            ((a, b) for a, b in _LATIN_TO_CYRILLIC if word.startswith(a, i)), ("", "")
        )
        if latin:
            out, i = out + cyrillic, i + len(latin)
        elif word[i] == "y":  # "ы" after a consonant, "й" after a vowel
            out, i = out + ("й" if out[-1:] in _VOWELS else "ы"), i + 1
        elif word[i] == "e":  # "Ekipazh": a word opens with "э" more often than "е"
            out, i = out + ("э" if not out else "е"), i + 1
        else:
            return None
    return out
