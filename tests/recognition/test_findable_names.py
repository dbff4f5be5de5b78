"""Titles that are in the name and on TMDB, which the search did not find (issue #35):
two names of one title side by side, season words glued to a title or written without
their letters, "Volume" for TMDB's "Vol.", editions of several words. The decisions
are in tests/data/regression/findable.json; here the classes, one by one."""

from dataclasses import replace

import pytest

from recognition.candidates import Candidate, Query, Reading, Season
from recognition.decide import decide
from recognition.explain import explain, without_edition
from recognition.folding import title_key
from recognition.forms import other_forms
from recognition.lookups import MAX_REQUESTS
from recognition.parsing.release import parse_release
from tests.support.candidates import titled, with_seasons
from tests.support.search import AUTO, found


def film(id: str, name: str, year: int, popularity: float, *names: str) -> Candidate:
    return titled(id, name, year, popularity, names=names)


def show(id: str, name: str, year: int, seasons: int, *names: str) -> Candidate:
    held = tuple(Season(n, 10, year + n - 1) for n in range(1, seasons + 1))
    return titled(id, name, year, 50, kind="series", names=names, seasons=held)


def chosen(query: Query, titles: list[Candidate]) -> str | None:
    decision = decide(query, titles, AUTO)
    return decision.chosen.provider_id if decision.chosen else None


# --- 1. two names of one title ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title", "alt"),
    [
        # The title stays as guessit reads it; the other name is another reading.
        ("Der.Untergang.aka.Downfall.2004.1080p.BluRay", "Der Untergang aka Downfall", "Downfall"),
        ("Das Boot AKA The Boat 1981 1080p", "Das Boot AKA The Boat", "The Boat"),
        (
            "[Cleo] Hagane no Renkinjutsushi Brotherhood | Fullmetal Alchemist Brotherhood [BD]",
            "Hagane no Renkinjutsushi Brotherhood",
            "Fullmetal Alchemist Brotherhood",
        ),
        ("Duna Parte Dos (Dune Part Two) 2024 1080p", "Duna Parte Dos", "Dune Part Two"),
        ("Aka Ana 2008 1080p", "Aka Ana", None),  # a word of the title
    ],
)
def test_a_name_written_with_the_other_it_is_known_by_reads_both(
    name: str, title: str, alt: str | None
) -> None:
    parsed = parse_release(name)
    assert (parsed.title, parsed.alt_title) == (title, alt)


def test_two_of_a_titles_own_names_side_by_side_are_its_exact_name() -> None:
    sequel = film("558449", "Gladiator II", 2024, 180, "Il gladiatore II")
    first = film("98", "Gladiator", 2000, 95, "Il gladiatore")
    query = Query("movie", (Reading("Il Gladiatore II - Gladiator II", 2024),))
    assert chosen(query, [sequel, first]) == "558449"
    downfall = film("613", "Downfall", 2004, 30, "Der Untergang")
    assert chosen(Query("movie", (Reading("Der Untergang aka Downfall", 2004),)), [downfall])
    spirited = film("129", "Spirited Away", 2001, 100, "Sen to Chihiro no Kamikakushi")
    query = Query("movie", (Reading("Spirited Away Sen to Chihiro no Kamikakushi", 2001),))
    assert chosen(query, [spirited]) == "129"
    # Names of two titles are no name of either.
    query = Query("movie", (Reading("Gladiator Spirited Away", None),))
    assert chosen(query, [sequel, first, spirited]) is None


async def test_a_film_by_its_other_name_first_is_found_by_its_last_words() -> None:
    mononoke = film("128", "Princess Mononoke", 1997, 80, "Mononoke-hime")
    chosen, calls = await found("Mononoke.Hime.Princess.Mononoke.1997.1080p.BluRay", [mononoke])
    assert chosen == "128"
    assert calls <= MAX_REQUESTS


async def test_a_local_title_tmdb_does_not_know_before_a_dash_and_the_original() -> None:
    shawshank = film("278", "The Shawshank Redemption", 1994, 110, "Um Sonho de Liberdade")
    name = "Os Condenados de Shawshank - The Shawshank Redemption (1994) 1080p PT-PT"
    assert (await found(name, [shawshank]))[0] == "278"
    # The part after the dash names another film only of another year: not taken.
    reckoning = film("41", "Dead Reckoning", 1947, 5)
    name = "Il Vendicatore Silenzioso - Dead Reckoning (2023) iTA 1080p"
    assert (await found(name, [reckoning]))[0] is None


