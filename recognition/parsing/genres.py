"""What kind of work a release's name says it is: anime or live action, a documentary,
a concert film, a stand-up special (pure).

Two titles of one name that nothing else tells apart (an anime and its live-action
remake, a documentary and a drama, a concert film and a biopic) are told apart by
TMDB's genres when the name says which: ``said_genres`` gives what it says, each with
the word that said it (a word that is part of a candidate's own name says nothing of
it: "The Tour" is no concert film for that word). A name that says two things that
disagree (a fansub's shape and "J-Drama") says nothing of either.
"""

import re
from typing import Literal

from recognition.folding import ARTICLES, title_key
from recognition.parsing.release import anime_shaped

Genre = Literal["animation", "live", "documentary", "music", "comedy"]

# The words of each kind, as names write them. Not a channel that also makes dramas
# ("BBC", "PBS"): those say nothing of the genre. "DOC" only as a capital tag ("Doc
# Martin" is a title).
_WORDS: tuple[tuple[Genre, re.Pattern[str]], ...] = (
    ("animation", re.compile(r"(?i)(?<![^\W_])(?:anime|аниме|アニメ|动画|動畫)(?![^\W_])")),
    (
        "live",
        re.compile(
            r"(?i)(?<![^\W_])(?:live[\s._-]?action|[jk][\s._-]?drama|dorama|дорама"
            r"|実写(?:版|ドラマ)?|實寫版?|真人版)(?![^\W_])"
        ),
    ),
    (
        "documentary",
        re.compile(
            r"(?i)(?<![^\W_])(?:documentar(?:y|ies)|documentaire|documental|document[aá]rio"
            r"|dokumentation|dokumentarfilm|doku|docu(?:[\s._-]?series)?|docuseries"
            r"|nat[\s._-]?geo|national[\s._-]geographic|discovery[\s._-]channel"
            r"|документальн\w*|док\.?[\s._-]фильм)(?![^\W_])"
        ),
    ),
    ("documentary", re.compile(r"(?<![^\W_])DOC(?![^\W_])")),
    (
        "music",
        re.compile(
            r"(?i)(?<![^\W_])(?:concert(?:[\s._-]film)?|in[\s._-]concert|live[\s._-](?:at|in|from)"
            r"|(?:world[\s._-])?tour|концерт)(?![^\W_])"
        ),
    ),
    (
        "comedy",
        re.compile(
            r"(?i)(?<![^\W_])(?:stand[\s._-]?up(?:[\s._-]comedy)?(?:[\s._-]special)?"
            r"|comedy[\s._-]special|стендап|стенд-ап)(?![^\W_])"
        ),
    ),
)
# Streaming services of anime alone.
_ANIME_SERVICES = frozenset({"Crunchy Roll", "Funimation", "HIDIVE", "Anime Digital Network"})


def said_genres(names: list[str], service: str | None) -> tuple[tuple[Genre, str], ...]:
    """(genre, the word that says it) of what ``names`` (the torrent's name, its first
    video's) say; the word "" for a fansub's shape or an anime service's tag. Anime and
    live action said together: neither."""
    found: dict[tuple[Genre, str], None] = {}
    for name in names:
        for genre, pattern in _WORDS:
            for match in pattern.finditer(name):
                found[(genre, match.group(0).casefold())] = None
        if anime_shaped(name):
            found[("animation", "")] = None
    if service in _ANIME_SERVICES:
        found[("animation", "")] = None
    said = list(found)
    kinds = {genre for genre, _ in said}
    if {"animation", "live"} <= kinds:
        said = [(g, w) for g, w in said if g not in ("animation", "live")]
    return tuple(said)


# Words that only say the genre, after a title: "Amazing Grace Concert Film", "Oshi no
# Ko Live Action" are searched without them.
_AFTER_TITLE = re.compile(
    r"(?i)(?:\s+(?:documentary|documentaire|docu|concert(?:\s+film)?|live\s+concert"
    r"|live\s+action|stand[\s-]?up(?:\s+comedy)?(?:\s+special)?|comedy\s+special|natgeo))+$"
)


def without_genre_words(title: str) -> str | None:
    """``title`` without the genre words it ends with; None when it ends with none or
    nothing but an article is left ("Concert", "The Concert" are titles)."""
    bare = _AFTER_TITLE.sub("", title).strip()
    if bare == title or not set(title_key(bare).split()) - ARTICLES:
        return None
    return bare
