"""Which title a download is: candidates weighed by evidence, and a readable decision.

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
   person picks. Two same-title works that stay close are never guessed.

The accepted candidate's confidence (:func:`confidence`) must also reach
``auto_accept``: it is how strong its evidence is, so a partial title never passes
the default 0.85, an exact one does.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any, Literal, NamedTuple

from core.explained import explain
from core.titles import ARTICLES, compact, fold, title_key

Provider = Literal["tmdb", "local"]
MediaKind = Literal["movie", "series"]
TitleMatch = Literal["exact", "close", "partial", "weak"]
# "season": the year of one of the show's seasons (a tracker names a season pack
# "Dark / Сезон: 2 [2019, …]" by the season's year, not the show's).
YearMatch = Literal["exact", "near", "season", "far", "unknown", "none"]
# "other": none of a tracker's production countries (weaker than a scene's "UK" tag,
# which makes it a "mismatch": the release cannot be that title).
CountryMatch = Literal["match", "other", "mismatch", "none"]
# A language tag ("KOREAN") against the original language: a dub is tagged too, so
# "other" never rules a title out, it only tells equal ones apart.
LanguageMatch = Literal["match", "other", "none"]
# Languages that films and series are routinely dubbed into for release: there a tag
# often marks a dub of the famous title ("Suits.FRENCH" is the American show), so it
# does not outweigh a far more watched one. Into the others (Korean, Japanese, Thai,
# ...) a show is rarely dubbed: such a tag names the original language.
DUBBED_INTO = frozenset(
    {"de", "fr", "it", "es", "pt", "ru", "uk", "pl", "cs", "sk", "hu", "tr", "hi", "ta", "te"}
    | {"ar", "fa", "nl", "sv", "da", "no", "nb", "fi", "el", "ro", "bg", "lt", "lv", "ca"}
)
SeasonsMatch = Literal["fit", "misfit", "none"]
# A daily show's dated files against the episodes TMDB lists: "match" when it lists
# one on every date, "mismatch" when a date is outside the show's run.
AiredMatch = Literal["match", "mismatch", "none"]

MAX_CANDIDATES = 5
# How many times more popular one candidate must be to be taken over another that
# the evidence cannot tell from it. TMDB's popularity moves a lot week to week; a
# remake and its original are usually within 2-5x, a famous film and an obscure
# one of the same name 20x and more.
WIDE = 10.0
# Popularity below this is "nobody watches it": ratios against it mean little.
POPULARITY_FLOOR = 0.5

_TITLE_RANK: dict[TitleMatch, int] = {"exact": 3, "close": 2, "partial": 1, "weak": 0}
_YEAR_RANK: dict[YearMatch, int] = {
    "exact": 3,
    "near": 2,
    "season": 2,
    "unknown": 1,
    "none": 1,
    "far": 0,
}
_TITLE_CONFIDENCE: dict[TitleMatch, float] = {
    "exact": 0.90,
    "close": 0.80,
    "partial": 0.60,
    "weak": 0.30,
}
_YEAR_CONFIDENCE: dict[YearMatch, float] = {
    "exact": 0.08,
    "near": 0.05,
    "season": 0.05,
    "unknown": -0.05,
    "none": 0.0,
    "far": -0.5,
}
_COUNTRIES = {"UK": "GB"}


class Season(NamedTuple):
    number: int  # 0: specials
    episodes: int
    year: int | None = None  # of its first episode
    name: str | None = None  # TMDB's, when it is more than "Season N" ("The Final Season")
    air_date: str | None = None  # of its first episode, "YYYY-MM-DD"


class AiredEpisode(NamedTuple):
    """An episode as TMDB lists it in a season."""

    season: int
    number: int
    name: str | None
    air_date: str | None  # "YYYY-MM-DD"


@dataclass(frozen=True)
class Reading:
    """One way to read the release's title: ("Wonder Woman", 1984) and ("Wonder
    Woman 1984", None) are two readings of ``Wonder.Woman.1984.1080p``."""

    title: str
    year: int | None


