"""Episodes named by their titles, round three, and Cyrillic series packs (issue #35):
a pack's numbers against TMDB's names (a DVD's or a broadcaster's order), a disc's
track numbers, two-parters merged or split, names after a colon, a folder named only
by the show, one file "Show - Episode Title", a number that is a title's own word,
"[ТВ-3]" and "Сериал …" of Russian trackers, several seasons in one request
(recognition.parsing.episodes, recognition.weigh, recognition.placement,
recognition.gather, recognition.forms, recognition.lookups)."""

import asyncio
from collections.abc import Sequence

import pytest

from recognition.candidates import AiredEpisode, Candidate, MediaKind, Query, Reading, Season
from recognition.forms import other_forms
from recognition.lookups import Lookup
from recognition.parsing.episodes import disc_track, episode_name, numbered_title
from recognition.parsing.release import parse_release
from recognition.placement import placed
from recognition.recognize import RecognizedFile, TorrentFile, recognize
from recognition.weigh import weigh
from tests.support.candidates import titled

FIREFLY = ("Serenity", "The Train Job", "Bushwhacked", "Shindig", "Safe", "Our Mrs. Reynolds")


def _show(names: dict[int, Sequence[str]], title: str = "Firefly") -> Candidate:
    seasons = tuple(Season(n, len(ns), 2002, None, "2002-09-20") for n, ns in names.items())
    aired = tuple(
        AiredEpisode(n, i + 1, name, None) for n, ns in names.items() for i, name in enumerate(ns)
    )
    return titled("1437", title, 2002, kind="series", seasons=seasons, aired=aired)


def _listed(query: Query, show: Candidate) -> dict[str, tuple[int, int]]:
    evidence = weigh(query, show)
    return {path: (season, episode) for path, season, episode in evidence.listed}


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("F/Firefly - 1x01 - The Train Job.avi", "The Train Job"),
        ("F/01 - Pilot.mkv", "Pilot"),
        ("F/Show.S01E05.The.Fire.720p.WEB.mkv", "The Fire"),
        ("F/Show - S01E01 - Pilot (1080p).mkv", "Pilot"),
        ("F/Show.S01E05.720p.mkv", None),
        ("[G] Show - 05 [1080p].mkv", None),
        ("F/01. 1_23_45.mkv", None),  # no words past the number
        ("F/Pilot.mkv", None),  # no number: a name (episode_name), not a numbered title
    ],
)
def test_the_title_a_numbered_name_gives_its_episode(path: str, words: str | None) -> None:
    assert numbered_title(path, ("Firefly", "Show")) == words


def _titled_query(files: Sequence[tuple[int, str]]) -> Query:
    return Query(
        kind="series",
        readings=(Reading("Firefly", None),),
        episodes=tuple((1, n, False) for n, _ in files),
        seasons=(1,),
        titled=tuple((f"F/{n:02d} - {t}.avi", 1, n, t) for n, t in files),
    )


def test_a_pack_in_another_order_is_placed_by_its_titles() -> None:
    # broadcast order against TMDB's DVD order: every title names one distinct episode
    query = _titled_query([(1, "The Train Job"), (2, "Bushwhacked"), (3, "Our Mrs. Reynolds")])
    assert _listed(query, _show({1: FIREFLY})) == {
        "F/01 - The Train Job.avi": (1, 2),
        "F/02 - Bushwhacked.avi": (1, 3),
        "F/03 - Our Mrs. Reynolds.avi": (1, 6),
    }


def test_numbers_and_titles_that_disagree_where_a_title_names_nothing_are_asked() -> None:
    query = _titled_query([(1, "The Train Job"), (2, "Serenity (Extended Pilot)")])
    listed = _listed(query, _show({1: FIREFLY}))
    assert listed == {"F/01 - The Train Job.avi": (1, 0)}  # episode 0: asked
    video = RecognizedFile("F/01 - The Train Job.avi", "video", 1, (1,), None, ())
    assert placed([video], None, listed=[("F/01 - The Train Job.avi", 1, 0)])[0].episodes == ()


