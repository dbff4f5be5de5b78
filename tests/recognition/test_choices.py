"""Choosing between the candidates found (issue #35): what tells same-name titles apart
in the release, the one plain answer accepted, and popularity that alone does not
choose between two films of one name (the decisions are in
tests/data/regression/choices.json)."""

from dataclasses import replace

import pytest

from recognition.candidates import Candidate, MediaKind, Query, Reading, Season
from recognition.decide import decide
from recognition.parsing.formats import Format, release_format
from recognition.parsing.identifiers import find_identifiers
from recognition.parsing.release import parse_release
from recognition.weigh import strong, weigh
from tests.support.candidates import titled
from tests.support.search import chosen

AUTO = 0.85


def title(
    id: str,
    name: str,
    year: int | None,
    popularity: float,
    *,
    kind: MediaKind = "movie",
    language: str | None = "en",
    runtime: int | None = None,
    overview: str | None = None,
    seasons: tuple[int, ...] = (),
) -> Candidate:
    """``seasons``: the episode count of each season, from 1."""
    return titled(
        id,
        name,
        year,
        popularity,
        kind=kind,
        overview=overview,
        language=language,
        runtime=runtime,
        seasons=tuple(Season(n, c, year) for n, c in enumerate(seasons, 1)) or None,
    )


def film(name: str, year: int | None = None, **more: object) -> Query:
    return replace(Query("movie", (Reading(name, year),)), **more)  # type: ignore[arg-type]


# --- 1. what the release says: language tags, ids, a complete series ---------------------


@pytest.mark.parametrize(
    ("name", "title", "language"),
    [
        ("Miracle.in.Cell.No.7.2019.TURKISH.1080p.NF.WEB-DL", "Miracle in Cell No 7", "tr"),
        ("Flaskepost.fra.P.2016.DANiSH.1080p.BluRay.x264", "Flaskepost fra P", "da"),
        ("Some.Film.TURKiSH.1080p.BluRay.x264-GRP", "Some Film", "tr"),  # no year
        ("In.the.Mood.for.Love.2000.CHINESE.1080p.BluRay", "In the Mood for Love", "zh"),
        ("Lust.Caution.2007.MANDARiN.1080p.BluRay", "Lust Caution", "zh"),
        ("Zorba.the.Greek.1080p.BluRay", "Zorba the Greek", None),  # a word of the title
        ("THE.GREEK.1080p", "THE GREEK", None),  # a title in capitals keeps its words
    ],
)
def test_language_tags_guessit_does_not_know(name: str, title: str, language: str | None) -> None:
    parsed = parse_release(name)
    assert (parsed.title, parsed.language) == (title, language)


def test_a_language_tag_in_an_episodes_name() -> None:
    parsed = parse_release("Some.Show.S01E01.THAI.1080p.WEB")
    assert (parsed.language, parsed.episode_title) == ("th", None)


@pytest.mark.parametrize(
    ("text", "kind", "found"),
    [
        ("The Thing [tmdbid-1091]", "movie", ("tmdb:movie/1091",)),
        ("The Thing {tmdb-60935}", "movie", ("tmdb:movie/60935",)),
        ("Fargo (2014) [tmdbid=60622]", "tv", ("tmdb:tv/60622",)),
        ("The Thing (2011) [imdbid-tt0905372]", "movie", ("imdb:tt0905372",)),
        ('<movie><uniqueid type="tmdb" default="true">60935</uniqueid></movie>', "movie",
         ("tmdb:movie/60935",)),
        ('<tvshow><uniqueid type="tmdb">60622</uniqueid></tvshow>', "movie", ("tmdb:tv/60622",)),
        ("<movie><tmdbid>1091</tmdbid></movie>", "movie", ("tmdb:movie/1091",)),
        ("Tmdbid 1091 is nothing", "movie", ()),  # not in brackets: words
    ],
)  # fmt: skip
def test_tmdb_ids_as_media_servers_write_them(text: str, kind: str, found: tuple[str, ...]) -> None:
    assert find_identifiers(text, kind) == found  # type: ignore[arg-type]


def test_a_complete_series_is_the_show_it_is_all_of() -> None:
    """ "Utopia.Complete.Series" with one season of eight: the American show (one
    season), not the Australian one (three of eight)."""
    us = title("us", "Utopia", 2020, 19, kind="series", seasons=(8,))
    au = title("au", "Utopia", 2014, 5, kind="series", seasons=(8, 8, 8))
    episodes = tuple((1, e, False) for e in range(1, 9))
    query = Query("series", (Reading("Utopia", None),), episodes=episodes, seasons=(1,))
    assert decide(query, [us, au], AUTO).chosen is None  # a season 1: either
    decision = decide(replace(query, complete=True, whole_seasons=True), [us, au], AUTO)
    assert chosen(decision) == "us"
    assert decision.code == "auto.complete"


def test_a_tag_of_a_language_rarely_dubbed_into_searches_on() -> None:
    """ "The.Ring.JAPANESE": the American film is no strong match yet, the Japanese
    "Ring" may be found; the tag then chooses it."""
    remake = title("565", "The Ring", 2002, 48)
    ring = title("2671", "Ring", 1998, 27, language="ja")
    query = film("The Ring", language="ja")
    evidence = weigh(query, remake)
    assert strong(evidence)
    assert not strong(evidence, "ja")
    assert strong(weigh(film("The Ring", language="fr"), remake), "fr")  # a dub's tag
    decision = decide(query, [remake, ring], AUTO)
    assert chosen(decision) == "2671"
    assert decision.code == "auto.language"


