"""Anime as fansub groups and BD-box rippers name it (issue #35): romaji written
otherwise than TMDB's names, season words glued to a name, a later part (cour) of a
season numbered on its own, an OVA marked in brackets, a franchise's films inside a
batch, numbers counted on from the first season (recognition.parsing.anime,
recognition.weigh, recognition.gather, recognition.explain, recognition.placement)."""

import pytest

from recognition.candidates import Candidate, Query, Reading, Season
from recognition.explain import explain
from recognition.gather import _romaji_spelled, _show_name
from recognition.parsing.files import without_films
from recognition.parsing.release import parse_release
from recognition.placement import placed
from recognition.recognize import FileRole, RecognizedFile, TorrentFile, recognize
from recognition.weigh import in_own_words, weigh
from tests.support.candidates import titled


def _show(title: str, *names: str, seasons: tuple[int, ...] = (12,)) -> Candidate:
    counts = tuple(Season(n, count) for n, count in enumerate(seasons, start=1))
    return titled(
        "1", title, 2016, kind="series", original_title="アニメ", language="ja",
        names=names, seasons=counts,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("release", "names", "own"),
    [
        # the particle "wo" TMDB writes "o"; the season's number after it
        (
            "Kono Subarashii Sekai ni Shukufuku wo! 3",
            ("Kono Subarashii Sekai ni Shukufuku o!",),
            "Kono Subarashii Sekai ni Shukufuku o! 3",
        ),
        # long vowels written twice, with a macron, or once
        ("Kimetsu no Yaiba Yuukaku-hen", ("Kimetsu no Yaiba: Yūkaku-hen",), None),
        # the season's numeral inside the name, before its subtitle
        (
            "Mushoku Tensei II: Isekai Ittara Honki Dasu",
            ("Mushoku Tensei: Isekai Ittara Honki Dasu",),
            "Mushoku Tensei: Isekai Ittara Honki Dasu II",
        ),
        # "Movie 2" of TMDB's "the Movie 2"
        (
            "Boku no Hero Academia Movie 2 Heroes Rising",
            ("Boku no Hero Academia the Movie 2: Heroes:Rising",),
            "Boku no Hero Academia the Movie 2: Heroes:Rising",
        ),
    ],
)
def test_a_romanized_name_is_read_in_the_candidates_own_words(
    release: str, names: tuple[str, ...], own: str | None
) -> None:
    assert in_own_words(release, _show("Show", *names, seasons=(10, 10, 11))) == (own or names[0])


def test_romaji_spellings_are_a_japanese_candidates_only() -> None:
    english = titled("2", "Good Omens", 2019, kind="series", language="en")
    assert in_own_words("God Omens", english) == "God Omens"


def test_a_romanized_name_with_its_season_glued_is_that_season() -> None:
    show = _show("KonoSuba", "Kono Subarashii Sekai ni Shukufuku o!", seasons=(10, 10, 11))
    query = Query(
        kind="series",
        readings=(Reading("Kono Subarashii Sekai ni Shukufuku wo! 3", None),),
        episodes=((None, 5, True),),
    )
    evidence = weigh(query, show)
    assert (evidence.title, evidence.season) == ("exact", 3)


@pytest.mark.parametrize(
    ("title", "searched"),
    [
        ("Shingeki no Kyojin The Final Season", "Shingeki no Kyojin"),
        ("Mob Psycho 100 III", "Mob Psycho 100"),
        ("Kimetsu no Yaiba Yuukaku-hen", "Kimetsu no Yaiba"),
        ("Mushoku Tensei II: Isekai Ittara Honki Dasu", "Mushoku Tensei: Isekai Ittara Honki Dasu"),
        ("Fruits Basket Season 2", "Fruits Basket"),
        ("Mob Psycho 100", None),  # the number is the title's
        ("Station 19", None),
    ],
)
def test_a_show_is_searched_without_the_season_glued_to_its_name(
    title: str, searched: str | None
) -> None:
    assert _show_name(title) == searched


@pytest.mark.parametrize(
    ("title", "spelled"),
    [
        ("Kono Subarashii Sekai ni Shukufuku wo!", "Kono Subarashii Sekai ni Shukufuku o!"),
        ("Kimetsu no Yaiba Yuukaku-hen", "Kimetsu no Yaiba Yukaku-hen"),
        ("Good Omens", None),  # no romanized Japanese
        ("Shingeki no Kyojin", None),  # nothing written otherwise
    ],
)
def test_a_romanized_name_is_searched_as_tmdb_writes_it_more_often(
    title: str, spelled: str | None
) -> None:
    assert _romaji_spelled(title) == spelled


@pytest.mark.parametrize(
    ("name", "part", "episodes"),
    [
        ("[Erai-raws] Shingeki no Kyojin - The Final Season Part 2 - 01 [1080p][ABCD1234].mkv",
         2, (1,)),
        ("[Erai-raws] Tensei shitara Slime Datta Ken 2nd Season Part 2 - 01 [1080p][ABCD1234].mkv",
         2, (1,)),
        ("[SubsPlease] Spy x Family - 13 (1080p) [ABCD1234].mkv", None, (13,)),
    ],
)  # fmt: skip
def test_a_part_of_a_season_is_read(name: str, part: int | None, episodes: tuple[int, ...]) -> None:
    parsed = parse_release(name)
    assert (parsed.part, parsed.episodes) == (part, episodes)
    assert "part" not in (parsed.title or "").casefold().split()