@dataclass(frozen=True)
class Query:
    """What the release says about itself."""

    kind: Literal["movie", "series", "unknown"]
    readings: tuple[Reading, ...]
    country: str | None = None
    # (season, highest episode, counted across seasons) of each video; season None:
    # numbered across seasons.
    episodes: tuple[tuple[int | None, int, bool], ...] = ()
    seasons: tuple[int, ...] = ()  # seasons a pack says it holds
    identifiers: tuple[str, ...] = ()  # "imdb:tt…", "tmdb:movie/…"
    countries: tuple[str, ...] = ()  # a tracker's production countries
    language: str | None = None  # the language tag, ISO 639-1
    service: str | None = None  # the streaming service tag ("Netflix")
    dates: tuple[tuple[str, str], ...] = ()  # (path, "YYYY-MM-DD") of each dated video
    unnumbered: tuple[str, ...] = ()  # paths of videos with neither an episode nor a date
    episode_title: str | None = None  # the words after the title: an episode's name?
    special: bool = False  # the name says it is a special


@dataclass(frozen=True)
class Evidence:
    title: TitleMatch
    matched: str  # the candidate's name that matched best
    year: YearMatch
    country: CountryMatch = "none"
    seasons: SeasonsMatch = "none"
    misfit: str | None = None  # what it lacks: "S04", "S01E10", "E29" (absolute), "movie"
    identifier: bool = False
    ratio: float | None = None  # popularity against the best other candidate
    season: int | None = None  # the season the title's words past the show's name name
    unexplained: str | None = None  # words of the title the candidate does not explain
    season_words: str | None = None  # words of an alternative title naming no known season
    language: LanguageMatch = "none"
    service: bool = False  # the streaming service tag names one of its networks
    aired: AiredMatch = "none"
    episode_named: bool = False  # the name's episode title is TMDB's for that episode
    # The release and the original title differ by a leading article ("4400" and
    # "The 4400"): where another title is spelled as the release spells it, not this.
    other_article: bool = False
    # (path, season, episode) of files TMDB lists: aired on their date, or by name
    listed: tuple[tuple[str, int, int], ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if value not in (None, False)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Evidence":
        known = {key: data[key] for key in cls.__dataclass_fields__ if key in data}
        if "listed" in known:
            known["listed"] = tuple(tuple(row) for row in known["listed"])
        return cls(**{"title": "weak", "matched": "", "year": "none", **known})


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
    names: tuple[str, ...] = ()  # alternative titles and translations
    countries: tuple[str, ...] = ()  # origin (shows) or production countries (movies)
    seasons: tuple[Season, ...] | None = None  # None: unknown
    imdb_id: str | None = None
    language: str | None = None  # the original language, ISO 639-1
    networks: tuple[str, ...] = ()  # a show's networks ("Netflix", "BBC One")
    aired: tuple[AiredEpisode, ...] = ()  # episodes of seasons fetched (dates, specials)
    ended: str | None = None  # a show that ended: the day of its last episode
    score: float = 0.0  # the confidence, once weighed
    evidence: Evidence | None = None

    @property
    def ref(self) -> str:
        """``movie/438631`` or ``tv/1399``: the candidate as TMDB addresses it."""
        return f"{'tv' if self.kind == 'series' else 'movie'}/{self.provider_id}"

    def all_names(self) -> list[str]:
        return [n for n in (self.title, self.original_title, *self.names) if n]


@dataclass(frozen=True)
class Decision:
    chosen: Candidate | None
    candidates: tuple[Candidate, ...]  # weighed, best first
    # accepted: identifier | only | year | country | language | seasons | service |
    # popularity;
    # asked: nothing | contradicted | weak | ambiguous | unsure
    rule: str
    confidence: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> str:
        """``auto.<rule>`` or ``review.<rule>``: why it was decided so."""
        return f"{'auto' if self.chosen is not None else 'review'}.{self.rule}"


# --- titles ---------------------------------------------------------------------------


def title_match(query: str, name: str) -> TitleMatch:
    """How a candidate's name matches the release's title."""
    a, b = title_key(query), title_key(name)
    if not a or not b:
        return "weak"
    if a == b or compact(a) == compact(b):
        return "exact"
    words_a, words_b = a.split(), b.split()
    if _without_articles(words_a) == _without_articles(words_b):
        return "close"
    if sorted(words_a) == sorted(words_b):
        return "close"
    if len(a) >= 8 and _one_edit(compact(a), compact(b)):
        return "close"  # a typo, a letter more or less
    if words_b[: len(words_a)] == words_a or words_a[: len(words_b)] == words_b:
        return "partial"
    if set(words_a) <= set(words_b):
        return "partial"
    return "weak"


def _without_articles(words: list[str]) -> list[str]:
    return [w for w in words if w not in ARTICLES and w not in ("and", "of")]


def _one_edit(a: str, b: str) -> bool:
    """One letter more, less or other: a typo. A digit is never a typo ("Toy Story 3"
    is not "Toy Story")."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        changed = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
        return len(changed) == 1 and not any(ch.isdigit() for ch in changed[0])
    short, long = sorted((a, b), key=len)
    return any(
        long[:i] + long[i + 1 :] == short and not long[i].isdigit() for i in range(len(long))
    )


# --- evidence -------------------------------------------------------------------------


def weigh(query: Query, candidate: Candidate) -> Evidence:
    """The evidence for ``candidate`` under the query's reading that suits it best (one
    the release does not contradict, then the best title, then the best year). The
    words of a reading past the candidate's name must be explained by it (a season's
    name or number: ``core.explained``); a season they name is where the files go."""
    country = _country(query, candidate)
    language = _language(query.language, candidate)
    service = _service(query.service, candidate)
    aired, dated = _aired(query.dates, candidate)
    episode_named = _episode_named(query, candidate)
    identifier = _identified(query.identifiers, candidate)
    best: Evidence | None = None
    for reading in query.readings or (Reading("", None),):
        matched, title = _best_name(reading.title, candidate)
        why = explain(
            reading.title,
            [n for n in (candidate.title, candidate.original_title) if n],
            candidate.names,
            candidate.seasons if candidate.kind == "series" else None,
        )
        special = _special(query, candidate, why.unexplained, reading.year)
        if why.season is not None or special is not None:
            title = "exact"  # every word explained: the show's name and a season's
        elif why.unexplained and title in ("exact", "close"):
            title = "partial"
        year = _year(reading.year, candidate, query.seasons, query.special)
        named = next(
            (
                n
                for n in (
                    why.season,
                    _season_by_reading(query, candidate),
                    _season_of_year(year, reading, query, candidate),
                )
                if n is not None
            ),
            None,
        )
        seasons, misfit = _seasons(query, candidate, named)
        evidence = Evidence(
            title=title,
            matched=matched,
            year=year,
            country=country,
            seasons=seasons,
            misfit=misfit,
            identifier=identifier,
            season=named,
            unexplained=None if special is not None else why.unexplained,
            season_words=why.season_words,
            language=language,
            service=service,
            aired=aired,
            episode_named=episode_named,
            other_article=_other_article(reading.title, candidate.original_title),
            listed=dated + ((special,) if special is not None else _in_box(query, candidate)),
        )
        if best is None or _strength(evidence) > _strength(best):
            best = evidence
    assert best is not None
    return best


def _episode_named(query: Query, candidate: Candidate) -> bool:
    """ "Doctor.Who.S13E01.Chapter.One.The.Halloween.Apocalypse": the one video's
    episode as TMDB lists it for this show has the name the release gives it."""
    if not query.episode_title or len(query.episodes) != 1 or query.episodes[0][0] is None:
        return False
    season, episode, _ = query.episodes[0]
    given = _episode_key(query.episode_title)
    for listed in candidate.aired:
        if (listed.season, listed.number) == (season, episode) and listed.name:
            own = _episode_key(listed.name)
            if own and not re.fullmatch(r"episode \d+", own) and (own in given or given in own):
                return True
    return False


def _special(
    query: Query, candidate: Candidate, words: str | None, year: int | None
) -> tuple[str, int, int] | None:
    """(path, 0, episode) when the one unnumbered video is a special TMDB lists by
    name: the title's words past the show's name ("Extras Christmas Special") or the
    name's words after the title ("Doctor.Who.2005.The.Christmas.Invasion")."""
    if candidate.kind != "series" or len(query.unnumbered) != 1 or query.episodes:
        return None
    specials = [e for e in candidate.aired if e.season == 0 and e.name]
    for name in (words, query.episode_title):
        if not name:
            continue
        hits = [e for e in specials if _episode_key(e.name or "") == _episode_key(name)]
        if len(hits) > 1 and year is not None:  # two "Christmas Special"s: the year's
            hits = [e for e in hits if (e.air_date or "")[:4] == str(year)]
        if len(hits) == 1:
            return query.unnumbered[0], 0, hits[0].number
    if query.special and len(specials) == 1:
        return query.unnumbered[0], 0, specials[0].number  # "a special" of a show with one
    return None


