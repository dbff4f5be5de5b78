"""Two shows of one name (issue #35): an original and its remake, a show and its reboot.
Popularity alone never chooses between them; what the release says does — the seasons
and episodes, a country, year, language or service tag, the format's time against the
shows' runs, a TV capture of a show only streamed, an episode's or the files' names.
Nothing of that: asked (the decisions are in tests/data/regression/shows.json)."""

from dataclasses import replace

import pytest

from recognition.candidates import AiredEpisode, Candidate, Query, Reading, Season
from recognition.decide import decide
from recognition.parsing.formats import release_format
from recognition.weigh import weigh
from tests.support.candidates import titled
from tests.support.search import chosen

AUTO = 0.85


def show(
    id: str,
    name: str,
    popularity: float,
    seasons: tuple[tuple[int, int], ...],
    *,
    networks: tuple[str, ...] = (),
    language: str = "en",
) -> Candidate:
    """``seasons``: (episodes, year) of each, from 1."""
    return titled(
        id,
        name,
        seasons[0][1],
        popularity,
        kind="series",
        language=language,
        networks=networks,
        seasons=tuple(Season(n, c, y) for n, (c, y) in enumerate(seasons, 1)),
    )


def episode(name: str, season: int, number: int, release: str = "") -> Query:
    """One episode, the format read from ``release`` (a torrent's name)."""
    form = release_format(release)
    return Query(
        "series",
        (Reading(name, None),),
        episodes=((season, number, False),),
        seasons=(season,),
        since=form.since,
        capture=form.capture,
    )


# NBC's remake far more watched than the BBC's original (2001-2002), and Prime Video's of
# 2024, which was only streamed.
NBC = show(
    "us", "The Office", 310, ((6, 2005), (22, 2005), (25, 2006), (19, 2007)), networks=("NBC",)
)
BBC = show("uk", "The Office", 28, ((6, 2001), (6, 2002)), networks=("BBC Two",))
PRIME = show("au", "The Office", 7.5, ((8, 2024),), networks=("Prime Video",))
# MTV's show and the cartoon of 1986-1987.
MTV = show("mtv", "Teen Wolf", 150, ((12, 2011), (12, 2012)), networks=("MTV",))
CARTOON = show("cbs", "Teen Wolf", 5, ((13, 1986), (8, 1987)), networks=("CBS",))


@pytest.mark.parametrize(
    ("release", "found", "expected", "code"),
    [
        # a bare name: nothing but popularity says which
        ("Teen.Wolf.S01E03.avi", [MTV, CARTOON], None, "review.ambiguous"),
        # a Blu-ray, a web release: the cartoon ended long before them
        ("Teen.Wolf.S01E03.1080p.BluRay.x264", [MTV, CARTOON], "mtv", "auto.popularity"),
        ("Teen.Wolf.S01E03.1080p.WEB-DL", [MTV, CARTOON], "mtv", "auto.popularity"),
        # a DVD rip: both were on DVD
        ("The.Office.S01E03.DVDRip.XviD-SAiNTS", [NBC, BBC], None, "review.ambiguous"),
        # a web release of 2024's, or of NBC's
        ("The.Office.S01E03.1080p.WEB.h264", [NBC, BBC, PRIME], None, "review.ambiguous"),
        # a TV capture in HD: the BBC's was over, Prime Video's never aired
        ("The.Office.S01E03.720p.HDTV.x264-CTU", [NBC, BBC, PRIME], "us", "auto.capture"),
    ],
)
def test_popularity_chooses_only_what_the_name_points_to(
    release: str, found: list[Candidate], expected: str | None, code: str
) -> None:
    query = episode(found[0].title, 1, 3, release)
    decision = decide(query, found, AUTO)
    assert (chosen(decision), decision.code) == (expected, code)


def test_no_language_tag_on_a_scene_name_points_to_the_english_show() -> None:
    """ "The.Killing.S02E03.720p.HDTV" without DANiSH: AMC's, when it is also far more
    watched; Forbrydelsen would be tagged. Close in popularity: asked."""
    amc = show("amc", "The Killing", 200, ((13, 2011), (13, 2012)), networks=("AMC",))
    dr = show("dr", "The Killing", 15, ((20, 2007), (10, 2009)), networks=("DR1",), language="da")
    query = episode("The Killing", 2, 3, "The.Killing.S02E03.720p.HDTV.x264-IMMERSE")
    assert chosen(decide(query, [amc, dr], AUTO)) == "amc"
    assert decide(query, [replace(amc, popularity=45), dr], AUTO).chosen is None
    bare = episode("The Killing", 2, 3, "The Killing 2x03.avi")
    assert decide(bare, [amc, dr], AUTO).chosen is None


