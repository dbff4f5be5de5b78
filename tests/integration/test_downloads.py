"""From a magnet to a complete torrent, against a real qbittorrent-nox that
really downloads from a seeder instance over loopback."""

import itertools
from functools import partial
from pathlib import Path
from typing import Literal

import pytest

from core.ids import Id
from core.models import Download
from core.states import State
from store import Store
from tests.support.house import Running, eventually, history
from tests.support.qbittorrent import QbtInstance
from tests.support.torrents import (
    MadeTorrent,
    find_torrent,
    magnet_for,
    make_content,
    make_torrent,
    seed,
)
from tests.support.torrents import seeder_peer as peer_of
from worker.ingest import Created, Duplicate, InLibrary

MiB = 1024 * 1024
_names = itertools.count()


def new_torrent(
    tmp_path: Path,
    seeder: QbtInstance,
    kind: Literal["v1", "v2", "hybrid"],
    *,
    up_limit: int | None = None,
    seeded: bool = True,
) -> MadeTorrent:
    """A new torrent of 2 MiB, served by ``seeder`` unless not ``seeded`` (yet)."""
    n = next(_names)
    content = make_content(tmp_path / f"src{n}", f"Movie.{n}.2021.1080p.mkv", 2 * MiB, seed=n)
    made = make_torrent(content, kind)
    if seeded:
        seed(seeder, made, up_limit=up_limit)
    return made


async def state_of(store: Store, download_id: Id, wanted: State) -> Download | None:
    download = await store.downloads.get_download(download_id)
    return download if download.state == wanted else None


async def wait_state(
    running: Running, download_id: Id, wanted: State, *, within: float = 90
) -> Download:
    """Wait for ``wanted`` (the ``seeder`` fixture stands in for the tracker meanwhile);
    a timeout says where the download and its torrent stood. Mostly 3 s; 90 s covers
    libtorrent's reconnect backoff (~60 s), which once outlasted a 40 s wait under a
    full suite's load (a hybrid torrent's v1-only magnet on 4.5)."""
    reached = partial(state_of, running.store, download_id, wanted)
    try:
        return await eventually(reached, within=within, what=f"{download_id} {wanted}")
    except AssertionError as timeout:
        download = await running.store.downloads.get_download(download_id)
        hashes = {h.value for h in download.infohashes}
        torrents = [
            {key: info.get(key) for key in ("hash", "state", "progress", "num_seeds")}
            for info in running.qbt.client().torrents_info()
            if hashes & {str(info.get(k)) for k in ("hash", "infohash_v1", "infohash_v2")}
        ]
        where = f"it is {download.state}, in qBittorrent {torrents}"
        raise AssertionError(f"{timeout}; {where}") from None


@pytest.mark.parametrize(
    ("kind", "hashes"),
    [
        ("v1", "all"),
        ("v2", "all"),
        ("hybrid", "all"),
        ("hybrid", "v1"),
        ("hybrid", "v2"),
    ],
    ids=["v1", "v2-only", "hybrid", "hybrid-btih-only", "hybrid-btmh-only"],
)
async def test_magnet_is_downloaded_to_completion(
    running: Running,
    seeder: QbtInstance,
    tmp_path: Path,
    kind: Literal["v1", "v2", "hybrid"],
    hashes: Literal["all", "v1", "v2"],
) -> None:
    made = new_torrent(tmp_path, seeder, kind, up_limit=2 * MiB)
    magnet = magnet_for(made, peer=peer_of(seeder), hashes=hashes)

    result = await running.engine.cases.ingest.magnet(magnet, origin="telegram", chat_id=42)

    assert isinstance(result, Created)
    assert result.download.state == State.ACCEPTED  # the adder sends it, in the background
    done = await wait_state(running, result.download.id, State.DONE)
    assert await history(running.store, done.id) == ["accepted", "downloading", "importing", "done"]
    assert done.progress == 1
    assert done.total_size == 2 * MiB
    assert done.completed_at is not None
    assert done.content_path == str(running.qbt.downloads_dir / made.name)
    expected = {(made.v1, "v1"), (made.v2, "v2")} - {(None, "v1"), (None, "v2")}
    assert {(h.value, h.kind) for h in done.infohashes} == expected  # never the torrent id
    assert len(await running.store.downloads.list_downloads()) == 1
    assert (Path(done.content_path)).read_bytes() == made.content.read_bytes()


async def test_torrent_file_is_downloaded_and_kept(
    running: Running, seeder: QbtInstance, tmp_path: Path
) -> None:
    made = new_torrent(tmp_path, seeder, "hybrid")
    result = await running.engine.cases.ingest.torrent_file(made.data, origin="telegram")
    assert isinstance(result, Created)
    # No peer hint in a .torrent: tell qBittorrent where the seeder is, as DHT would.
    await eventually(lambda: _qbt_torrent(running, made), what="torrent in qBittorrent")
    done = await wait_state(running, result.download.id, State.DONE)
    assert {h.value for h in done.infohashes} == {made.v1, made.v2}
    assert await running.store.tracking.torrent_file(done.id) == made.data


async def _qbt_torrent(running: Running, made: MadeTorrent) -> str | None:
    torrent = find_torrent(running.qbt.client(), made)
    if torrent is None:
        return None
    assert torrent["category"] == running.settings.category
    assert torrent["tags"] == "jellybit"
    return str(torrent["hash"])


async def test_duplicate_while_active_in_library_when_done_and_new_once_deleted(
    running: Running, seeder: QbtInstance, tmp_path: Path
) -> None:
    made = new_torrent(tmp_path, seeder, "v1")
    magnet = magnet_for(made, peer=peer_of(seeder))
    first = await running.engine.cases.ingest.magnet(magnet, origin="telegram")
    assert isinstance(first, Created)

    again = await running.engine.cases.ingest.magnet(magnet, origin="telegram")
    assert isinstance(again, Duplicate)
    assert again.download.id == first.download.id

    await wait_state(running, first.download.id, State.DONE)
    in_library = await running.engine.cases.ingest.magnet(magnet, origin="telegram")
    assert isinstance(in_library, InLibrary)  # its file is in the library: nothing twice
    assert in_library.download.id == first.download.id
    for video in (tmp_path / "library").rglob("*.mkv"):
        video.unlink()  # deleted by the person: the torrent may be downloaded again
    after_done = await running.engine.cases.ingest.magnet(magnet, origin="telegram")
    # qBittorrent still has it (seeding): "Fails." for a duplicate is not a failure.
    assert isinstance(after_done, Created)
    assert after_done.download.id != first.download.id
    await wait_state(running, after_done.download.id, State.DONE)
