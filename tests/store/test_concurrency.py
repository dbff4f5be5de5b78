"""Races on one hash: tasks of one store, and two stores (two writer connections)
on the same file. The invariant must hold: at most one active download per hash."""

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.errors import InfohashTakenError, InvalidTransitionError
from core.ids import Id
from core.models import NewDownload
from core.reasons import reason
from core.states import ACTIVE, State
from store import Store
from tests.hashes import v1, v2


@pytest.fixture
async def two_stores(db_path: Path) -> AsyncIterator[tuple[Store, Store]]:
    first, second = await Store.open(db_path), await Store.open(db_path)
    yield first, second
    await first.close()
    await second.close()


def new(i: int) -> NewDownload:
    return NewDownload(name=f"race {i}", origin="telegram", source_ref=f"magnet {i}")


async def active_owners(store: Store, infohash: str) -> set[str]:
    downloads = await store.downloads.list_downloads(infohash, states=ACTIVE, limit=500)
    return {d.id for d in downloads}


async def test_50_concurrent_creates_in_one_store_make_one_download(store: Store) -> None:
    h = v1()
    results = await asyncio.gather(
        *(store.downloads.create_download_if_no_active(new(i), [h]) for i in range(50))
    )
    assert sum(r.created for r in results) == 1
    assert len({r.download.id for r in results}) == 1
    assert len(await active_owners(store, h)) == 1


async def test_50_concurrent_creates_from_two_stores_make_one_download(
    two_stores: tuple[Store, Store],
) -> None:
    h1, h2 = v1(), v2()
    calls = [
        two_stores[i % 2].downloads.create_download_if_no_active(
            new(i), [h1] if i % 3 else [h2, h1]
        )
        for i in range(50)
    ]
    results = await asyncio.gather(*calls)
    assert sum(r.created for r in results) == 1
    winner = {r.download.id for r in results}
    assert len(winner) == 1
    assert await active_owners(two_stores[0], h1) == winner
    assert await active_owners(two_stores[1], h2) == winner


async def test_interleaved_retries_and_creates_leave_one_active(
    two_stores: tuple[Store, Store],
) -> None:
    h = v1()
    first, _ = two_stores
    failed = []
    for i in range(5):  # five terminal downloads of the same hash, over time
        d = (await first.downloads.create_download_if_no_active(new(i), [h])).download
        await first.downloads.move(
            d.id, State.FAILED, reason=reason("qbt.refused", detail="Fails.")
        )
        failed.append(d.id)

    async def retry(store: Store, download_id: Id) -> str | None:
        try:
            d = await store.downloads.move(
                download_id, State.ACCEPTED, reason=reason("person.retry")
            )
        except (InfohashTakenError, InvalidTransitionError):
            return None
        return d.id

    async def create(store: Store, i: int) -> str | None:
        result = await store.downloads.create_download_if_no_active(new(100 + i), [h])
        return result.download.id if result.created else None

    rng = random.Random(20261130)
    calls = [
        retry(two_stores[i % 2], rng.choice(failed)) if i % 2 else create(two_stores[i % 2], i)
        for i in range(50)
    ]
    rng.shuffle(calls)
    outcomes = await asyncio.gather(*calls)
    winners = {o for o in outcomes if o is not None}
    assert len(winners) == 1
    assert await active_owners(first, h) == winners
