"""Titles the search must find although the release writes them otherwise (issue #35):
numbers in titles, a name longer or shorter than TMDB's, local names, punctuation. The
decisions are in tests/data/regression/search.json; here the classes, one by one."""

from dataclasses import replace

import pytest

from recognition.candidates import Candidate, Query, Reading, Season
from recognition.decide import decide
from recognition.forms import cyrillic_of, numbers_swapped, other_forms, without_inner_numbers
from recognition.lookups import MAX_REQUESTS
from recognition.parsing.release import parse_release
from recognition.recognize import TorrentFile, recognize
from recognition.weigh import title_match
from tests.support.search import AUTO, found


def film(id: str, name: str, year: int, popularity: float, *names: str) -> Candidate:
    return Candidate("tmdb", id, "movie", name, name, year, None, None, popularity, names=names)


def show(id: str, name: str, year: int, popularity: float, *names: str) -> Candidate:
    return replace(
        film(id, name, year, popularity, *names), kind="series", seasons=(Season(1, 13, year),)
    )


# --- 1. numbers in titles ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("Ghost.in.the.Shell.2.0.2008.1080p.BluRay.x264", "Ghost in the Shell 2.0"),
        (
            "Evangelion.3.0+1.01.Thrice.Upon.a.Time.2021.1080p.AMZN.WEB-DL.DDP5.1.H.264",
            "Evangelion 3.0+1.01 Thrice Upon a Time",
        ),
        ("1+1.2011.BDRip.1080p", "1+1"),
        ("Blade.Runner.2049.2017.1080p", "Blade Runner 2049"),  # no version: as it was
    ],
)
def test_a_version_before_the_year_is_part_of_the_title(name: str, title: str) -> None:
    parsed = parse_release(name)
    assert (parsed.title, parsed.episode_title) == (title, None)


def test_numbers_are_searched_written_the_other_way_and_without_a_sequels_number() -> None:
    assert numbers_swapped("It Chapter 2") == "It Chapter Two"
    assert numbers_swapped("Twelve Monkeys") == "12 Monkeys"
    assert numbers_swapped("Evangelion 3 33 You Can Not Redo") is None  # a version
    assert numbers_swapped("24") is None
    assert without_inner_numbers("Avatar 2 The Way of Water") == "Avatar The Way of Water"
    assert (
        without_inner_numbers("Evangelion 3.33 You Can Not Redo") == "Evangelion You Can Not Redo"
    )
    assert without_inner_numbers("Toy Story 4") is None
    # Weighed as a reading only with a year: "Deadpool 2 Super Duper Cut" is no "Deadpool".
    assert any(f.weighed for f in other_forms("Avatar 2 The Way of Water", 2022))
    assert not any(f.weighed for f in other_forms("Avatar 2 The Way of Water", None))


def test_a_version_re_cut_is_close_a_sequels_number_is_not() -> None:
    assert title_match(
        "Evangelion 3.33 You Can Not Redo", "Evangelion: 3.0 You Can (Not) Redo"
    ) == ("close")
    assert title_match(
        "Evangelion 3.0+1.01 Thrice Upon a Time", "Evangelion: 3.0+1.0 Thrice Upon a Time"
    ) == ("close")
    assert title_match("Toy Story 3", "Toy Story 2") == "weak"
    assert title_match("9-1-1", "9") != "close"


def chosen(query: Query, titles: list[Candidate]) -> str | None:
    decision = decide(query, titles, AUTO)
    return decision.chosen.provider_id if decision.chosen else None


def test_a_sequel_without_its_subtitle_is_close() -> None:
    t2 = film("280", "Terminator 2: Judgment Day", 1991, 75)
    t1 = film("218", "The Terminator", 1984, 70)
    assert chosen(Query("movie", (Reading("Terminator 2", 1991),)), [t2, t1]) == "280"
    hellboy = film("11253", "Hellboy II: The Golden Army", 2008, 38)
    assert chosen(Query("movie", (Reading("Hellboy 2", 2008),)), [hellboy]) == "11253"
    # Without a year a close title is not enough.
    assert chosen(Query("movie", (Reading("Terminator 2", None),)), [t2]) is None


