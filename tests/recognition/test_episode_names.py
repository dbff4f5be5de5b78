"""Episodes named other ways than by a number (issue #35): by their title, as a special
numbered on its own, by a Russian channel's numbers across seasons
(recognition.parsing.episodes, and where they are placed)."""

import pytest

from recognition.candidates import Season
from recognition.parsing.episodes import counts_on, episode_name, special_of
from recognition.placement import placed
from recognition.recognize import RecognizedFile, TorrentFile, recognize


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("Lost - Season 1/Tabula Rasa.avi", "Tabula Rasa"),
        ("Lost - Season 1/Special.avi", "Special"),  # an episode's title, not a special
        ("West Wing S1/The West Wing - 20 Hours in L.A..avi", "20 Hours in L.A"),
        ("Homicide/Three Men and Adena.avi", "Three Men and Adena"),
        ("24 S1/12.00 A.M.-1.00 A.M..avi", "12.00 A.M.-1.00 A.M"),
        ("ESC/Eurovision Song Contest 2023 - Grand Final.mkv", "Grand Final"),
        ("Firefly/The.Train.Job.DVDRip.XviD-FFP.avi", "The Train Job"),
        # the name numbers the episode itself: a title does not change it
        ("Firefly/Firefly.1x01.The.Train.Job.avi", None),
        ("Lost/Lost.S01E23.Exodus.Part.1.avi", None),
        ("Show/Episode 05 - Title.mkv", None),
        ("Ольга. Сезон 2/01 серия.avi", None),
        ("Show/03 - Title.mkv", None),
        ("Show/03. Title.mkv", None),
        ("[Group] Show (BD)/[Group] Show - 05 (BD 1080p).mkv", None),
    ],
)
def test_the_words_that_may_be_an_episode_title(path: str, name: str | None) -> None:
    titles = ("Lost", "The West Wing", "Eurovision Song Contest", "Show")
    assert episode_name(path, titles) == name


@pytest.mark.parametrize(
    ("path", "episodes", "special"),
    [
        ("Box/OVA/[G] Show - OVA 02 (BD).mkv", (), (True, 2)),
        ("[G] Show - SP1 [1080p].mkv", (), (True, 1)),
        ("Show/Show - OAD 03.mkv", (3,), (True, 3)),
        ("Box/Specials/[G] Show - 01 (BD 1080p).mkv", (1,), (True, 1)),
        ("Box/Specials/Show.The.Abominable.Bride.2016.1080p.x264.mkv", (), (True, None)),
        ("Box/Specials/Show.S00E02.mkv", (2,), (False, None)),  # numbered in its season
        ("Lost - Season 1/Special.avi", (), (False, None)),
        ("Show/Show - 05.mkv", (5,), (False, None)),
    ],
)
def test_a_special_numbered_on_its_own(
    path: str, episodes: tuple[int, ...], special: tuple[bool, int | None]
) -> None:
    assert special_of(path, episodes) == special


def test_a_russian_season_folder_may_count_on_a_file_naming_no_season() -> None:
    assert counts_on("Интерны/Сезон 3/Серия 41.mkv")
    assert not counts_on("Ольга - 3 сезон, 05 серия.avi")
    assert not counts_on("Show/Season 3/41.mkv")


def test_a_box_of_episodes_and_ovas_is_a_series_whose_ovas_are_no_episodes() -> None:
    root = "[G] Nisekoi (BD 1080p)"
    files = [TorrentFile(f"{root}/[G] Nisekoi - {n:02d} (BD 1080p).mkv", 1 << 30) for n in (1, 2)]
    files += [TorrentFile(f"{root}/OVA/[G] Nisekoi - OVA 01 (BD 1080p).mkv", 1 << 30)]
    files += [TorrentFile(f"{root}/Preview/[G] Nisekoi - 03 Preview (BD 1080p).mkv", 60 << 20)]
    result = recognize(root, files)
    assert result.kind == "series"
    by_path = {f.path: f for f in result.files}
    ova = by_path[f"{root}/OVA/[G] Nisekoi - OVA 01 (BD 1080p).mkv"]
    assert (ova.special, ova.special_number, ova.episodes) == (True, 1, ())
    assert by_path[f"{root}/Preview/[G] Nisekoi - 03 Preview (BD 1080p).mkv"].role == "skip"


def test_a_plus_inside_brackets_adds_no_title() -> None:
    root = "Eurovision Song Contest 2023 (Semi-Finals + Final) [1080p]"
    files = [TorrentFile(f"{root}/Eurovision Song Contest 2023 - {n}.mkv", 4 << 30) for n in
             ("First Semi-Final", "Grand Final")]  # fmt: skip
    assert all(not f.flags for f in recognize(root, files).files)


def test_a_name_tmdb_lists_wins_over_the_number_in_it() -> None:
    video = RecognizedFile("S1/20 Hours in L.A..avi", "video", 1, (20,), None, ())
    seasons = [Season(1, 22)]
    assert placed([video], seasons, listed=[(video.path, 1, 16)])[0].episodes == (16,)


def test_numbers_of_one_season_some_its_own_some_past_it_do_not_move() -> None:
    seasons = [Season(1, 20), Season(2, 20), Season(3, 20)]
    own = RecognizedFile("Сезон 3/Серия 15.mkv", "video", 3, (15,), None, (), absolute=True)
    past = RecognizedFile("Сезон 3/Серия 41.mkv", "video", 3, (41,), None, (), absolute=True)
    assert placed([past], seasons)[0].episodes == (1,)
    assert [f.episodes for f in placed([own, past], seasons)] == [(15,), (41,)]
