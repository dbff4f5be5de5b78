"""Jellyfin naming (core/naming.py): table tests, including hostile names."""

from pathlib import Path

import pytest

from core.naming import (
    NAME_MAX_BYTES,
    PLACEHOLDER,
    DuplicateTargetError,
    LibraryFile,
    Title,
    folder_name,
    plan_targets,
    sanitize_component,
    sanitize_filename,
    target_path,
    version_label,
)

MOVIES = Path("/media/movies")
SHOWS = Path("/media/shows")
DUNE = Title("movie", "Dune", 2021, 438631)
LOST = Title("series", "Lost", 2004, 4607)


def place(title: Title, file: LibraryFile) -> str:
    """The target relative to its library root, for short table rows."""
    root = MOVIES if title.kind == "movie" else SHOWS
    return target_path(title, file, movies=MOVIES, shows=SHOWS).relative_to(root).as_posix()


def video(source: str, season: int | None = None, *episodes: int) -> LibraryFile:
    return LibraryFile(source, "video", season=season, episodes=episodes)


def subtitle(
    source: str,
    language: str | None,
    *flags: str,
    season: int | None = None,
    episodes: tuple[int, ...] = (),
    video: str | None = None,
    part: int | None = None,
) -> LibraryFile:
    return LibraryFile(source, "subtitle", season, episodes, language, flags, video, part)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        (Title("movie", "Dune", 2021, 438631), "Dune (2021) [tmdbid-438631]"),
        (Title("movie", "Dune", 2021), "Dune (2021)"),
        (Title("movie", "Dune", None, 438631), "Dune [tmdbid-438631]"),
        (Title("movie", "Dune", None), "Dune"),
        (Title("movie", "Дюна", 2021), "Дюна (2021)"),
        (Title("movie", "Star Wars: Episode IV", 1977), "Star Wars - Episode IV (1977)"),
        (Title("movie", "What?", 2010), "What (2010)"),
        (Title("movie", "AC/DC: Live", None), "AC-DC - Live"),
        (Title("movie", "", 2020), f"{PLACEHOLDER} (2020)"),
        (Title("movie", "..", None), PLACEHOLDER),
    ],
)
def test_folder_name(title: Title, expected: str) -> None:
    assert folder_name(title) == expected


D = "Dune (2021) [tmdbid-438631]"
L = "Lost (2004) [tmdbid-4607]"
D2021 = Title("movie", "Dune", 2021)


@pytest.mark.parametrize(
    ("title", "file", "expected"),
    [
        (DUNE, video("Dune.2021.2160p/Dune.mkv"), f"{D}/{D}.mkv"),
        (Title("movie", "Dune", None), video("d.MKV"), "Dune/Dune.mkv"),
        (Title("movie", "Дюна", 2021), video("x.mkv"), "Дюна (2021)/Дюна (2021).mkv"),
        (LOST, video("Lost.S01E02.mkv", 1, 2), f"{L}/Season 01/Lost S01E02.mkv"),
        (LOST, video("Lost.S01E01E02.mkv", 1, 1, 2), f"{L}/Season 01/Lost S01E01-E02.mkv"),
        (LOST, video("Lost.S01E01-03.mkv", 1, 3, 1, 2), f"{L}/Season 01/Lost S01E01-E03.mkv"),
        (LOST, video("Lost.Special.mkv", 0, 5), f"{L}/Season 00/Lost S00E05.mkv"),
        (LOST, video("Lost.S12E103.mkv", 12, 103), f"{L}/Season 12/Lost S12E103.mkv"),
        (LOST, video("x/Lost - Pilot: part?.mkv", 1), f"{L}/Season 01/Lost - Pilot - part.mkv"),
        (LOST, video("x/Lost extras.mkv"), f"{L}/Lost extras.mkv"),
        (LOST, video("Lost 05.mkv", None, 5), f"{L}/Season 01/Lost S01E05.mkv"),
        (DUNE, subtitle("Subs/Russian.srt", "ru"), f"{D}/{D}.ru.srt"),
        (DUNE, subtitle("Subs/en.forced.SRT", "en", "forced"), f"{D}/{D}.en.forced.srt"),
        (DUNE, subtitle("Subs/x.ass", "EN", "SDH"), f"{D}/{D}.en.sdh.ass"),
        (DUNE, subtitle("Subs/unknown.srt", None), f"{D}/{D}.srt"),
        (LOST, subtitle("s.srt", "ru", season=1, episodes=(2,)), f"{L}/Season 01/Lost S01E02.ru.srt"),  # noqa: E501
        (LOST, subtitle("s.srt", "en", season=2, video="d/Lost x.mkv"), f"{L}/Season 02/Lost x.en.srt"),  # noqa: E501
        (DUNE, LibraryFile("CD1/dune.avi", "video", part=1), f"{D}/{D} - cd1.avi"),
        (D2021, LibraryFile("cd2.avi", "video", part=2), "Dune (2021)/Dune (2021) - cd2.avi"),
        (D2021, subtitle("cd2.srt", "ru", part=2), "Dune (2021)/Dune (2021) - cd2.ru.srt"),
        (D2021, LibraryFile("d2.avi", "video", part=2), "Dune (2021)/Dune (2021) - part2.avi"),
        (DUNE, video("noext"), f"{D}/{D}"),
    ],
)  # fmt: skip
def test_target_path(title: Title, file: LibraryFile, expected: str) -> None:
    assert place(title, file) == expected


