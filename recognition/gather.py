"""Gathering the candidates for a release, within a bound, then the decision.

The order of the lookups follows the evidence: an id in an ``.nfo``, the magnet's
``dn`` or a hint first (``/find``, or the TMDB id itself); then a search for the
title in the language it is written in; details (alternative titles, translations,
seasons) of the few candidates that could be it; and only while no candidate is a
strong match, the other readings of the title ("Wonder Woman 1984" as a title, the
Cyrillic name of a Russian release), a search with the year when the first page was
full, and the other kind (a miniseries released as "Part 1…N"). Each answer is
cached for the batch (``recognition.lookups.Lookup``); one recognition makes at most
``MAX_REQUESTS``.
"""

import re
from collections.abc import Iterable
from dataclasses import replace

from core.errors import RejectedError
from recognition.candidates import AiredEpisode, Candidate, Evidence, MediaKind, Query, Reading
from recognition.decide import Decision, decide, ranked
from recognition.explain import without_edition, without_tour
from recognition.folding import ARTICLES, numerals_swapped, title_key
from recognition.forms import other_forms
from recognition.lookups import Lookup
from recognition.parsing.episodes import name_key, season_years
from recognition.parsing.release import without_part
from recognition.recognize import Recognized
from recognition.weigh import (
    DUBBED_INTO,
    TITLE_RANK,
    contradicted,
    strong,
    title_match,
    without_season_tag,
)

