"""Seasons and episodes a careful person lays out at once (issue #35): episode titles
compared as TMDB writes them, in the language the files are named in; seasons numbered
by year; season and episode words of other languages; a BD box's extras; specials in a
season pack (recognition.parsing.episodes, recognition.placement, recognition.gather)."""

import pytest

from recognition.candidates import AiredEpisode, Query, Season
from recognition.gather import _names_languages
from recognition.parsing.episodes import (
    episode_name,
    name_key,
    numbered_within,
    season_years,
    special_of,
)
from recognition.placement import placed, renumber, seasons_by_year
from recognition.recognize import RecognizedFile, TorrentFile, recognize


@pytest.mark.parametrize(
    ("file", "tmdb"),
    [
        ("Exodus, Part I", "Exodus (1)"),
        ("exodus.part1", "Exodus (1)"),
        ("Welcome to the Hellmouth (Part 1)", "Welcome to the Hellmouth (1)"),
        ("I Robot You Jane", "I, Robot... You, Jane"),
        ("Itchy and Scratchy and Marge", "Itchy & Scratchy & Marge"),
        ("The Sword of Simon Bolivar", "The Sword of Simón Bolívar"),
        ("Menage a Troi", "Ménage à Troi"),
        ("A No Rough Stuff Type Deal", "A No-Rough-Stuff-Type Deal"),
    ],
)
def test_an_episode_title_is_compared_as_tmdb_writes_it(file: str, tmdb: str) -> None:
    assert name_key(file) == name_key(tmdb)


def test_part_i_is_a_number_only_after_part() -> None:
    assert name_key("I, Robot... You, Jane").split()[0] == "i"
    assert name_key("Exodus Part 1") != name_key("Exodus Part 2")


@pytest.mark.parametrize(
    "path",
    [
        "Dark - Staffel 2/Folge 01.mkv",
        "La Casa de Papel - Temporada 2/Capítulo 5.mkv",
        "Borgen - Sæson 2/Borgen - Afsnit 1.avi",
        "Senke nad Balkanom - Sezona 2/Senke nad Balkanom - Epizoda 01.mkv",
        "Případy 1. oddělení - Sezóna 2/Případy 1. oddělení - Díl 01.avi",
        "The Crown - Season Two/The Crown - Ep. 5 - Marionettes.mkv",
        "Peep Show - Series 3/Peep Show #05.avi",
        "SPY×FAMILY シーズン2/SPY×FAMILY シーズン2 第05話.mp4",
        "킹덤 시즌2/킹덤 시즌2 1화.mkv",
        "[G] Tensei shitara Slime Datta Ken 2nd Season - 05 (1080p).mkv",
        "Show - Temporada 2 [HDTV 720p][Cap.201].mkv",
    ],
)
def test_a_name_that_numbers_its_episode_in_any_language_is_no_episode_title(path: str) -> None:
    assert episode_name(path, ("Dark", "Borgen", "The Crown", "Peep Show", "Show")) is None


@pytest.mark.parametrize(
    ("path", "season", "episodes"),
    [
        ("Сенке над Балканом - Сезона 2 (2019)/Сенке над Балканом - Епизода 01.mkv", 2, (1,)),
        ("Senke nad Balkanom - Sezona 2 (2019)/Senke nad Balkanom - Epizoda 04.mkv", 2, (4,)),
        ("Případy 1. oddělení - Sezóna 2 (2016)/Případy 1. oddělení - Díl 02.avi", 2, (2,)),
        ("Borgen - Sæson 2 (2011) [DVDRip]/Borgen - Afsnit 3.avi", 2, (3,)),
        ("SPY×FAMILY シーズン2 [WEB]/SPY×FAMILY シーズン2 第06話.mp4", 2, (6,)),
    ],
)
def test_season_and_episode_words_of_other_languages(
    path: str, season: int, episodes: tuple[int, ...]
) -> None:
    root = path.split("/")[0]
    video = next(f for f in recognize(root, [TorrentFile(path, 1 << 30)]).files)
    assert (video.season, video.episodes) == (season, episodes)


def test_in_a_pack_named_by_titles_a_number_inside_a_title_is_no_episode() -> None:
    root = "Lost.S01.DVDRip.XviD-SAiNTS"
    names = ("lost.tabula.rasa", "lost.exodus.part1", "Two Cars in Every Garage", "03 - Walkabout")
    files = [TorrentFile(f"{root}/{n}.avi", 350 << 20) for n in names]
    by_name = {f.path.split("/")[-1]: f for f in recognize(root, files).files}
    assert by_name["lost.exodus.part1.avi"].episodes == ()  # TMDB's names place it, or asked
    assert by_name["Two Cars in Every Garage.avi"].episodes == ()
    assert by_name["03 - Walkabout.avi"].episodes == (3,)  # a number in front is its own
    assert numbered_within("Exodus Part 1")
    assert not numbered_within("Part One Leaving")


def test_a_miniseries_whose_every_part_is_numbered_keeps_its_parts() -> None:
    root = "Band of Brothers (2001)"
    names = ("Band.of.Brothers.Part.One.Currahee", "Band.of.Brothers.Part.Two.Day.of.Days")
    files = [TorrentFile(f"{root}/{n}.mkv", 2 << 30) for n in names]
    assert [f.episodes for f in recognize(root, files, kind="series").files] == [(1,), (2,)]


