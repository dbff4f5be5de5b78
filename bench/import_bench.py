"""Import benchmark: a 200-file season recognized and laid out, for real.

A seeder serves a season of 200 small episode files; jellybit downloads it through a
real qbittorrent-nox, recognizes it (parser processes, the fake TMDB) and hardlinks
every file into the library. Prints, from one run:

- ``season import: X s complete→done, R× the uncached-parser baseline``: the baseline
  is 200 uncached guessit calls (``parse_release`` with the cache cleared) in the same
  run. Target: R ≤ 0.25 and X ≤ 1 s.
- TMDB requests per recognition (median, max) over the bench's downloads: the season,
  a movie, a same-title pair with no year, an anime episode.
- the worst event-loop lag during the season's import (a 10 ms ticker). Target < 50 ms.

Run: ``make bench``.
"""

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from common.logs import configure_logging
from core.config import LibrarySettings, MetadataSettings, QbittorrentSettings
from core.states import State
from jellybit.app import Tuning
from recognition.parsing.guess import clear_cache
from recognition.parsing.release import parse_release
from store import Store
from tests.support.house import House, house_settings
from tests.support.qbittorrent import QbtInstance, leecher_and_seeder
from tests.support.tmdb import Entry, FakeTmdb
from tests.support.torrents import magnet_for, make_content, make_torrent, seed, seeder_peer
from worker.ingest import Created

EPISODES = 200
NAMES = [f"Long.Show.S01E{n:03d}.1080p.WEB-DL.x264-GROUP.mkv" for n in range(1, EPISODES + 1)]
SHOW = Entry.from_json(
    {
        "kind": "tv",
        "id": 990001,
        "title": "Long Show",
        "date": "2020-01-01",
        "popularity": 30,
        "seasons": [{"season_number": 1, "episode_count": EPISODES, "air_date": "2020-01-01"}],
    }
)
OTHERS = [  # (torrent name, file names): a movie, a remake pair, an anime episode
    ("Dune.2021.1080p.WEB-DL", ["Dune.2021.1080p.WEB-DL.mkv"]),
    ("Dune.1080p.BluRay", ["Dune.1080p.BluRay.mkv"]),
    ("[SubsPlease] Frieren - 05 (1080p)", ["[SubsPlease] Frieren - 05 (1080p) [0A1B2C3D].mkv"]),
]
ENDED = (State.DONE, State.REVIEW, State.FAILED)


async def lag_watch(samples: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        started = time.monotonic()
        await asyncio.sleep(0.01)
        samples.append(max(0.0, time.monotonic() - started - 0.01))


async def settle(store: Store, download_id: str, states: tuple[State, ...]) -> State:
    while (state := (await store.downloads.get_download(download_id)).state) not in states:  # type: ignore[arg-type]
        await asyncio.sleep(0.02)
    return state


async def run(qbt: QbtInstance, seeder: QbtInstance, tmp: Path, baseline: float) -> None:
    library = LibrarySettings(movies=tmp / "library" / "movies", shows=tmp / "library" / "shows")
    qbittorrent = QbittorrentSettings(url=qbt.url, username=qbt.username, password=qbt.password)
    tmdb = FakeTmdb()
    tmdb.catalogue.append(SHOW)
    await tmdb.start()
    metadata = MetadataSettings(tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url)
    settings = house_settings(
        tmp, qbittorrent=qbittorrent, telegram_api="http://127.0.0.1:9", library=library,
        metadata=metadata,
    )  # fmt: skip
    house = await House(settings, Tuning()).start()
    store, engine = house.store, house.engine
    requests: list[int] = []
    try:
        content = make_content(
            tmp / "src", "Long.Show.S01.1080p.WEB-DL", EPISODES * 32 * 1024, names=NAMES
        )
        made = make_torrent(content, "v1")
        seed(seeder, made)
        result = await engine.cases.ingest.magnet(
            magnet_for(made, peer=seeder_peer(seeder)), origin="api"
        )
        assert isinstance(result, Created)
        download_id = result.download.id
        await settle(store, download_id, (State.IMPORTING, *ENDED))
        before = len(tmdb.calls)
        samples: list[float] = []
        watching = asyncio.Event()
        ticker = asyncio.create_task(lag_watch(samples, watching))
        started = time.monotonic()
        final = await settle(store, download_id, ENDED)
        wall = time.monotonic() - started
        watching.set()
        await ticker
        requests.append(len(tmdb.calls) - before)
        links = await store.recognitions.links(download_id)
        for index, (name, files) in enumerate(OTHERS):
            other = make_content(tmp / "src", name, 3 * 1024 * 1024, names=files, seed=index + 1)
            made = make_torrent(other, "v1")
            seed(seeder, made)
            before = len(tmdb.calls)
            added = await engine.cases.ingest.magnet(
                magnet_for(made, peer=seeder_peer(seeder)), origin="api"
            )
            assert isinstance(added, Created)
            await settle(store, added.download.id, ENDED)
            requests.append(len(tmdb.calls) - before)
    finally:
        await house.halt()
        await tmdb.stop()
    linked = sum(1 for row in links if Path(row.target_path).exists())
    same = sum(1 for row in links if os.stat(row.target_path).st_nlink == 2)
    print(f"season of {EPISODES} files: {final}, {linked} linked, {same} hardlinks")
    print(
        f"season import: {wall:.2f} s complete→done, {wall / baseline:.2f}× the uncached-parser "
        f"baseline ({baseline:.2f} s for {EPISODES} uncached guessit calls; "
        "target ≤ 0.25× and ≤ 1 s)"
    )
    print(
        f"TMDB requests per recognition: median {statistics.median(requests):g}, "
        f"max {max(requests)} over {len(requests)} downloads ({requests})"
    )
    print(
        f"event loop lag during the season's import: worst {max(samples) * 1000:.1f} ms, "
        f"p99 {statistics.quantiles(samples, n=100)[98] * 1000:.1f} ms (target < 50 ms)"
    )


def uncached_parser() -> float:
    """The baseline: every episode name through guessit, nothing cached (nor read
    from the name before it)."""
    elapsed = 0.0
    for name in NAMES:
        clear_cache()
        started = time.perf_counter()
        parse_release(name)
        elapsed += time.perf_counter() - started
    clear_cache()
    return elapsed


def main() -> None:
    configure_logging(level="warning")
    baseline = uncached_parser()
    with tempfile.TemporaryDirectory() as tmp, leecher_and_seeder(Path(tmp)) as (qbt, seeder):
        asyncio.run(run(qbt, seeder, Path(tmp), baseline))


if __name__ == "__main__":
    main()
