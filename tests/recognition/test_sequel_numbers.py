"""A later season's number glued to an anime's name, and titles that end in a number
(issue #35 'sequels'): "Title 2 03" is episode 3 of "Title 2", a number every file of a
batch and its folder share is the name's, a bare number before a dash and words may
be a film's title (tests/data/regression/sequels.json)."""

from recognition.candidates import Season
from recognition.explain import season_named
from recognition.parsing.release import parse_release
from recognition.recognize import TorrentFile, recognize


def test_a_number_glued_to_the_title_then_the_episode_is_the_names() -> None:
    def read(name: str) -> tuple[str | None, tuple[int, ...]]:
        parsed = parse_release(name)
        return parsed.title, parsed.episodes

    assert read("[Ohys-Raws] Mushoku Tensei 2 03 (BS11 1920x1080 x264 AAC).mp4") == (
        "Mushoku Tensei 2",
        (3,),
    )
    assert read("[Group] Psycho-Pass 2 01 [BD 1080p].mkv") == ("Psycho-Pass 2", (1,))
    assert read("[Ohys-Raws] Mob Psycho 100 03 (BS11 1920x1080 x264 AAC).mp4") == (
        "Mob Psycho 100",
        (3,),
    )
    assert read("[Ohys-Raws] Mob Psycho 100 III 03 (BS11).mp4") == ("Mob Psycho 100 III", (3,))
    assert read("[Ohys-Raws] Kaiju No. 8 2 03 (TX 1920x1080).mp4") == ("Kaiju No. 8 2", (3,))
    # A number with its leading zero is an episode ("Show 01 02": two of them).
    assert read("[Group] Show 01 02 [1080p].mkv")[0] == "Show"


def test_a_number_that_titles_keeps_its_episode_apart() -> None:
    parsed = parse_release("[Group] 86 - 03 [1080p][1E2F3A4B].mkv")
    assert (parsed.title, parsed.episodes) == ("86", (3,))


def test_a_number_the_folder_and_every_file_share_is_no_episode() -> None:
    name = "[Group] Yuru Camp 3 [WEB 1920x1080 x264 AAC]"
    files = [
        TorrentFile(f"{name}/[Group] Yuru Camp 3 {n:02d} [WEB 1920x1080 x264 AAC].mkv", 10**9)
        for n in (1, 2, 3)
    ]
    recognized = recognize(name, files)
    assert recognized.title == "Yuru Camp 3"
    assert [f.episodes for f in recognized.files] == [(1,), (2,), (3,)]
    titled = "[Group] Mob Psycho 100 [BD 1080p]"
    files = [
        TorrentFile(f"{titled}/[Group] Mob Psycho 100 {n:02d} [BD].mkv", 10**9) for n in (1, 2)
    ]
    assert recognize(titled, files).title == "Mob Psycho 100"


def test_a_bare_number_before_a_dash_and_words_is_read_as_a_films_title_first() -> None:
    parsed = parse_release("[Group] Psycho-Pass 3 - First Inspector [BD 1080p][3C4D5E6F].mkv")
    assert (parsed.title, parsed.title_with_year) == (
        "Psycho-Pass 3 First Inspector",
        "Psycho-Pass",
    )
    # A show's file keeps its episode; an episode written "03" is one.
    as_episode = parse_release("[Group] Psycho-Pass 3 - First Inspector [BD].mkv", kind="series")
    assert (as_episode.title, as_episode.episodes) == ("Psycho-Pass", (3,))
    assert parse_release("[Group] Psycho-Pass - 03 - Title [BD].mkv").episodes == (3,)


def test_zoku_is_the_second_season_of_a_show_that_has_one() -> None:
    seasons = [Season(1, 13), Season(2, 13), Season(3, 12)]
    assert season_named(["zoku"], seasons) == 2
    assert season_named(["zoku"], [Season(1, 13)]) is None