def test_a_tv_capture_is_of_a_show_on_the_air_then() -> None:
    """Close in popularity, a 720p HDTV is of the show that aired in the capture's time:
    not HBO Max's, only streamed; not the 1963 one, over since 1989. A web release of
    an old season may be a re-release: asked."""
    cw = show("cw", "Gossip Girl", 110, ((18, 2007), (25, 2008)), networks=("The CW",))
    hbo = show("max", "Gossip Girl", 35, ((12, 2021), (10, 2022)), networks=("HBO Max",))
    decision = decide(episode("Gossip Girl", 1, 5, "Gossip.Girl.S01E05.720p.HDTV"), [cw, hbo], AUTO)
    assert (chosen(decision), decision.code) == ("cw", "auto.capture")
    new = show("2005", "Doctor Who", 150, tuple((13, 2005 + n) for n in range(11)))
    old = show("1963", "Doctor Who", 40, tuple((26, 1963 + n) for n in range(26)))
    capture = episode("Doctor Who", 11, 1, "Doctor.Who.S11E01.720p.HDTV.x264-MTB")
    assert chosen(decide(capture, [new, old], AUTO)) == "2005"
    web = episode("Doctor Who", 11, 1, "Doctor.Who.S11E01.1080p.iP.WEB-DL")
    assert decide(web, [new, old], AUTO).chosen is None
    assert weigh(web, old).era == "before"
    assert not weigh(web, old).off_air


def test_a_capture_of_an_old_show_far_more_watched_is_asked() -> None:
    """The capture points to the reboot, popularity to the classic: asked."""
    classic = show("old", "Dallas", 300, ((5, 1978), (24, 1979)), networks=("CBS",))
    reboot = show("new", "Dallas", 20, ((10, 2012), (15, 2013)), networks=("TNT",))
    query = episode("Dallas", 1, 3, "Dallas.S01E03.720p.HDTV.x264")
    assert decide(query, [classic, reboot], AUTO).chosen is None


def test_the_files_named_as_one_shows_episodes() -> None:
    """ "Lost - Season 1/Tabula Rasa.avi": the show whose season names the files."""
    lost = replace(
        show("lost", "Lost", 110, ((25, 2004),)),
        aired=(AiredEpisode(1, 3, "Tabula Rasa", None), AiredEpisode(1, 4, "Walkabout", None)),
    )
    other = show("other", "Lost", 3.2, ((6, 2001),))
    paths = ("Lost - Season 1/Tabula Rasa.avi", "Lost - Season 1/Walkabout.avi")
    query = Query(
        "series",
        (Reading("Lost", None),),
        seasons=(1,),
        unnumbered=paths,
        named=tuple((p, 1, p.rsplit("/", 1)[1][:-4]) for p in paths),
    )
    decision = decide(query, [lost, other], AUTO)
    assert (chosen(decision), decision.code) == ("lost", "auto.listed")


@pytest.mark.parametrize(
    ("service", "network", "names"),
    [
        ("AppleTV", "Apple TV+", True),  # guessit's ATVP
        ("ITV", "ITV1", True),
        ("BBC iPlayer", "BBC Three", True),
        ("Amazon Prime", "Prime Video", True),
        ("Channel 4", "BBC Four", False),
        ("Netflix", "The CW", False),
    ],
)
def test_a_service_tag_and_a_shows_network(service: str, network: str, names: bool) -> None:
    query = replace(episode("Utopia", 1, 1), service=service)
    assert weigh(query, show("1", "Utopia", 9, ((8, 2020),), networks=(network,))).service is names


@pytest.mark.parametrize(
    ("name", "capture"),
    [
        ("Shameless.S01E01.720p.HDTV.x264-TLA", True),
        ("shameless.s01e01.hdtv.xvid-saphire.avi", True),
        ("The.Office.S01E01.PDTV.XviD-FoV", True),
        ("Show.S01E01.1080p.AMZN.WEB-DL", False),
        ("Show.S01E01.1080p.BluRay.x264", False),
    ],
)
def test_a_tv_capture_by_its_name(name: str, capture: bool) -> None:
    assert release_format(name).capture is capture
