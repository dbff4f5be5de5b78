"""Import benchmark: a 200-file season recognized and laid out, for real.

A seeder serves a season of 200 small episode files; jellybit downloads it
through a real qbittorrent-nox, recognizes it (guessit in a worker process)
and hardlinks every file into the library. Reports the wall time from complete to
done, the worst event-loop lag meanwhile (a 10 ms ticker), and guessit's time
per name without and with the cache (baseline: the cold call).
Target: loop lag < 50 ms.

Run: ``make bench``.
"""

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from core.config import LibrarySettings, QbittorrentSettings
from core.recognize import clear_cache, parse_release
from core.states import State
from jellybit.logs import configure_logging
from sandbox.qbittorrent import QbtInstance, leecher_and_seeder
from store import Store
from store.migrate import migrate
from tests.support.torrents import magnet_for, make_content, make_torrent, seed, seeder_peer
from worker.engine import Engine
from worker.ingest import Created

EPISODES = 200
NAMES = [f"Long.Show.S01E{n:03d}.1080p.WEB-DL.x264-GROUP.mkv" for n in range(1, EPISODES + 1)]


async def lag_watch(samples: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        started = time.monotonic()
        await asyncio.sleep(0.01)
        samples.append(max(0.0, time.monotonic() - started - 0.01))


async def run(qbt: QbtInstance, seeder: QbtInstance, tmp: Path) -> None:
    content = make_content(
        tmp / "src", "Long.Show.S01.1080p.WEB-DL", EPISODES * 32 * 1024, names=NAMES
    )
    made = make_torrent(content, "v1")
    seed(seeder, made)
    path = tmp / "bench.db"
    migrate(path)
    store = await Store.open(path)
    library = LibrarySettings(movies=tmp / "library" / "movies", shows=tmp / "library" / "shows")
    settings = QbittorrentSettings(url=qbt.url, username=qbt.username, password=qbt.password)
    engine = Engine.build(store, settings, library=library)
    stop = asyncio.Event()
    worker = asyncio.create_task(engine.run(stop))
    try:
        clear_cache()
        result = await engine.ingest.magnet(
            magnet_for(made, peer=seeder_peer(seeder)), source="api"
        )
        assert isinstance(result, Created)
        download_id = result.download.id
        while (await store.downloads.get_download(download_id)).state != State.IMPORTING:
            await asyncio.sleep(0.05)
        samples: list[float] = []
        watching = asyncio.Event()
        ticker = asyncio.create_task(lag_watch(samples, watching))
        started = time.monotonic()
        while (await store.downloads.get_download(download_id)).state == State.IMPORTING:
            await asyncio.sleep(0.05)
        wall = time.monotonic() - started
        watching.set()
        await ticker
        final = await store.downloads.get_download(download_id)
        links = await store.recognitions.links(download_id)
    finally:
        stop.set()
        await asyncio.gather(worker, return_exceptions=True)
        await store.close()
    linked = sum(1 for row in links if Path(row.target_path).exists())
    same = sum(1 for row in links if os.stat(row.target_path).st_nlink == 2)
    print(f"season of {EPISODES} files: {final.state}, {linked} linked, {same} hardlinks")
    print(f"complete -> done wall time: {wall:.2f} s")
    print(
        f"event loop lag during import: worst {max(samples) * 1000:.1f} ms, "
        f"p99 {statistics.quantiles(samples, n=100)[98] * 1000:.1f} ms (target < 50 ms)"
    )


def guessit_per_name() -> None:
    clear_cache()
    started = time.perf_counter()
    for name in NAMES:
        parse_release(name)
    cold = (time.perf_counter() - started) / len(NAMES)
    started = time.perf_counter()
    for name in NAMES:
        parse_release(name)
    warm = (time.perf_counter() - started) / len(NAMES)
    print(
        f"guessit per name: {cold * 1000:.1f} ms without the cache (baseline), "
        f"{warm * 1000:.3f} ms with it ({cold / warm:.0f}x)"
    )


def main() -> None:
    configure_logging(level="warning")
    guessit_per_name()
    with tempfile.TemporaryDirectory() as tmp, leecher_and_seeder(Path(tmp)) as (qbt, seeder):
        asyncio.run(run(qbt, seeder, Path(tmp)))


if __name__ == "__main__":
    main()
