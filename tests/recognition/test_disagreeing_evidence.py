"""Evidence that disagrees, and films that are concerts, stand-up or documentaries
(issue #35): the rule of recognition.weigh and recognition.decide, case by case."""

from dataclasses import replace

import pytest

from recognition.candidates import AiredEpisode, Query, Reading, Season
from recognition.decide import decide
from recognition.explain import is_edition, without_edition
from tests.support.candidates import with_seasons as title
from tests.support.search import chosen, film, offered

AUTO = 0.85


def pack(name: str, year: int | None, season: int, count: int, *, whole: bool = True) -> Query:
    """A season pack of ``count`` files, named "Name.Year.S01" (``whole``) or by its
    episodes ("Name.S01E01-E06")."""
    readings = (Reading(name, year),) + ((Reading(f"{name} {year}", None),) if year else ())
    return Query(
        "series",
        readings,
        episodes=tuple((season, e, False) for e in range(1, count + 1)),
        seasons=(season,),
        whole_seasons=whole,
    )


# --- 1. what the files say against the year ----------------------------------------------

UK = title("uk", "Utopia", 2013, 24, kind="series", seasons=((1, 6, 2013), (2, 6, 2014)))
US = title("us", "Utopia", 2020, 19, kind="series", seasons=((1, 8, 2020),))
AU = title(
    "au", "Utopia", 2014, 5, kind="series", seasons=((1, 8, 2014), (2, 8, 2015), (3, 8, 2017))
)


def test_a_whole_season_far_short_of_a_shows_season_is_the_other_shows() -> None:
    decision = decide(pack("Utopia", None, 1, 6), [UK, US, AU], AUTO)
    assert chosen(decision) == "uk"
    assert decision.code == "auto.pack"
    # Named by its episodes ("S01E01-E06"), a pack may be a part of a season: asked.
    assert decide(pack("Utopia", None, 1, 6, whole=False), [UK, US, AU], AUTO).chosen is None
    # One off is how TMDB counts a double episode: no evidence.
    seven = replace(US, seasons=(Season(1, 7, 2020),))
    assert decide(pack("Utopia", None, 1, 6), [UK, seven], AUTO).chosen is None


def test_the_year_and_the_count_disagreeing_is_asked() -> None:
    """2014: the Australian show's year and the British season 2's; six episodes: the
    British season. Neither the year nor the count alone."""
    decision = decide(pack("Utopia", 2014, 2, 6), [UK, AU], AUTO)
    assert decision.chosen is None
    assert offered(decision) >= {"uk", "au"}


def test_a_year_two_off_is_not_the_only_word_against_the_count() -> None:
    decision = decide(pack("Utopia", 2020, 1, 6), [UK, US], AUTO)
    assert decision.chosen is None
    assert offered(decision) >= {"uk", "us"}
    # Eight files: the 2020 show's whole season, the other's has six.
    assert chosen(decide(pack("Utopia", 2020, 1, 8), [UK, US], AUTO)) == "us"


SERIES = title("1972", "Battlestar Galactica", 2004, 58, kind="series", seasons=((1, 13, 2004),))
MINI = title("71365", "Battlestar Galactica", 2003, 15, kind="series", seasons=((1, 2, 2003),))


def _episode(name: str) -> Query:
    return Query(
        "series",
        (Reading("Battlestar Galactica", 2003), Reading("Battlestar Galactica 2003", None)),
        episodes=((1, 1, False),),
        seasons=(1,),
        episode_title=name,
    )


def test_an_episode_name_wins_over_the_year() -> None:
    """2003 is the miniseries' year, "33" the series' first episode."""
    series = replace(SERIES, aired=(AiredEpisode(1, 1, "33", None),))
    mini = replace(MINI, aired=(AiredEpisode(1, 1, "Part 1", None),))
    decision = decide(_episode("33"), [series, mini], AUTO)
    assert chosen(decision) == "1972"
    assert decision.code == "auto.episode"
    # Without the episode lists the year decides, as it did.
    assert chosen(decide(_episode("33"), [SERIES, MINI], AUTO)) == "71365"