def _in_box(query: Query, candidate: Candidate) -> tuple[tuple[str, int, int], ...]:
    """Unnumbered videos of a box whose file name holds the name of one of the show's
    specials ("Specials/Doctor.Who.2005.Time.Crash.720p.mkv"): that special. Names of
    one word, or ones the show's own title holds, name nothing."""
    if candidate.kind != "series" or len(query.unnumbered) + len(query.episodes) < 2:
        return ()
    own = f" {title_key(candidate.title)} {title_key(candidate.original_title or '')} "
    specials = [
        (f" {key} ", e.number)
        for e in candidate.aired
        if e.season == 0
        and len((key := _episode_key(e.name or "")).split()) >= 2
        and f" {key} " not in own
    ]
    found = []
    for path in query.unnumbered:
        words = f" {_episode_key(PurePosixPath(path).stem)} "
        hits = {number for key, number in specials if key in words}
        if len(hits) == 1:
            found.append((path, 0, hits.pop()))
    left = [p for p in query.unnumbered if p not in {f[0] for f in found}]
    only = [s for s in candidate.seasons or () if s.number == 0 and s.episodes == 1]
    if len(left) == 1 and only and not found and _in_specials_folder(left[0]):
        # "Complete Series + Special/Special/The Internet Is Coming.avi" of a show
        # with one special: that one.
        number = next((e.number for e in candidate.aired if e.season == 0), 1)
        found.append((left[0], 0, number))
    return tuple(found)


