"""The evidence for one candidate: how each word and tag of the release fits it.

:func:`weigh` compares what the release says (a :class:`Query`) with a candidate:
how its names match the release's title (the words past them must be explained:
``recognition.explain``), whether the years agree, the country and language tags,
the streaming service, whether its seasons and episodes hold the files, an episode
title or an air date TMDB lists, an id that names it. :func:`confidence` is how
strong that evidence is; ``recognition.decide`` chooses by it.
"""

import datetime
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import PurePosixPath

from recognition.candidates import (
    AiredEpisode,
    AiredMatch,
    Candidate,
    CountryMatch,
    EraMatch,
    Evidence,
    LanguageMatch,
    Query,
    Reading,
    SeasonsMatch,
    TitleMatch,
    YearMatch,
)
from recognition.explain import explain, without_tour
from recognition.folding import ARTICLES, compact, fold, title_key
from recognition.parsing.episodes import name_key
from recognition.placement import absolute_to_season, renumber, seasons_by_year

TITLE_RANK: dict[TitleMatch, int] = {"exact": 3, "close": 2, "partial": 1, "weak": 0}
YEAR_RANK: dict[YearMatch, int] = {
    "exact": 3,
    "near": 2,
    "season": 2,
    "told": 2,
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
    "told": 0.05,
    "unknown": -0.05,
    "none": 0.0,
    "far": -0.5,
}
_COUNTRIES = {"UK": "GB"}
# TMDB's own code for Cantonese: the release's "CANTONESE" or "CHINESE" tag is "zh".
_LANGUAGES = {"cn": "zh"}
# Languages that films and series are routinely dubbed into for release: there a tag
# often marks a dub of the famous title ("Suits.FRENCH" is the American show), so it
# does not outweigh a far more watched one. Into the others (Korean, Japanese, Thai,
# ...) a show is rarely dubbed: such a tag names the original language.
DUBBED_INTO = frozenset(
    {"de", "fr", "it", "es", "pt", "ru", "uk", "pl", "cs", "sk", "hu", "tr", "hi", "ta", "te"}
    | {"ar", "fa", "nl", "sv", "da", "no", "nb", "fi", "el", "ro", "bg", "lt", "lv", "ca"}
)


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
    if _same_but_versions(query, name):
        return "close"  # "Evangelion 3.33 …" of "Evangelion: 3.0 …": one film, re-cut
    if words_b[: len(words_a)] == words_a or words_a[: len(words_b)] == words_b:
        return "partial"
    if set(words_a) <= set(words_b):
        return "partial"
    return "weak"


# A title's subtitle: after a colon, a spaced dash or an opening parenthesis.
_SUBTITLE = re.compile(r"\s*:\s*|\s+[-–—]\s+|\s*\(")
# "Birdman or (The Unexpected Virtue of Ignorance)", "Dr. Strangelove or: How I …": the
# title is the part before "or".
_OR = re.compile(r"(?i)[\s,;]+or$")


def _stem_keys(name: str) -> set[str]:
    """The keys of a name's parts before a subtitle of three words or more ("FYRE: The
    Greatest Party That Never Happened", "Summer of Soul (...Or, When the Revolution
    …)", "Jim & Andy: The Great Beyond - Featuring a Very Special, …"): documentaries
    are released by them. A shorter subtitle ("Dune: Part Two", "Kill Bill: Vol. 1")
    is no such thing."""
    keys = set()
    for boundary in _SUBTITLE.finditer(name):
        if len(fold(name[boundary.end() :]).split()) >= 3:
            stem = _OR.sub("", name[: boundary.start()])
            if key := title_key(stem):
                keys.add(key)
    return keys


def _stem_of(title: str, name: str) -> bool:
    """The release is the name up to a long subtitle: its words are the name's."""
    return title_key(title) in _stem_keys(name)


# "Michael Jackson's This Is It": an artist of two words or more, a title of two or more.
_POSSESSIVE = re.compile(r"^(?P<artist>[^:'’]+?)['’]s\s+(?P<rest>\S+\s+\S.*)$")


def _after_credit(title: str, candidate: Candidate) -> bool:
    """ "Nanette" of "Hannah Gadsby: Nanette", "Through the Never" of "Metallica: Through
    the Never", "This Is It" of "Michael Jackson's This Is It": a film's name after the
    artist it credits before a colon or as its owner, the artist named by its overview
    too (possessive or not)."""
    key = title_key(title)
    overview = f" {title_key(candidate.overview or '')} "
    for name in candidate.all_names():
        artist, colon, rest = name.partition(":")
        if not colon and (owned := _POSSESSIVE.match(name)) is not None:
            artist, rest = owned["artist"], owned["rest"]
            if len(title_key(artist).split()) < 2:
                continue  # "Ocean's Eleven", "Schindler's List": a name's word, no artist
        elif not colon:
            continue
        credited = title_key(artist)
        if (
            title_key(rest) == key
            and 0 < len(credited.split()) <= 4
            and re.search(rf" {re.escape(credited)}s? ", overview)
        ):
            return True
    return False


def _same_but_versions(title: str, name: str) -> bool:
    """The same words but for the versions in them ("Evangelion 3.0+1.01 Thrice Upon a
    Time" and "Evangelion: 3.0+1.0 Thrice Upon a Time")."""
    words = _versions_aside(title_key(title).split())
    return words != () and words == _versions_aside(title_key(name).split())