def test_numbers_and_titles_that_agree_keep_the_numbers() -> None:
    query = _titled_query([(2, "The Train Job"), (3, "Bushwhacked"), (4, "Unknown Title")])
    assert _listed(query, _show({1: FIREFLY})) == {
        "F/02 - The Train Job.avi": (1, 2),
        "F/03 - Bushwhacked.avi": (1, 3),
    }


def _named_query(*names: str, season: int | None = 1) -> Query:
    return Query(
        kind="series",
        readings=(Reading("Show", None),),
        named=tuple((f"S/{n}.avi", season, n) for n in names),
    )


def test_a_two_parter_in_one_file_is_both_episodes() -> None:
    show = _show({1: ("Pilot (1)", "Pilot (2)", "Tabula Rasa")})
    assert weigh(_named_query("Pilot", "Tabula Rasa"), show).listed == (
        ("S/Pilot.avi", 1, 1),
        ("S/Pilot.avi", 1, 2),
        ("S/Tabula Rasa.avi", 1, 3),
    )
    video = RecognizedFile("S/Pilot.avi", "video", 1, (), None, ())
    rows = [("S/Pilot.avi", 1, 1), ("S/Pilot.avi", 1, 2)]
    assert placed([video], None, listed=rows)[0].episodes == (1, 2)
    # one of its parts is a file of its own: none of them is placed by that name
    assert _listed(_named_query("Pilot", "Pilot Part 2"), show) == {"S/Pilot Part 2.avi": (1, 2)}


def test_a_name_after_tmdbs_colon_and_without_the_article() -> None:
    show = _show({1: ("Chapter One: The Vanishing of Will Byers", "Chapter Two: The Weirdo")})
    assert _listed(_named_query("The Vanishing of Will Byers"), show) == {
        "S/The Vanishing of Will Byers.avi": (1, 1)
    }


def test_titles_whose_season_nothing_says_are_looked_for_in_every_season_fetched() -> None:
    show = _show({1: ("A Study in Pink", "The Blind Banker"), 2: ("A Scandal in Belgravia",)})
    query = _named_query("The Blind Banker", "A Scandal in Belgravia", season=None)
    assert _listed(query, show) == {
        "S/The Blind Banker.avi": (1, 2),
        "S/A Scandal in Belgravia.avi": (2, 1),
    }


def test_one_file_named_by_the_show_and_an_episodes_title() -> None:
    show = _show({1: ("A Study in Pink",), 2: ("A Scandal in Belgravia",)}, title="Sherlock")
    query = Query(
        kind="movie",
        readings=(Reading("Sherlock - A Scandal in Belgravia", None),),
        unnumbered=("Sherlock - A Scandal in Belgravia.mkv",),
    )
    evidence = weigh(query, show)
    assert evidence.title == "exact"
    assert evidence.listed == (("Sherlock - A Scandal in Belgravia.mkv", 2, 1),)


def test_a_disc_boxs_track_numbers_are_no_episodes() -> None:
    assert disc_track("Box/Disc 2/01 The One with the Thumb.avi", ()) == (
        2,
        "The One with the Thumb",
    )
    assert disc_track("Box/DVD2/01. Эпизод, где бабушка умирает дважды.avi", ()) == (
        2,
        "Эпизод, где бабушка умирает дважды",
    )
    assert disc_track("Box/Disc 1/Show.S01E01.mkv", ()) is None  # numbered outright
    assert disc_track("Box/Season 1/03 Title.mkv", ()) is None  # no disc
    root = "Friends - Season 1 [DVD]"
    names = ["Disc 1/01 The Pilot", "Disc 1/02 The Sonogram", "Disc 2/01 The Thumb"]
    files = recognize(root, [TorrentFile(f"{root}/{n}.avi", 350 << 20) for n in names]).files
    assert [(f.episodes, f.name) for f in files] == [
        ((), "The Pilot"),
        ((), "The Sonogram"),
        ((), "The Thumb"),
    ]


