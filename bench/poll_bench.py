"""Poller benchmark against a real qbittorrent-nox, 4.5 and (when set up) 5.x.

2 000 paused torrents, 20 of them renamed between ticks. Measures the CPU time of
one steady-state tick of jellybit's poller (incremental sync/maindata) against a
naive baseline that fetches the full torrents/info and matches every torrent every
tick, in the same run; and the memory held by the live snapshot. Target: >= 5x
less CPU per tick.

On 4.5 the torrents are magnets (no metadata). On 5.x they are .torrent files
(metadata known: the steady state), and then one magnet without metadata is added:
the ticks while it may still change its id are listings (the guard against 5.x's
maindata crash, docs/qbittorrent.md); their cost is printed against the steady tick.

Run: ``make bench`` (starts and stops its own qbittorrent-nox; 5.x needs
``scripts/qbittorrent5``).
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

from common.logs import configure_logging
from core.config import QbittorrentSettings
from core.live import LiveMap, hashes_of
from core.models import SnapshotChange
from jellybit.app import Tuning, build_application
from sandbox.torrents import make_content, make_v1_torrent
from store import Store
from store.migrate import migrate
from tests.support.house import house_settings
from tests.support.qbittorrent import (
    QBITTORRENT5,
    QBITTORRENT5_ROOT,
    QBITTORRENT_NOX,
    QbtInstance,
    new_qbittorrent,
)
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


def add_paused_torrents(qbt: QbtInstance, count: int, tmp: Path) -> list[str]:
    """``count`` paused .torrent files (metadata known, content absent)."""
    client = qbt.client()
    hashes = []
    for start in range(0, count, 250):
        files = {}
        for n in range(start, min(start + 250, count)):
            made = make_v1_torrent(make_content(tmp / "content", f"Bench.{n:05d}.mkv", 64, seed=n))
            files[f"{n}.torrent"] = made.data
            hashes.append(made.v1 or "")
        client.torrents_add(torrent_files=files, is_paused=True, category="jellybit")
    deadline = time.monotonic() + 120
    while len(client.torrents_info()) < count:
        if time.monotonic() > deadline:
            raise TimeoutError("qBittorrent did not list the torrents")
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


async def measure(qbt: QbtInstance, hashes: list[str], tmp: Path, label: str) -> None:
    settings = QbittorrentSettings(
        url=qbt.url, username=qbt.username, password=qbt.password, adopt="all", poll_interval=5
    )
    data_dir = tmp / f"bench-{label}"
    built = house_settings(data_dir, qbittorrent=settings, telegram_api="http://127.0.0.1:9")
    migrate(built.database_path)
    app = await build_application(built, tuning=Tuning(full_resync_every=3600))
    store, engine = app.store, app.engine  # ticked by hand: no part runs
    try:
        started = time.monotonic()
        await engine.poller.tick()  # the first, full tick adopts every torrent
        await engine.poller.tick()
        adopted = len(await store.downloads.list_downloads(limit=500))
        first_tick = time.monotonic() - started
        print(f"[{label}] torrents: {TORRENTS}; first ticks (adopt them): {first_tick:.1f} s")
        assert adopted == 500
        ours = await _ticks(engine, qbt, hashes, 0)
        naive = []
        for _ in range(TICKS):
            cpu = time.process_time()
            await naive_tick(engine, store, settings)
            naive.append(time.process_time() - cpu)
        o, n = statistics.median(ours) * 1000, statistics.median(naive) * 1000
        print(f"[{label}] naive tick (torrents/info + match all): {n:8.1f} ms CPU")
        print(
            f"[{label}] jellybit tick (sync/maindata, {CHANGED_PER_TICK} changed):  {o:8.1f} ms CPU"
        )
        print(f"[{label}] ratio naive / jellybit:                 {n / o:8.1f}x  (target >= 5x)")
        if label != "4.5":
            await _guarded(engine, qbt, hashes, o, label)
        answer = await engine.qbt.sync(0)
        size = live_map_bytes(json.dumps(answer))
        print(
            f"[{label}] live snapshot: {size / 1024 / 1024:.1f} MiB for "
            f"{len(answer['torrents'])} torrents "
            f"({size / len(answer['torrents']) / 1024:.1f} KiB each)"
        )
    finally:
        await app.close()


async def _ticks(engine: Engine, qbt: QbtInstance, hashes: list[str], offset: int) -> list[float]:
    spent = []
    for tick in range(TICKS):
        rename_some(qbt, hashes, offset + tick)
        await asyncio.sleep(0.3)  # qBittorrent's refresh interval
        cpu = time.process_time()
        await engine.poller.tick()
        spent.append(time.process_time() - cpu)
    return spent


async def _guarded(
    engine: Engine, qbt: QbtInstance, hashes: list[str], steady_ms: float, label: str
) -> None:
    """One magnet that may still change its id: listings until it has metadata."""
    magnet = f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn=Pending&x.pe=127.0.0.1:1"
    qbt.client().torrents_add(urls=magnet, category="jellybit")
    before = engine.poller.listings
    guarded = statistics.median(await _ticks(engine, qbt, hashes, TICKS)) * 1000
    listings = engine.poller.listings - before
    print(
        f"[{label}] guard tick (torrents/info while a magnet lacks metadata, "
        f"{listings}/{TICKS} ticks): {guarded:8.1f} ms CPU = "
        f"{guarded / steady_ms:.1f}x the steady tick"
    )


def run(label: str, command: tuple[str, ...] | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        qbt = new_qbittorrent(Path(tmp) / "qbt", command=command or (QBITTORRENT_NOX,))
        qbt.start()
        try:
            if label == "4.5":
                hashes = add_paused_magnets(qbt, TORRENTS)
            else:
                hashes = add_paused_torrents(qbt, TORRENTS, Path(tmp))
            asyncio.run(measure(qbt, hashes, Path(tmp), label))
        finally:
            qbt.stop()


def main() -> None:
    configure_logging(level="warning")
    run("4.5", None)
    if (QBITTORRENT5_ROOT / "usr" / "bin" / "qbittorrent-nox").exists():
        run("5.x", QBITTORRENT5)
    else:
        print("5.x: not set up (scripts/qbittorrent5): skipped")


if __name__ == "__main__":
    main()
