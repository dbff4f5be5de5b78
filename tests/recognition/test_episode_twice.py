"""Two videos of one torrent never become one episode: a name read wrong ("Title 2 03"
as episodes 2–3 beside "Title 2 04" as 2–4) is asked about, not placed under a guess
(recognition.placement)."""

from recognition.candidates import Query, Reading, Season
from recognition.placement import files_for
from recognition.recognize import TorrentFile, recognize
from recognition.weigh import weigh
from tests.support.candidates import titled

SHOW = titled(
    "76075", "Laid-Back Camp", 2018, kind="series", seasons=(Season(1, 12), Season(2, 13))
)


def _laid_out(name: str, names: list[str]) -> tuple[dict[str, tuple[int, ...]], str | None]:
    files = [TorrentFile(f"{name}/{file}", 1_400_000_000) for file in names]
    recognized = recognize(name, files, kind="series")
    query = Query(kind="series", readings=(Reading("Laid-Back Camp", None),))
    out, why = files_for("series", SHOW.seasons, weigh(query, SHOW), recognized.files)
    return {f.path.rsplit("/", 1)[-1]: f.episodes for f in out if f.role == "video"}, (
        why.code if why is not None else None
    )


def test_a_sequel_number_before_each_episode_number_is_never_two_episodes_placed() -> None:
    name = "[Sub-Group] Laid-Back Camp 2 [WEB 1920x1080 x264 AAC]"
    names = [
        f"[Sub-Group] Laid-Back Camp 2 {n:02d} [WEB 1920x1080 x264 AAC].mkv" for n in (1, 3, 4)
    ]
    episodes, why = _laid_out(name, names)
    claimed = [e for numbers in episodes.values() for e in numbers]
    if len(claimed) != len(set(claimed)):  # read wrong: then it is asked, never placed
        assert why == "review.episode_twice"
    else:
        assert why is None


def test_a_plain_season_pack_is_placed_episode_by_episode() -> None:
    name = "Laid-Back.Camp.S02.1080p.WEB-DL"
    episodes, why = _laid_out(
        name, [f"Laid-Back.Camp.S02E{n:02d}.1080p.WEB-DL.mkv" for n in (1, 2, 3)]
    )
    assert why is None
    assert sorted(episodes.values()) == [(1,), (2,), (3,)]
