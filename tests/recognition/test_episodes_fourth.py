"""Episodes named by their titles, round four, tracker layouts and seasons by year
(issue #35): a chapter numbered across seasons ("Season 2/Chapter 14.mkv"), one
file whose title names another episode than its number (asked), a season folder's
year against a same-name show's season of that number
(recognition.parsing.episodes, recognition.recognize, recognition.weigh)."""

from collections.abc import Mapping, Sequence

import pytest

from recognition.candidates import AiredEpisode, Candidate, Query, Reading, Season
from recognition.parsing.episodes import counts_on
from recognition.recognize import TorrentFile, recognize
from recognition.weigh import weigh
from tests.support.candidates import titled

HOUSE_OF_CARDS = {
    1: [f"Chapter {n}" for n in range(1, 14)],
    2: [f"Chapter {n}" for n in range(14, 27)],
}


def _show(
    names: Mapping[int, Sequence[str]], years: Mapping[int, int] | None = None, title: str = "Show"
) -> Candidate:
    years = years or {}
    seasons = tuple(
        Season(n, len(ns), years.get(n, 2013 + n), None, f"{years.get(n, 2013 + n)}-02-01")
        for n, ns in names.items()
    )
    aired = tuple(
        AiredEpisode(n, i + 1, name, None) for n, ns in names.items() for i, name in enumerate(ns)
    )
    return titled("1425", title, 2013, kind="series", seasons=seasons, aired=aired)


@pytest.mark.parametrize(
    ("path", "counts"),
    [
        ("House of Cards Season 2/Chapter 14.mkv", True),
        ("The Mandalorian Season 2/Chapter 9 - The Marshal.mkv", True),
        ("Show Season 2/Show.S02E05.mkv", False),  # the name numbers its season
        ("Show Season 2/Show - 05.mkv", False),
        ("Lost - Season 3/Exodus Part 1.avi", False),  # a part of a title, no chapter
    ],
)
def test_a_chapter_may_count_on_from_the_first_season(path: str, counts: bool) -> None:
    assert counts_on(path) is counts


def test_chapters_numbered_across_seasons_fit_and_are_placed_by_tmdbs_names() -> None:
    root = "House of Cards (2013) Season 2 1080p"
    names = ["Chapter 14", "Chapter 15"]
    files = recognize(root, [TorrentFile(f"{root}/{n}.mkv", 900 << 20) for n in names]).files
    assert [(f.season, f.episodes, f.absolute) for f in files] == [
        (2, (14,), True),
        (2, (15,), True),
    ]
    query = Query(
        kind="series",
        readings=(Reading("House of Cards", 2013),),
        episodes=((2, 14, True), (2, 15, True)),
        seasons=(2,),
        named=tuple((f"{root}/{n}.mkv", 2, n) for n in names),
    )
    evidence = weigh(query, _show(HOUSE_OF_CARDS, title="House of Cards"))
    assert evidence.seasons == "fit"
    assert evidence.listed == ((f"{root}/Chapter 14.mkv", 2, 1), (f"{root}/Chapter 15.mkv", 2, 2))


def _one_titled(episode: int, words: str) -> Query:
    path = f"Breaking.Bad.S02E{episode:02d}.{words.replace(' ', '.')}.720p.mkv"
    return Query(
        kind="series",
        readings=(Reading("Show", None),),
        episodes=((2, episode, False),),
        seasons=(2,),
        episode_title=words,
        titled=((path, 2, episode, words),),
    )


def test_one_files_title_against_its_number_is_asked() -> None:
    show = _show({1: ["Pilot"], 2: ["Seven Thirty-Seven", "Grilled", "Bit by a Dead Bee"]})
    against = weigh(_one_titled(3, "Seven Thirty-Seven"), show)
    assert [row[1:] for row in against.listed] == [(2, 0)]  # episode 0: asked
    agrees = weigh(_one_titled(2, "Grilled"), show)
    assert [row[1:] for row in agrees.listed] == [(2, 2)]
    nothing = weigh(_one_titled(3, "Some Other Words"), show)
    assert nothing.listed == ()  # a title TMDB does not list: the number holds


def test_a_season_folders_year_against_the_seasons_air_year_is_a_misfit() -> None:
    query = Query(
        kind="series",
        readings=(Reading("Top Gear", None),),
        episodes=((22, 1, False),),
        seasons=(22,),
        season_years=((22, 2015),),
    )
    counts = {n: ["x"] for n in range(1, 25)}
    old = _show(counts, {n: 1976 + n for n in counts})
    new = _show(counts, {n: 2002 + (n - 1) * 13 // 21 for n in counts})
    assert (weigh(query, old).seasons, weigh(query, old).misfit) == ("misfit", "S22 (2015)")
    assert weigh(query, new).seasons == "fit"
