"""Titles that are or hold numbers, and ids that should decide (issue #35 'numbers'): a
year alone as a Russian tracker's title, a year-like number in a film's title read in its
folder and file alike, a number after a title that may end a film's name; an id the
name's year or tag is against, asked where the name finds its own title
(tests/data/regression/numbers.json)."""

from recognition.candidates import Query, Reading
from recognition.decide import decide
from recognition.parsing.release import parse_file, parse_release
from tests.support.candidates import titled

AUTO = 0.85


def test_a_year_alone_is_a_trackers_title_when_a_year_of_its_own_follows() -> None:
    film = parse_release("1917 / 1917 (2019) BDRip 1080p | Лицензия")
    assert (film.title, film.year) == ("1917", 2019)
    show = parse_release("1899 / 1899 / Сезон: 1 / Серии: 1-8 из 8 [2022, Германия, WEB-DL 1080p]")
    assert (show.kind, show.title, show.year) == ("series", "1899", 2022)
    # A year between the titles is the year ("Одни из нас / The Last of Us / 2023").
    named = parse_release("Одни из нас / The Last of Us / 2023 / Сезон 1")
    assert (named.title, named.year) == ("The Last of Us", 2023)


def test_a_year_like_number_of_a_title_in_its_folder_and_file_is_no_episode() -> None:
    name = "Blade.Runner.2049.1080p.WEB-DL.DD5.1.H264-FGT"
    parsed = parse_file(f"{name}/{name}.mkv")
    assert (parsed.kind, parsed.title, parsed.episodes) == ("movie", "Blade Runner 2049", ())


def test_a_bare_number_after_a_title_is_read_in_the_title_too() -> None:
    parsed = parse_release("Apollo.13.Anniversary.Edition.720p.BluRay.x264-SiNNERS")
    assert parsed.title_with_year == "Apollo 13"
    assert parse_release("Apollo 13 720p BluRay").title_with_year == "Apollo 13"
    # "05", an episode word or a season: an episode's number only.
    assert parse_release("Dexter.05.720p.HDTV.x264").title_with_year is None
    assert parse_release("Dexter.S01E05.720p.HDTV.x264").title_with_year is None


OLD = titled("841", "Dune", 1984, 30.0, imdb_id="tt0087182")
NEW = titled("438631", "Dune", 2021, 120.0, imdb_id="tt1160419")


def test_an_id_the_names_year_is_against_is_asked_where_the_name_finds_its_title() -> None:
    query = Query("movie", (Reading("Dune", 2021),), identifiers=("imdb:tt0087182",))
    decision = decide(query, [OLD, NEW], AUTO)
    assert decision.chosen is None
    assert decision.rule == "contradicted"
    assert {c.provider_id for c in decision.candidates} >= {"841", "438631"}
    # Nothing of the name's year found: the id decides.
    assert decide(query, [OLD], AUTO).rule == "identifier"
    # The id of the film the name's year gives: decided.
    agreeing = Query("movie", (Reading("Dune", 2021),), identifiers=("imdb:tt1160419",))
    chosen = decide(agreeing, [OLD, NEW], AUTO).chosen
    assert chosen is not None
    assert chosen.provider_id == "438631"


def test_an_id_a_year_off_by_one_still_decides() -> None:
    query = Query("movie", (Reading("Dune", 1985),), identifiers=("imdb:tt0087182",))
    decision = decide(query, [OLD, titled("9", "Dune", 1985, 1.0)], AUTO)
    assert decision.rule == "identifier"
    assert decision.chosen is not None
    assert decision.chosen.provider_id == "841"