def test_videos_in_season_folders_are_a_series() -> None:
    root = "Fawlty Towers (1975-1979) [DVDRip]"
    files = [TorrentFile(f"{root}/Series {n}/{t}.avi", 350 << 20)
             for n, t in ((1, "A Touch of Class"), (2, "Waldorf Salad"))]  # fmt: skip
    result = recognize(root, files)
    assert result.kind == "series"
    assert [(f.season, f.name) for f in result.files] == [
        (1, "A Touch of Class"),
        (2, "Waldorf Salad"),
    ]


def test_a_bd_boxs_menus_previews_and_commercials_are_skipped() -> None:
    root = "[Beatrice-Raws] Toradora! [BDRip 1920x1080 x264 FLAC]"
    files = [TorrentFile(f"{root}/[Beatrice-Raws] Toradora! 01 [BDRip].mkv", 1000 << 20)]
    extras = ("PV01", "Menu01", "CM02", "Preview 03", "NCOP")
    files += [TorrentFile(f"{root}/[Beatrice-Raws] Toradora! {e} [BDRip].mkv", 70 << 20)
              for e in extras]  # fmt: skip
    roles = [f.role for f in recognize(root, files).files]
    assert roles == ["video", *["skip"] * len(extras)]


@pytest.mark.parametrize(
    ("path", "special"),
    [
        ("Box/Christmas Specials/The Office - Christmas Special (Part 1).avi", (True, 1)),
        ("Box/The Office - Christmas Special Part 2.avi", (True, 2)),
        ("Lost - Season 1/Special.avi", (False, None)),  # an episode's title
    ],
)
def test_a_named_special_in_a_season_pack(path: str, special: tuple[bool, int | None]) -> None:
    assert special_of(path, ()) == special


def _seasons(*starts: tuple[int, str]) -> list[Season]:
    return [Season(n, 20, int(day[:4]), None, day) for n, day in starts]


def _aired(season: int, first: str, count: int = 20) -> list[AiredEpisode]:
    year, rest = int(first[:4]), first[4:]
    return [AiredEpisode(season, n, None, f"{year}{rest}" if n < count else f"{year}-06-01")
            for n in range(1, count + 1)]  # fmt: skip


def test_a_season_numbered_by_its_year_is_the_season_that_aired_in_it() -> None:
    query = Query(kind="series", readings=(), episodes=((2023, 5, False),), seasons=(2023,))
    seasons = _seasons((40, "2022-01-20"), (41, "2023-01-21"), (42, "2024-01-22"))
    aired = _aired(40, "2022-01-20") + _aired(41, "2023-01-21")
    assert seasons_by_year(query, seasons, aired) == ((2023, 41),)
    assert renumber(query, ((2023, 41),)).episodes == ((41, 5, False),)
    # not fetched, or the season before it still airing that year: no season
    assert seasons_by_year(query, seasons, ()) == ()
    late = [e._replace(air_date="2023-03-01") for e in _aired(40, "2022-01-20")]
    assert seasons_by_year(query, seasons, late + _aired(41, "2023-01-21")) == ()


def test_a_year_in_which_two_seasons_began_names_no_season() -> None:
    query = Query(kind="series", readings=(), episodes=((2023, 5, False),), seasons=(2023,))
    seasons = _seasons((64, "2022-10-04"), (65, "2023-04-05"), (66, "2023-10-04"))
    aired = _aired(64, "2022-10-04") + _aired(65, "2023-04-05")
    assert seasons_by_year(query, seasons, aired) == ()


def test_a_numbered_season_with_its_year_is_tmdbs_season_of_that_year() -> None:
    assert season_years("Panorama (1953) - Season 71 (2023)/Panorama.S71E01.mkv") == ((71, 2023),)
    query = Query(kind="series", readings=(), seasons=(71,), season_years=((71, 2023),))
    by_year = _seasons((2022, "2022-01-07"), (2023, "2023-01-08"))
    assert seasons_by_year(query, by_year, ()) == ((71, 2023),)
    assert seasons_by_year(query, _seasons((70, "2022-01-07"), (71, "2023-01-08")), ()) == ()


def test_files_of_a_renumbered_season_are_laid_out_in_tmdbs() -> None:
    video = RecognizedFile("Frontline.S2023E05.mkv", "video", 2023, (5,), None, ())
    subtitle = RecognizedFile("Frontline.S2023E05.en.srt", "subtitle", 2023, (5,), "en", (),
                              video=video.path)  # fmt: skip
    seasons = _seasons((41, "2023-01-21"))
    out = placed([video, subtitle], seasons, renumbered=((2023, 41),))
    assert [(f.season, f.episodes) for f in out] == [(41, (5,)), (41, (5,))]


@pytest.mark.parametrize(
    ("words", "language", "tag", "original", "languages"),
    [
        (["Tabula Rasa"], "ru-RU", None, "en", ["en-US"]),  # English names, Russian person
        (["Geheimnisse"], "ru-RU", "de", "de", ["de-DE", "en-US"]),  # tagged German
        (["Geheimnisse"], "ru-RU", None, "de", ["en-US", "de"]),  # untagged: English first
        (["Чистый лист"], "ru-RU", None, "en", [None]),  # the person's own language
        (["Tabula Rasa"], "en-US", None, "en", [None]),
        (["Tabula Rasa"], "de-DE", None, "en", [None, "en-US"]),
    ],
)
def test_a_seasons_names_are_fetched_in_the_language_the_files_are_named_in(
    words: list[str], language: str, tag: str | None, original: str, languages: list[str | None]
) -> None:
    assert _names_languages(words, language, tag, original) == languages
