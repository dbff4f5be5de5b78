"""Ingest: what the bot, the API and adopt call with a magnet or a .torrent.

parse -> ``create_download_if_no_active`` with every hash (and the .torrent
bytes, in the same transaction) -> add to qBittorrent. Once the download is
committed it is never lost: if qBittorrent is unreachable it stays accepted
and the poller adds it when qBittorrent is back.
"""

from collections.abc import Callable
from dataclasses import dataclass

from common.logs import for_download, get_logger
from core.errors import InvalidInputError
from core.magnet import parse_magnet
from core.models import Download, NewDownload, Source
from core.reasons import Reason, reason
from core.torrent_file import MAX_TORRENT_BYTES, TOO_LARGE_REASON, parse_torrent_file
from store import Store
from worker.adder import TorrentAdder
from worker.cpu import CpuPool


@dataclass(frozen=True)
class Created:
    """A new download. ``queued``: qBittorrent is unreachable; it will be added
    when qBittorrent is back."""

    download: Download
    queued: bool = False


@dataclass(frozen=True)
class Duplicate:
    """An active download already has one of the hashes: this is it."""

    download: Download


@dataclass(frozen=True)
class Rejected:
    """Nothing to download: the input is not valid, or qBittorrent refused the
    torrent (then ``download`` is the failed download that records why)."""

    reason: Reason
    download: Download | None = None


IngestResult = Created | Duplicate | Rejected


class Ingest:
    def __init__(
        self, store: Store, adder: TorrentAdder, wake_poller: Callable[[], None], cpu: CpuPool
    ) -> None:
        self._store = store
        self._adder = adder
        self._wake_poller = wake_poller
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
        return await self._create_and_add(new, magnet.infohashes, None)

    async def torrent_file(
        self, data: bytes, *, source: Source, chat_id: int | None = None
    ) -> IngestResult:
        if len(data) > MAX_TORRENT_BYTES:  # before it is copied to a worker process
            return Rejected(TOO_LARGE_REASON)
        try:
            torrent = await self._cpu.run(parse_torrent_file, data)
        except InvalidInputError as error:
            get_logger().info("ingest.rejected", source=source, reason=str(error))
            return Rejected(error.reason)
        new = NewDownload(name=torrent.name, source=source, source_ref="", chat_id=chat_id)
        return await self._create_and_add(new, torrent.infohashes, data)

    async def _create_and_add(
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
        added = await self._adder.add(result.download)
        self._wake_poller()
        download = await self._store.downloads.get_download(result.download.id)
        if added.outcome == "failed":
            return Rejected(reason("qbt.refused", detail=added.detail), download)
        return Created(download, queued=added.outcome == "queued")
