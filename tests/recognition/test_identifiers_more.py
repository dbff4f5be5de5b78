"""Ids that real releases carry, and how much they decide (issue #35): media servers'
folder tags, .nfo links of IMDb, TMDB and TheTVDB, links jellybit cannot use, an .nfo
listing the group's other releases, a film's id in an episode pack."""

import pytest

from recognition.candidates import Query, Reading
from recognition.decide import decide
from recognition.parsing.identifiers import find_identifiers
from tests.support.candidates import with_seasons as title
from tests.support.search import chosen, offered

AUTO = 0.85


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("Doctor Who [tvdbid-78804]", ("tvdb:78804",)),
        ("Battlestar Galactica {tvdb-73545}", ("tvdb:73545",)),
        ("TVDB: https://thetvdb.com/?tab=series&id=78804", ("tvdb:78804",)),
        ("http://thetvdb.com/index.php?tab=series&id=81189&lid=7", ("tvdb:81189",)),
        ("https://thetvdb.com/dereferrer/series/73545", ("tvdb:73545",)),
        ('<uniqueid type="tvdb" default="true">73244</uniqueid>', ("tvdb:73244",)),
        ("https://m.imdb.com/title/tt6105098/?ref_=ext_shr_lnk", ("imdb:tt6105098",)),
        ("http://www.imdb.com/title/tt0905372/reference", ("imdb:tt0905372",)),
        ("themoviedb.org/movie/43074-ghostbusters?language=ru-RU", ("tmdb:movie/43074",)),
        ("themoviedb.org/tv/1399-game-of-thrones/season/1", ("tmdb:tv/1399",)),
        # By name, or an episode's: no show's id.
        ("https://thetvdb.com/series/the-office-us", ()),
        ("thetvdb.com/?tab=episode&seriesid=73244&id=5", ()),
        # Kinopoisk, MyAnimeList, AniDB, World Art: nothing TMDB is asked by.
        ("https://www.kinopoisk.ru/film/409424/ https://myanimelist.net/anime/1/x", ()),
        ("https://anidb.net/a23 http://www.world-art.ru/cinema/cinema.php?id=95823", ()),
    ],
)
def test_ids_in_names_and_texts(text: str, ids: tuple[str, ...]) -> None:
    assert find_identifiers(text, "tv") == ids


GHOSTBUSTERS = title("620", "Ghostbusters", 1984, 70, imdb_id="tt0087332")
MATRIX = title("603", "The Matrix", 1999, 90, imdb_id="tt0133093")
DUNE = title("841", "Dune", 1984, 35, imdb_id="tt0087182")


def film(name: str, year: int | None, *ids: str) -> Query:
    return Query("movie", (Reading(name, year),), identifiers=ids)


def test_an_id_of_another_title_is_asked_where_the_name_finds_its_own() -> None:
    decision = decide(film("Ghostbusters", 1984, "imdb:tt0133093"), [MATRIX, GHOSTBUSTERS], AUTO)
    assert decision.code == "review.contradicted"
    assert offered(decision) >= {"603", "620"}
    # Nothing of the name found (a scene name the search reads poorly): the id decides.
    assert (
        chosen(decide(film("sprks ghostbusters", None, "imdb:tt0087332"), [GHOSTBUSTERS], AUTO))
        == "620"
    )


def test_ids_of_other_titles_listed_in_an_nfo_leave_the_name_to_decide() -> None:
    listed = film("Ghostbusters", 1984, "imdb:tt0133093", "imdb:tt0087182")
    assert chosen(decide(listed, [MATRIX, DUNE, GHOSTBUSTERS], AUTO)) == "620"
    # Among them the release's own: that one decides.
    own = film("Ghostbusters", None, "imdb:tt0133093", "imdb:tt0087332")
    other = title("43074", "Ghostbusters", 2016, 35, imdb_id="tt1289401")
    decision = decide(own, [MATRIX, GHOSTBUSTERS, other], AUTO)
    assert (chosen(decision), decision.code) == ("620", "auto.identifier")


SHOW = title("60622", "Fargo", 2014, 60, kind="series", seasons=((1, 10, 2014),), tvdb_id=269613)
FILM = title("275", "Fargo", 1996, 30, imdb_id="tt0116282")


def test_a_films_id_in_an_episode_pack_is_not_taken() -> None:
    pack = Query(
        "series",
        (Reading("Fargo", None),),
        episodes=((1, 1, False), (1, 2, False)),
        seasons=(1,),
        identifiers=("imdb:tt0116282",),
    )
    decision = decide(pack, [FILM, SHOW], AUTO)
    assert chosen(decision) == "60622"
    assert decision.code != "auto.identifier"


def test_a_shows_tvdb_id_decides_between_shows_of_one_name() -> None:
    old = title(
        "121", "Doctor Who", 1963, 40, kind="series", seasons=((1, 42, 1963),), tvdb_id=76107
    )
    new = title(
        "57243", "Doctor Who", 2005, 120, kind="series", seasons=((1, 13, 2005),), tvdb_id=78804
    )
    query = Query(
        "series",
        (Reading("Doctor Who", None),),
        episodes=((1, 1, False),),
        identifiers=("tvdb:78804",),
    )
    decision = decide(query, [old, new], AUTO)
    assert (chosen(decision), decision.code) == ("57243", "auto.identifier")
