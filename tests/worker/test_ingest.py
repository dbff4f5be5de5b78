"""What ingest refuses: garbage magnets and ``.torrent`` files get a reason and change
nothing, neither in the store nor in qBittorrent (here the fake: refusing them is
jellybit's, not qBittorrent's)."""

from collections.abc import Awaitable

import pytest

from tests.support.house import Running, listed_hashes
from worker.ingest import IngestResult, Rejected

MiB = 1024 * 1024


async def refused_and_nothing_changed(running: Running, ingest: Awaitable[IngestResult]) -> None:
    before = listed_hashes(running)
    result = await ingest
    assert isinstance(result, Rejected)
    assert result.reason
    assert await running.store.downloads.list_downloads() == []
    assert listed_hashes(running) == before


@pytest.mark.parametrize(
    "garbage",
    [
        "hello",
        "magnet:?dn=no-hash",
        "magnet:?xt=urn:btih:1234",
        "magnet:?xt=urn:btih:" + "z" * 40,
        "magnet:?xt=urn:btmh:1220" + "a" * 10,
        "https://example.org/file.torrent",
    ],
)
async def test_garbage_magnets_are_rejected_and_nothing_is_stored(
    running: Running, garbage: str
) -> None:
    ingest = running.engine.cases.ingest.magnet(garbage, origin="telegram")
    await refused_and_nothing_changed(running, ingest)


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"not bencode",
        b"d4:infoi1ee",
        b"l" * 100_000,
        b"d4:infod4:name1:xee",
        b"x" * (11 * MiB),
    ],
    ids=["empty", "text", "info-int", "deep", "no-pieces", "huge"],
)
async def test_garbage_torrent_files_are_rejected(running: Running, garbage: bytes) -> None:
    ingest = running.engine.cases.ingest.torrent_file(garbage, origin="telegram")
    await refused_and_nothing_changed(running, ingest)
