"""Poller benchmark against a real qbittorrent-nox.

2 000 paused magnets (dead peers, no network), 20 of them renamed between
ticks. Measures the CPU time of one steady-state tick of jellybit's poller
(incremental sync/maindata) against a naive baseline that fetches the full
torrents/info and matches every torrent every tick, in the same run; and the
memory held by the live snapshot. Target: >= 5x less CPU per tick.

Run: ``make bench`` (needs qbittorrent-nox; starts and stops its own).
"""

import asyncio
import gc
import json
import secrets
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from core.config import QbittorrentSettings
from core.live import LiveMap, hashes_of
from core.models import SnapshotChange
from sandbox.qbittorrent import QbtInstance, start_qbittorrent
from store import Store
from store.migrate import migrate
from worker.engine import Engine
from worker.poller import snapshot_change

TORRENTS = 2_000
CHANGED_PER_TICK = 20
TICKS = 15


def add_paused_magnets(qbt: QbtInstance, count: int) -> list[str]:
    client = qbt.client()
    hashes = [secrets.token_hex(20) for _ in range(count)]
    for start in range(0, count, 250):
        batch = hashes[start : start + 250]
        links = [f"magnet:?xt=urn:btih:{h}&dn=Bench.{h[:8]}&x.pe=127.0.0.1:1" for h in batch]
        client.torrents_add(urls="\n".join(links), is_paused=True, category="jellybit")
    deadline = time.monotonic() + 120
    while len(client.torrents_info()) < count:
        if time.monotonic() > deadline:
            raise TimeoutError("qBittorrent did not list the magnets")
        time.sleep(0.5)
    return hashes


def rename_some(qbt: QbtInstance, hashes: list[str], tick: int) -> None:
    client = qbt.client()
    for h in hashes[tick * CHANGED_PER_TICK : (tick + 1) * CHANGED_PER_TICK]:
        client.torrents_rename(torrent_hash=h, new_torrent_name=f"Renamed.{tick}.{h[:8]}")


async def naive_tick(engine: Engine, store: Store, settings: QbittorrentSettings) -> None:
    """Everything, every tick: full list, match all, compare all."""
    torrents = await engine.qbt.list_torrents()
    by_hash = await store.tracking.match_infohashes(h for t in torrents for h in hashes_of(t))
    changes: list[SnapshotChange] = []
    for torrent in torrents:
        owner = next((by_hash[h] for h in hashes_of(torrent) if h in by_hash), None)
        if owner is not None:
            change = snapshot_change(owner, torrent, settings.path_map)
            if change is not None:
                changes.append(change)
    await store.tracking.apply_changes(changes)


def live_map_bytes(answer_json: str) -> int:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    live = LiveMap()
    live.apply(json.loads(answer_json))
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(live.torrents) >= TORRENTS
    return after - before


async def measure(qbt: QbtInstance, hashes: list[str], tmp: Path) -> None:
    settings = QbittorrentSettings(
        url=qbt.url, username=qbt.username, password=qbt.password, adopt="all", poll_interval=5
    )
    path = tmp / "bench.db"
    migrate(path)
    store = await Store.open(path)
    engine = Engine.build(store, settings, full_resync_every=3600)
    try:
        started = time.monotonic()
        await engine.poller.tick()  # the first, full sync adopts every torrent
        adopted = len(await store.downloads.list_downloads(limit=500))
        first_tick = time.monotonic() - started
        print(f"torrents: {TORRENTS}; first full tick (adopts them): {first_tick:.1f} s")
        assert adopted == 500
        ours, naive = [], []
        for tick in range(TICKS):
            rename_some(qbt, hashes, tick)
            await asyncio.sleep(0.3)  # qBittorrent's refresh interval
            cpu = time.process_time()
            await engine.poller.tick()
            ours.append(time.process_time() - cpu)
            cpu = time.process_time()
            await naive_tick(engine, store, settings)
            naive.append(time.process_time() - cpu)
        o, n = statistics.median(ours) * 1000, statistics.median(naive) * 1000
        print(f"naive tick (torrents/info + match all): {n:8.1f} ms CPU")
        print(f"jellybit tick (sync/maindata, {CHANGED_PER_TICK} changed):  {o:8.1f} ms CPU")
        print(f"ratio naive / jellybit:                 {n / o:8.1f}x  (target >= 5x)")
        answer = await engine.qbt.sync(0)
        size = live_map_bytes(json.dumps(answer))
        print(
            f"live snapshot: {size / 1024 / 1024:.1f} MiB for {len(answer['torrents'])} torrents"
            f" ({size / len(answer['torrents']) / 1024:.1f} KiB each)"
        )
    finally:
        await engine.qbt.close()
        await store.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        qbt = start_qbittorrent(Path(tmp) / "qbt")
        try:
            hashes = add_paused_magnets(qbt, TORRENTS)
            asyncio.run(measure(qbt, hashes, Path(tmp)))
        finally:
            qbt.stop()


if __name__ == "__main__":
    main()