def _part_file(season: int | None, episode: int) -> RecognizedFile:
    return RecognizedFile("Show Part 2 - x.mkv", "video", season, (episode,), None, ("part",),
                          absolute=True)  # fmt: skip


def test_a_later_parts_own_numbers_are_no_episodes_of_the_season() -> None:
    seasons = [Season(1, 25), Season(2, 12), Season(3, 22), Season(4, 30)]
    # "The Final Season Part 2 - 01": TMDB's season 4 holds both parts; 01 is not S04E01
    assert placed([_part_file(None, 1)], seasons, named=4)[0].episodes == ()
    # "Part 2 - 76" counts on from season 1: past the 59 before season 4
    counted = placed([_part_file(None, 76)], seasons, named=4)[0]
    assert (counted.season, counted.episodes) == (4, (17,))
    # a part of the first season says nothing of which its numbers are
    assert placed([_part_file(None, 13)], [Season(1, 25)])[0].episodes == ()


def test_numbers_of_a_season_all_counted_on_move_though_the_first_could_be_its_own() -> None:
    seasons = [Season(1, 12), Season(2, 13), Season(3, 12)]
    files = [
        RecognizedFile(f"Mob Psycho 100 S2 - {n}.mkv", "video", 2, (n,), None, (), absolute=True)
        for n in (13, 14, 25)
    ]
    assert [(f.season, f.episodes) for f in placed(files, seasons)] == [
        (2, (1,)),
        (2, (2,)),
        (2, (13,)),
    ]


def test_an_ova_in_brackets_is_a_special_and_may_name_an_ova_series() -> None:
    parsed = parse_release("[Group] Hellsing (OVA) - 03 [BD 720p][6CE5608D].mkv")
    assert (parsed.title, parsed.alt_title, parsed.special, parsed.episodes) == (
        "Hellsing",
        "Hellsing OVA",
        True,
        (),
    )


def test_an_ova_series_named_by_its_marker_holds_the_specials_as_its_episodes() -> None:
    ultimate = titled(
        "30655", "Hellsing Ultimate", 2006, kind="series", original_title="HELLSING",
        language="ja", names=("Hellsing OVA",), seasons=(Season(1, 10),),
    )  # fmt: skip
    path = "[Group] Hellsing (OVA) - 03 [BD 720p].mkv"
    query = Query(
        kind="series",
        readings=(Reading("Hellsing", None), Reading("Hellsing OVA", None)),
        unnumbered=(path,),
        special=True,
        specials=((path, 3),),
    )
    evidence = weigh(query, ultimate)
    assert (evidence.title, evidence.seasons, evidence.listed) == ("exact", "fit", ((path, 1, 3),))


def test_a_franchises_film_inside_a_batch_is_no_episode() -> None:
    root = "[Group] Boku no Hero Academia (Seasons 1-2 + Movie) [BD 1080p]"
    roles = [
        FileRole(f"{root}/[Group] Boku no Hero Academia - 01 [BD 1080p].mkv", "video", "video"),
        FileRole(f"{root}/[Group] Boku no Hero Academia Movie 1 - Futari no Hero [BD].mkv",
                 "video", "video"),
        FileRole(f"{root}/Seinfeld - S04E14 - The Movie.mkv", "video", "video"),
    ]  # fmt: skip
    assert [r.role for r in without_films(roles)] == ["video", "skip", "video"]


def test_a_box_of_a_show_and_its_film_lays_out_only_the_episodes() -> None:
    root = "[Judas] Kimetsu no Yaiba (Seasons 1-2) [BD 1080p]"
    found = recognize(
        root,
        [
            TorrentFile(f"{root}/Season 1/[Judas] Kimetsu no Yaiba - S01E01.mkv", 1 << 30),
            TorrentFile(f"{root}/[Judas] Kimetsu no Yaiba Movie - Mugen Ressha-hen.mkv", 5 << 30),
        ],
    )
    assert [f.role for f in found.files] == ["video", "skip"]


@pytest.mark.parametrize(
    ("title", "seasons", "season"),
    [
        ("Fruits Basket The Final", (Season(1, 25), Season(2, 25), Season(3, 13)), 3),
        ("Fruits Basket The Final", (Season(1, 26),), None),  # one season is no final one
    ],
)
def test_the_final_season_is_the_last_of_several(
    title: str, seasons: tuple[Season, ...], season: int | None
) -> None:
    assert explain(title, ["Fruits Basket"], [], seasons).season == season


def test_an_arc_shares_a_name_with_one_english_season_name() -> None:
    seasons = [Season(1, 26), Season(4, 8, name="Hashira Training Arc")]
    why = explain("Kimetsu no Yaiba Hashira Geiko-hen", ["Demon Slayer"], ["Kimetsu no Yaiba"],
                  seasons)  # fmt: skip
    assert why.season == 4
    unknown = explain("Kimetsu no Yaiba Mugen Ressha-hen", ["Demon Slayer"],
                      ["Kimetsu no Yaiba"], seasons)  # fmt: skip
    assert (unknown.season, unknown.season_words) == (None, "mugen ressha hen")


def test_a_year_in_brackets_is_no_word_of_a_tmdb_name() -> None:
    brotherhood = titled(
        "31911", "Fullmetal Alchemist: Brotherhood", 2009, kind="series", language="ja",
        names=("Hagane no Renkinjutsushi (2009)",), seasons=(Season(1, 64),),
    )  # fmt: skip
    query = Query(
        kind="series",
        readings=(Reading("Hagane no Renkinjutsushi", 2009),),
        episodes=((None, 12, True),),
    )
    assert weigh(query, brotherhood).title == "exact"