async def test_sequels_written_otherwise_are_found() -> None:
    avatar = film("76600", "Avatar: The Way of Water", 2022, 150)
    titles = [film("19995", "Avatar", 2009, 130), avatar]
    chosen, calls = await found("Avatar.2.The.Way.of.Water.2022.1080p.WEB-DL", titles)
    assert chosen == "76600"
    assert calls <= MAX_REQUESTS
    monkeys = [film("63", "Twelve Monkeys", 1995, 40), show("61851", "12 Monkeys", 2015, 45)]
    assert (await found("12.Monkeys.1995.1080p.BluRay.x264", monkeys))[0] == "63"
    it = [film("474350", "It Chapter Two", 2019, 70), film("346364", "It", 2017, 90)]
    assert (await found("It.Chapter.2.2019.1080p.BluRay.x264", it))[0] == "474350"


# --- 2. a name longer or shorter than TMDB's ------------------------------------------------


async def test_the_movie_after_a_films_name_is_no_word_of_it() -> None:
    titles = [
        film("810693", "Jujutsu Kaisen 0", 2021, 80),
        show("95479", "Jujutsu Kaisen", 2020, 200),
    ]
    assert (await found("Jujutsu.Kaisen.0.The.Movie.2021.1080p.BluRay", titles))[0] == "810693"


# --- 3. local names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("latin", "cyrillic"),
    [
        ("Moskva slezam ne verit", "Москва слезам не верит"),
        ("Kukhnya", "Кухня"),
        ("Sluzhebnyy roman", "Служебный роман"),
        ("Likvidatsiya", "Ликвидация"),
        ("Brat 2", "Брат 2"),
        ("The Way of Water", None),  # English words
        ("Wednesday", None),  # letters no transliteration of Russian uses
    ],
)
def test_a_russian_name_in_latin_letters_is_searched_in_cyrillic(
    latin: str, cyrillic: str | None
) -> None:
    assert cyrillic_of(latin) == cyrillic


async def test_a_transliterated_russian_title_is_found_by_its_russian_name() -> None:
    moscow = film("21028", "Moscow Does Not Believe in Tears", 1980, 15, "Москва слезам не верит")
    assert (await found("Moskva.slezam.ne.verit.1979.DVDRip.XviD", [moscow]))[0] == "21028"


@pytest.mark.parametrize(
    ("name", "fallback"),
    [
        ("流浪地球.Liu.Lang.Di.Qiu.2019.1080p.BluRay.x264", "流浪地球"),
        ("기생충 Gisaengchung 2019 1080p BluRay", "기생충"),
        ("Doctor.Who.2005.The.Christmas.Invasion", None),  # one script
    ],
)
def test_a_name_in_its_own_script_beside_a_latin_one_is_searched_when_that_is_not_found(
    name: str, fallback: str | None
) -> None:
    recognized = recognize(name, [TorrentFile(f"{name}.mkv", 10**9)])
    assert [t for t, _ in recognized.fallback_titles] == ([fallback] if fallback else [])


def test_a_folder_in_cyrillic_names_a_transliterated_pack() -> None:
    files = [
        TorrentFile(f"Ne.rodis.krasivoy.2005.DVDRip/Не родись красивой/Серия {n:03d}.avi", 10**9)
        for n in (1, 2, 3)
    ]
    recognized = recognize("Ne.rodis.krasivoy.2005.DVDRip", files)
    assert recognized.fallback_titles[:1] == (("Не родись красивой", 2005),)


# --- 4. punctuation ---------------------------------------------------------------------------


async def test_and_of_a_plus_and_an_abbreviation_without_its_dots_are_found() -> None:
    romeo = film("454", "Romeo + Juliet", 1996, 40, "William Shakespeare's Romeo + Juliet")
    titles = [romeo, film("6003", "Romeo and Juliet", 1968, 18)]
    name = "William.Shakespeares.Romeo.and.Juliet.1996.1080p.BluRay.x264"
    assert (await found(name, titles))[0] == "454"
    shield = show("1403", "Marvel's Agents of S.H.I.E.L.D.", 2013, 95, "Agents of S.H.I.E.L.D.")
    assert (await found("Agents.of.SHIELD.S01E01.1080p.WEB", [shield]))[0] == "1403"