# Folders that hold a box's specials.
_SPECIALS_FOLDERS = frozenset({"special", "specials", "спецвыпуск", "спецвыпуски"})


def _in_specials_folder(path: str) -> bool:
    return any(title_key(part) in _SPECIALS_FOLDERS for part in PurePosixPath(path).parts[:-1])


def _episode_key(name: str) -> str:
    """An episode's name to compare: "Christmas Special (1)" = "Christmas Special Part 1"."""
    return " ".join(w for w in title_key(name).split() if w not in ("part", "pt"))


def _season_by_reading(query: Query, candidate: Candidate) -> int | None:
    """ "Demon Slayer (Entertainment District Arc) - 05": another reading of the
    release is the name TMDB gives one of the show's seasons."""
    if candidate.kind != "series":
        return None
    names = {title_key(s.name): s.number for s in candidate.seasons or () if s.name and s.number}
    return next((names[k] for r in query.readings if (k := title_key(r.title)) in names), None)


def _season_of_year(
    year: YearMatch, reading: Reading, query: Query, candidate: Candidate
) -> int | None:
    """ "Hanzawa.Naoki.2020.EP01": a release that names no season but the year of a
    later one is in that season (when only one began that year)."""
    if year != "season" or query.seasons or any(s is not None for s, _, _ in query.episodes):
        return None
    began = [s.number for s in candidate.seasons or () if s.number > 0 and s.year == reading.year]
    return began[0] if len(began) == 1 else None


