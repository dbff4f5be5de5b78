"""Store benchmark: guarded create vs a plain INSERT, and search latency.

Run: ``make bench``. Prints figures and ratios against baselines measured in
the same run (absolute times vary between runs on a shared machine).
Targets: guarded create >= 50% of plain insert throughput; search p95 < 5 ms.
"""

import asyncio
import secrets
import sqlite3
import statistics
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from core import clock
from core.ids import new_id
from core.models import NewDownload
from store import Store
from store.migrate import migrate

EXISTING = 10_000
ROUNDS = 6
PER_ROUND = 300
SEARCHES = 300


def seed(path: Path, count: int) -> list[tuple[str, str]]:
    """``count`` downloads (a third of them done) written directly: the starting state."""
    now = clock.now()
    rows = [(new_id(), secrets.token_hex(20), f"Seed.Movie.{i}.1080p.WEB-DL") for i in range(count)]
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO download (id, name, state, source, source_ref, created_at, updated_at)"
            " VALUES (?, ?, ?, 'telegram', '', ?, ?)",
            [
                (i, name, "done" if n % 3 == 0 else "downloading", now, now)
                for n, (i, _, name) in enumerate(rows)
            ],
        )
        conn.executemany(
            "INSERT INTO download_infohash (download_id, infohash, kind, created_at)"
            " VALUES (?, ?, 'v1', ?)",
            [(i, h, now) for i, h, _ in rows],
        )
    conn.close()
    return [(h, name) for _, h, name in rows]


async def guarded_creates(store: Store, count: int) -> float:
    started = clock.monotonic()
    for i in range(count):
        new = NewDownload(name=f"Bench.{i}", origin="api", source_ref="")
        await store.downloads.create_download_if_no_active(new, [secrets.token_hex(20)])
    return count / (clock.monotonic() - started)


async def plain_inserts(store: Store, count: int) -> float:
    """The same rows without the guard or the history: the cost floor."""
    started = clock.monotonic()
    for i in range(count):
        download_id, now = new_id(), clock.now()
        async with store.db.write() as conn:
            await conn.execute(
                "INSERT INTO download (id, name, state, source, source_ref, created_at,"
                " updated_at) VALUES (:id, :name, 'accepted', 'api', '', :now, :now)",
                {"id": download_id, "name": f"Plain.{i}", "now": now},
            )
            await conn.execute(
                "INSERT INTO download_infohash (download_id, infohash, kind, created_at)"
                " VALUES (:id, :hash, 'v1', :now)",
                {"id": download_id, "hash": secrets.token_hex(20), "now": now},
            )
    return count / (clock.monotonic() - started)


async def latencies_ms(call: Callable[[int], Awaitable[object]], count: int) -> list[float]:
    result = []
    for i in range(count):
        started = clock.monotonic()
        await call(i)
        result.append((clock.monotonic() - started) * 1000)
    return result


def percentiles(values: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(values, n=100)
    return cuts[49], cuts[94]


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        migrate(path)
        seeded = seed(path, EXISTING)
        store = await Store.open(path)
        try:
            await report_searches(store, seeded)  # at exactly EXISTING downloads
            await report_creates(store)
        finally:
            await store.close()


async def report_creates(store: Store) -> None:
    guarded, plain = [], []
    for _ in range(ROUNDS):  # interleaved, so drift hits both alike
        guarded.append(await guarded_creates(store, PER_ROUND))
        plain.append(await plain_inserts(store, PER_ROUND))
    g, p = statistics.median(guarded), statistics.median(plain)
    print(f"plain INSERT (baseline):         {p:8.0f} downloads/s")
    print(f"create_download_if_no_active:    {g:8.0f} downloads/s")
    print(f"ratio guarded / plain:           {g / p:8.2f}   (target >= 0.50)")


async def report_searches(store: Store, seeded: list[tuple[str, str]]) -> None:
    ids = [d.id for d in await store.downloads.list_downloads(limit=500)]
    print(f"existing downloads: {EXISTING}")

    async def by_id(i: int) -> object:
        return await store.downloads.get_download(ids[i % len(ids)])

    async def by_hash(i: int) -> object:
        return await store.downloads.list_downloads(seeded[i * 7 % len(seeded)][0])

    async def by_hash_prefix(i: int) -> object:
        return await store.downloads.list_downloads(seeded[i * 7 % len(seeded)][0][:8].upper())

    async def by_name(i: int) -> object:
        return await store.downloads.list_downloads(f"Movie.{i * 13 % EXISTING}.1080p")

    baseline = percentiles(await latencies_ms(by_id, SEARCHES))
    print(f"get by id (baseline):            p50 {baseline[0]:.2f} ms  p95 {baseline[1]:.2f} ms")
    searches = [
        ("search by infohash", by_hash),
        ("search by infohash prefix (8)", by_hash_prefix),
        ("search by name", by_name),
    ]
    for label, call in searches:
        p50, p95 = percentiles(await latencies_ms(call, SEARCHES))
        print(
            f"{label + ':':<33}p50 {p50:.2f} ms  p95 {p95:.2f} ms"
            f"  ({p95 / baseline[1]:.1f}x the baseline p95; target p95 < 5 ms)"
        )


if __name__ == "__main__":
    asyncio.run(main())