def test_target_path_is_absolute_under_its_library() -> None:
    movie = target_path(DUNE, video("a.mkv"), movies=MOVIES, shows=SHOWS)
    episode = target_path(LOST, video("a.mkv", 1, 1), movies=MOVIES, shows=SHOWS)
    assert movie.is_absolute()
    assert movie.is_relative_to(MOVIES)
    assert episode.is_absolute()
    assert episode.is_relative_to(SHOWS)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../../etc/passwd", "-..-etc-passwd"),
        ("..", PLACEHOLDER),
        (".", PLACEHOLDER),
        ("", PLACEHOLDER),
        ("   ", PLACEHOLDER),
        ("a\x00b", "ab"),
        ("a\tb\nc", "a b c"),
        ("bell\x07\x1b[31m", "bell[31m"),
        ("rtl\u202egnp.exe", "rtlgnp.exe"),
        ('a<b>c:d"e|f?g*h\\i', "abc-d'e-fgh-i"),
        ("Title: Subtitle", "Title - Subtitle"),
        ("12:30", "12-30"),
        ("trailing dots...", "trailing dots"),
        ("  spaced  out  ", "spaced out"),
        (".hidden", "hidden"),
        ("CON", "_CON"),
        ("nul.txt", "_nul.txt"),
        ("Дюна (2021)", "Дюна (2021)"),
        ("\u0438\u0306", "\u0439"),  # "и" + combining breve becomes one "й" (NFC)
        ("bad\udcffbytes", "bad\ufffdbytes"),
    ],
)
def test_sanitize_component(name: str, expected: str) -> None:
    assert sanitize_component(name) == expected


@pytest.mark.parametrize(
    "name", ["a" * 300, "я" * 300, "日本" * 100, "a" * 254 + "я", "x" + "\U0001f600" * 100]
)
def test_long_names_are_cut_to_255_bytes_of_valid_utf8(name: str) -> None:
    cut = sanitize_component(name)
    encoded = cut.encode()
    assert len(encoded) <= NAME_MAX_BYTES
    assert encoded.decode() == cut  # no half character left at the end
    assert name.startswith(cut)
    assert len(encoded) > NAME_MAX_BYTES - 4  # cut on the last whole character


def test_a_reserved_name_stays_within_the_limit() -> None:
    name = sanitize_component("con." + "a" * 300)
    assert name.startswith("_con.aaa")
    assert len(name.encode()) == NAME_MAX_BYTES
    assert sanitize_filename("Aux", "mkv") == "_Aux.mkv"


def test_sanitize_filename_keeps_the_extension() -> None:
    name = sanitize_filename("я" * 300, ".MKV")
    assert name.endswith("я.mkv")
    assert len(name.encode()) <= NAME_MAX_BYTES
    assert sanitize_filename("..", "srt") == f"{PLACEHOLDER}.srt"
    assert sanitize_filename("a/b", "") == "a-b"


def test_a_hostile_extension_is_cut_too() -> None:
    name = sanitize_filename("movie", "x" * 300)
    assert name.startswith("movie.")
    assert len(name.encode()) < 40