# --- 2. the one plain answer ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("release", "name"),
    [
        ("Birdman", "Birdman or (The Unexpected Virtue of Ignorance)"),
        ("Dr Strangelove", "Dr. Strangelove or: How I Learned to Stop Worrying and Love the Bomb"),
        (
            "Jim and Andy The Great Beyond",
            "Jim & Andy: The Great Beyond - Featuring a Very Special, Contractually Obligated "
            "Mention of Tony Clifton",
        ),
        ("Madonna The MDNA Tour Live", "Madonna: The MDNA Tour"),
        ("Coldplay Live in Concert", "Coldplay"),
    ],
)
def test_a_film_by_the_part_of_its_name_releases_use(release: str, name: str) -> None:
    decision = decide(film(release, 2014), [title("1", name, 2014, 9)], AUTO)
    assert chosen(decision) == "1"
    assert decision.confidence >= AUTO


def test_a_short_subtitle_is_no_long_name() -> None:
    evidence = weigh(film("Dune", 2024), title("1", "Dune: Part Two", 2024, 200))
    assert evidence.title == "partial"


def test_a_name_after_the_artist_its_overview_names() -> None:
    """ "Nanette.2018" is "Hannah Gadsby: Nanette"; the part before the colon must be
    the artist the overview names, else it is only partly the title."""
    special = title(
        "1", "Hannah Gadsby: Nanette", 2018, 9, overview="Hannah Gadsby reframes her career."
    )
    musical = title("2", "No, No, Nanette", 1940, 1)
    decision = decide(film("Nanette", 2018), [special, musical], AUTO)
    assert chosen(decision) == "1"
    silent = replace(special, overview="A stand-up special.")
    assert weigh(film("Nanette", 2018), silent).title == "partial"


# --- 3. popularity alone -------------------------------------------------------------------

JOKER = title("1", "Joker", 2019, 150)
HINDI = title("2", "Joker", 2012, 2, language="hi")
FROZEN = title("3", "Frozen", 2013, 140)
OTHER = title("4", "Frozen", 2010, 12)
PARASITE = title("5", "Parasite", 2019, 88, language="ko")
OLD = title("6", "Parasite", 1982, 4)


@pytest.mark.parametrize(
    ("name", "found", "expected"),
    [
        ("Joker.avi", [JOKER, HINDI], None),  # a bare name says nothing
        ("Joker.1080p.BluRay.x264-GECKOS", [JOKER, HINDI], "1"),  # not tagged HINDI
        ("Frozen.1080p.BluRay.x264-SPARKS", [FROZEN, OTHER], None),  # both of its time
        ("Parasite.2160p.UHD.BluRay.x265.HDR", [PARASITE, OLD], "5"),  # 1982 has no UHD
        ("Parasite.1080p.BluRay.x264", [PARASITE, OLD], "5"),  # 1982: before Blu-rays
        ("Parasite.XviD.avi", [PARASITE, OLD], None),  # no format said
    ],
)
def test_popularity_chooses_only_what_the_name_points_to(
    name: str, found: list[Candidate], expected: str | None
) -> None:
    form = release_format(name)
    query = film(found[0].title, since=form.since, height=form.height)
    decision = decide(query, found, AUTO)
    assert chosen(decision) == expected
    assert decision.code == ("auto.popularity" if expected else "review.ambiguous")


def test_shows_too_are_chosen_by_popularity_only_where_the_name_points() -> None:
    """A bare name is asked; a 720p one is not of the 2001 show, over before them
    (tests/recognition/test_same_name_shows.py)."""
    lost = title("1", "Lost", 2004, 200, kind="series", seasons=(25, 24))
    other = title("2", "Lost", 2001, 3, kind="series", seasons=(10,))
    query = Query("series", (Reading("Lost", None),), episodes=((1, 5, False),), seasons=(1,))
    assert decide(query, [lost, other], AUTO).chosen is None
    assert chosen(decide(replace(query, since=2004), [lost, other], AUTO)) == "1"


def test_the_size_rules_out_a_short() -> None:
    """6.5 GB of 1080p runs 18 minutes at a Blu-ray's highest rate: no 3-minute short;
    1 GB could be."""
    feature = title("1", "Lights Out", 2016, 31, runtime=81)
    short = title("2", "Lights Out", 2013, 6, runtime=3)
    query = film("Lights Out", height=1080, size=6_560_000_000)
    decision = decide(query, [feature, short], AUTO)
    assert chosen(decision) == "1"
    assert decision.code == "auto.runtime"
    assert decide(replace(query, size=1_000_000_000), [feature, short], AUTO).chosen is None


@pytest.mark.parametrize(
    ("name", "form"),
    [
        ("Joker.avi", Format()),
        ("Parasite.2160p.UHD.BluRay.x265.HDR", Format(2014, 2160)),
        ("Gladiator.DVDRip.XviD-DiAMOND", Format(1997, None)),
        ("Fargo.1080p.AMZN.WEB-DL", Format(2008, 1080)),
        ("Charlottes.Web.2006.720p.HDTV", Format(2004, 720, capture=True)),  # "Web": a title's
        ("The.Dvd.Guy.avi", Format()),
    ],
)
def test_what_a_name_says_of_its_format(name: str, form: Format) -> None:
    assert release_format(name) == form
