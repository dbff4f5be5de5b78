"""Anime that a careful person takes without asking (issue #35, round three): a later
cour TMDB counts into one season placed by its air dates, a film's romaji without
TMDB's "Gekijouban", a show's short romaji name beside its long one, a box of numbered
episodes and a named special, a special's romaji spelled otherwise, long vowels written
twice searched as TMDB writes them, "2期" (recognition.weigh, recognition.explain,
recognition.recognize, recognition.gather, recognition.parsing.release)."""

import datetime

import pytest

from recognition.candidates import AiredEpisode, Candidate, Query, Reading, Season
from recognition.explain import explain
from recognition.gather import _romaji_spelled
from recognition.parsing.release import parse_release
from recognition.recognize import TorrentFile, recognize
from recognition.weigh import weigh
from tests.support.candidates import titled


def _weekly(season: int, first: int, last: int, start: str) -> list[AiredEpisode]:
    day = datetime.date.fromisoformat(start)
    return [
        AiredEpisode(season, n, None, (day + datetime.timedelta(weeks=n - first)).isoformat())
        for n in range(first, last + 1)
    ]


def _split_cour(aired: list[AiredEpisode]) -> Candidate:
    return titled(
        "1", "SPY x FAMILY", 2022, kind="series", language="ja",
        seasons=(Season(1, 25), Season(2, 12)), aired=tuple(aired),
    )  # fmt: skip


def _part(number: int, part: int = 2) -> Query:
    path = f"[Erai-raws] Spy x Family Cour {part} - {number:02d}.mkv"
    return Query(
        kind="series",
        readings=(Reading("Spy x Family", None),),
        episodes=((None, number, True),),
        parts=((path, None, part, number),),
    )


TWO_COURS = [*_weekly(1, 1, 12, "2022-04-09"), *_weekly(1, 13, 25, "2022-10-01")]


@pytest.mark.parametrize(
    ("aired", "number", "episode"),
    [
        (TWO_COURS, 1, 13),  # the first episode after the summer's break
        (TWO_COURS, 5, 17),
        (TWO_COURS, 13, None),  # 13 may count on within the season: asked
        (_weekly(1, 1, 25, "2022-04-09"), 1, None),  # no break: where the part begins is unknown
        ([*TWO_COURS[:-1], AiredEpisode(1, 25, None, None)], 1, None),  # a date missing
    ],
)
def test_a_later_cours_own_numbers_are_placed_by_the_seasons_air_dates(
    aired: list[AiredEpisode], number: int, episode: int | None
) -> None:
    listed = weigh(_part(number), _split_cour(aired)).listed
    assert listed == (((_part(number).parts[0][0], 1, episode),) if episode else ())


def test_a_break_of_a_few_weeks_is_no_new_cour() -> None:
    delayed = [*_weekly(1, 1, 12, "2022-04-09"), *_weekly(1, 13, 25, "2022-07-16")]
    assert weigh(_part(1), _split_cour(delayed)).listed == ()


def test_a_films_romaji_is_exact_without_tmdbs_gekijouban() -> None:
    film = titled(
        "9", "Steins;Gate: The Movie - Load Region of Déjà Vu", 2013, language="ja",
        names=("Gekijouban Steins;Gate: Fuka Ryouiki no Déjà vu",),
    )  # fmt: skip
    query = Query(kind="movie", readings=(Reading("Steins;Gate - Fuka Ryouiki no Deja vu", None),))
    assert weigh(query, film).title == "exact"


def test_a_shows_romaji_without_its_subtitle_is_its_name_not_a_part() -> None:
    names = (
        "Kaguya-sama wa Kokurasetai: Tensai-tachi no Renai Zunousen",
        "Kaguya-sama wa Kokurasetai",
    )
    main = ["Kaguya-sama: Love Is War"]
    assert explain("Kaguya-sama wa Kokurasetai", main, names, [Season(1, 12)]).season_words is None
    # an arc's name an alternative title gives is still a part of the show
    arc = explain("Kaguya-sama Yuukaku-hen", main, ("Kaguya-sama Yuukaku-hen",), [Season(1, 12)])
    assert arc.season_words == "yuukaku hen"


def test_a_box_of_numbered_episodes_and_a_named_special_is_a_series() -> None:
    root = "[Commie] Steins;Gate [BD 1080p AAC]"
    files = [TorrentFile(f"{root}/[Commie] Steins;Gate - {n:02d} [BD 1080p AAC].mkv", 1 << 30)
             for n in (1, 2, 3)]  # fmt: skip
    files.append(
        TorrentFile(f"{root}/[Commie] Steins;Gate - Egoistic Poriomania [BD].mkv", 1 << 29)
    )
    assert recognize(root, files).kind == "series"
    # a film and two extras numbered under another name stay a film
    film = "Some.Film.2010.1080p.BluRay"
    extras = [TorrentFile(f"{film}/Some.Film.2010.1080p.BluRay.mkv", 8 << 30)]
    extras += [TorrentFile(f"{film}/Deleted Scene {n}.mkv", 1 << 28) for n in (1, 2)]
    assert recognize(film, extras).kind == "movie"


def test_a_specials_romaji_spelled_otherwise_is_tmdbs() -> None:
    path = "[SubsPlease] Dr. Stone - Ryuusui (1080p).mkv"
    show = titled(
        "2", "Dr. STONE", 2019, kind="series", language="ja", names=("Dr. Stone",),
        seasons=(Season(0, 1), Season(1, 24)), aired=(AiredEpisode(0, 1, "Ryusui", "2022-07-10"),),
    )  # fmt: skip
    query = Query(
        kind="series", readings=(Reading("Dr. Stone - Ryuusui", None),), unnumbered=(path,)
    )
    assert weigh(query, show).listed == ((path, 0, 1),)


@pytest.mark.parametrize(
    ("title", "spelled"),
    [
        ("Kaijuu 8-gou", "Kaiju 8-go"),  # long vowels twice, no particle
        ("Shuumatsu Train", "Shumatsu Train"),
        ("Vacuum", None),  # English words
        ("Thou Art", None),
        ("You", None),
    ],
)
def test_long_vowels_written_twice_are_searched_as_tmdb_writes_them(
    title: str, spelled: str | None
) -> None:
    assert _romaji_spelled(title) == spelled


def test_2ki_after_a_japanese_name_is_its_season() -> None:
    parsed = parse_release(
        "[Ohys-Raws] その着せ替え人形は恋をする 2期 - 05 (AT-X 1280x720 x264 AAC).mp4"
    )
    assert (parsed.title, parsed.season, parsed.episodes) == ("その着せ替え人形は恋をする", 2, (5,))
    assert parse_release("一期一会 (2019)").season is None  # "一期" is a word
