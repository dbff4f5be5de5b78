"""Scoring metadata candidates against what a torrent's name says (pure).

A candidate's score in [0, 1] is mostly title similarity, then the year, then —
only to break near ties — popularity:

- **title** (weight ``TITLE_WEIGHT``): the best match of the query's title and
  alternative title (e.g. the Cyrillic name in a Russian release) against the
  candidate's localized title and its original title. Titles are normalized
  (case, accents, punctuation, a leading English article) and compared with
  difflib on the text and on sorted words; a query whose words are all in the
  title ("Frieren" in "Frieren: Beyond Journey's End") gets a floor.
- **year**: exact ``+YEAR_EXACT``, one off ``+YEAR_NEAR`` (release dates differ
  by country), unknown on either side ``0``, further off ``-YEAR_FAR``.
- **popularity**: at most ``+POPULARITY_WEIGHT``, log-scaled, so it decides
  only between otherwise equal candidates.

:func:`decide` accepts the top candidate only when it is good enough *and*
clearly ahead of the runner-up; anything else goes to review.
"""

import difflib
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

Provider = Literal["tmdb", "local"]
MediaKind = Literal["movie", "series"]

MAX_CANDIDATES = 5
TITLE_WEIGHT = 0.88
YEAR_EXACT = 0.10
YEAR_NEAR = 0.05
YEAR_FAR = 0.25
POPULARITY_WEIGHT = 0.02
# TMDB popularity at which the bonus is full; typical titles are at 5-500.
POPULARITY_FULL = 1000.0
# A query whose words start the title / are all in the title.
PREFIX_FLOOR = 0.80
CONTAINED_FLOOR = 0.70
DEFAULT_MARGIN = 0.1
_EPSILON = 1e-9

_ARTICLES = frozenset({"the", "a", "an"})
_NON_WORD = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Candidate:
    """One possible identity of a download, from a metadata provider or the name."""

    provider: Provider
    provider_id: str | None
    kind: MediaKind
    title: str
    original_title: str | None
    year: int | None
    overview: str | None
    poster_path: str | None
    popularity: float
    score: float = 0.0


def normalize(title: str) -> str:
    """Casefolded words without accents, punctuation or a leading English article.

    "The Office!" -> "office"; "Amélie" -> "amelie"; "Ёлки" -> "елки".
    """
    text = unicodedata.normalize("NFKD", title.replace("&", " and "))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    words = _NON_WORD.sub(" ", text).split()
    if len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(words)


def title_similarity(query: str, title: str) -> float:
    """Similarity in [0, 1] of two titles after :func:`normalize`."""
    a, b = normalize(query), normalize(title)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    ratio = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    words_a, words_b = a.split(), b.split()
    by_words = difflib.SequenceMatcher(
        None, " ".join(sorted(words_a)), " ".join(sorted(words_b)), autojunk=False
    ).ratio()
    best = max(ratio, by_words)
    if words_b[: len(words_a)] == words_a:
        best = max(best, PREFIX_FLOOR + (1 - PREFIX_FLOOR) * ratio)
    elif set(words_a) <= set(words_b):
        best = max(best, CONTAINED_FLOOR + (1 - CONTAINED_FLOOR) * ratio)
    return best


def year_adjustment(query_year: int | None, year: int | None) -> float:
    if query_year is None or year is None:
        return 0.0
    distance = abs(query_year - year)
    if distance == 0:
        return YEAR_EXACT
    if distance == 1:
        return YEAR_NEAR
    return -YEAR_FAR


def popularity_bonus(popularity: float) -> float:
    if popularity <= 0 or not math.isfinite(popularity):
        return 0.0
    return POPULARITY_WEIGHT * min(1.0, math.log1p(popularity) / math.log1p(POPULARITY_FULL))


def candidate_score(
    query_title: str, query_alt_title: str | None, query_year: int | None, candidate: Candidate
) -> float:
    """The score in [0, 1] of one candidate (see the module's docstring)."""
    queries = [q for q in (query_title, query_alt_title) if q]
    titles = [t for t in (candidate.title, candidate.original_title) if t]
    similarity = max(
        (title_similarity(q, t) for q in queries for t in titles),
        default=0.0,
    )
    total = (
        TITLE_WEIGHT * similarity
        + year_adjustment(query_year, candidate.year)
        + popularity_bonus(candidate.popularity)
    )
    return round(min(1.0, max(0.0, total)), 4)


def score(
    query_title: str,
    query_alt_title: str | None,
    query_year: int | None,
    candidates: Iterable[Candidate],
) -> list[Candidate]:
    """The candidates with their scores, best first, at most ``MAX_CANDIDATES``.

    Equal scores keep the more popular first, then the provider's order.
    """
    scored = [
        replace(c, score=candidate_score(query_title, query_alt_title, query_year, c))
        for c in candidates
    ]
    scored.sort(key=lambda c: (-c.score, -c.popularity))  # stable: provider's order last
    return scored[:MAX_CANDIDATES]


def decide(
    candidates: Sequence[Candidate], auto_accept: float, margin: float = DEFAULT_MARGIN
) -> Candidate | None:
    """The candidate to accept without asking, or None when a person should pick.

    The best one is accepted when its score reaches ``auto_accept`` and it leads
    the runner-up by at least ``margin``.
    """
    if not candidates:
        return None
    ranked = sorted(candidates, key=lambda c: -c.score)
    top = ranked[0]
    if top.score + _EPSILON < auto_accept:
        return None
    if len(ranked) > 1 and top.score - ranked[1].score + _EPSILON < margin:
        return None
    return top