def test_numbers_that_count_on_across_discs_are_episodes() -> None:
    root = "Show - Season 1 [DVD]"
    names = ["Disc 1/01 Pilot", "Disc 1/02 Second", "Disc 2/03 Third"]
    files = recognize(root, [TorrentFile(f"{root}/{n}.avi", 350 << 20) for n in names]).files
    assert [f.episodes for f in files] == [(1,), (2,), (3,)]


def test_an_episode_word_without_a_number_is_a_title_word() -> None:
    assert episode_name("Друзья/Эпизод, где бабушка умирает дважды.avi", ("Друзья",))
    assert episode_name("Show - Сезон 1/Show - 5 эпизод.avi", ("Show",)) is None


def test_a_number_before_words_in_a_pack_of_titles_says_nothing_of_the_seasons() -> None:
    root = "Черное зеркало - Сезон 1"
    names = ["Национальный гимн", "15 миллионов заслуг"]
    result = recognize(root, [TorrentFile(f"{root}/{n}.avi", 350 << 20) for n in names])
    loose = next(f for f in result.files if f.episodes)
    assert loose.episodes == (15,)
    assert "loose" in loose.flags


@pytest.mark.parametrize(
    ("title", "bare"),
    [
        ("Сериал Сваты", "Сваты"),
        ("Интерны (сериал)", "Интерны"),
        ("Мини-сериал Чернобыль", "Чернобыль"),
    ],
)
def test_words_that_say_it_is_a_series_are_searched_without(title: str, bare: str) -> None:
    assert other_forms(title, None)[0].title == bare
    assert other_forms(title, None)[0].weighed


def test_a_russian_trackers_season_mark_in_cyrillic_letters() -> None:
    assert parse_release("Атака титанов [ТВ-3]").season == 3
    assert parse_release("Атака титанов [TV-3]").season == 3


class _Seasons:
    """A catalogue that answers seasons one at a time, or several in one request."""

    def __init__(self, *, batch: bool) -> None:
        self.calls: list[tuple[str, tuple[int, ...]]] = []
        if batch:
            self.seasons = self._seasons

    async def search(
        self, kind: MediaKind, title: str, year: int | None, *, language: str
    ) -> list[Candidate]:
        return []

    async def details(
        self, kind: MediaKind, tmdb_id: int | str, *, language: str | None = None
    ) -> Candidate:
        raise AssertionError

    async def find(self, external_id: str, source: str = "imdb_id") -> list[Candidate]:
        return []

    async def season(
        self, tmdb_id: int | str, number: int, *, language: str | None = None
    ) -> list[AiredEpisode]:
        self.calls.append(("season", (number,)))
        return [AiredEpisode(number, 1, f"S{number}", None)]

    async def _seasons(
        self, tmdb_id: int | str, numbers: Sequence[int], *, language: str | None = None
    ) -> dict[int, list[AiredEpisode]]:
        self.calls.append(("seasons", tuple(numbers)))
        return {n: [AiredEpisode(n, 1, f"S{n}", None)] for n in numbers}


@pytest.mark.parametrize(("batch", "requests"), [(True, 1), (False, 4)])
def test_several_seasons_in_one_request_where_the_catalogue_can(batch: bool, requests: int) -> None:
    catalogue = _Seasons(batch=batch)
    lookup = Lookup(catalogue)
    show = _show({1: ()})
    found = asyncio.run(lookup.seasons(show, [0, 1, 2, 3]))
    assert found is not None
    assert sorted(found) == [0, 1, 2, 3]
    assert lookup.spent == requests
    asyncio.run(lookup.season(show, 2))  # cached
    assert lookup.spent == requests