def _best_name(title: str, candidate: Candidate) -> tuple[str, TitleMatch]:
    best: tuple[str, TitleMatch] = ("", "weak")
    for name in candidate.all_names():
        match = title_match(title, name)
        if _TITLE_RANK[match] > _TITLE_RANK[best[1]]:
            best = (name, match)
    return best


def _other_article(title: str, original: str | None) -> bool:
    a, b = fold(title).split(), fold(original or "").split()
    short, long = sorted((a, b), key=len)
    return len(long) == len(short) + 1 and long[0] in ARTICLES and long[1:] == short


def _strength(evidence: Evidence) -> tuple[bool, int, int]:
    return (not contradicted(evidence), _TITLE_RANK[evidence.title], _YEAR_RANK[evidence.year])


def _year(
    year: int | None, candidate: Candidate, held: Sequence[int], special: bool = False
) -> YearMatch:
    """The release's year against the candidate's; for a show also against the years
    of the seasons the release holds (of any season when it does not say). A special
    may air years after the show's last season: for one, a show with specials that
    began before that year is not ruled out by it."""
    if year is None:
        return "none"
    if candidate.year is None:
        return "unknown"
    distance = abs(year - candidate.year)
    if distance <= 1:
        return "exact" if distance == 0 else "near"
    seasons = [s for s in candidate.seasons or () if s.number > 0]
    if any(s.year and abs(s.year - year) <= 1 for s in seasons if not held or s.number in held):
        return "season"
    if special and year > candidate.year and any(s.number == 0 for s in candidate.seasons or ()):
        return "season"
    return "far"


def _country(query: Query, candidate: Candidate) -> CountryMatch:
    """A scene's country tag against the candidate's countries (another one rules it
    out); else a tracker's list of production countries (another one only ranks it
    lower: co-productions list countries TMDB may not)."""
    if not candidate.countries:
        return "none"
    own = {_COUNTRIES.get(c, c) for c in candidate.countries}
    if query.country is not None:
        return "match" if _COUNTRIES.get(query.country, query.country) in own else "mismatch"
    if query.countries:
        return "match" if own & set(query.countries) else "other"
    return "none"


def _language(language: str | None, candidate: Candidate) -> LanguageMatch:
    if language is None or candidate.language is None:
        return "none"
    return "match" if language == candidate.language else "other"


# Words of a service's name that say nothing of which one it is.
_SERVICE_NOISE = frozenset({"tv", "video", "plus", "network", "channel", "the", "now", "go"})


def _service(service: str | None, candidate: Candidate) -> bool:
    """The streaming service tag ("Amazon Prime") names one of the candidate's
    networks ("Prime Video")."""
    if service is None:
        return False
    wanted = set(title_key(service).split()) - _SERVICE_NOISE
    return any(wanted & (set(title_key(n).split()) - _SERVICE_NOISE) for n in candidate.networks)


def _aired(
    dates: Sequence[tuple[str, str]], candidate: Candidate
) -> tuple[AiredMatch, tuple[tuple[str, int, int], ...]]:
    """The episode aired on each file's date: "match" when TMDB lists one for every
    date (the listed seasons fetched), "mismatch" when a date is before the show's
    first episode or after the last one of a show that ended."""
    if not dates or candidate.kind != "series":
        return "none", ()
    days = {e.air_date: e for e in candidate.aired if e.air_date and e.number > 0}
    first = min(
        (s.air_date for s in candidate.seasons or () if s.number > 0 and s.air_date),
        default=None,
    )
    dated = []
    for path, day in dates:
        if (first is not None and day < first) or (candidate.ended and day > candidate.ended):
            return "mismatch", ()
        if day in days:
            dated.append((path, days[day].season, days[day].number))
    return ("match" if len(dated) == len(dates) else "none"), tuple(dated)


def _identified(identifiers: Sequence[str], candidate: Candidate) -> bool:
    if candidate.provider != "tmdb":
        return False
    own = {f"tmdb:{candidate.ref}"} | (
        {f"imdb:{candidate.imdb_id}"} if candidate.imdb_id else set()
    )
    return any(identifier in own for identifier in identifiers)