def _versions_aside(words: list[str]) -> tuple[str, ...]:
    """The words with each version ("3 33", "3 0 1 01": numbers in a row) as its first
    number; () when there is none."""
    kept = [w for i, w in enumerate(words) if not (w.isdigit() and i and words[i - 1].isdigit())]
    return tuple(kept) if len(kept) < len(words) else ()


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
    name or number: ``recognition.explain``); a season they name is where the files go."""
    # "S2023E05" of a show TMDB numbers 1…N: its season that aired in 2023.
    renumbered = seasons_by_year(query, candidate.seasons, candidate.aired)
    query = renumber(query, renumbered)
    aired, dated = _aired(query.dates, candidate)
    era = _era(query, candidate)
    # What the reading does not change: the tags, the air dates, an episode's name, an id.
    known = Evidence(
        title="weak",
        matched="",
        year="none",
        country=_country(query, candidate),
        language=_language(query.language, candidate),
        service=_service(query.service, candidate),
        aired=aired,
        episode_named=_episode_named(query, candidate),
        identifier=_identified(query, candidate),
        listed=dated,
        too_big=_too_big(query, candidate),
        era=era,
        off_air=query.capture and candidate.kind == "series" and era == "before",
    )
    readings = query.readings or (Reading("", None),)
    weighed = [_under_reading(reading, query, candidate, known) for reading in readings]
    # The first of the strongest: max keeps the first of equals.
    best = max(weighed, key=_strength)
    against = any(only_year_against(e) and e.title in ("exact", "close") for e in weighed)
    genre = _genre(query.genres, candidate, best.matched)
    return replace(best, year_against=against, renumbered=renumbered, genre=genre)


def _under_reading(
    reading: Reading, query: Query, candidate: Candidate, known: Evidence
) -> Evidence:
    """The evidence for ``candidate`` when the release's title and year are ``reading``'s:
    how its names match the title, what the words past them explain (a season, a
    special), the year, the season that is named and whether the files fit."""
    reading = replace(reading, title=in_own_words(reading.title, candidate))
    matched, title = _best_name(reading.title, candidate)
    stem = None
    if title != "exact":
        stem = _romaji_stem(reading.title, candidate) or _dotted_stem(reading, candidate)
    shortened = stem is not None
    if stem is not None:
        matched, title = stem, "exact"
    why = explain(
        reading.title,
        [n for n in (candidate.title, candidate.original_title, *candidate.translations) if n],
        [*candidate.names, *(t for n in candidate.all_names() for t in _theatrical(n, candidate))],
        candidate.seasons if candidate.kind == "series" else None,
    )
    if candidate.kind == "movie" and why.unexplained in ("movie", "the movie"):
        why = replace(why, unexplained=None, edition=True)  # "Jujutsu Kaisen 0 The Movie"
    special = _special(query, candidate, why.unexplained, reading.year)
    if why.season is not None or special is not None or why.edition:
        title = "exact"  # every word explained: the name and a season's, or an edition
    elif (
        why.unexplained
        and title in ("exact", "close")
        and not _stem_of(reading.title, matched)
        and not _same_but_versions(reading.title, matched)
    ):
        title = "partial"
    performer = _performer_first(reading.title, candidate)
    if performer is not None and TITLE_RANK[performer[1]] > TITLE_RANK[title]:
        matched, title = performer
    if title != "exact" and (toured := _tour_of(reading.title, candidate)) is not None:
        matched, title = toured, "exact"
    year = _year(reading.year, candidate, query.seasons, query.special)
    # The season the release names: by the title's words past the show's name, by
    # another reading that is a season's name, by the year a later season began.
    named = why.season
    if named is None:
        named = _season_by_reading(query, candidate)
    if named is None:
        named = _season_of_year(year, reading, query, candidate)
    # An OVA series' own name: the release's specials are its episodes, held to its counts.
    ova = _as_ova_series(reading.title, matched, title, query, candidate)
    held = (*query.episodes, *((season, number, False) for _, season, number in ova))
    seasons, misfit = _seasons(replace(query, episodes=held), candidate, named)
    return replace(
        known,
        title=title,
        matched=matched,
        year=year,
        seasons=seasons,
        misfit=misfit,
        short=_short(query, candidate, named),
        whole_run=_whole_run(query, candidate),
        season=named,
        unexplained=None if special is not None else why.unexplained,
        season_words=why.season_words,
        other_article=_other_article(reading.title, candidate.original_title),
        shortened=shortened,
        listed=_first_per_path(
            known.listed,
            ova,
            (special,) if special is not None else _in_box(query, candidate),
            _by_names(query, candidate, named),
            _in_parts(query, candidate, named),
        ),
    )


_OVA_WORDS = frozenset({"ova", "oad", "ona"})


def _as_ova_series(
    title: str, matched: str, match: TitleMatch, query: Query, candidate: Candidate
) -> tuple[tuple[str, int, int], ...]:
    """ "Hellsing (OVA) - 03" of "Hellsing Ultimate", whose alternative title is
    "Hellsing OVA": an OVA series TMDB lists as a show of its own. Under the reading
    with the marker, matched exactly by a name that holds it, the release's specials
    are its episodes by their own numbers (path, 1, number)."""
    marker = title_key(title).split()[-1:]
    if (
        candidate.kind != "series"
        or match != "exact"
        or not set(marker) & _OVA_WORDS
        or marker[0] not in title_key(matched).split()
    ):
        return ()
    count = next((s.episodes for s in candidate.seasons or () if s.number == 1), 0)
    return tuple((path, 1, n) for path, n in query.specials if n is not None and 0 < n <= count)


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
            if own and not _GENERIC_EPISODE.fullmatch(own) and (own in given or given in own):
                return True
    return False


def listed_otherwise(query: Query, candidate: Candidate) -> bool:
    """The one video's episode, as TMDB lists it for this show, has another name than
    the release gives it ("Shogun.1980.S01E03.Tomorrow.Is.Tomorrow": the miniseries'
    third is "Part Three")."""
    if not query.episode_title or len(query.episodes) != 1 or query.episodes[0][0] is None:
        return False
    season, episode, _ = query.episodes[0]
    return any(
        (listed.season, listed.number) == (season, episode) and listed.name
        for listed in candidate.aired
    ) and not _episode_named(query, candidate)


# Names TMDB gives episodes of many shows: they tell no show from another.
_GENERIC_EPISODE = re.compile(r"episode \d+|pilot")


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
        # "Christmas Special 2010" of "Doctor.Who.2005.Christmas.Special.2010": its year
        own = _OWN_YEAR.search(name)
        bare, when = (name[: own.start()], int(own[1])) if own else (name, year)
        hits = [e for e in specials if _same_name(e.name or "", bare, candidate)]
        if len(hits) > 1 and when is not None:  # two "Christmas Special"s: the year's
            hits = [e for e in hits if (e.air_date or "")[:4] == str(when)]
        if not hits:
            # The release's year may be the show's own: only a year apart from it dates one.
            dated = when if own or when != candidate.year else None
            hits = _on_holiday(bare, dated, candidate)
        if len(hits) == 1:
            return query.unnumbered[0], 0, hits[0].number
    # "a special" of a show with one; never one that numbers itself past it ("OVA2")
    if query.special and len(specials) == 1 and all((n or 1) == 1 for _, n in query.specials):
        return query.unnumbered[0], 0, specials[0].number
    # "Sherlock - A Scandal in Belgravia": a regular episode by its name (seasons fetched)
    regular = [e for e in candidate.aired if e.season > 0 and e.number > 0 and e.name]
    for name in (words, query.episode_title):
        key = _episode_key(name or "")
        named = {
            (e.season, e.number)
            for e in regular
            if key and _same_name(e.name or "", name or "", candidate)
        }
        if len(named) == 1:
            season, number = named.pop()
            return query.unnumbered[0], season, number
    return None


_OWN_YEAR = re.compile(r"\s+\(?((?:19|20)\d\d)\)?$")
# A holiday's special is the one TMDB's specials list aired then: (month-day, month-day)
# of its year, "New Year's" on either side of it.
_HOLIDAYS = (
    (re.compile(r"\b(?:christmas|xmas)\b"), (("12-18", "12-31"),)),
    (re.compile(r"\bnew years?\b"), (("01-01", "01-02"), ("12-31", "12-31"))),
    (re.compile(r"\bhalloween\b"), (("10-24", "11-01"),)),
    (re.compile(r"\beaster\b"), (("03-20", "04-27"),)),
)


def _on_holiday(words: str, year: int | None, candidate: Candidate) -> list[AiredEpisode]:
    """The specials TMDB lists as aired on the holiday ``words`` name, in ``year``
    ("Christmas Special 2010": 18-31 December 2010; "New Year's Day Special 2016": 31
    December 2015 to 2 January 2016, or New Year's Eve 2016)."""
    key = title_key(words)
    windows = next((w for holiday, w in _HOLIDAYS if holiday.search(key)), ())
    if year is None or not windows:
        return []
    spans = [(f"{year}-{start}", f"{year}-{end}") for start, end in windows]
    if "01-01" in {start for start, _ in windows}:
        spans.append((f"{year - 1}-12-31", f"{year - 1}-12-31"))
    return [
        e
        for e in candidate.aired
        if e.season == 0 and e.air_date and any(lo <= e.air_date[:10] <= hi for lo, hi in spans)
    ]


def _in_box(query: Query, candidate: Candidate) -> tuple[tuple[str, int, int], ...]:
    """Unnumbered videos of a box whose file name holds the name of one of the show's
    specials ("Specials/Doctor.Who.2005.Time.Crash.720p.mkv"): that special. Names of
    one word, or ones the show's own title holds, name nothing."""
    if candidate.kind != "series" or query.videos() < 2:
        return ()
    own = f" {title_key(candidate.title)} {title_key(candidate.original_title or '')} "
    specials = [
        (f" {key} ", e.number, (e.air_date or "")[:4])
        for e in candidate.aired
        if e.season == 0
        and len((key := _episode_key(e.name or "")).split()) >= 2
        and f" {key} " not in own
    ]
    found = []
    for path in query.unnumbered:
        words = f" {_episode_key(PurePosixPath(path).stem)} "
        hits = {number for key, number, _ in specials if key in words}
        if len(hits) > 1:  # two "Christmas Special"s: the one of the year the name holds
            hits = {n for key, n, year in specials if key in words and f" {year} " in words}
        if not hits and (dated := _OWN_YEAR.search(PurePosixPath(path).stem)) is not None:
            # "Specials/Downton Abbey - Christmas Special 2011": the one aired that Christmas
            holiday = PurePosixPath(path).stem[: dated.start()]
            hits = {e.number for e in _on_holiday(holiday, int(dated[1]), candidate)}
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


# Where TMDB's air dates within a season break for eight weeks or more, the next part
# (cour) begins; a part runs six episodes or more (a shorter run is no cour).
_PART_BREAK = 56
_PART_LEAST = 6


def _in_parts(
    query: Query, candidate: Candidate, named: int | None
) -> tuple[tuple[str, int, int], ...]:
    """Videos of a later part of a season numbered on their own ("Spy x Family Cour 2 -
    01"): TMDB counts the season's parts together, and its air dates say where each
    begins. (path, season, episode) of those whose number is smaller than the episodes
    before their part (no number counted on within the season) and within the part."""
    if candidate.kind != "series" or not query.parts:
        return ()
    found = []
    for path, season, part, number in query.parts:
        runs = _runs(candidate.aired, season or named or 1)
        if len(runs) >= part:
            first, last = runs[part - 1]
            if number < first and first + number - 1 <= last:
                found.append((path, season or named or 1, first + number - 1))
    return tuple(found)


def _runs(aired: Sequence[AiredEpisode], season: int) -> list[tuple[int, int]]:
    """(first, last) episode of each part of the season, by its air dates; none when
    TMDB's list lacks a date or a number, or a part is too short to be one."""
    listed = sorted((e.number, e.air_date or "") for e in aired if e.season == season)
    try:
        days = [datetime.date.fromisoformat(day).toordinal() for _, day in listed]
    except ValueError:
        return []
    if not listed or [n for n, _ in listed] != list(range(1, len(listed) + 1)):
        return []
    starts = [0, *(i for i in range(1, len(days)) if days[i] - days[i - 1] >= _PART_BREAK)]
    ends = [*starts[1:], len(days)]
    runs = [(listed[a][0], listed[b - 1][0]) for a, b in zip(starts, ends, strict=True)]
    return runs if all(last - first + 1 >= _PART_LEAST for first, last in runs) else []


# Folders that hold a box's specials.
_SPECIALS_FOLDERS = frozenset({"special", "specials", "спецвыпуск", "спецвыпуски"})


def _in_specials_folder(path: str) -> bool:
    return any(title_key(part) in _SPECIALS_FOLDERS for part in PurePosixPath(path).parts[:-1])


def _same_name(listed: str, given: str, candidate: Candidate) -> bool:
    """An episode's name as TMDB lists it and as the release gives it; a Japanese
    show's as romaji is spelled many ways ("Ryuusui" of "Ryusui")."""
    key = _episode_key(given)
    if not key:
        return False
    if _episode_key(listed) == key:
        return True
    return candidate.language == "ja" and _romaji(_episode_key(listed)) == _romaji(key)


def _episode_key(name: str) -> str:
    """An episode's name to compare: "Christmas Special (1)" = "Christmas Special Part 1"."""
    return " ".join(w for w in title_key(name).split() if w not in ("part", "pt"))


def _by_names(
    query: Query, candidate: Candidate, named: int | None
) -> tuple[tuple[str, int, int], ...]:
    """Videos whose name is the name TMDB gives exactly one episode of their season
    ("Tabula Rasa"; "Pilot Part 2" for "Pilot (2)"): that episode, whatever number the
    name holds ("20 Hours in L.A.", "Three Men and Adena"); a season None is the one
    the title names. Then specials numbered on their own, by order (``_in_order``)."""
    if candidate.kind != "series":
        return ()
    own = {key for n in candidate.all_names() if (key := _name_key(n))}
    found: list[tuple[str, int, int]] = []
    for path, season, words in query.named:
        number = named if season is None else season
        hits = _episodes_named(candidate, number, words, own)
        if not hits and number:
            # "Sherlock.S01.Unaired.Pilot" in series 1's box: a special by its name.
            hits = _episodes_named(candidate, 0, without_season_tag(words), own)
        found += [(path, s, e) for s, e in hits]
    # A merged two-parter ("Pilot" of "Pilot (1)", "(2)") whose part another file is is
    # none of them; two files of one name, neither.
    for merged in (True, False):
        claimed = Counter((s, e) for _, s, e in found)
        parts = Counter(p for p, _, _ in found)
        taken = {p for p, s, e in found if claimed[(s, e)] > 1 and (parts[p] > 1) == merged}
        found = [row for row in found if row[0] not in taken]
    found += _by_numbered_names(query, candidate, named, own)
    placed = {f[0] for f in found}
    found += _by_marker([(p, n) for p, n in query.specials if p not in placed], candidate)
    if not any(path == f[0] for path, _ in query.specials for f in found):
        found += _in_order(query, candidate)
    return tuple(found)


def without_season_tag(words: str) -> str:
    """A file's words without the season they open with ("S01 Unaired Pilot")."""
    return _SEASON_TAG.sub("", words)


_SEASON_TAG = re.compile(r"(?i)^s\d{1,2}\s+(?=\S)")


def _by_marker(
    specials: Sequence[tuple[str, int | None]], candidate: Candidate
) -> list[tuple[str, int, int]]:
    """Specials numbered on their own ("OVA 3", "OVA2", "[OVA] - 04") whose marker and
    number TMDB writes into one special's name ("Land vs. Air (OVA 3)", "OVA 2: …"):
    that special; none when no special's name, or several, holds them."""
    found = []
    for path, number in specials:
        if number is None:
            continue
        # The file's own marker: an OAD's number is no OVA's ("[OAD] - 01" is not "OVA 1").
        stem = title_key(PurePosixPath(path).stem)
        own = [m for m in _MARKERS if re.search(rf"\b{m}(?: ?\d|\b)", stem)] or _MARKERS
        marked = re.compile(rf"\b(?:{'|'.join(own)}) ?0*{number}\b")
        hits = {
            e.number
            for e in candidate.aired
            if e.season == 0 and e.name and marked.search(title_key(e.name))
        }
        if len(hits) == 1:
            found.append((path, 0, hits.pop()))
    return found


# The words that mark a special numbered on its own, as TMDB's names may hold them.
_MARKERS = ("ova", "oad", "ona", "sp", "special")
# A special's marker and number before its title ("OVA 2 - Training of the Dead").
_MARKED = re.compile(r"^(?:(?:ova|oad|ona)(?: ?\d{1,3})?|(?:sp|special) ?\d{1,3}) (?=\S)")


def _episodes_named(
    candidate: Candidate, season: int | None, words: str, own: set[str]
) -> list[tuple[int, int]]:
    """(season, episode) of the one episode of ``season`` (of any season fetched when
    None) that TMDB names ``words``: by its whole name, else by its name after a colon
    ("The Vanishing of Will Byers" of "Chapter One: The Vanishing of Will Byers"); or
    the parts of a two-parter TMDB lists apart that one file holds ("Pilot" of "Pilot
    (1)", "Pilot (2)"). Empty: none, or several."""
    key = _name_key(words)
    if not key:
        return []
    # The show's name may open the file's, or the episode's ("Lost in Translation"); a
    # special's marker and number its title ("OVA 2 - Training of the Dead").
    keys = {key} | {key[len(n) + 1 :] for n in own if key.startswith(n + " ")}
    keys |= {_MARKED.sub("", k) for k in keys}
    listed = [
        e
        for e in candidate.aired
        if e.name and e.number > 0 and (e.season == season if season is not None else e.season > 0)
    ]
    for form in (_name_key, _after_colon, _parts_of):
        hits = sorted({(e.season, e.number) for e in listed if form(e.name or "") in keys})
        if len(hits) == 1:
            return hits
        if hits:
            break
    if not hits:
        return []
    consecutive = [e for _, e in hits] == list(range(hits[0][1], hits[0][1] + len(hits)))
    if form is _parts_of and len({s for s, _ in hits}) == 1 and consecutive:
        return hits
    return []


def _after_colon(name: str) -> str:
    """An episode's name after its colon: "Chapter One: The Vanishing of Will Byers"."""
    _, colon, after = name.partition(": ")
    return _name_key(after) if colon else ""


_PART_OF = re.compile(
    r"(?i)^(.*\S)\s*(?:\(\d{1,2}\)|,?\s*part\s+(?:\d{1,2}|[ivx]+|one|two|three))$"
)


def _parts_of(name: str) -> str:
    """A two-parter's name without its part: "Pilot" of "Pilot (1)" and "Pilot, Part 2"."""
    part = _PART_OF.match(name)
    return _name_key(part.group(1)) if part else ""


def _by_numbered_names(
    query: Query, candidate: Candidate, named: int | None, own: set[str]
) -> list[tuple[str, int, int]]:
    """Files numbered and titled ("1x01 - The Train Job") whose TMDB names are of
    their season (fetched): where every title names one distinct episode, the titles
    place them (a DVD's order, a broadcaster's, against TMDB's); where some name
    another episode than their number and not every title names one, or one file's
    title names another of a regular season ("Breaking.Bad.S02E03.Seven.Thirty-Seven";
    a special's title places it), which holds is not known: those are asked (episode
    0). Else the numbers hold, the titles that agree are evidence for the show."""
    regular = [s.number for s in candidate.seasons or () if s.number > 0]
    only = regular[0] if len(regular) == 1 else None
    groups: dict[int, list[tuple[str, int, int | None]]] = {}
    for path, season, episode, words in query.titled:
        number = season if season is not None else named if named is not None else only
        if number is None or not any(e.season == number for e in candidate.aired):
            continue
        hits = _episodes_named(candidate, number, words, own)
        hit = hits[0][1] if len(hits) == 1 else None
        groups.setdefault(number, []).append((path, episode, hit))
    found = []
    for number, files in groups.items():
        numbers = [hit for _, _, hit in files]
        # One file's title against its number says nothing of the pack's order: asked;
        # but each database numbers specials its own way: TMDB's name places one.
        ordered = len(numbers) > 1 or number == 0
        distinct = ordered and None not in numbers and len(set(numbers)) == len(numbers)
        disagree = any(hit is not None and hit != episode for _, episode, hit in files)
        for path, episode, hit in files:
            if disagree and distinct:
                found.append((path, number, hit or 0))
            elif disagree and hit is not None and hit != episode:
                found.append((path, number, 0))
            elif hit == episode:
                found.append((path, number, episode))
    return found


def _in_order(query: Query, candidate: Candidate) -> tuple[tuple[str, int, int], ...]:
    """Specials numbered on their own, all of TMDB's ("OVA 01"…"OVA 03" of a show with
    three specials): the n-th is TMDB's n-th; a lone "OVA" without a number is the
    first (of a show with one). One more or less, or one without a number beside
    others, and the order says nothing."""
    lone = len(query.specials) == 1
    specials = [(path, 1 if lone and number is None else number) for path, number in query.specials]
    numbers = [number for _, number in specials]
    count = next((s.episodes for s in candidate.seasons or () if s.number == 0), 0)
    if not numbers or sorted(n or 0 for n in numbers) != list(range(1, count + 1)):
        return ()
    listed = sorted({e.number for e in candidate.aired if e.season == 0})
    order = listed if len(listed) == count else list(range(1, count + 1))
    return tuple((path, 0, order[number - 1]) for path, number in specials if number)


def _name_key(name: str) -> str:
    """An episode's name to compare (``recognition.parsing.episodes.name_key``)."""
    return name_key(name)


def _first_per_path(
    *found: tuple[tuple[str, int, int], ...],
) -> tuple[tuple[str, int, int], ...]:
    """What places each file, the first that does: an air date, a special's name, a
    name TMDB gives an episode, the order of specials (a file of two episodes has a
    row for each)."""
    seen: dict[str, int] = {}
    kept = []
    for index, rows in enumerate(found):
        for row in rows:
            if seen.setdefault(row[0], index) == index:
                kept.append(row)
    return tuple(kept)


def _season_by_reading(query: Query, candidate: Candidate) -> int | None:
    """ "Demon Slayer (Entertainment District Arc) - 05": another reading of the
    release is the name TMDB gives one of the show's seasons. A season named as the
    show itself ("Nisekoi:" of "Nisekoi") is not named by the show's name."""
    if candidate.kind != "series":
        return None
    own = {title_key(name) for name in candidate.all_names()}
    names = {
        key: s.number
        for s in candidate.seasons or ()
        if s.name and s.number and (key := title_key(s.name)) not in own
    }
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


# "Hunter x Hunter (2011)", "Hagane no Renkinjutsushi (2009)": TMDB's names tell same-name
# shows apart by a year in brackets, which is no word of the name.
_YEAR_IN_NAME = re.compile(r"\s*\((?:19|20)\d\d\)$")


def _best_name(title: str, candidate: Candidate) -> tuple[str, TitleMatch]:
    best: tuple[str, TitleMatch] = ("", "weak")
    for name in candidate.all_names():
        bare = _YEAR_IN_NAME.sub("", name)
        forms = (name, *_credited(name), *([bare] if bare != name else []), *_slashed(name))
        forms = (*forms, *_theatrical(name, candidate), *_without_article(name, candidate))
        for form in forms:
            match = title_match(title, form)
            if TITLE_RANK[match] > TITLE_RANK[best[1]]:
                best = (name, match)
    if best[1] != "exact" and (both := _two_names(title, candidate)) is not None:
        return both, "exact"
    if candidate.kind == "movie" and TITLE_RANK[best[1]] < TITLE_RANK["close"]:
        # A documentary released without its long subtitle ("Fyre", "Summer of Soul").
        key = title_key(title)
        best = next(((n, "close") for n in candidate.all_names() if key in _stem_keys(n)), best)
        if best[1] != "close" and _after_credit(title, candidate):
            best = (candidate.title, "close")
        if best[1] != "close" and (sequel := _sequel_named(title, candidate)) is not None:
            best = (sequel, "close")
    return best


# "Gekijouban" ("theatrical edition"), "Soushuuhen" ("compilation") before a Japanese
# film's romaji name: fansubs write the franchise's name and the film's subtitle only.
_THEATRICAL = re.compile(
    r"(?i)^(?:gekij(?:ou|ō|o)ban|劇場版)(?:\s+s(?:ou|ō|o)sh(?:uu|ū|u)hen)?\s+(?=\S)"
)


def _theatrical(name: str, candidate: Candidate) -> tuple[str, ...]:
    """A Japanese film's name without the word that says it is the film ("Gekijouban
    Steins;Gate: Fuka Ryouiki no Déjà vu" → "Steins;Gate: Fuka Ryouiki no Déjà vu")."""
    if candidate.kind != "movie" or candidate.language != "ja":
        return ()
    bare = _THEATRICAL.sub("", name)
    return (bare,) if bare != name else ()


# Leading articles trackers drop from a title in its own language ("Casa de Papel" of
# "La casa de papel", "Reina del Sur" of "La Reina del Sur").
_ARTICLES_OF = {
    "es": frozenset({"el", "la", "los", "las"}),
    "fr": frozenset({"le", "la", "les"}),
    "it": frozenset({"il", "lo", "la", "gli", "le"}),
    "pt": frozenset({"o", "a", "os", "as"}),
    "de": frozenset({"der", "die", "das"}),
    "nl": frozenset({"de", "het"}),
}


def _without_article(name: str, candidate: Candidate) -> tuple[str, ...]:
    """A name in its original language without its leading article, when two words or
    more remain (never "Le Mans" → "Mans"); an English title keeps its "Die" ("Die
    Another Day")."""
    words = fold(name).split()
    articles = _ARTICLES_OF.get(candidate.language or "", frozenset())
    if len(words) < 3 or words[0] not in articles:
        return ()
    return (" ".join(words[1:]),)


# "Bron/Broen": one name of a show in two languages (words of four letters or more:
# "Face/Off" is one title).
_SLASHED = re.compile(r"^([^\W\d_]{4,})/([^\W\d_]{4,})$")


def _slashed(name: str) -> tuple[str, ...]:
    """The names a TMDB name of two names joined by a slash holds ("Bron", "Broen")."""
    found = _SLASHED.match(name.strip())
    return found.groups() if found else ()


def _two_names(title: str, candidate: Candidate) -> str | None:
    """The name that opens a title made of two of the candidate's own names side by
    side, nothing or "aka" between ("Il Gladiatore II - Gladiator II", "Spirited Away Sen
    to Chihiro no Kamikakushi", "Mononoke Hime Princess Mononoke"): a local release
    writes the title it is known by there beside the original. None: it is not."""
    key = title_key(title)
    keys = {title_key(_YEAR_IN_NAME.sub("", n)): n for n in candidate.all_names()}
    keys.pop("", None)
    for own, name in keys.items():
        rest = _AKA.sub("", key[len(own) + 1 :]) if key.startswith(own + " ") else ""
        rest = title_key(rest)  # "Wiedźmin - The Witcher": the other name's article too
        if rest and rest != own and rest in keys:
            return name
    return None


_AKA = re.compile(r"^(?:aka|a k a) ")  # "Der Untergang aka Downfall"


def _romaji_stem(title: str, candidate: Candidate) -> str | None:
    """ "Honzuki no Gekokujou" of "Honzuki no Gekokujou: Shisho ni Naru Tame ni wa
    Shudan wo Erandeiraremasen": fansubs name a Japanese show by its name before the
    long subtitle TMDB's names keep. The name it is the start of; None: it is not."""
    if candidate.kind != "series" or candidate.language != "ja":
        return None
    key = title_key(title)
    return next((n for n in candidate.all_names() if key in _stem_keys(n)), None)


# "Слово пацана. Кровь на асфальте": a Russian name's subtitle after a full stop.
_DOTTED = re.compile(r"(?<=[а-яё]{2})\.\s+(?=[А-ЯЁ])")


def _dotted_stem(reading: Reading, candidate: Candidate) -> str | None:
    """ "Слово пацана (2023)" of "Слово пацана. Кровь на асфальте": trackers name a
    Russian show by its name before the subtitle TMDB writes after a full stop (three
    words or more, as ``_stem_keys``), when the release's year is the show's. The name
    it is the start of; None: it is not."""
    if candidate.kind != "series" or reading.year is None or reading.year != candidate.year:
        return None
    key = title_key(reading.title)
    for name in candidate.all_names():
        parts = _DOTTED.split(name, maxsplit=1)
        if len(parts) == 2 and len(fold(parts[1]).split()) >= 3 and title_key(parts[0]) == key:
            return name
    return None


# A season's mark inside a title ("Mushoku Tensei II: Isekai Ittara Honki Dasu").
_SEASON_MARK = re.compile(r"(?i)^(?:i{2,3}|iv|vi{0,3}|ix|s\d{1,2}|\d{1,2}(?:st|nd|rd|th)?)[:~]?$")
_DOUBLED_VOWEL = re.compile(r"([aeiou])\1|(o)u")


@lru_cache(maxsize=4096)
def _romaji(text: str) -> str:
    """A name as romanized Japanese is spelled many ways, compared: long vowels single
    ("Yuukaku", "Yūkaku", "Yukaku"; "Shounen", "Shōnen"), the particle "wo" as "o", no
    English articles ("Movie 2" of "the Movie 2") and no spaces."""
    words = ["o" if w == "wo" else w for w in title_key(text).split() if w not in ARTICLES]
    return _DOUBLED_VOWEL.sub(lambda m: m.group(1) or m.group(2), "".join(words))


def in_own_words(title: str, candidate: Candidate) -> str:
    """The release's title with a Japanese candidate's name written as the candidate
    writes it, when the release spells that name another way ("Kono Subarashii Sekai ni
    Shukufuku wo! 3" of "… Shukufuku o!") or puts a season's mark inside it ("Mushoku
    Tensei II: Isekai Ittara Honki Dasu" → "Mushoku Tensei: Isekai Ittara Honki Dasu
    II"): what follows the name is then weighed as ever (a season's number or name)."""
    if candidate.language != "ja" or not title:
        return title
    words = title.split()
    names = sorted(
        {part for name in candidate.all_names() for part in (name, *_SUBTITLE.split(name)[:1])},
        key=len,
        reverse=True,
    )
    if any(title_key(title) == title_key(name) for name in names):
        return title
    for name in names:
        own = _romaji(name)
        for count in range(len(words), 0, -1):
            head, rest = words[:count], words[count:]
            if own and _romaji(" ".join(head)) == own:
                return " ".join([name, *rest])
            if candidate.kind != "series":
                continue
            for at in range(1, count - 1):
                if (
                    _SEASON_MARK.match(head[at])
                    and _romaji(" ".join(head[:at] + head[at + 1 :])) == own
                ):
                    return " ".join([name, head[at].strip(":~"), *rest])
    return title


def _sequel_named(title: str, candidate: Candidate) -> str | None:
    """ "Terminator 2" of "Terminator 2: Judgment Day", "Hellboy 2" of "Hellboy II: The
    Golden Army": a sequel released by its name and number, without its subtitle."""
    key = title_key(title)
    if not key[-1:].isdigit():
        return None
    for name in candidate.all_names():
        parts = _SUBTITLE.split(name, maxsplit=1)
        if len(parts) == 2 and title_key(parts[0]) == key:
            return name
    return None


# "Homecoming: A Film by Beyoncé": the film's title, then who made or performs it.
_FILM_BY = re.compile(
    r"(?i)^(?P<title>.+?)\s*(?:[:|(,]|\s[-–—])\s*(?:an?\s+)?(?:concert\s+)?film\s+by\s+"
    r"(?P<by>[^()]+?)\)?$"
)


def _credited(name: str) -> tuple[str, ...]:
    """A name that credits its artist after the title, written the way releases put
    the artist first: "Beyoncé Homecoming" of "Homecoming: A Film by Beyoncé"."""
    found = _FILM_BY.match(name)
    return (f"{found['by']} {found['title']}",) if found else ()


def _performer_first(title: str, candidate: Candidate) -> tuple[str, TitleMatch] | None:
    """ "Talking Heads Stop Making Sense" for the film "Stop Making Sense": one of the
    candidate's names is the title's last words, and the words before it (an artist,
    a comedian) are explained by its overview ("David Byrne, Talking Heads and …") or
    another of its names ("Talking Heads: Stop Making Sense (Remastered)"): close.
    Unexplained, a name of two words or more is still partly the title."""
    key = title_key(title)
    overview = " ".join(fold(n) for n in (candidate.overview or "", *candidate.all_names()))
    overview = f" {overview} "
    best: tuple[str, TitleMatch] | None = None
    for name in candidate.all_names():
        own = title_key(name)
        if not own or not key.endswith(" " + own):
            continue
        leading = key[: -len(own)].split()
        while leading and leading[-1] in ARTICLES:  # "Led Zeppelin The Song Remains …"
            leading.pop()
        if not leading or len(leading) > 4:
            continue
        # The artist's name as a phrase of the overview, possessive or not.
        if re.search(rf" {re.escape(' '.join(leading))}s? ", overview):
            return name, "close"
        if len(own.split()) >= 2:
            best = (name, "partial")
    return best


def _tour_of(title: str, candidate: Candidate) -> str | None:
    """A film's name, then the tour its own overview names after it ("Beyonce
    Renaissance World Tour" of "Renaissance: A Film by Beyoncé", whose overview is of
    "… RENAISSANCE WORLD TOUR"), or its maker as a poster credits him ("… Gift Shop A
    Banksy Film", the overview naming Banksy). The name that matched; None when none."""
    bare = without_tour(title)
    if candidate.kind != "movie" or bare is None:
        return None
    matched, match = _best_name(bare, candidate)
    tail = title_key(title)[len(title_key(bare)) :].split()
    if tail[:1] == ["a"]:
        named = " ".join(tail[1:-1])  # "a banksy film": Banksy
    else:
        named = " ".join([title_key(bare).split()[-1], *tail])  # "renaissance world tour"
    overview = f" {title_key(candidate.overview or '')} "
    return matched if match == "exact" and f" {named} " in overview else None


def _other_article(title: str, original: str | None) -> bool:
    a, b = fold(title).split(), fold(original or "").split()
    short, long = sorted((a, b), key=len)
    return len(long) == len(short) + 1 and long[0] in ARTICLES and long[1:] == short


def _strength(evidence: Evidence) -> tuple[bool, int, int, int]:
    """Of the readings: not contradicted, the best title, the best year, then the one
    under which TMDB places more files ("Hellsing OVA" of the OVA series)."""
    return (
        not contradicted(evidence),
        TITLE_RANK[evidence.title],
        YEAR_RANK[evidence.year],
        len(evidence.listed),
    )


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
    if candidate.kind == "movie" and year < candidate.year and _told(year, candidate.overview):
        return "told"
    return "far"


def _told(year: int, overview: str | None) -> bool:
    """The overview gives the year: a concert filmed years before its film came out
    ("… at the Reading Festival on 30 August 1992"), the event a documentary shows."""
    return re.search(rf"(?<!\d){year}(?!\d)", overview or "") is not None


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
    own = _LANGUAGES.get(candidate.language, candidate.language)
    return "match" if language == own else "other"


# Words of a service's name that say nothing of which one it is.
_SERVICE_NOISE = frozenset({"tv", "video", "plus", "network", "channel", "the", "now", "go"})


# The TMDB genre ids of each kind of work a name may say (movie and tv ids of these agree;
# TV has no Music).
_GENRE_IDS = {"animation": 16, "documentary": 99, "music": 10402, "comedy": 35}


def _genre(said: Sequence[tuple[str, str]], candidate: Candidate, matched: str) -> int:
    """How many of the kinds of work the name says the candidate's genres are, the words
    of its own matched name left out ("The Tour" says no concert of "The Tour"). Live
    action: known genres without Animation."""
    own = set(title_key(matched).split())
    count = 0
    for genre, word in said:
        if word and set(title_key(word).split()) <= own:
            continue
        if genre == "live":
            count += bool(candidate.genres) and _GENRE_IDS["animation"] not in candidate.genres
        else:
            count += _GENRE_IDS[genre] in candidate.genres
    return count


def _service(service: str | None, candidate: Candidate) -> bool:
    """The streaming service tag ("Amazon Prime") names one of the candidate's
    networks ("Prime Video")."""
    if service is None:
        return False
    wanted = _service_words(service)
    return any(wanted & _service_words(n) for n in candidate.networks)


def _service_words(name: str) -> set[str]:
    """The words that say which service or network it is, and the name written as one
    word: "AppleTV" is "Apple TV+", "ITV" the channel "ITV1"; a number alone says
    nothing ("Channel 4" is not "BBC Four")."""
    key = title_key(name)
    words = {w.rstrip("0123456789") for w in key.split() if not w.isdigit()}
    return (words - _SERVICE_NOISE) | {compact(key)}


def _aired(
    dates: Sequence[tuple[str, str]], candidate: Candidate
) -> tuple[AiredMatch, tuple[tuple[str, int, int], ...]]:
    """The episode aired on each file's date: "match" when TMDB lists one for every
    date (the listed seasons fetched), "mismatch" when a date is before the show's
    first episode or after the last one of a show that ended."""
    if not dates or candidate.kind != "series":
        return "none", ()
    # A day a numbered episode and a special share is the episode's.
    ordered = sorted(candidate.aired, key=lambda e: e.season != 0)
    days = {e.air_date: e for e in ordered if e.air_date and e.number > 0}
    # A double bill (two episodes one after the other aired on one day) does not say
    # which a file of that day is: asked.
    aired = {(e.season, e.number): e.air_date for e in candidate.aired if e.number > 0}
    double = {day for (s, n), day in aired.items() if s > 0 and aired.get((s, n + 1)) == day}
    days = {day: e for day, e in days.items() if day not in double}
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


def _identified(query: Query, candidate: Candidate) -> bool:
    """An id of the release names ``candidate``; a film's id in a pack of episodes (the
    film a show is based on, a leftover ``movie.nfo``) is not the pack's."""
    if candidate.provider != "tmdb":
        return False
    if candidate.kind == "movie" and query.kind == "series" and query.episodes:
        return False
    identifiers = query.identifiers
    own = (
        {f"tmdb:{candidate.ref}"}
        | ({f"imdb:{candidate.imdb_id}"} if candidate.imdb_id else set())
        | ({f"tvdb:{candidate.tvdb_id}"} if candidate.tvdb_id else set())
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
        # "American Horror Story - Coven - Season 2": a season by its name (3), another
        # by its number; the release contradicts itself.
        numbered = {*query.seasons, *(s for s, _, _ in query.episodes if s is not None)}
        if other := sorted(numbered - {0, 1, named}):
            return "misfit", f"S{other[0]:02d}"
        query = replace(
            query,
            seasons=tuple(named if s == 1 else s for s in query.seasons) or (named,),
            episodes=tuple((named if s in (None, 1) else s, e, a) for s, e, a in query.episodes),
        )
    if candidate.kind == "movie":
        # A season is what a movie cannot have, nor a lone episode past the first as
        # fansubs number them ("Title - 05": a film's parts come together); numbered files
        # ("1 серия", "Part 2") may be the parts of one.
        lone = (
            len(query.episodes) == 1
            and query.episodes[0][2]
            and query.episodes[0][1] > 1
            and not query.unnumbered
        )
        if query.kind == "series" and (query.seasons or lone):
            return "misfit", "movie"
        return "none", None
    if candidate.seasons is None:
        return "none", None
    counts = {season.number: season.episodes for season in candidate.seasons}
    regular = {number: count for number, count in counts.items() if number > 0}
    for number, year in query.season_years:
        # "Top Gear/Series 22 (2015)": the 1977 show's series 22 aired in 1998.
        aired = next((s.year for s in candidate.seasons if s.number == number), None)
        if aired is not None and abs(aired - year) > 1:
            return "misfit", f"S{number:02d} ({year})"
    for pack in query.seasons:
        if pack > 0 and pack not in regular:
            return "misfit", f"S{pack:02d}"
    for season, episode, absolute in query.episodes:
        if season is None:
            if episode > sum(regular.values()):
                return "misfit", f"E{episode:02d}"
        elif season == 0:
            # Each database numbers specials its own way: one with a title (TMDB's names
            # may place it) is no misfit.
            titled = any(s == 0 and e == episode for _, s, e, _ in query.titled)
            if 0 in counts and episode > counts[0] and not titled:
                return "misfit", f"S00E{episode:02d}"
        elif season not in regular:
            return "misfit", f"S{season:02d}"
        elif episode > regular[season] and not (
            absolute and absolute_to_season(episode, candidate.seasons, season)
        ):
            return "misfit", f"S{season:02d}E{episode:02d}"
    return "fit", None


def _short(query: Query, candidate: Candidate, named: int | None = None) -> bool:
    """A whole season in the name ("Utopia.S01", files E01…E06) that holds far fewer
    episodes than this candidate's season: two missing and a fifth of it ("Utopia" of
    2020 has 8; a season off by one is how TMDB counts a double episode)."""
    if not query.whole_seasons or candidate.kind != "series" or not candidate.seasons:
        return False
    counts = {s.number: s.episodes for s in candidate.seasons if s.number > 0}
    held: dict[int, list[int]] = {}
    for season, episode, _ in query.episodes:
        if season is not None and season > 0:
            held.setdefault(named if named is not None and season == 1 else season, []).append(
                episode
            )
    for season, episodes in held.items():
        count = counts.get(season, 0)
        missing = count - max(episodes)
        # A pack of the season from its start: two videos or more, the first E01 or E01E02.
        if len(episodes) >= 2 and min(episodes) <= 2 and missing >= max(2, count / 5):
            return True
    return False


# The most a film's file can hold per second, in bits: a Blu-ray's highest rate with
# its audio, a UHD disc's (and the UHD's for a height not named). A file larger than
# that rate allows for a film's running time is not that film.
_MAX_RATE = {2160: 130e6, None: 130e6}
_BLU_RAY_RATE = 48e6


def _too_big(query: Query, candidate: Candidate) -> bool:
    """ "Lights.Out.1080p.BluRay" of 6.5 GB is not the three-minute short: at the
    highest rate its format has, the file runs longer than the candidate (by a fifth
    and two minutes more)."""
    if query.size is None or candidate.kind != "movie" or not candidate.runtime:
        return False
    rate = _MAX_RATE.get(query.height, _BLU_RAY_RATE)
    minutes = query.size * 8 / rate / 60
    return minutes > candidate.runtime * 1.2 + 2


# TMDB's networks that only stream (as TMDB names them, in lower case): a show of these
# alone was never broadcast.
_STREAMING = frozenset(
    {"netflix", "prime video", "amazon", "amazon freevee", "freevee", "hulu", "disney+"}
    | {"apple tv+", "apple tv", "hbo max", "max", "paramount+", "cbs all access", "peacock"}
    | {"youtube premium", "youtube red", "crackle", "quibi", "shudder", "britbox", "amc+"}
    | {"acorn tv", "sundance now", "crunchyroll", "stan", "itvx"}
)


def _era(query: Query, candidate: Candidate) -> EraMatch:
    """The candidate's time against the release's format (``Query.since``): a film's
    year; a show's run, to its last season (its seasons are released in the formats of
    the years it aired, its boxes while it runs). A TV capture is of a show some
    broadcaster aired: of one only streamed, it is "before"."""
    if query.capture and candidate.networks and _only_streamed(candidate):
        return "before"
    since = query.since
    if since is None or candidate.year is None:
        return "none"
    if candidate.kind == "series":
        years = [s.year for s in candidate.seasons or () if s.number > 0 and s.year]
        if years:
            return "in" if max(years) >= since else "before"
        # Its run unknown: it may have gone on into the format's time.
        return "in" if candidate.year >= since else "none"
    return "in" if candidate.year >= since else "before"


def _only_streamed(candidate: Candidate) -> bool:
    return candidate.kind == "series" and all(
        n.strip().casefold() in _STREAMING for n in candidate.networks
    )


def _whole_run(query: Query, candidate: Candidate) -> bool:
    """ "Utopia.Complete.Series" with one season of eight: all the seasons of the show
    that has one, not of the one that has three."""
    if not query.complete or candidate.kind != "series" or not candidate.seasons:
        return False
    held = {s for s, _, _ in query.episodes if s is not None and s > 0} | set(query.seasons)
    return bool(held) and held == {s.number for s in candidate.seasons if s.number > 0}


def only_year_against(evidence: Evidence) -> bool:
    """Ruled out by the year alone: nothing of the files says it cannot be (of one
    reading; ``Evidence.year_against`` is of any)."""
    return (
        evidence.year == "far"
        and evidence.country != "mismatch"
        and evidence.seasons != "misfit"
        and evidence.aired != "mismatch"
        and not evidence.too_big
    )


def strong(evidence: Evidence, tag: str | None = None) -> bool:
    """Not contradicted, an exact or close title, and a year that agrees (or none to
    compare): no other search would find a better one. Nor is one whose original
    language is not the release's language ``tag``, when that is a language titles are
    rarely dubbed into ("The.Ring.JAPANESE": the Japanese "Ring" may be found yet)."""
    return (
        not contradicted(evidence)
        and evidence.title in ("exact", "close")
        and (evidence.year in ("exact", "near", "none") or evidence.aired == "match")
        and not (evidence.language == "other" and tag is not None and tag not in DUBBED_INTO)
    )


def contradicted(evidence: Evidence) -> bool:
    """The release says something this candidate cannot be."""
    return (
        evidence.year == "far"
        or evidence.country == "mismatch"
        or evidence.seasons == "misfit"
        or evidence.aired == "mismatch"
        or evidence.too_big
    )


def confidence(evidence: Evidence, rule: str) -> float:
    """How sure an accepted candidate is, in [0, 1] (``auto_accept`` is its threshold)."""
    if rule == "identifier":
        return 1.0
    # An episode's name of a show only the year is against: the name outweighs the year.
    set_aside = rule == "episode" and evidence.year == "far"
    value = _TITLE_CONFIDENCE[evidence.title] + (
        0.0 if set_aside else _YEAR_CONFIDENCE[evidence.year]
    )
    value += 0.04 if evidence.country == "match" else 0.0
    value += 0.04 if evidence.seasons == "fit" else 0.0
    # A show that aired an episode on the file's date, where others of the name did
    # not: as sure as a full title ("Late Show" for "Late Show with David Letterman").
    value += 0.3 if evidence.aired == "match" else 0.0
    value -= 0.02 if rule == "popularity" else 0.0
    return round(min(1.0, max(0.0, value)), 4)
