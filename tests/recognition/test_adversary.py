"""Adversarial cases against the day's rules (issue #35 'adversary',
tests/data/regression/adversary.json): an episode's .nfo names no show, and a number
glued to a batch folder's title stays the name's when the videos number their episodes
without it."""

from recognition.parsing.identifiers import find_identifiers
from recognition.recognize import TorrentFile, recognize


def test_an_episodes_nfo_ids_are_the_episodes_not_a_shows() -> None:
    episode = (
        "<episodedetails><title>Pilot</title>"
        '<uniqueid type="tvdb" default="true">349232</uniqueid>'
        '<uniqueid type="tmdb">62085</uniqueid>'
        '<uniqueid type="imdb">tt0959621</uniqueid></episodedetails>'
    )
    assert find_identifiers(episode, "tv") == ("imdb:tt0959621",)
    show = (
        '<tvshow><uniqueid type="tvdb">81189</uniqueid>'
        '<uniqueid type="tmdb">1396</uniqueid></tvshow>'
    )
    assert find_identifiers(show, "movie") == ("tvdb:81189", "tmdb:tv/1396")
    # A folder's tag beside an episode's .nfo still names the show.
    assert "tvdb:81189" in find_identifiers(f"Breaking Bad [tvdbid-81189] {episode}", "tv")


def test_a_number_glued_to_a_batch_folders_title_is_the_names() -> None:
    name = "[Group] Yuru Camp 3 [BD 1080p]"
    files = [
        TorrentFile(f"{name}/[Group] Yuru Camp - {n:02d} [BD 1080p].mkv", 10**9) for n in (1, 2, 3)
    ]
    recognized = recognize(name, files)
    assert recognized.title == "Yuru Camp 3"
    assert [f.episodes for f in recognized.files] == [(1,), (2,), (3,)]
    # After a dash the folder's number is an episode: nothing changes.
    dashed = "[Group] Yuru Camp - 03 [BD 1080p]"
    files = [
        TorrentFile(f"{dashed}/[Group] Yuru Camp - {n:02d} [BD 1080p].mkv", 10**9) for n in (3, 4)
    ]
    assert recognize(dashed, files).title == "Yuru Camp"