def _seasons(
    query: Query, candidate: Candidate, named: int | None = None
) -> tuple[SeasonsMatch, str | None]:
    """Whether every season and episode the release holds exists in the candidate;
    ``named``: the season its title names, where what it numbers as season 1 (or not
    at all) is."""
    if not query.episodes and not query.seasons:
        return "none", None
    if named is not None:
        query = replace(
            query,
            seasons=tuple(named if s == 1 else s for s in query.seasons) or (named,),
            episodes=tuple((named if s in (None, 1) else s, e, a) for s, e, a in query.episodes),
        )
    if candidate.kind == "movie":
        # A season is what a movie cannot have; numbered files ("1 серия", "Part 2")
        # may be the parts of one.
        return ("misfit", "movie") if query.kind == "series" and query.seasons else ("none", None)
    if candidate.seasons is None:
        return "none", None
    counts = {season.number: season.episodes for season in candidate.seasons}
    regular = {number: count for number, count in counts.items() if number > 0}
    for pack in query.seasons:
        if pack > 0 and pack not in regular:
            return "misfit", f"S{pack:02d}"
    for season, episode, absolute in query.episodes:
        if season is None:
            if episode > sum(regular.values()):
                return "misfit", f"E{episode:02d}"
        elif season == 0:
            if 0 in counts and episode > counts[0]:
                return "misfit", f"S00E{episode:02d}"
        elif season not in regular:
            return "misfit", f"S{season:02d}"
        elif episode > regular[season] and not (
            absolute and absolute_to_season(episode, candidate.seasons, season)
        ):
            return "misfit", f"S{season:02d}E{episode:02d}"
    return "fit", None


def strong(evidence: Evidence) -> bool:
    """Not contradicted, an exact or close title, and a year that agrees (or none to
    compare): no other search would find a better one."""
    return (
        not contradicted(evidence)
        and evidence.title in ("exact", "close")
        and (evidence.year in ("exact", "near", "none") or evidence.aired == "match")
    )


def contradicted(evidence: Evidence) -> bool:
    """The release says something this candidate cannot be."""
    return (
        evidence.year == "far"
        or evidence.country == "mismatch"
        or evidence.seasons == "misfit"
        or evidence.aired == "mismatch"
    )


def confidence(evidence: Evidence, rule: str) -> float:
    """How sure an accepted candidate is, in [0, 1] (``auto_accept`` is its threshold)."""
    if rule == "identifier":
        return 1.0
    value = _TITLE_CONFIDENCE[evidence.title] + _YEAR_CONFIDENCE[evidence.year]
    value += 0.04 if evidence.country == "match" else 0.0
    value += 0.04 if evidence.seasons == "fit" else 0.0
    # A show that aired an episode on the file's date, where others of the name did
    # not: as sure as a full title ("Late Show" for "Late Show with David Letterman").
    value += 0.3 if evidence.aired == "match" else 0.0
    value -= 0.02 if rule == "popularity" else 0.0
    return round(min(1.0, max(0.0, value)), 4)


# --- the decision ---------------------------------------------------------------------