@pytest.mark.parametrize(
    "title",
    [
        Title("movie", "../../etc/passwd", 2020),
        Title("series", "/etc/shadow\x00", None, 1),
        Title("movie", "я" * 300, 2021, 123456789),
        Title("series", "a" * 400, None),
    ],
)
@pytest.mark.parametrize("language", [None, "en", "../../x"])
def test_hostile_titles_stay_in_their_folder(title: Title, language: str | None) -> None:
    for file in (
        video("../../../etc/passwd", 1, 1),
        video("a" * 300 + ".mkv"),
        subtitle("s\x00/../..srt", language, "forced", "f" * 300, season=1, episodes=(1,)),
    ):
        target = target_path(title, file, movies=MOVIES, shows=SHOWS)
        root = MOVIES if title.kind == "movie" else SHOWS
        assert target.is_relative_to(root)
        assert ".." not in target.parts
        assert all(len(part.encode()) <= NAME_MAX_BYTES for part in target.parts)
        assert "\x00" not in str(target)
        assert target.parts[len(root.parts)] == folder_name(title)


def test_long_title_keeps_year_id_and_part() -> None:
    title = Title("movie", "я" * 300, 2021, 42)
    assert folder_name(title).endswith("я (2021) [tmdbid-42]")
    name = target_path(
        title, LibraryFile("a.mkv", "video", part=2), movies=MOVIES, shows=SHOWS
    ).name
    assert name.endswith("я (2021) [tmdbid-42] - part2.mkv")


def test_a_subtitle_of_a_long_name_still_starts_with_its_video_stem() -> None:
    """Jellyfin pairs a subtitle with the video whose stem it starts with."""
    title = Title("series", "a" * 300, None)
    movie = video("e.mkv", 1, 1)
    sub = subtitle("e.srt", "en", "forced", "sdh", season=1, episodes=(1,))
    video_name = target_path(title, movie, movies=MOVIES, shows=SHOWS).name
    sub_name = target_path(title, sub, movies=MOVIES, shows=SHOWS).name
    assert sub_name == video_name.removesuffix(".mkv") + ".en.forced.sdh.srt"
    assert len(sub_name.encode()) <= NAME_MAX_BYTES


def test_negative_numbers_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        target_path(LOST, video("a.mkv", -1, 1), movies=MOVIES, shows=SHOWS)


def plan(title: Title, *files: LibraryFile) -> dict[str, str]:
    targets = plan_targets(title, files, movies=MOVIES, shows=SHOWS)
    return {source: target.name for source, target in targets.items()}


def test_plan_numbers_the_parts_of_a_movie_in_natural_order() -> None:
    title = Title("movie", "Dune", 2021)
    files = [video("CD10/d.avi"), video("CD2/d.avi"), video("CD1/d.avi")]
    subs = [subtitle("CD2/d.srt", "ru", video="CD2/d.avi")]
    assert plan(title, *files, *subs) == {
        "CD1/d.avi": "Dune (2021) - cd1.avi",
        "CD2/d.avi": "Dune (2021) - cd2.avi",
        "CD10/d.avi": "Dune (2021) - cd3.avi",
        "CD2/d.srt": "Dune (2021) - cd2.ru.srt",
    }


def test_plan_keeps_parts_chosen_by_the_caller() -> None:
    title = Title("movie", "Dune", 2021)
    files = [LibraryFile("b.avi", "video", part=1), LibraryFile("a.avi", "video", part=2)]
    assert plan(title, *files)["b.avi"] == "Dune (2021) - part1.avi"


def test_plan_names_subtitles_after_their_episode() -> None:
    files = [
        video("e1.mkv", 1, 1),
        video("e2.mkv", 1, 2),
        subtitle("Subs/e2/2_English.srt", "en", video="e2.mkv"),
        subtitle("Subs/e2/3_English.srt", "en", video="e2.mkv"),
        subtitle("Subs/e2/4_English.srt", "en", "sdh", video="e2.mkv"),
        subtitle("orphan.srt", "ru"),  # no video named, two to choose from: own name
    ]
    assert plan(LOST, *files) == {
        "e1.mkv": "Lost S01E01.mkv",
        "e2.mkv": "Lost S01E02.mkv",
        "Subs/e2/2_English.srt": "Lost S01E02.en.srt",
        "Subs/e2/3_English.srt": "Lost S01E02.en.2.srt",
        "Subs/e2/4_English.srt": "Lost S01E02.en.sdh.srt",
        "orphan.srt": "orphan.ru.srt",
    }


