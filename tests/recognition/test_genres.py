"""Titles of one name that only their kind of work tells apart (issue #35 'genres',
tests/data/regression/genres.json): an anime and its live-action remake, a documentary
and a drama, a concert film or stand-up special and a film of one name. What the name
says (recognition.parsing.genres) against TMDB's genres, as a tie-breaker only."""

import pytest

from common.explain import evidence_line
from common.i18n import I18n
from recognition.candidates import Candidate, Evidence, Query, Reading
from recognition.decide import decide
from recognition.forms import other_forms
from recognition.parsing.genres import said_genres, without_genre_words
from tests.support.candidates import with_seasons
from tests.support.search import chosen, film, offered
from worker.tmdb import _candidate, _detailed

AUTO = 0.85


@pytest.mark.parametrize(
    ("name", "service", "kinds"),
    [
        ("[SubsPlease] Oshi no Ko - 05 (1080p) [A1B2C3D4].mkv", None, {"animation"}),
        ("[Group] Ghost in the Shell [BD 1080p x265 FLAC]", None, {"animation"}),
        ("Frieren.S01E05.1080p.CR.WEB-DL.AAC2.0.H.264-VARYG", "Crunchy Roll", {"animation"}),
        ("Тетрадь смерти [2006, Япония, аниме, детектив, BDRip]", None, {"animation"}),
        ("Oshi.no.Ko.Live.Action.S01E05.1080p.AMZN.WEB-DL", None, {"live"}),
        ("Nodame Cantabile [J-Drama] E05 [720p]", None, {"live"}),
        ("[Group] Death Note [J-Drama] - 05 [720p].mkv", None, set()),  # they disagree
        ("Apollo.11.DOCU.1080p.BluRay.x264-GRP", None, {"documentary"}),
        ("Jane.NatGeo.1080p.WEB-DL.AAC2.0.H.264", None, {"documentary"}),
        ("Джейн / Jane [2017, США, документальный, BDRip 1080p]", None, {"documentary"}),
        ("Free.Solo.2018.DOC.1080p.WEB", None, {"documentary"}),
        ("Doc.Martin.S01E01.720p.HDTV", None, set()),  # a title's word
        ("Hiroshima.BBC.DVDRip.XviD", None, set()),  # BBC makes dramas too
        ("Sanditon.S01E01.PBS.720p.WEB", None, set()),
        ("Amazing.Grace.Concert.Film.1080p.BluRay.x264", None, {"music"}),
        ("Metallica.Live.at.Wembley.1992.DVDRip", None, {"music"}),
        ("Paper.Tiger.Stand-Up.Special.1080p.NF.WEB-DL", None, {"comedy"}),
        ("Cowboy.Bebop.S01E05.1080p.NF.WEB-DL.DDP5.1.x264-NTb", "Netflix", set()),
        ("Dune.Part.Two.2024.2160p.WEB-DL", None, set()),
    ],
)
def test_what_a_name_says_of_its_kind_of_work(
    name: str, service: str | None, kinds: set[str]
) -> None:
    assert {genre for genre, _ in said_genres([name], service)} == kinds


def test_genre_words_after_a_title_are_searched_without() -> None:
    assert without_genre_words("Amazing Grace Concert Film") == "Amazing Grace"
    assert without_genre_words("Oshi no Ko Live Action") == "Oshi no Ko"
    assert without_genre_words("Paper Tiger Stand-Up Special") == "Paper Tiger"
    for title in ("Concert", "The Concert", "Documentary Now", "Amazing Grace"):
        assert without_genre_words(title) is None
    assert "Amy" in [f.title for f in other_forms("Amy Documentary", None) if f.weighed]


def show(tmdb_id: str, year: int, popularity: float, genres: tuple[int, ...]) -> Candidate:
    return with_seasons(
        tmdb_id, "Death Note", year, popularity, kind="series", seasons=((1, 11, year),),
        genres=genres,
    )  # fmt: skip


ANIME = show("13916", 2006, 90.0, (16, 9648))
DRAMA = show("64033", 2015, 12.0, (18, 9648))


def episode(genres: tuple[tuple[str, str], ...], year: int | None = None) -> Query:
    return Query("series", (Reading("Death Note", year),), episodes=((1, 5, False),), genres=genres)


def test_the_kind_of_work_tells_titles_of_one_name_apart() -> None:
    anime = decide(episode((("animation", ""),)), [ANIME, DRAMA], AUTO)
    assert (chosen(anime), anime.rule) == ("13916", "genre")
    live = decide(episode((("live", "j-drama"),)), [ANIME, DRAMA], AUTO)
    assert (chosen(live), live.rule) == ("64033", "genre")


def test_without_a_word_of_its_kind_nothing_changes() -> None:
    decision = decide(episode(()), [ANIME, DRAMA], AUTO)
    assert chosen(decision) is None
    assert offered(decision) >= {"13916", "64033"}


def test_the_year_comes_before_the_kind_of_work() -> None:
    decision = decide(episode((("animation", ""),), 2015), [ANIME, DRAMA], AUTO)
    assert (chosen(decision), decision.rule) == ("64033", "year")


def test_a_genre_word_of_the_titles_own_name_says_nothing() -> None:
    tour = Query("movie", (Reading("The Tour", None),), genres=(("music", "tour"),))
    concert = with_seasons("1", "The Tour", 2010, 5.0, genres=(10402, 99))
    drama = with_seasons("2", "The Tour", 2008, 4.0, genres=(18,))
    assert chosen(decide(tour, [concert, drama], AUTO)) is None
    assert chosen(decide(film("Amy"), [concert, drama], AUTO)) is None


def test_tmdbs_genres_are_read_from_search_and_details() -> None:
    found = _candidate("movie", {"id": 245706, "title": "Amy", "genre_ids": [99, 10402, "x"]})
    assert found is not None
    assert found.genres == (99, 10402)
    detailed = _detailed(found, {"genres": [{"id": 99, "name": "Documentary"}]})
    assert detailed.genres == (99,)
    assert _detailed(found, {}).genres == (99, 10402)  # details without genres keep the search's
    old = found.as_json()
    del old["genres"]
    assert Candidate.from_json(old).genres == ()  # a record stored before genres


def test_the_review_page_words_the_kind_of_work() -> None:
    evidence = Evidence(title="exact", matched="Amy", year="none", genre=1)
    assert "anime, documentary" in evidence_line(I18n("en").texts("en"), evidence, "Amy")
    assert "документальный" in evidence_line(I18n("en").texts("ru"), evidence, "Amy")