def decide(query: Query, found: Iterable[Candidate], auto_accept: float) -> Decision:
    """Weigh every candidate and decide (the rules are in the module's docstring)."""
    weighed = ranked(query, found)
    if not weighed:
        return Decision(None, (), "nothing", 0.0)
    pinned = [c for c in weighed if c.evidence is not None and c.evidence.identifier]
    if len(pinned) == 1:
        return _accept(pinned[0], weighed, "identifier", auto_accept)
    alive = [c for c in weighed if not contradicted(_ev(c))]
    if not alive:
        return _review(weighed, "contradicted")
    best_title = max(_TITLE_RANK[_ev(c).title] for c in alive)
    if best_title == _TITLE_RANK["weak"]:
        return _review(weighed, "weak")
    group = [c for c in alive if _TITLE_RANK[_ev(c).title] == best_title]
    rule = _ruled_out_by([c for c in weighed if c not in alive], best_title)
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
            # A year off by one is normal (a premiere and a release), a dub is tagged
            # with its language: one far more watched title against an obscure one
            # that only the tag fits: ask.
            return _review(weighed, "ambiguous", group)
        group, rule = leaders, name
    if len(group) > 1:
        by_popularity = sorted(group, key=lambda c: -c.popularity)
        if _popular(by_popularity[:1]) < WIDE * _popular(by_popularity[1:2]):
            return _review(weighed, "ambiguous", by_popularity)
        group, rule = by_popularity[:1], "popularity"
    chosen = group[0]
    fitting = _fits_tags_better(chosen, alive)
    if fitting:
        # "Money.Heist.KOREAN": the Spanish show by its exact title, the Korean remake
        # by the tag; a title's words and the tags must agree on one.
        return _review(weighed, "ambiguous", [chosen, *fitting])
    if best_title == _TITLE_RANK["exact"] and _ev(chosen).year == "none":
        start = title_key(_ev(chosen).matched) + " "
        longer = [
            c
            for c in alive
            if _ev(c).title == "partial" and title_key(_ev(c).matched).startswith(start)
        ]
        if longer and _popular(longer) >= WIDE * _popular([chosen]):
            # "Frieren" exact for an obscure title while "Frieren: Beyond Journey's
            # End" is what everybody watches: a release may shorten a long title.
            return _review(weighed, "ambiguous", [chosen, *longer])
    return _accept(chosen, weighed, rule, auto_accept)


def _fits_tags_better(chosen: Candidate, alive: Sequence[Candidate]) -> list[Candidate]:
    """Candidates that a language or country tag fits where it does not fit the chosen
    one, with a title that could be it."""
    mine = _ev(chosen)
    return [
        c
        for c in alive
        if c is not chosen
        and _TITLE_RANK[_ev(c).title] >= _TITLE_RANK["partial"]
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
        if _TITLE_RANK[evidence.title] >= best_title:
            if evidence.year == "far":
                return "year"
            if evidence.aired == "mismatch":
                return "aired"
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
    return (contradicted(evidence), -_TITLE_RANK[evidence.title], -_YEAR_RANK[evidence.year])


def _ev(candidate: Candidate) -> Evidence:
    assert candidate.evidence is not None  # set by ranked
    return candidate.evidence


def _year_rank(candidate: Candidate) -> int:
    return _YEAR_RANK[_ev(candidate).year]


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


def _fit_rank(candidate: Candidate) -> int:
    return {"fit": 2, "none": 1, "misfit": 0}[_ev(candidate).seasons]


# What tells candidates of one title match apart, in order; the streaming service
# only among otherwise equal ones. The first three are facts of the files, never
# outweighed by popularity.
_TIE_BREAKERS: tuple[tuple[str, Callable[[Candidate], int]], ...] = (
    ("aired", _aired_rank),
    ("episode", _episode_rank),
    ("year", _year_rank),
    ("country", _country_rank),
    ("language", _language_rank),
    ("seasons", _fit_rank),
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


# --- where each episode goes --------------------------------------------------------


def absolute_to_season(
    episode: int, seasons: Sequence[Season] | None, season: int | None = None
) -> tuple[int, int] | None:
    """Season and episode of an episode numbered across seasons ("Frieren - 29" is
    S02E01 when season 1 has 28), by the candidate's episode counts. With ``season``
    (the release says "S2 - 29") only a number within that season, counted from the
    first, or one that is already the season's own ("S2 - 05"), is accepted. None
    when the counts do not say."""
    regular = sorted(s for s in seasons or () if s.number > 0)
    if not regular:
        return None
    if season is not None:
        own = next((s for s in regular if s.number == season), None)
        if own is None:
            return None
        if episode <= own.episodes:
            return season, episode
        before = sum(s.episodes for s in regular if s.number < season)
        inside = episode - before
        return (season, inside) if 0 < inside <= own.episodes else None
    remaining = episode
    for number, count, *_ in regular:
        if remaining <= count:
            return number, remaining
        remaining -= count
    return None