DETAILS = 3  # candidates whose details are fetched in one round
PAGE = 20  # TMDB's page: a full first page may hide the right title on the next

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_LATIN = re.compile(r"[A-Za-z]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
# Scripts of one language: the title is searched in it.
_SCRIPTS = (
    (re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]"), "el-GR"),
    (re.compile(r"[\u0590-\u05ff]"), "he-IL"),
    (re.compile(r"[\u0600-\u06ff]"), "ar-SA"),
    (re.compile(r"[\u0e00-\u0e7f]"), "th-TH"),
    (re.compile(r"[\u0900-\u097f]"), "hi-IN"),
    (re.compile(r"[\u0b80-\u0bff]"), "ta-IN"),
    (re.compile(r"[\u0c00-\u0c7f]"), "te-IN"),
)
_LATIN_LANGUAGES = frozenset({"en", "de", "fr", "es", "it", "pt", "nl", "sv", "pl", "cs", "tr"})
# A Latin title tagged with one of these languages ("Alles.steht.Kopf.2.German",
# "Intensamente.2.Latino") is searched in it: a local title is TMDB's translation there.
_TAGGED = {
    "de": "de-DE", "fr": "fr-FR", "es": "es-ES", "it": "it-IT", "pt": "pt-BR", "nl": "nl-NL",
    "sv": "sv-SE", "da": "da-DK", "no": "no-NO", "fi": "fi-FI", "pl": "pl-PL", "tr": "tr-TR",
    "cs": "cs-CZ", "hu": "hu-HU", "ro": "ro-RO",
}  # fmt: skip


def query_of(recognized: Recognized) -> Query:
    """What the release says, as the decision reads it."""
    readings = []
    if recognized.title:
        readings.append(Reading(recognized.title, recognized.year))
    if recognized.alt_title:
        readings.append(Reading(recognized.alt_title, recognized.year))
    if recognized.title_with_year:
        readings.append(Reading(recognized.title_with_year, None))
    videos = [f for f in recognized.files if f.role == "video"]
    episodes: list[tuple[int | None, int, bool]] = []
    seasons: set[int] = set()
    if recognized.kind == "series":
        episodes = [
            (f.season, max(f.episodes), f.absolute)
            for f in videos
            if f.episodes and "loose" not in f.flags
        ]
        seasons = {f.season for f in videos if f.season is not None}
        if recognized.season is not None:
            seasons.add(recognized.season)
    elif recognized.numbered_parts:
        episodes = [(None, len(videos), True)]  # a miniseries holds at least that many
    return Query(
        kind="unknown" if recognized.numbered_parts else recognized.kind,
        readings=tuple(readings),
        country=recognized.country,
        episodes=tuple(sorted(set(episodes), key=lambda e: (e[0] or 0, e[1], e[2]))),
        seasons=tuple(sorted(seasons)),
        identifiers=recognized.identifiers,
        countries=recognized.countries,
        language=recognized.language,
        service=recognized.service,
        dates=tuple(
            (f.path, f.date.isoformat())
            for f in videos
            # "Running.Man.E702.240512": a number without a season is checked against
            # the date (``recognition.placement``); a date read two ways is asked.
            if recognized.kind == "series"
            and f.date is not None
            and (not f.episodes or f.season is None)
            and "two_dates" not in f.flags
        ),
        unnumbered=tuple(f.path for f in videos if not f.episodes and f.date is None),
        episode_title=recognized.episode_title,
        special=recognized.special,
        whole_seasons=recognized.kind == "series" and recognized.whole_seasons,
        complete=recognized.complete,
        since=recognized.form.since,
        height=recognized.form.height,
        capture=recognized.form.capture,
        size=recognized.size,
        named=tuple(
            (f.path, 0 if f.special else f.season, f.name)
            for f in videos
            if recognized.kind == "series" and f.name
        ),
        specials=tuple((f.path, f.special_number) for f in videos if f.special),
        titled=tuple(
            (f.path, f.season, f.episodes[0], f.titled)
            for f in videos
            if recognized.kind == "series" and f.titled and len(f.episodes) == 1
        ),
        season_years=tuple(sorted({pair for f in videos for pair in season_years(f.path)})),
        genres=recognized.genres,
        parts=tuple(
            (f.path, f.season, f.part, f.episodes[0])
            for f in videos
            if recognized.kind == "series" and f.part > 1 and len(f.episodes) == 1 and f.absolute
        ),
    )


async def find_title(
    recognized: Recognized, lookup: Lookup, *, auto_accept: float, language: str
) -> Decision:
    """Gather candidates for ``recognized`` and decide (see the module's docstring)."""
    query = query_of(recognized)
    found = _Found(query)
    for identifier in query.identifiers[:2]:
        await _by_identifier(identifier, lookup, found)
    pinned = [c for c in found.weighed() if c.evidence and c.evidence.identifier]
    if pinned and not any(_against_name(c.evidence) for c in pinned if c.evidence):
        return decide(query, found.all(), auto_accept)
    # An id whose title the name's year or tag is against: the name is searched too,
    # and where it finds its own title, asked (``decide.named_against_id``).
    for index, kind in enumerate(_kinds(recognized)):
        if index and found.strong():
            break
        await _search_kind(kind, query, lookup, found, language, forms=not index)
        if not index and kind == "series" and not found.strong():
            # "Doctor Who - The Snowmen (2012 Christmas Special)": the show found, its
            # seasons, specials and episodes may name the rest, before the other kind.
            await _season_names(found.query, lookup, found, language)
            await _titled_episode(found.query, lookup, found, language)
            await _specials(found.query, lookup, found)
    query = found.query  # with the forms of the title that are readings of their own
    if not found.strong() and recognized.fallback_titles:
        # The weaker names count only when the title found nothing strong.
        weaker = tuple(Reading(title, year) for title, year in recognized.fallback_titles)
        query = replace(query, readings=(*query.readings, *weaker))
        found.requery(query)
        for reading in weaker:
            for kind in _kinds(recognized)[:1]:
                await _search(kind, reading, lookup, found, language)
                await _details(kind, lookup, found)
    if not found.titled() and query.readings and recognized.kind != "series":
        await _performer_first(query, lookup, found, language)
    if not found.titled() and query.readings:
        await _leading_words(query.readings[0], lookup, found, language)
    if not found.titled() and query.readings and recognized.kind != "series":
        await _performer_first(query, lookup, found, language, left=1)
    if not found.strong():
        await _season_names(query, lookup, found, language)
    await _aired(query, lookup, found)
    await _titled_episode(query, lookup, found, language)
    await _specials(query, lookup, found)
    await _episode_lists(query, lookup, found, language)
    await _part_seasons(query, lookup, found)
    await _year_seasons(query, lookup, found)
    decision = decide(query, found.all(), auto_accept)
    # The episode's title in the name tells shows the evidence cannot tell apart, or one
    # the year took over another (a series named by its pilot's or miniseries' year);
    # and of one show, whether the number is the episode the title names (else asked).
    named = decision.rule not in _BY_FACTS
    if named and await _episode_names(query, lookup, found, language):
        decision = decide(query, found.all(), auto_accept)
    return decision


def _against_name(evidence: Evidence) -> bool:
    """The name is against the id's title: its year or tag, or its title is another."""
    return (
        evidence.year_against
        or evidence.year == "far"
        or evidence.country == "mismatch"
        or evidence.title == "weak"
    )


# Decisions an episode's name cannot change: an id, an air date, the name itself.
_BY_FACTS = frozenset({"identifier", "aired", "episode"})


async def _search_kind(
    kind: MediaKind,
    query: Query,
    lookup: Lookup,
    found: "_Found",
    language: str,
    *,
    forms: bool = False,
) -> None:
    first, *others = query.readings or (Reading("", None),)
    if not first.title:
        return
    # In the person's language too only for the first kind: the second searches the
    # same words, and its room is the seasons' that place the files.
    page = await _search(kind, first, lookup, found, language, retry=forms)
    await _details(kind, lookup, found)
    await _aired(query, lookup, found)
    numerals = numerals_swapped(first.title)
    # "Shingeki no Kyojin - The Final Season": the show is found by the part before
    # the dash, and weighed by the whole (its season's name must explain the rest).
    # "Lupin Partie 2": the show is found by its name without the part.
    # "Der Untergang aka Downfall": by the name before the other too.
    stem = _BESIDE.split(first.title, 1)[0] if _BESIDE.search(first.title) else None
    stem = stem or without_part(first.title)
    # "… The Eras Tour Taylors Version": the film is found without its edition.
    edition = without_edition(first.title)
    searched = [*others, *([Reading(numerals, first.year)] if numerals else [])]
    # A bare number after a romanized name, as fansubs number ("Title 3 - 05"): its season.
    fansub = any(absolute for _, _, absolute in query.episodes)
    show = _show_name(first.title) if kind == "series" else None
    spelled = _romaji_spelled(show or stem or first.title)
    if spelled and fansub:
        spelled = _GLUED_NUMBER.sub("", spelled)
    # "Psycho-Pass 2 - 05": the name without its glued number, which the show's season
    # must then explain (a title that holds it, "Steins;Gate 0", is found whole first).
    unnumbered = _GLUED_NUMBER.sub("", show or first.title) if kind == "series" and fansub else None
    shorter = [
        Reading(t, first.year)
        for t in (
            edition,
            without_tour(first.title) if kind == "movie" else None,
            stem,
            show,
            unnumbered if unnumbered not in (show, first.title) else None,
            spelled,
            _foreign_bare(first, query),
        )
        if t
    ]
    for reading in [*searched, *shorter]:
        if found.strong():
            return
        await _search(kind, reading, lookup, found, language, retry=False)
        await _details(kind, lookup, found)
    await _beside_original(kind, first, lookup, found, language)
    if forms:
        await _other_forms(kind, first, lookup, found, language)
    if not found.strong() and first.year is not None and page is not None and len(page) >= PAGE:
        written = _written_in(first, language, query.language)
        more = await lookup.search(kind, first.title, first.year, written)
        found.add(more or ())
        await _details(kind, lookup, found)


async def _beside_original(
    kind: MediaKind, first: Reading, lookup: Lookup, found: "_Found", language: str
) -> None:
    """ "Os Condenados de Shawshank - The Shawshank Redemption (1994)": a film named by
    a local title TMDB does not know, a dash, then its original title. The part after
    the dash is searched as a reading of its own only when the part before it finds
    nothing (else it may name a show, the rest its episode: "Sherlock - A Scandal in
    Belgravia") and there is a year (which must then agree: a subtitle's namesake of
    another year is not strong). A show's so too ("Dom z papieru - La casa de papel Sezon
    3"), with a year or as a pack of whole seasons (an episode's title is no season's)."""
    local, _, original = first.title.partition(" - ")
    if not local.strip() or not original.strip():
        return
    if first.year is None and (kind != "series" or not found.query.whole_seasons):
        return
    if found.strong():
        return
    for named in ("movie", "series"):
        before = await _search(named, Reading(local, None), lookup, found, language, retry=False)
        if any(title_match(local, n) != "weak" for c in before or () for n in c.all_names()):
            return  # "Sherlock - A Scandal in Belgravia": a known name, then its part's
    reading = Reading(original, first.year)
    found.requery(replace(found.query, readings=(*found.query.readings, reading)))
    await _search(kind, reading, lookup, found, language, retry=False)
    await _details(kind, lookup, found)


# Season words a fansub glues to a show's name: "… The Final Season", "… 2nd Season",
# "… Season 2", "… S2" (Spanish trackers' "… T2"), "… III", "… Zoku", an arc ("… Yuukaku-hen");
# and a season's numeral inside it ("Mushoku Tensei II: Isekai Ittara Honki Dasu").
_GLUED_SEASON = re.compile(
    r"(?i)\s+(?:(?:the\s+)?final(?:\s+season)?|season\s*\d{1,2}|\d{1,2}(?:st|nd|rd|th)\s+season"
    r"|[st]\d{1,2}|i{2,3}|iv|vi{0,3}|zoku|\S+-hen)$"
)
_BESIDE = re.compile(r"\s+(?:-|aka|AKA|a\.k\.a\.?)\s+")  # two names of one title
_GLUED_NUMBER = re.compile(r"\s+\d{1,2}$")
_INNER_SEASON = re.compile(r"(?i)(?<=\S)\s+(?:i{2,3}|iv|vi{0,3}|s\d{1,2})(?=:?\s+\S)")


def _show_name(title: str) -> str | None:
    """The show's name without the season a fansub writes into it (see above): TMDB
    finds a show only when every word searched is a word of one of its names. What is
    found is weighed by the whole title, whose season words must be explained."""
    bare = _INNER_SEASON.sub("", _GLUED_SEASON.sub("", title), count=1).strip(" :-")
    return bare if bare != title and len(bare.split()) >= 1 and bare else None


_LONG_VOWEL = re.compile(r"(?i)(?<=[^\W\d_])(?:(u)u|(o)[ou]|(a)a|(e)e)")
_WO = re.compile(r"(?i)(?<![^\W_])wo(?![^\W_])")
# Japanese particles as words, or a long vowel written twice where English words have
# none ("Kaijuu", "8-gou"; not "vacuum", "you", "thou"): the title is romanized Japanese.
_PARTICLE = re.compile(
    r"(?i)(?<![^\W_])(?:no|wa|wo|ni|ga|kara)(?![^\W_])|[^\W\d_]uu(?!m(?![^\W_]))"
    r"|(?<![^\W_])(?!(?:th|y)ou(?![^\W_]))[^\W\d_]+ou(?![^\W_])"
)


def _romaji_spelled(title: str | None) -> str | None:
    """A romanized Japanese name as TMDB's names write it more often: the particle
    "wo" as "o", long vowels single ("Yuukaku" → "Yukaku", TMDB's "Yūkaku" searched
    without its macron). None when the title has neither."""
    if not title or not _PARTICLE.search(title):
        return None
    spelled = _LONG_VOWEL.sub(lambda m: next(g for g in m.groups() if g), _WO.sub("o", title))
    return spelled if spelled != title else None


def _foreign_bare(first: Reading, query: Query) -> str | None:
    """ "The.Ring.JAPANESE": a title tagged with a language titles are rarely dubbed
    into, without its English article: TMDB may call the original "Ring"."""
    article, _, rest = first.title.partition(" ")
    if query.language is None or query.language in DUBBED_INTO or not rest:
        return None
    return rest if article.lower() in ARTICLES else None


async def _other_forms(
    kind: MediaKind, first: Reading, lookup: Lookup, found: "_Found", language: str
) -> None:
    """The title written as TMDB may know it (``recognition.forms``: "It Chapter Two",
    "Avatar The Way of Water", "Москва слезам не верит"), while nothing strong is found;
    a form that is a reading of its own is weighed as one too."""
    for form in other_forms(first.title, first.year):
        if found.strong():
            return
        if form.when_nothing and found.titled():
            continue
        reading = Reading(form.title, first.year)
        if form.weighed:
            found.requery(replace(found.query, readings=(*found.query.readings, reading)))
        await _search(kind, reading, lookup, found, language, retry=False)
        await _details(kind, lookup, found)


async def _performer_first(
    query: Query, lookup: Lookup, found: "_Found", language: str, *, left: int = 2
) -> None:
    """Nothing found by the whole title: a concert or a stand-up special named artist
    first ("Talking Heads Stop Making Sense", "Aretha Franklin Amazing Grace"), or a
    film by its other name first ("Mononoke Hime Princess Mononoke"), is found by its
    last words — the first one, two or three dropped, two or more left. Only films
    whose own overview or other names hold the dropped words are kept: the rest of a
    search for "Amazing Grace" is no explanation of "Aretha Franklin". Only with a
    year: such a match is taken with one, and without one its searches would only
    take room from the lookups after it. One word ``left`` ("Michelle Obama Becoming")
    only once nothing else found a title: such a search finds many."""
    first = query.readings[0]
    if first.year is None:
        return
    words = [w for w in first.title.split() if any(ch.isalnum() for ch in w)]  # not " - "
    drops = range(1, min(3, len(words) - 2) + 1) if left > 1 else [len(words) - 1]
    for dropped in (d for d in drops if 0 < d <= 3):
        reading = Reading(" ".join(words[dropped:]), first.year)
        written = _written_in(reading, language, query.language)
        page = await lookup.search("movie", reading.title, None, written)
        explained = _explained(query, page or ())
        detailed = False
        if not explained and page:
            # Its other name first ("Spirited Away Sen to Chihiro no Kamikakushi"): only
            # the details of what was found know its other names.
            explained = _explained(query, await _detailed(ranked(query, page)[:2], lookup))
            detailed = True
        if explained:
            found.add(explained, detailed=detailed)
            await _details("movie", lookup, found)
            return


def _explained(query: Query, candidates: Iterable[Candidate]) -> list[Candidate]:
    """The candidates whose names make the release's title (``weigh``): exact or close."""
    return [
        c
        for c in ranked(query, candidates)
        if c.evidence is not None and c.evidence.title in ("exact", "close")
    ]


async def _detailed(candidates: Iterable[Candidate], lookup: Lookup) -> list[Candidate]:
    """The details of ``candidates``, while the lookups last (one TMDB refuses is left out)."""
    detailed = []
    for candidate in candidates:
        try:
            one = await lookup.details(candidate)
        except RejectedError:
            continue
        if one is None:
            break
        detailed.append(one)
    return detailed


async def _leading_words(first: Reading, lookup: Lookup, found: "_Found", language: str) -> None:
    """Nothing found by the whole title: its leading words, the longest first, down to
    two, as a show ("Black Mirror White Christmas" → "Black Mirror"), without the words
    no name ends with ("Game of Thrones The" is "Game of Thrones", "Monster The"
    "Monster"), each once and in its own language only. Searched only: what is found is
    weighed by the whole, so the rest must be explained (a special's name, a season's)."""
    kind: MediaKind = "series"
    words = first.title.split()
    searched = set()
    for count in range(len(words) - 1, 1, -1):
        leading = words[:count]
        while leading and leading[-1].casefold() in _LINKING:
            leading = leading[:-1]  # "Game of Thrones The": no show's name ends so
        if not leading or tuple(leading) in searched:
            continue
        searched.add(tuple(leading))
        reading = Reading(" ".join(leading), first.year)
        await _search(kind, reading, lookup, found, language, retry=False)
        await _details(kind, lookup, found)
        if found.titled():
            return
    if len(words) > 1:
        await _one_word_show(words, lookup, found, language)


async def _one_word_show(words: list[str], lookup: Lookup, found: "_Found", language: str) -> None:
    """ "Sherlock.Many.Happy.Returns": a show named by its first word alone, kept only
    when its specials (season 0) name the rest exactly; one word alone names too many
    shows to be kept on less."""
    rest = name_key(" ".join(words[1:]))
    written = _written_in(Reading(words[0], None), language, found.language_tag)
    page = await lookup.search("series", words[0], None, written)
    key = title_key(words[0])
    exact = [c for c in page or () if any(title_key(n) == key for n in c.all_names())]
    for show in exact[:2]:
        try:
            detailed = await lookup.details(show)
        except RejectedError:
            continue
        if detailed is None or not _has_specials(detailed):
            continue
        names_in = _names_languages(words[1:], language, found.language_tag, detailed.language)
        listed = await lookup.season(detailed, 0, names_in[0])
        if listed is None:
            return
        if any(e.name and name_key(e.name) == rest for e in listed):
            found.add([detailed], detailed=True)
            found.listed(detailed, listed)
            return


# Words a title does not end with: articles, prepositions, conjunctions.
_LINKING = ARTICLES | {"of", "and", "in", "on", "at", "to", "for", "with", "from", "by", "&", "-"}


async def _season_names(query: Query, lookup: Lookup, found: "_Found", language: str) -> None:
    """Words past the likeliest show's name in another language than the person's
    ("American Horror Story - Coven" under ru-RU, where TMDB names season 3 "Шабаш"):
    its seasons' names in the words' language (its details once more), which may name
    one of them. Only for numbered files: the words of an unnumbered one are rather an
    episode's name ("Sherlock - A Scandal in Belgravia")."""
    if not query.episodes and not query.seasons:
        return
    show = next(iter(found.shows()), None)
    evidence = show.evidence if show is not None else None
    words = evidence.unexplained or evidence.season_words if evidence is not None else None
    if show is None or not words or not any(s.number > 0 for s in show.seasons or ()):
        return
    written = _written_in(Reading(words, None), language, query.language)
    if written.split("-")[0] == language.split("-")[0]:
        return  # the names fetched are in the words' language
    try:
        other = await lookup.details(show, written)
    except RejectedError:
        return
    names = {s.number: s.name for s in other.seasons or () if s.name} if other else {}
    if names:
        seasons = tuple(
            s._replace(names=tuple(dict.fromkeys((*s.names, names[s.number]))))
            if names.get(s.number) not in (None, s.name)
            else s
            for s in show.seasons or ()
        )
        found.add([replace(show, seasons=seasons)], detailed=True)


async def _search(
    kind: MediaKind,
    reading: Reading,
    lookup: Lookup,
    found: "_Found",
    language: str,
    *,
    retry: bool = True,
) -> list[Candidate] | None:
    """The title in the language it is written in (its results' titles compare with
    it), and in the person's language when that found nothing (``retry``: only the
    release's own title; another form searched twice would take the room of others)."""
    written = _written_in(reading, language, found.language_tag)
    page = await lookup.search(kind, reading.title, None, written)
    if not page and retry and written != language:
        page = await lookup.search(kind, reading.title, None, language)
    found.add(page or ())
    return page


async def _details(kind: MediaKind, lookup: Lookup, found: "_Found") -> None:
    """Details of the candidates that could be it: every name TMDB knows them by, and
    their seasons, decide what a search result alone cannot."""
    waiting = [c for c in found.weighed() if c.kind == kind and not found.detailed(c)]
    for candidate in waiting[:DETAILS]:
        if not await _detail(candidate, lookup, found):
            return


async def _detail(candidate: Candidate, lookup: Lookup, found: "_Found") -> bool:
    """One candidate's details into ``found``; one TMDB refuses (a bad id) is dropped
    and the others decide. False: the recognition's lookups are spent."""
    try:
        detailed = await lookup.details(candidate)
    except RejectedError:
        found.drop(candidate)
        return True
    if detailed is None:
        return False
    found.add([detailed], detailed=True)
    return True


async def _aired(query: Query, lookup: Lookup, found: "_Found") -> None:
    """For dated files (a daily show): the shows that could be it, best first, their
    details (a show that had ended or not begun by then is out) and the seasons that
    hold those dates, until ``DETAILS`` shows are checked: which aired on each day."""
    if not query.dates:
        return
    days = sorted({day for _, day in query.dates})
    checked: set[str | None] = set()
    while len(checked) < DETAILS:
        show = next((c for c in found.shows() if c.provider_id not in checked), None)
        if show is None:
            return
        if not found.detailed(show):
            if not await _detail(show, lookup, found):
                return
            continue  # weighed again: its run may rule it out
        checked.add(show.provider_id)
        episodes: list[AiredEpisode] = []
        for number in sorted({n for day in days if (n := _season_on(show, day)) is not None}):
            listed = await lookup.season(show, number)
            if listed is None:
                return
            episodes += listed
        aired = {e.air_date for e in episodes}
        if any(day not in aired for day in days) and _has_specials(show):
            # "Call.the.Midwife.2019.12.25": a day no season lists may be a special's.
            listed = await lookup.season(show, 0)
            if listed is None:
                return
            episodes += listed
        found.listed(show, episodes)


def _has_specials(show: Candidate) -> bool:
    return any(s.number == 0 for s in show.seasons or ())


async def _specials(query: Query, lookup: Lookup, found: "_Found") -> None:
    """One video without a number whose name says more than a show's title ("Extras
    Christmas Special", "Doctor.Who.2005.The.Christmas.Invasion"): the specials
    (season 0) of the two likeliest shows that have some, to find it by its name. Also
    for a special numbered and titled ("Sherlock.S00E04.The.Abominable.Bride"): each
    database numbers specials its own way, TMDB's names place it."""
    titled = any(season == 0 for _, season, _, _ in query.titled)
    if not query.unnumbered and not titled:
        return
    shows = [
        c
        for c in found.shows()
        if any(s.number == 0 for s in c.seasons or ())
        and (
            query.videos() > 1
            or query.episode_title
            or query.specials
            or titled
            or (c.evidence and c.evidence.unexplained)
        )
    ]
    for show in shows[:2]:
        if found.has_season(show, 0):
            continue  # fetched with its seasons (``_titled_episode``)
        listed = await lookup.season(show, 0)
        if listed is None:
            return
        found.listed(show, listed)


async def _titled_episode(query: Query, lookup: Lookup, found: "_Found", language: str) -> None:
    """One video named by a show and an episode's title, without a number ("Sherlock -
    A Scandal in Belgravia.mkv"): the seasons, its specials too, of the two likeliest
    shows whose name leaves those words unexplained, in one request each."""
    if len(query.unnumbered) != 1 or query.episodes or query.specials or query.special:
        return
    if found.strong():
        return
    shows = [
        c
        for c in found.shows()
        if c.evidence is not None
        and c.evidence.unexplained
        and c.evidence.title != "weak"
        and not c.evidence.listed
    ]
    for show in shows[:2]:
        words = [show.evidence.unexplained] if show.evidence and show.evidence.unexplained else []
        have = sorted(s.number for s in show.seasons or ())
        if 0 in have and any(_SPECIAL_WORD.search(w) for w in words):
            have = [0]  # "Top Gear Vietnam Special": one of its specials
        written = _names_languages(words, language, query.language, show.language)[0]
        if not await _seasons_naming(show, have, words, written, lookup, found):
            return


_SPECIAL_WORD = re.compile(r"(?i)\bspecial\b")


async def _episode_lists(query: Query, lookup: Lookup, found: "_Found", language: str) -> None:
    """Videos that may be named by their episode's title ("Lost - Season 1/Tabula
    Rasa.avi", "20 Hours in L.A.avi"): the seasons they are in (by their folder, the
    torrent's name, or the season the title names), of the two likeliest shows, so
    that the name TMDB gives one episode places the file (``recognition.weigh``).
    The names are fetched in the language the files are named in (``_names_languages``).
    Also a pack numbered and titled ("1x01 - The Train Job"): its numbers may not be
    TMDB's. Files whose season nothing says (a folder named only by the show) are looked
    for in the show's only season, else in its seasons in order until each is named."""
    titled = [(p, s, w) for p, s, _, w in query.titled] if len(query.titled) > 1 else []
    if not any(season != 0 for _, season, _ in [*query.named, *titled]):
        return
    shows = [c for c in found.shows() if c.evidence is not None and c.evidence.title != "weak"]
    for show in shows[:2]:
        named = show.evidence.season if show.evidence is not None else None
        have = sorted(s.number for s in show.seasons or () if s.number > 0)
        only = have[0] if len(have) == 1 else None
        wanted: dict[int | None, list[str]] = {}
        for _, season, words in [*query.named, *titled]:
            if season != 0:
                wanted.setdefault(season or named or only, []).append(words)
        for number in sorted(n for n in wanted if n in have):
            languages = _names_languages(wanted[number], language, query.language, show.language)
            if not await _season_named(show, number, wanted[number], languages, lookup, found):
                return
        if not await _specials_named(show, wanted, have, lookup, found, language, query.language):
            return
        if None in wanted:
            unseasoned = wanted[None]
            written = _names_languages(unseasoned, language, query.language, show.language)[0]
            if not await _seasons_naming(show, have, unseasoned, written, lookup, found):
                return


async def _seasons_naming(
    show: Candidate,
    seasons: list[int],
    words: list[str],
    language: str | None,
    lookup: Lookup,
    found: "_Found",
) -> bool:
    """The show's seasons, all at once where the catalogue can (TMDB appends twenty to
    one answer), to find which of them names each of ``words``. False: the lookups are
    spent."""
    if not words or not seasons:
        return True
    listed = await lookup.seasons(show, seasons, language)
    if listed is None:
        return False
    for episodes in listed.values():
        found.listed(show, episodes)
    return True


async def _part_seasons(query: Query, lookup: Lookup, found: "_Found") -> None:
    """Videos of a later part (cour) of a season numbered maybe on their own ("Spy x
    Family Cour 2 - 01", "Dr. Stone - New World Part 2 - 05"): that season of the
    likeliest show, whose air dates tell where each part begins (``recognition.weigh``)."""
    if not query.parts:
        return
    shows = [c for c in found.shows() if c.evidence is not None and c.evidence.title in _NAMED]
    for show in shows[:1]:
        named = show.evidence.season if show.evidence is not None else None
        for number in sorted({season or named or 1 for _, season, _, _ in query.parts}):
            if found.has_season(show, number):
                continue
            listed = await lookup.season(show, number)
            if listed is None:
                return
            found.listed(show, listed)


async def _year_seasons(query: Query, lookup: Lookup, found: "_Found") -> None:
    """A season numbered by its year ("S2023E05", "Season 2023") of a show TMDB numbers
    1…N: the season that began that year and the one before it, of the two likeliest
    shows of the title, tell whether that season is the year's
    (``recognition.placement.seasons_by_year``)."""
    held = {*query.seasons, *(s for s, _, _ in query.episodes if s)}
    years = {s for s in held if s >= _FIRST_YEAR}
    if not years:
        return
    shows = [
        c
        for c in found.weighed()
        if c.kind == "series" and c.seasons and c.evidence and c.evidence.title in _NAMED
    ]
    for show in shows[:2]:
        numbers = {s.number for s in show.seasons or () if s.number > 0}
        for year in sorted(years - numbers):
            began = [s.number for s in show.seasons or () if s.number > 0 and s.year == year]
            if len(began) != 1:
                continue
            before = [n for n in numbers if n < began[0]]
            for number in [*began, *([max(before)] if before else [])]:
                listed = await lookup.season(show, number)
                if listed is None:
                    return
                found.listed(show, listed)


_FIRST_YEAR = 1900  # a season numbered from here on is named by its year
_NAMED = ("exact", "close")


async def _specials_named(
    show: Candidate,
    wanted: dict[int | None, list[str]],
    have: list[int],
    lookup: Lookup,
    found: "_Found",
    language: str,
    tag: str | None,
) -> bool:
    """ "Sherlock.S01.Unaired.Pilot" in series 1's box: the names its season does not
    list may be specials', looked up in season 0. False: the lookups are spent."""
    show = next((c for c in found.shows() if c.provider_id == show.provider_id), show)
    if not any(s.number == 0 for s in show.seasons or ()):
        return True
    listed = {name_key(e.name) for e in show.aired if e.name}
    words = [without_season_tag(w) for n in wanted if n in have for w in wanted[n]]
    left = [w for w in words if name_key(w) not in listed]
    if not left:
        return True
    languages = _names_languages(left, language, tag, show.language)
    return await _season_named(show, 0, left, languages, lookup, found)


async def _season_named(
    show: Candidate,
    number: int,
    words: list[str],
    languages: list[str | None],
    lookup: Lookup,
    found: "_Found",
) -> bool:
    """The season's episode list in the first of ``languages`` that names any of the
    files (the next only while none is named). False: the lookups are spent."""
    keys = {name_key(w) for w in words}
    for language in languages:
        listed = await lookup.season(show, number, language)
        if listed is None:
            return False
        found.listed(show, listed)
        if any(e.name and name_key(e.name) in keys for e in listed):
            return True
    return True


def _names_languages(
    words: list[str], language: str, tag: str | None, original: str | None
) -> list[str | None]:
    """The languages to fetch a season's names in, for files named ``words``: the one
    they are written in (``_written_in``: a Latin name under a Russian person's
    language is English, a German-tagged one German); then English and the show's own
    language, when they are written in Latin letters too. None: the person's."""
    written = _written_in(Reading(" ".join(words), None), language, tag)
    languages = [written]
    if _LATIN.search(" ".join(words)):
        languages += ["en-US"]
        if original in _LATIN_LANGUAGES | set(_TAGGED):
            languages += [original]
    # One of each language, the person's as None (its answers are shared).
    by_code = {lang.split("-")[0]: lang for lang in reversed(languages)}
    unique = dict.fromkeys(
        None if code == language.split("-")[0] else by_code[code]
        for code in (lang.split("-")[0] for lang in languages)
    )
    return list(unique)[:2]


async def _episode_names(query: Query, lookup: Lookup, found: "_Found", language: str) -> bool:
    """An episode title in the name ("Doctor.Who.S13E01.Chapter.One…"): that season of
    each same-name show (three at most), whose episode list names it — also of a show
    only the year ruled out (a series named by its pilot's or miniseries' year:
    "Battlestar.Galactica.2003.S01E01.33"); of one show, its list tells whether the
    title is its number's ("Breaking.Bad.S02E03.Seven.Thirty-Seven" is not: asked).
    True when any season was fetched. The names are fetched in the language the title
    is written in (``_names_languages``)."""
    if not query.episode_title or len(query.episodes) != 1 or query.episodes[0][0] is None:
        return False
    season = query.episodes[0][0]
    shows = [
        c
        for c in found.same_name_shows()
        if any(s.number == season for s in c.seasons or ()) and not found.has_season(c, season)
    ]
    fetched = False
    for show in shows[:DETAILS]:
        words = [query.episode_title]
        written = _names_languages(words, language, query.language, show.language)[0]
        listed = await lookup.season(show, season, written)
        if listed is None:
            break
        found.listed(show, listed)
        fetched = True
    return fetched


def _season_on(show: Candidate, day: str) -> int | None:
    """The season whose first episode is the last one aired on or before ``day``."""
    started = [s for s in show.seasons or () if s.number > 0 and s.air_date and s.air_date <= day]
    return max(started, key=lambda s: s.air_date or "").number if started else None


async def _by_identifier(identifier: str, lookup: Lookup, found: "_Found") -> None:
    scheme, _, value = identifier.partition(":")
    if scheme in ("imdb", "tvdb"):
        answered = await lookup.find(value, "imdb_id" if scheme == "imdb" else "tvdb_id")
        # By a TVDB id TMDB's find answers shows (and episodes, not asked for here).
        for candidate in [c for c in answered if scheme == "imdb" or c.kind == "series"][:2]:
            try:
                detailed = await lookup.details(candidate)
            except RejectedError:
                continue  # TMDB refuses it (a bad id): not evidence
            found.add([detailed or candidate], detailed=detailed is not None)
    elif scheme == "tmdb":
        section, _, number = value.partition("/")
        kind: MediaKind = "series" if section == "tv" else "movie"
        stub = Candidate("tmdb", number, kind, "", None, None, None, None, 0.0)
        try:
            detailed = await lookup.details(stub)
        except RejectedError:
            return  # an id TMDB does not know (a typo in the .nfo): not evidence
        if detailed is not None:
            found.add([detailed], detailed=True)


def _kinds(recognized: Recognized) -> list[MediaKind]:
    if recognized.kind == "series":
        return ["series", "movie"]
    if recognized.kind == "movie":
        return ["series", "movie"] if recognized.numbered_parts else ["movie", "series"]
    return ["movie", "series"]


def _written_in(reading: Reading, language: str, tag: str | None = None) -> str:
    """The TMDB language the title is written in: results then carry titles in it,
    comparable with it. By its script (Ukrainian letters, kana, han alone: Chinese,
    Greek, Hebrew, Arabic…); a Latin title by the release's language tag, else the
    person's language when it is written in Latin letters, else English."""
    own = language.split("-")[0].lower()
    title = reading.title
    if _CYRILLIC.search(title):
        if _UKRAINIAN.search(title):
            return "uk-UA"
        return language if own in ("ru", "uk", "be", "bg", "sr") else "ru-RU"
    if _KANA.search(title):
        return "ja-JP"
    if _HAN.search(title):
        return "zh-CN"
    if _HANGUL.search(title):
        return "ko-KR"
    for script, written in _SCRIPTS:
        if script.search(title):
            return written
    if tag in _TAGGED and own != tag:
        return _TAGGED[tag]
    return language if own in _LATIN_LANGUAGES else "en-US"


class _Found:
    """The candidates found so far, by (kind, id); details replace a search result."""

    def __init__(self, query: Query) -> None:
        self._query = query
        self._by_key: dict[tuple[str, str | None], Candidate] = {}
        self._detailed: set[tuple[str, str | None]] = set()

    def add(self, candidates: Iterable[Candidate], *, detailed: bool = False) -> None:
        for candidate in candidates:
            key = (candidate.kind, candidate.provider_id)
            if detailed:
                self._by_key[key] = candidate
                self._detailed.add(key)
            else:
                self._by_key.setdefault(key, candidate)

    def drop(self, candidate: Candidate) -> None:
        self._by_key.pop((candidate.kind, candidate.provider_id), None)

    def requery(self, query: Query) -> None:
        self._query = query

    @property
    def query(self) -> Query:
        return self._query

    @property
    def language_tag(self) -> str | None:
        """The release's language tag ("GERMAN": "de")."""
        return self._query.language

    def detailed(self, candidate: Candidate) -> bool:
        return (candidate.kind, candidate.provider_id) in self._detailed

    def all(self) -> list[Candidate]:
        return list(self._by_key.values())

    def weighed(self) -> list[Candidate]:
        return ranked(self._query, self._by_key.values())

    def shows(self) -> list[Candidate]:
        """The shows the release does not contradict, best first."""
        return [
            c
            for c in self.weighed()
            if c.kind == "series" and c.evidence is not None and not contradicted(c.evidence)
        ]

    def listed(self, show: Candidate, episodes: Iterable[AiredEpisode]) -> None:
        """Episodes TMDB lists for ``show`` (a season fetched), kept with it (and with
        those of its seasons fetched before)."""
        show = self._by_key.get((show.kind, show.provider_id), show)
        aired = tuple(dict.fromkeys((*show.aired, *episodes)))
        self.add([replace(show, aired=aired)], detailed=True)

    def same_name_shows(self) -> list[Candidate]:
        """The shows of the best title, not contradicted or ruled out by the year alone,
        best first."""
        shows = [
            c
            for c in self.weighed()
            if c.kind == "series"
            and c.evidence is not None
            and (not contradicted(c.evidence) or c.evidence.year_against)
        ]
        best = max((TITLE_RANK[c.evidence.title] for c in shows if c.evidence), default=0)
        return [
            c
            for c in shows
            if c.evidence and (TITLE_RANK[c.evidence.title] == best or c.evidence.year_against)
        ]

    def has_season(self, show: Candidate, season: int) -> bool:
        return any(e.season == season for e in show.aired)

    def titled(self) -> bool:
        """Some candidate's title is at least partly the release's."""
        return any(c.evidence is not None and c.evidence.title != "weak" for c in self.weighed())

    def strong(self) -> bool:
        tag = self._query.language
        return any(c.evidence is not None and strong(c.evidence, tag) for c in self.weighed())
