"""A film whose title holds "Season" right before a number ("Open.Season.2006",
"Open.Season.2.2008"): one video numbering no episode is the film, files numbering
episodes keep the season with the whole name as another reading of the show's."""

from recognition.parsing.release import parse_release
from recognition.recognize import TorrentFile, recognize

_FILM = 4 * 10**9


def test_a_year_after_season_is_a_films_title_and_year() -> None:
    name = "Open.Season.2006.1080p.BluRay.x264-GRP"
    found = recognize(name, [TorrentFile(f"{name}.mkv", _FILM)])
    assert (found.kind, found.title, found.year) == ("movie", "Open Season", 2006)


def test_a_number_after_season_ends_a_sequels_title() -> None:
    name = "Open.Season.2.2008.1080p.BluRay.x264-GRP"
    found = recognize(name, [TorrentFile(f"{name}/{name}.mkv", _FILM)])
    assert (found.kind, found.title, found.year, found.season) == (
        "movie",
        "Open Season 2",
        2008,
        None,
    )


def test_episode_files_keep_the_season_and_read_the_whole_name_too() -> None:
    name = "The.Long.Season.2023.1080p.WEB-DL"
    files = [TorrentFile(f"{name}/The.Long.Season.2023.E{e:02d}.mkv", 10**9) for e in (1, 2)]
    found = recognize(name, files)
    assert found.kind == "series"
    assert found.title_with_year == "The Long Season"


def test_a_season_marked_otherwise_is_no_title_word() -> None:
    assert parse_release("Hunting.Season.S01.720p.WEB").season_title is None
    assert parse_release("Show.S02E03.720p").season_title is None
    assert parse_release("Top.Gear.Season.22.1080p").season_title == "Top Gear Season 22"