async def test_a_known_name_before_a_dash_is_no_local_title() -> None:
    """ "Sherlock - A Scandal in Belgravia (2012)": the show, then its episode; a film of
    the episode's name and year is not taken for it."""
    sherlock = show("19885", "Sherlock", 2010, 4)
    scandal = film("7", "A Scandal in Belgravia", 2012, 3)
    name = "Sherlock - A Scandal in Belgravia (2012) 1080p"
    assert (await found(name, [sherlock, scandal]))[0] != "7"


def test_a_tmdb_name_of_two_names_joined_by_a_slash_holds_both() -> None:
    bridge = show("61856", "The Bridge", 2011, 4, "Bron/Broen")
    remake = show("46952", "The Bridge", 2013, 2)
    query = Query("series", (Reading("Bron", None),), episodes=((3, 1, False),), seasons=(3,))
    assert chosen(query, [bridge, remake]) == "61856"
    face = film("754", "Face/Off", 1997, 40)
    assert chosen(Query("movie", (Reading("Face", 1997),)), [face]) is None


# --- 2. season words ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title", "season"),
    [
        ("Borgen.Saeson.4.DANiSH.1080p.WEB-DL", "Borgen", 4),
        ("Bron.Sasong.3.SWEDiSH.720p.HDTV", "Bron", 3),
        ("오징어게임시즌2 1080p WEB-DL", "오징어게임", 2),
    ],
)
def test_a_season_word_without_its_letters_or_glued_to_the_name_is_the_season(
    name: str, title: str, season: int
) -> None:
    parsed = parse_release(name)
    assert (parsed.title, parsed.season) == (title, season)


def test_a_spanish_trackers_t_and_a_number_is_a_season_the_show_has() -> None:
    seasons = [Season(n, 13) for n in range(1, 23)]
    assert explain("Cuentame como paso T22", ["Cuéntame cómo pasó"], [], seasons).season == 22
    assert explain("Cuentame como paso T30", ["Cuéntame cómo pasó"], [], seasons).season is None


def test_an_alternative_name_subtitled_as_the_title_is_the_shows_whole_name() -> None:
    """ "Mushoku Tensei Isekai Ittara Honki Dasu" of "Mushoku Tensei: Jobless Reincarnation"
    (romaji "Mushoku Tensei: Isekai Ittara Honki Dasu"): no season's name, nothing asked;
    an arc ("… Mugen Ressha-hen") still names a part."""
    seasons = [Season(1, 23), Season(2, 25)]
    mains = ["Mushoku Tensei: Jobless Reincarnation"]
    others = ["Mushoku Tensei: Isekai Ittara Honki Dasu"]
    why = explain("Mushoku Tensei Isekai Ittara Honki Dasu", mains, others, seasons)
    assert (why.season, why.season_words, why.unexplained) == (None, None, None)
    arc = explain(
        "Kimetsu no Yaiba Mugen Ressha-hen",
        ["Demon Slayer: Kimetsu no Yaiba"],
        ["Kimetsu no Yaiba: Mugen Ressha-hen"],
        seasons,
    )
    assert arc.season_words == "mugen ressha hen"


# --- 3. a name longer than TMDB's ------------------------------------------------------------


def test_volume_is_tmdbs_vol() -> None:
    assert title_key("Kill Bill Volume 1") == title_key("Kill Bill: Vol. 1")
    assert "Guardians of the Galaxy Vol 3" in [
        f.title for f in other_forms("Guardians of the Galaxy Volume 3", 2023)
    ]
    assert not [f for f in other_forms("Volume", None) if f.title == "Vol"]


def test_an_edition_of_four_words_is_no_word_of_the_title() -> None:
    title = "Mad Max Fury Road Black and Chrome Edition"
    assert without_edition(title) == "Mad Max Fury Road"
    assert without_edition("Guns and Roses") is None


async def test_a_title_without_its_own_languages_article_is_the_title() -> None:
    """Trackers drop a leading article of the title's own language ("Casa de Papel");
    never of another language's title ("Another Day" is not "Die Another Day")."""
    casa = with_seasons(
        "71446", "La casa de papel", 2017, 150, kind="series", seasons=((3, 8, 2019),)
    )
    casa = replace(casa, language="es")
    queen = with_seasons(
        "62688", "Queen of the South", 2016, 60, kind="series", seasons=((3, 13, 2018),)
    )
    assert (await found("Casa.de.Papel.S03E01.1080p.NF.WEB-DL", [casa, queen]))[0] == "71446"
    bond = titled("36669", "Die Another Day", 2002, 60)
    other = titled("56", "Another Day", 2001, 1)
    assert (await found("Another.Day.2001.1080p.WEB", [bond, other]))[0] == "56"
