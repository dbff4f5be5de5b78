"""A full disk is said, not suffered: qBittorrent's downloads on a small tmpfs (the fake
reports its free space as qBittorrent does, in ``server_state``), the person's chat on the
fake Telegram. Short of space, the status message says so with both figures beside
Cancel; a download that fills the disk is ``stuck`` as a full disk, and Retry after space
is freed lands it."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.ids import Id
from core.states import State
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.house import Running, eventually, history, library_in, start_house
from tests.support.mounts import resize, tmpfs
from tests.support.telegram import FakeTelegram
from tests.support.torrents import magnet_for, make_content, make_torrent

ALICE = 111_111_111
MiB = 1024 * 1024


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[tuple[FakeQbittorrentServer, Path]]:
    """The fake qBittorrent saving to a 2 MiB tmpfs, a download taking its time."""
    with (
        tmpfs(tmp_path / "disk", size="2m") as disk,
        FakeQbittorrentServer(disk) as qbt,
    ):
        qbt._do(lambda: setattr(qbt.fake, "download_s", 600.0))
        yield qbt, disk


async def _state_of(running: Running, download_id: Id, state: State) -> bool:
    return (await running.store.downloads.get_download(download_id)).state == state


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_download_larger_than_the_free_space_is_said_then_stuck_as_a_full_disk(
    small_disk: tuple[FakeQbittorrentServer, Path],
    tg: FakeTelegram,
    tmp_path: Path,
    language: str,
) -> None:
    qbt, disk = small_disk
    content = make_content(tmp_path / "src", "Big.Movie.2021.1080p.mkv", 6 * MiB, seed=7)
    made = make_torrent(content, "v1")
    qbt.offer(made)
    alice = tg.user(ALICE, language_code=language)
    short, cancel, retry = {
        "en": (r"⚠️ Not enough space: needs ([\d.]+) MB, 2\.0 MB free", "Cancel", "Retry"),
        "ru": (r"⚠️ Не хватает места: нужно ([\d,]+) МБ, свободно 2,0 МБ", "Отменить", "Повторить"),
    }[language]
    running = await start_house(qbt, tg, tmp_path, library=library_in(disk))
    try:
        await alice.send_text(magnet_for(made))
        said = await alice.wait_for(
            lambda m: m.from_bot and re.search(short, m.text) is not None, timeout=30
        )
        assert cancel in said.button_texts
        needed = float(re.findall(short, said.text)[0].replace(",", "."))
        assert 5.5 <= needed <= 6.0  # what is left to download, not the whole size: it grew
        (download,) = await running.store.downloads.list_downloads()
        assert download.state == State.DOWNLOADING
        assert download.free_space == 2 * MiB

        qbt._do(lambda: setattr(qbt.fake, "download_s", 0.3))  # the rest comes: it fills the disk
        await eventually(
            lambda: _state_of(running, download.id, State.STUCK), within=30, what="stuck"
        )
        stuck = await running.store.downloads.get_download(download.id)
        assert stuck.error is not None
        assert stuck.error.code == "qbt.disk_full"
        assert int(stuck.error.params["free_bytes"]) < MiB
        assert int(stuck.error.params["needed_bytes"]) > 2 * MiB
        full = {"en": "The disk is full: it needs", "ru": "Диск заполнен: нужно ещё"}[language]
        message = await alice.wait_for(
            lambda m: m.from_bot and full in m.text and retry in m.button_texts, timeout=15
        )

        resize(disk, "64m")  # space freed
        answer = await alice.press(message, retry)
        assert answer is not None
        await eventually(lambda: _state_of(running, download.id, State.DONE), within=30)
        (video,) = (disk / "library").rglob("*.mkv")
        assert video.stat().st_size == 6 * MiB
        states = await history(running.store, download.id)
        assert states[states.index("stuck") :][:2] == ["stuck", "accepted"]  # the Retry
        assert states[-2:] == ["importing", "done"]
    finally:
        await running.house.halt()
