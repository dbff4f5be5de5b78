"""Ingest: what the bot and the API call with a magnet or a .torrent.

parse -> ``create_download_if_no_active`` with every hash (and the .torrent
bytes, in the same transaction) -> the answer. Adding it to qBittorrent is the
adder's, in the background (``worker/adder.py``): the person's answer never waits
on qBittorrent, and once the download is committed it is never lost.
"""

from collections.abc import Callable
from dataclasses import dataclass

from common.logs import for_download, get_logger
from core.errors import InvalidInputError
from core.magnet import parse_magnet
from core.models import Download, NewDownload, Source
from core.reasons import Reason
from core.torrent_file import MAX_TORRENT_BYTES, TOO_LARGE_REASON, parse_torrent_file
from store import Store
from worker.cpu import CpuPool


@dataclass(frozen=True)
class Created:
    """A new download, accepted: the adder sends it to qBittorrent."""

    download: Download


@dataclass(frozen=True)
class Duplicate:
    """An active download already has one of the hashes: this is it."""

    download: Download


@dataclass(frozen=True)
class Rejected:
    """Nothing to download: the input is not valid."""

    reason: Reason


IngestResult = Created | Duplicate | Rejected


class Ingest:
    def __init__(self, store: Store, wake_adder: Callable[[], None], cpu: CpuPool) -> None:
        self._store = store
        self._wake_adder = wake_adder
        self._cpu = cpu

    async def magnet(
        self, text: str, *, source: Source, chat_id: int | None = None
    ) -> IngestResult:
        try:
            magnet = parse_magnet(text)
        except InvalidInputError as error:
            get_logger().info("ingest.rejected", source=source, reason=str(error))
            return Rejected(error.reason)
        new = NewDownload(name=magnet.name, source=source, source_ref=magnet.uri, chat_id=chat_id)
        return await self._create(new, magnet.infohashes, None)

    async def is_new(self, text: str) -> bool:
        """Whether ``text`` is a valid magnet of a torrent no download has had."""
        try:
            magnet = parse_magnet(text)
        except InvalidInputError:
            return False
        return not await self._store.tracking.match_infohashes(magnet.infohashes)

    async def torrent_file(
        self, data: bytes, *, source: Source, chat_id: int | None = None
    ) -> IngestResult:
        if len(data) > MAX_TORRENT_BYTES:  # before it is copied to a worker process
            return Rejected(TOO_LARGE_REASON)
        try:
            torrent = await self._cpu.call(parse_torrent_file, data)
        except InvalidInputError as error:
            get_logger().info("ingest.rejected", source=source, reason=str(error))
            return Rejected(error.reason)
        new = NewDownload(name=torrent.name, source=source, source_ref="", chat_id=chat_id)
        return await self._create(new, torrent.infohashes, data)

    async def _create(
        self, new: NewDownload, hashes: tuple[str, ...], torrent_file: bytes | None
    ) -> IngestResult:
        result = await self._store.downloads.create_download_if_no_active(
            new, hashes, torrent_file=torrent_file
        )
        log = for_download(result.download.id)
        if not result.created:
            log.info("ingest.duplicate", state=result.download.state, source=new.source)
            return Duplicate(result.download)
        log.info("ingest.accepted", name=new.name, source=new.source, infohashes=list(hashes))
        self._wake_adder()
        return Created(result.download)
