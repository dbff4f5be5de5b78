"""Ingest: what the bot and the API call with a magnet or a .torrent.

parse -> what jellybit already knows of its hashes -> ``create_download_if_no_active``
with every hash (and the .torrent bytes, in the same transaction) -> the answer.
Adding it to qBittorrent is the adder's, in the background (``worker/adder.py``):
the person's answer never waits on qBittorrent, and once the download is committed
it is never lost.

Known hashes decide first (docs/library.md, "Nothing twice"): a magnet whose v1 and
v2 hashes are of two different known torrents is refused; a torrent whose done
download still has every file in the library is "already in the library" and
nothing is created. Both only read: the identity guard stays in the one write.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common.logs import for_download, get_logger
from core.errors import InvalidInputError
from core.infohash import normalize_infohashes
from core.magnet import parse_magnet
from core.models import Download, NewDownload, Origin
from core.reasons import Reason, reason
from core.states import ACTIVE, State
from core.torrent_file import MAX_TORRENT_BYTES, TOO_LARGE_REASON, parse_torrent_file
from store import Store
from store.titles import LibraryTitle
from worker.cpu import CpuPool
from worker.layout import still_linked

# The magnet's v1 and v2 hashes are of two different torrents jellybit knows.
MISMATCHED_REASON = reason("magnet.mismatched")


@dataclass(frozen=True)
class Created:
    """A new download, accepted: the adder sends it to qBittorrent."""

    download: Download


@dataclass(frozen=True)
class Duplicate:
    """An active download already has one of the hashes: this is it."""

    download: Download


@dataclass(frozen=True)
class InLibrary:
    """Downloaded before, and every file of it is still in the library: nothing is
    created, nothing downloaded again. ``download`` is the done one."""

    download: Download
    title: LibraryTitle


@dataclass(frozen=True)
class Rejected:
    """Nothing to download: the input is not valid."""

    reason: Reason


IngestResult = Created | Duplicate | InLibrary | Rejected


class Ingest:
    def __init__(self, store: Store, wake_adder: Callable[[], None], cpu: CpuPool) -> None:
        self._store = store
        self._wake_adder = wake_adder
        self._cpu = cpu

    async def magnet(
        self, text: str, *, origin: Origin, chat_id: int | None = None
    ) -> IngestResult:
        try:
            magnet = parse_magnet(text)
        except InvalidInputError as error:
            get_logger().info("ingest.rejected", source=origin, reason=str(error))
            return Rejected(error.reason)
        new = NewDownload(name=magnet.name, origin=origin, source_ref=magnet.uri, chat_id=chat_id)
        return await self._create(new, magnet.infohashes, None, claimed=True)

    async def is_new(self, text: str) -> bool:
        """Whether ``text`` is a valid magnet of a torrent no download has had."""
        try:
            magnet = parse_magnet(text)
        except InvalidInputError:
            return False
        return not await self._store.tracking.match_infohashes(magnet.infohashes)

    async def torrent_file(
        self, data: bytes, *, origin: Origin, chat_id: int | None = None
    ) -> IngestResult:
        if len(data) > MAX_TORRENT_BYTES:  # before it is copied to a worker process
            return Rejected(TOO_LARGE_REASON)
        try:
            torrent = await self._cpu.call(parse_torrent_file, data)
        except InvalidInputError as error:
            get_logger().info("ingest.rejected", source=origin, reason=str(error))
            return Rejected(error.reason)
        new = NewDownload(name=torrent.name, origin=origin, source_ref="", chat_id=chat_id)
        return await self._create(new, torrent.infohashes, data)

    async def _create(
        self,
        new: NewDownload,
        hashes: tuple[str, ...],
        torrent_file: bytes | None,
        *,
        claimed: bool = False,
    ) -> IngestResult:
        """``claimed``: the hashes are only what a magnet says (a .torrent's are
        computed from its content, so they are one torrent's)."""
        known = await self._store.downloads.owners_of(hashes)
        if claimed and _mismatched(hashes, known):
            get_logger().info("ingest.rejected", source=new.origin, reason="magnet.mismatched")
            return Rejected(MISMATCHED_REASON)
        if not any(d.state in ACTIVE for d in known):  # an active one: the guard returns it
            for done in (d for d in known if d.state == State.DONE):
                title = await self._in_library(done)
                if title is not None:
                    for_download(done.id).info("ingest.in_library", source=new.origin)
                    return InLibrary(done, title)
        result = await self._store.downloads.create_download_if_no_active(
            new, hashes, torrent_file=torrent_file
        )
        log = for_download(result.download.id)
        if not result.created:
            log.info("ingest.duplicate", state=result.download.state, source=new.origin)
            return Duplicate(result.download)
        log.info("ingest.accepted", name=new.name, source=new.origin, infohashes=list(hashes))
        self._wake_adder()
        self._cpu.prestart()  # its recognition will need the parsers
        return Created(result.download)

    async def _in_library(self, download: Download) -> LibraryTitle | None:
        """The title of a done download when every file it laid out is still the
        file it made (a file the person deleted or replaced is not)."""
        card = await self._store.card(download.id)
        if card is None or card.title is None or not card.links:
            return None
        linked = [
            (Path(row.target_path), row.inode, row.device)
            for row in card.links
            if row.inode is not None and row.device is not None
        ]
        if len(linked) < len(card.links):  # a batch never finished
            return None
        there = await asyncio.to_thread(lambda: all(still_linked(*entry) for entry in linked))
        return card.title if there else None


def _mismatched(hashes: tuple[str, ...], known: list[Download]) -> bool:
    """A v1 and a v2 hash that jellybit knows as two different torrents: no
    download has both, or one that has one of them has another of the other kind."""
    kinds = normalize_infohashes(hashes)
    v1 = next((h for h, kind in kinds.items() if kind == "v1"), None)
    v2 = next((h for h, kind in kinds.items() if kind == "v2"), None)
    if v1 is None or v2 is None:
        return False
    with_v1 = [d for d in known if v1 in d.hash_values()]
    with_v2 = [d for d in known if v2 in d.hash_values()]
    if with_v1 and with_v2 and not any(v2 in d.hash_values() for d in with_v1):
        return True
    other_v2 = any(h.kind == "v2" and h.value != v2 for d in with_v1 for h in d.infohashes)
    other_v1 = any(h.kind == "v1" and h.value != v1 for d in with_v2 for h in d.infohashes)
    return other_v2 or other_v1