def test_plan_gives_the_only_video_its_unnamed_subtitles() -> None:
    files = [video("movie.mkv"), subtitle("subs/rus.srt", "ru")]
    assert plan(Title("movie", "Dune", 2021), *files)["subs/rus.srt"] == "Dune (2021).ru.srt"


def test_plan_refuses_two_videos_at_one_path() -> None:
    with pytest.raises(DuplicateTargetError, match=r"a\.mkv and b\.mkv"):
        plan_targets(LOST, [video("a.mkv", 1, 1), video("b.mkv", 1, 1)], movies=MOVIES, shows=SHOWS)


def test_a_titles_folder_is_kept_and_a_version_follows_its_name_exactly() -> None:
    renamed = Title("movie", "Дюна", 2021, 438631, folder="Dune (2021) [tmdbid-438631]")
    video = LibraryFile("Dune.2160p.mkv", "video", version="2160p BluRay")
    subtitle = LibraryFile("Dune.2160p.en.srt", "subtitle", language="en", video="Dune.2160p.mkv")
    plan = plan_targets(renamed, [video, subtitle], movies=Path("/m"), shows=Path("/s"))
    folder = Path("/m/Dune (2021) [tmdbid-438631]")
    assert plan == {
        "Dune.2160p.mkv": folder / "Dune (2021) [tmdbid-438631] - 2160p BluRay.mkv",
        "Dune.2160p.en.srt": folder / "Dune (2021) [tmdbid-438631] - 2160p BluRay.en.srt",
    }
    episode = LibraryFile("e.mkv", "video", season=1, episodes=(1,), version="720p")
    show = Title("series", "Тьма", 2017, 70523, folder="Dark (2017) [tmdbid-70523]")
    assert target_path(show, episode, movies=Path("/m"), shows=Path("/s")) == Path(
        "/s/Dark (2017) [tmdbid-70523]/Season 01/Тьма S01E01 - 720p.mkv"
    )


def test_editions_of_one_film_are_versions_and_parts_stay_parts() -> None:
    film = Title("movie", "Blade Runner", 1982, 78)
    editions = [
        LibraryFile("BR/Blade.Runner.Theatrical.Cut.mkv", "video"),
        LibraryFile("BR/Blade.Runner.Final.Cut.mkv", "video"),
        LibraryFile("BR/Blade.Runner.mkv", "video"),  # the plain one: the default version
    ]
    names = sorted(
        p.name for p in plan_targets(film, editions, movies=Path("/m"), shows=Path("/s")).values()
    )
    assert names == [
        "Blade Runner (1982) [tmdbid-78] - Final Cut.mkv",
        "Blade Runner (1982) [tmdbid-78] - Theatrical Cut.mkv",
        "Blade Runner (1982) [tmdbid-78].mkv",
    ]
    parts = [
        LibraryFile("BR/Blade.Runner.CD1.mkv", "video"),
        LibraryFile("BR/Blade.Runner.CD2.mkv", "video"),
    ]
    names = sorted(
        p.name for p in plan_targets(film, parts, movies=Path("/m"), shows=Path("/s")).values()
    )
    assert names == [
        "Blade Runner (1982) [tmdbid-78] - cd1.mkv",
        "Blade Runner (1982) [tmdbid-78] - cd2.mkv",
    ]


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("Dune.Part.Two.2024.2160p.UHD.BluRay.x265-GRP", "2160p BluRay"),
        ("Blade.Runner.1982.Final.Cut.1080p.BluRay", "Final Cut 1080p BluRay"),
        ("Aliens.1986.Special.Edition.720p.WEB-DL", "Special Edition 720p WEB-DL"),
        ("Фильм (2010) [4K]", "2160p"),
        ("Nothing.Said", ""),
    ],
)
def test_a_versions_label_comes_from_the_release(name: str, label: str) -> None:
    assert version_label(name) == label