def test_an_episode_name_of_a_show_the_year_ruled_out_wins_over_the_year() -> None:
    """The number and the name agree on the 1978 show, only the year on the miniseries,
    whose first episode is "Part 1" (tests/recognition/test_decisive.py)."""
    old = title("501", "Battlestar Galactica", 1978, 21, kind="series", seasons=((1, 21, 1978),))
    named = replace(old, aired=(AiredEpisode(1, 1, "Saga of a Star World", None),))
    mini = replace(MINI, aired=(AiredEpisode(1, 1, "Part 1", None),))
    decision = decide(_episode("Saga of a Star World"), [named, mini], AUTO)
    assert chosen(decision) == "501"
    assert decision.code == "auto.episode"
    # The miniseries' list not fetched: asked, never the year alone.
    decision = decide(_episode("Saga of a Star World"), [named, MINI], AUTO)
    assert decision.chosen is None
    assert offered(decision) >= {"501", "71365"}


def test_a_pilot_tells_no_show_from_another() -> None:
    series = replace(SERIES, aired=(AiredEpisode(1, 1, "Pilot", None),))
    mini = replace(MINI, aired=(AiredEpisode(1, 1, "Part 1", None),))
    decision = decide(_episode("Pilot"), [series, mini], AUTO)
    assert decision.code == "auto.year"


# --- 3. concerts, stand-up, documentaries ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("FYRE: The Greatest Party That Never Happened", "close"),
        ("Fyre (...Or, When the Revolution Could Not Be Televised)", "close"),
        ("Fyre: Part Two", "partial"),  # a short subtitle is a sequel's
        ("Fyre: Vol. 1", "partial"),
    ],
)
def test_a_documentary_is_released_without_its_long_subtitle(name: str, match: str) -> None:
    decision = decide(film("Fyre", 2019), [title("1", name, 2019, 9)], AUTO)
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.title == match
    # A show's shortened name stays partial: a release may shorten a long title.
    show = title("2", name, 2019, 9, kind="series", seasons=((1, 8, 2019),))
    shown = decide(film("Fyre", 2019), [show], AUTO).candidates[0].evidence
    assert shown is not None
    assert shown.title == "partial"


def test_the_artist_before_the_title_is_explained_by_the_overview() -> None:
    concert = title(
        "24128",
        "Stop Making Sense",
        1984,
        14,
        overview="David Byrne, Talking Heads and a band perform their new wave hits.",
    )
    decision = decide(film("Talking Heads Stop Making Sense", 1984), [concert], AUTO)
    assert chosen(decision) == "24128"
    assert decision.confidence >= AUTO
    # Its overview silent about the band: partly the title, asked.
    silent = replace(concert, overview="A concert film shot over three nights.")
    assert decide(film("Talking Heads Stop Making Sense", 1984), [silent], AUTO).chosen is None
    # A film of the same words by another: its overview does not name the singer.
    aretha = title("540901", "Amazing Grace", 2018, 8, overview="Aretha Franklin records …")
    drama = title("15163", "Amazing Grace", 2006, 12, overview="William Wilberforce …")
    assert chosen(decide(film("Aretha Franklin Amazing Grace", 2018), [aretha, drama], AUTO)) == (
        "540901"
    )
    assert decide(film("Amazing Grace", None), [aretha, drama], AUTO).chosen is None


def test_an_artist_credited_after_the_title_may_come_first() -> None:
    homecoming = title("592835", "Homecoming: A Film by Beyoncé", 2019, 10)
    spider = title("315635", "Spider-Man: Homecoming", 2017, 110)
    decision = decide(film("Beyonce Homecoming", 2019), [homecoming, spider], AUTO)
    assert chosen(decision) == "592835"
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.title == "exact"


def test_an_edition_after_the_title_is_the_same_film() -> None:
    for words in ("taylors version", "directors cut", "remastered", "live at the forum"):
        assert is_edition(words)
    assert not is_edition("the final countdown")
    assert without_edition("Taylor Swift The Eras Tour Taylors Version") == (
        "Taylor Swift The Eras Tour"
    )
    assert without_edition("The Eras Tour") is None
    eras = title("1160164", "TAYLOR SWIFT | THE ERAS TOUR", 2023, 45)
    query = film("Taylor Swift The Eras Tour Taylors Version", 2024)
    decision = decide(query, [eras], AUTO)
    assert chosen(decision) == "1160164"
    assert decision.confidence >= AUTO
    assert without_edition("Queen Rock Montreal Live at the Montreal Forum") == (
        "Queen Rock Montreal"
    )
