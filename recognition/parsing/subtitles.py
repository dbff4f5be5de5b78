"""A subtitle file's language and flags, from its name and folders.

Codes and English names are babelfish's (ISO 639-1, 639-2/B and /T, "Russian");
what it does not know is the words of Russian trackers and a few release habits
(``rus`` is ISO, ``рус`` and ``ua`` are not).
"""

import re
import unicodedata
from functools import lru_cache
from pathlib import PurePosixPath

import babelfish

# Release words for languages that are not ISO codes or English names.
_WORDS = {
    "англ": "en",
    "английский": "en",
    "английские": "en",
    "англ.": "en",
    "рус": "ru",
    "русский": "ru",
    "русские": "ru",
    "russkiy": "ru",
    "укр": "uk",
    "ua": "uk",
    "украинский": "uk",
    "украинские": "uk",
    "українська": "uk",
    "немецкий": "de",
    "deutsch": "de",
    "французский": "fr",
    "francais": "fr",
    "français": "fr",
    "испанский": "es",
    "espanol": "es",
    "español": "es",
    "итальянский": "it",
    "italiano": "it",
    "portugues": "pt",
    "português": "pt",
    "brazilian": "pt",
    "японский": "ja",
    "jap": "ja",
    "jp": "ja",
    "китайский": "zh",
    "chs": "zh",
    "cht": "zh",
    "корейский": "ko",
    "польский": "pl",
    "polski": "pl",
    "greek": "el",
}
# Two-letter ISO codes that are, in a file name, far more often English words.
_NOT_LANGUAGES = frozenset(
    {"an", "am", "as", "at", "by", "do", "go", "if", "in", "is", "me", "my", "of", "on", "or"}
    | {"so", "to", "up", "we", "cd", "hd", "tv", "ep", "sd"}
)


@lru_cache(maxsize=1024)
def language_code(token: str) -> str | None:
    """ISO 639-1 code of a word in a file name, or None: "ru", "rus", "Russian", "рус"."""
    word = token.casefold()
    if word in _WORDS:
        return _WORDS[word]
    try:
        if len(word) == 2 and word.isascii() and word not in _NOT_LANGUAGES:
            return str(babelfish.Language.fromalpha2(word).alpha2)
        if len(word) == 3 and word.isascii():
            try:
                return str(babelfish.Language.fromalpha3b(word).alpha2)
            except babelfish.Error:
                return str(babelfish.Language(word).alpha2)
        if len(word) > 3 and word.isascii() and word.isalpha():
            return str(babelfish.Language.fromname(word.capitalize()).alpha2)
    except (babelfish.Error, ValueError):
        return None
    return None


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
        lambda m: m.group(1) if language_code(m.group(1)) else m.group(0), name
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
        elif (code := language_code(token)) is not None:
            languages.append(code)
        elif token not in _NEUTRAL:
            break
    if saw_hi:
        # "Movie.en.hi.srt" is hearing impaired; a lone "hi" is Hindi.
        if languages:
            flags.append("sdh")
        else:
            languages.append("hi")
    return (languages[0] if languages else None), tuple(flags)
