"""Which title a download is: accept one candidate, ask the person, or find none.

Each candidate gathers :class:`Evidence` against what the release says (a
:class:`Query`): how its names match the release's title, whether the years agree,
the country tag, whether the seasons and episodes exist, an id that names it. The
decision (:func:`decide`) is a short rule over that evidence:

1. An id (IMDb in an ``.nfo``, a TMDB link) that names exactly one candidate wins.
2. A candidate the release contradicts is out: a year two or more off, another
   country than the tag, a season or episode it does not have.
3. Of the rest, only the best title match counts: an exact name (title, original,
   alternative title or translation) beats a close one, a close one beats one that
   only contains the query ("Heroes" over "Heroes Reborn").
4. Among those, the year (exact over one off), then the country tag, then fitting
   seasons separate them; the year separates only when popularity does not point the
   other way by a wide factor.
5. Still several: the far more popular one (``WIDE`` times the next), else the
   person picks. Two same-title works that stay close are never guessed, and two
   films or two shows of one name are chosen by popularity only when the release's
   name points to the famous one too (``_format_points``).

The accepted candidate's confidence (:func:`confidence`) must also reach
``auto_accept``: it is how strong its evidence is, so a partial title never passes
the default 0.85, an exact one does.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from recognition.candidates import Candidate, Evidence, Query
from recognition.folding import title_key
from recognition.weigh import (
    DUBBED_INTO,
    TITLE_RANK,
    YEAR_RANK,
    confidence,
    contradicted,
    listed_otherwise,
    weigh,
)

MAX_CANDIDATES = 5
# How many times more popular one candidate must be to be taken over another that
# the evidence cannot tell from it. TMDB's popularity moves a lot week to week; a
# remake and its original are usually within 2-5x, a famous film and an obscure
# one of the same name 20x and more.
WIDE = 10.0
# Popularity below this is "nobody watches it": ratios against it mean little.
POPULARITY_FLOOR = 0.5


@dataclass(frozen=True)
class Decision:
    chosen: Candidate | None
    candidates: tuple[Candidate, ...]  # weighed, best first
    # accepted: identifier | only | aired | episode | listed | pack | complete | whole |
    # year | country | language | capture | seasons | genre | article | service | runtime |
    # popularity;
    # asked: nothing | contradicted | weak | ambiguous | unsure
    rule: str
    confidence: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> str:
        """``auto.<rule>`` or ``review.<rule>``: why it was decided so."""
        return f"{'auto' if self.chosen is not None else 'review'}.{self.rule}"


# --- the decision ---------------------------------------------------------------------


def decide(query: Query, found: Iterable[Candidate], auto_accept: float) -> Decision:
    """Weigh every candidate and decide (the rules are in the module's docstring)."""
    weighed = ranked(query, found)
    if not weighed:
        return Decision(None, (), "nothing", 0.0)
    pinned = [c for c in weighed if c.evidence is not None and c.evidence.identifier]
    if len(pinned) > 1:
        # An .nfo that lists the group's other releases: the ids of other titles than
        # the name's are no evidence; one the name agrees with still decides.
        pinned = [c for c in pinned if _ev(c).title != "weak"]
    if len(pinned) == 1:
        against = named_against_id(pinned[0], weighed)
        if against:
            return _review(weighed, "contradicted", [pinned[0], *against])
        return _accept(pinned[0], weighed, "identifier", auto_accept)
    alive = [c for c in weighed if not contradicted(_ev(c))]
    if not alive:
        return _review(weighed, "contradicted")
    best_title = max(TITLE_RANK[_ev(c).title] for c in alive)
    if best_title == TITLE_RANK["weak"]:
        return _review(weighed, "weak")
    group = [c for c in alive if TITLE_RANK[_ev(c).title] == best_title]
    ruled_out = _ruled_out_by([c for c in weighed if c not in alive], best_title)
    group, rule = _tie_broken(query, group, ruled_out)
    if rule is None:
        return _review(weighed, "ambiguous", group)
    if len(group) > 1:
        by_popularity = sorted(group, key=lambda c: -c.popularity)
        if _popular(by_popularity[:1]) < WIDE * _popular(by_popularity[1:2]):
            return _review(weighed, "ambiguous", by_popularity)
        if not _format_points(query, by_popularity[0], by_popularity[1:]):
            return _review(weighed, "ambiguous", by_popularity)
        group, rule = by_popularity[:1], "popularity"
    chosen = group[0]
    named = _named_instead(query, chosen, weighed)
    if named is not None:
        # Weighed under the reading with the year: its name matches, the year is against.
        dated = replace(query, readings=tuple(r for r in query.readings if r.year is not None))
        again = replace(named, evidence=weigh(dated, named))
        weighed = [again if c is named else c for c in weighed]
        return _accept(again, weighed, "episode", auto_accept)
    doubts = _doubts(chosen, alive, best_title, weighed)
    if doubts:
        return _review(weighed, "ambiguous", [chosen, *doubts])
    return _accept(chosen, weighed, rule, auto_accept)


def named_against_id(pinned: Candidate, weighed: Sequence[Candidate]) -> list[Candidate]:
    """Titles the name gives where an id names another: the id's title has the name but
    a year two or more off or another country than the name's tag, and these have the
    name with its year or tag ("Dune.2021" with an .nfo of the 1984 film's IMDb id;
    "The.Office.UK" with the US show's); or the id's title is not the name at all and
    these are ("Ghostbusters.1984" with an .nfo of The Matrix's id): the id and the name
    disagree, asked. A year one off, or nothing of the name that another title fits,
    leaves the id to decide."""
    ev = _ev(pinned)
    by_year, by_country = ev.year_against or ev.year == "far", ev.country == "mismatch"
    by_title = ev.title == "weak"
    if not (by_year or by_country or by_title):
        return []
    return [
        c
        for c in weighed
        if c is not pinned
        and not contradicted(_ev(c))
        and _ev(c).title in ("exact", "close")
        and (
            by_title
            or (by_year and _ev(c).year == "exact")
            or (by_country and _ev(c).country == "match")
        )
    ]


def _tie_broken(
    query: Query, group: list[Candidate], rule: str
) -> tuple[list[Candidate], str | None]:
    """The candidates of the best title that the tie-breakers leave, and the rule
    that chose them: the last tie-breaker that told them apart, else ``rule``. None
    for the rule when a far more watched title stands against one that only the year
    or a tag fits (a year off by one is normal, a dub is tagged with its language):
    ask."""
    for name, rank in _TIE_BREAKERS:
        top = max(rank(c) for c in group)
        leaders = [c for c in group if rank(c) == top]
        if len(leaders) == len(group):
            continue
        trailing = [c for c in group if rank(c) < top]
        if (
            name not in _DECISIVE
            and not (name == "language" and query.language not in DUBBED_INTO)
            and _popular(trailing) >= WIDE * _popular(leaders)
        ):
            return group, None
        if name == "pack" and max(map(_year_rank, trailing)) > max(map(_year_rank, leaders)):
            return group, None  # the count says one title, the year another: ask
        if name == "whole" and _counted_on(query, leaders) and not _counted_on(query, trailing):
            return group, None  # "Spice and Wolf - 20": S02E07 counted on, or the remake's 20
        group, rule = leaders, name
    return group, rule


def _counted_on(query: Query, candidates: Sequence[Candidate]) -> bool:
    """Whether a number without a season is past the first season of every one of
    ``candidates``: it fits them only counted on across seasons."""
    numbers = [e for s, e, _ in query.episodes if s is None]
    firsts = [
        min((s for s in c.seasons or () if s.number > 0), key=lambda s: s.number, default=None)
        for c in candidates
    ]
    return bool(numbers) and all(f is not None and max(numbers) > f.episodes for f in firsts)


def _format_points(query: Query, famous: Candidate, others: Sequence[Candidate]) -> bool:
    """Whether popularity may choose between ``famous`` and the ``others`` of its kind:
    only when the release's name points to the famous one — its format is of the
    famous one's time and not of the others' (``Evidence.era``: "Parasite.2160p.UHD",
    the 1982 film has no such release; "Teen.Wolf.S02E05.1080p.BluRay", the cartoon
    ended in 1987; "The.Office.S01E03.720p.HDTV", the BBC's ended before HD captures
    and the Australian one was only streamed), or it is a scene name (it names its
    format) without a language tag, and only the famous one is in English: a release
    in another language says which ("Joker.1080p.BluRay" is not the Hindi film, which
    would say HINDI). A bare "Joker.avi" or "Teen.Wolf.S01E05.avi", or a name of two
    titles both of its format's time, says nothing of which: asked."""
    if any(c.kind != famous.kind for c in others):
        return True
    if query.since is None:
        return False
    if _ev(famous).era == "in" and all(_ev(c).era == "before" for c in others):
        return True
    return (
        query.language is None
        and famous.language == "en"
        and all(c.language not in (None, "en") for c in others)
    )


def _doubts(
    chosen: Candidate, alive: Sequence[Candidate], best_title: int, others: Sequence[Candidate]
) -> list[Candidate]:
    """Candidates that put the chosen one in doubt, to ask about beside it: ones a tag
    fits where it does not fit the chosen one, ones only the year ruled out that the
    files fit better, or, for an exact title without a year, a far more watched longer
    title that starts with it."""
    fitting = _fits_tags_better(chosen, alive)
    if fitting:
        # "Money.Heist.KOREAN": the Spanish show by its exact title, the Korean remake
        # by the tag; a title's words and the tags must agree on one.
        return fitting
    by_files = _files_fit_better(chosen, others)
    if by_files:
        return by_files
    by_year = _year_fits_better(chosen, alive)
    if by_year:
        return by_year
    if best_title != TITLE_RANK["exact"] or _ev(chosen).year != "none":
        return []
    start = title_key(_ev(chosen).matched) + " "
    longer = [
        c
        for c in alive
        if _ev(c).title in ("partial", "close") and title_key(_ev(c).matched).startswith(start)
    ]
    # "Frieren" exact for an obscure title while "Frieren: Beyond Journey's End" is
    # what everybody watches: a release may shorten a long title.
    return longer if longer and _popular(longer) >= WIDE * _popular([chosen]) else []


def _named_instead(
    query: Query, chosen: Candidate, others: Sequence[Candidate]
) -> Candidate | None:
    """The one show only the year ruled out whose episode of that number has the name
    the release gives it, while the chosen show lists that episode under another name
    ("Charmed.2018.S01E01.Something.Wicca.This.Way.Comes": the 1998 show's first, the
    reboot's is "Pilot"): the number and the name agree on it, only the year does not."""
    if _ev(chosen).episode_named or not listed_otherwise(query, chosen):
        return None
    named = [c for c in others if c is not chosen and _ev(c).year_against and _ev(c).episode_named]
    return named[0] if len(named) == 1 else None


def _files_fit_better(chosen: Candidate, others: Sequence[Candidate]) -> list[Candidate]:
    """Titles whose name matches that only the year ruled out, while the files
    fit them better: the episode's name is theirs, or the season pack is their whole
    season and far short of the chosen one's. A year is never the only evidence
    against what the files say ("Utopia.2020.S01" with the six episodes of the 2013
    show's season)."""
    mine = _ev(chosen)
    return [
        c
        for c in others
        if c is not chosen
        and _ev(c).year_against
        and (
            (_ev(c).episode_named and not mine.episode_named)
            or (mine.short and not _ev(c).short and _ev(c).seasons == "fit")
        )
    ]


def _year_fits_better(chosen: Candidate, alive: Sequence[Candidate]) -> list[Candidate]:
    """Films of a nearly equal title whose year is the release's, while the chosen one's
    is only one off: "Annihilation.2017" is the 2018 film by its title and Patton
    Oswalt's special of 2017 ("Patton Oswalt: Annihilation") by its year."""
    if _ev(chosen).year not in ("near", "told"):
        return []
    return [
        c for c in alive if c is not chosen and _ev(c).title == "close" and _ev(c).year == "exact"
    ]


def _fits_tags_better(chosen: Candidate, alive: Sequence[Candidate]) -> list[Candidate]:
    """Candidates that a language or country tag fits where it does not fit the chosen
    one, with a title that could be it."""
    mine = _ev(chosen)
    return [
        c
        for c in alive
        if c is not chosen
        and TITLE_RANK[_ev(c).title] >= TITLE_RANK["partial"]
        and (
            (mine.language == "other" and _ev(c).language == "match")
            or (mine.country == "other" and _ev(c).country == "match")
        )
    ]


def _ruled_out_by(contradicted_ones: Sequence[Candidate], best_title: int) -> str:
    """``only``, or what ruled out the candidates with as good a title: the year, the
    country tag or the seasons ("Dune 2021": the 1984 film is out by its year)."""
    for candidate in contradicted_ones:
        evidence = _ev(candidate)
        if TITLE_RANK[evidence.title] >= best_title:
            if evidence.year == "far":
                return "year"
            if evidence.aired == "mismatch":
                return "aired"
            if evidence.too_big:
                return "runtime"
            return "country" if evidence.country == "mismatch" else "seasons"
    return "only"


def ranked(query: Query, found: Iterable[Candidate]) -> list[Candidate]:
    """Each candidate once, with its evidence, best first: not contradicted, then the
    title, the year, popularity."""
    unique: dict[tuple[str, str, str | None], Candidate] = {}
    for candidate in found:
        unique.setdefault((candidate.provider, candidate.kind, candidate.provider_id), candidate)
    weighed = [replace(c, evidence=weigh(query, c)) for c in unique.values()]
    weighed.sort(key=lambda c: (_order(_ev(c)), -c.popularity))  # stable: provider's order
    return weighed


def _order(evidence: Evidence) -> tuple[int, int, int]:
    return (contradicted(evidence), -TITLE_RANK[evidence.title], -YEAR_RANK[evidence.year])


def _ev(candidate: Candidate) -> Evidence:
    assert candidate.evidence is not None  # set by ranked
    return candidate.evidence


def _year_rank(candidate: Candidate) -> int:
    return YEAR_RANK[_ev(candidate).year]


def _country_rank(candidate: Candidate) -> int:
    return {"match": 3, "none": 2, "other": 1, "mismatch": 0}[_ev(candidate).country]


def _language_rank(candidate: Candidate) -> int:
    return {"match": 2, "none": 1, "other": 0}[_ev(candidate).language]


def _article_rank(candidate: Candidate) -> int:
    return int(not _ev(candidate).other_article)


def _service_rank(candidate: Candidate) -> int:
    return int(_ev(candidate).service)


def _episode_rank(candidate: Candidate) -> int:
    return int(_ev(candidate).episode_named)


def _aired_rank(candidate: Candidate) -> int:
    return int(_ev(candidate).aired == "match")


def _listed_rank(candidate: Candidate) -> int:
    """How many files TMDB's episode lists place ("Lost - Season 1/Tabula Rasa.avi": the
    show whose season names them)."""
    return len(_ev(candidate).listed)


def _pack_rank(candidate: Candidate) -> int:
    return int(not _ev(candidate).short)


def _complete_rank(candidate: Candidate) -> int:
    return int(_ev(candidate).whole_run)


def _capture_rank(candidate: Candidate) -> int:
    return int(not _ev(candidate).off_air)


def _whole_rank(candidate: Candidate) -> int:
    return int(not _ev(candidate).shortened)


def _genre_rank(candidate: Candidate) -> int:
    return _ev(candidate).genre


def _fit_rank(candidate: Candidate) -> int:
    return {"fit": 2, "none": 1, "misfit": 0}[_ev(candidate).seasons]


# What tells candidates of one title match apart, in order; the streaming service
# only among otherwise equal ones. The first three are facts of the files, never
# outweighed by popularity.
_TIE_BREAKERS: tuple[tuple[str, Callable[[Candidate], int]], ...] = (
    ("aired", _aired_rank),
    ("episode", _episode_rank),
    ("listed", _listed_rank),
    ("pack", _pack_rank),
    ("complete", _complete_rank),
    ("whole", _whole_rank),
    ("year", _year_rank),
    ("country", _country_rank),
    ("language", _language_rank),
    ("capture", _capture_rank),
    ("seasons", _fit_rank),
    ("genre", _genre_rank),
    ("article", _article_rank),
    ("service", _service_rank),
)
_DECISIVE = ("aired", "episode", "seasons")


def _popular(candidates: Sequence[Candidate]) -> float:
    return max((max(c.popularity, POPULARITY_FLOOR) for c in candidates), default=POPULARITY_FLOOR)


def _accept(chosen: Candidate, weighed: list[Candidate], rule: str, auto_accept: float) -> Decision:
    others = [c for c in weighed if c is not chosen]
    ratio = (
        round(max(chosen.popularity, POPULARITY_FLOOR) / _popular(others), 1) if others else None
    )
    sure = confidence(_ev(chosen), rule)
    chosen = replace(chosen, score=sure, evidence=replace(_ev(chosen), ratio=ratio))
    scored = _with_scores([chosen, *others])
    if sure + 1e-9 < auto_accept:
        return Decision(None, scored, "unsure", sure, {"rule": rule})
    return Decision(scored[0], scored, rule, sure)


def _review(weighed: list[Candidate], rule: str, first: Sequence[Candidate] = ()) -> Decision:
    ahead = list(first) + [c for c in weighed if c not in first]
    scored = _with_scores(ahead)
    return Decision(None, scored, rule, scored[0].score if scored else 0.0)


def _with_scores(candidates: Sequence[Candidate]) -> tuple[Candidate, ...]:
    """Each candidate's own confidence, as if it were accepted alone (the review page
    shows it); the best ``MAX_CANDIDATES``."""
    scored = [
        c if c.score else replace(c, score=0.0 if contradicted(_ev(c)) else confidence(_ev(c), ""))
        for c in candidates
    ]
    return tuple(scored[:MAX_CANDIDATES])
