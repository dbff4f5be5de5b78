"""The adder against the fake qBittorrent: what it adds, and what it leaves to the poller."""

import asyncio
from pathlib import Path

from core.models import Download
from core.states import State
from jellybit.app import Tuning
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.house import House, eventually, house_settings, library_in, settings_for
from tests.support.telegram import FakeTelegram
from tests.support.torrents import magnet_for, make_content, make_torrent
from worker.ingest import Created

MiB = 1024 * 1024


async def test_a_magnet_of_a_torrent_qbittorrent_already_has_complete_moves_at_once(
    qbt: FakeQbittorrentServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    """The adder leaves a torrent qBittorrent already has to the poller. A complete one sits
    unchanged, so no partial update brings it up: the poller is told to follow every
    torrent, and the download moves within a tick, not at the next full listing (5 min)."""
    content = make_content(tmp_path / "src", "Heat.1995.1080p.BluRay.mkv", 2 * MiB, seed=95)
    made = make_torrent(content, "v1")
    qbt.offer(made)
    settings = house_settings(
        tmp_path,
        qbittorrent=settings_for(qbt),
        telegram_api=tg.base_url,
        library=library_in(tmp_path),
    )
    house = await House(settings, Tuning(full_resync_every=300.0)).start()
    try:
        cases = house.engine.cases
        first = await cases.ingest.magnet(magnet_for(made), origin="telegram")
        assert isinstance(first, Created)
        await eventually(lambda: _in(house, first.download, State.DONE), what="first done")
        await asyncio.sleep(1.0)  # partial ticks (every 0.2 s) in which it sits unchanged
        # Deleted from the library (else it is "already in the library"), still seeded.
        next((tmp_path / "library").rglob("*.mkv")).unlink()

        again = await cases.ingest.magnet(magnet_for(made), origin="telegram")
        assert isinstance(again, Created)  # a new download: the first one is done
        moved = await eventually(
            lambda: _out_of(house, again.download, State.ACCEPTED), within=5, what="moved"
        )
        assert moved.state in (State.IMPORTING, State.REVIEW, State.DONE)
    finally:
        await house.halt()


async def _in(house: House, download: Download, state: State) -> bool:
    return (await house.store.downloads.get_download(download.id)).state == state


async def _out_of(house: House, download: Download, state: State) -> Download | None:
    current = await house.store.downloads.get_download(download.id)
    return current if current.state != state else None
