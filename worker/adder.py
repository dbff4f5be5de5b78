"""Adding a download's torrent to qBittorrent: used by ingest, the re-add loop
and retry. Unreachable: stays accepted and is retried with backoff. Refused
(``Fails.``) while the torrent is not there: the download fails with the reason."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from common.logs import for_download
from core import clock
from core.errors import AuthFailedError, RejectedError, UnreachableError
from core.live import hashes_of
from core.magnet import magnet_uri
from core.models import Download
from core.reasons import reason
from core.states import State
from store import Store
from worker.qbt import QbtClient

# After a successful add the poller should see the torrent within this time;
# if it does not, the download is added again.
ADDED_GRACE = timedelta(seconds=60)
MAX_BACKOFF = 300.0

AddOutcome = Literal["added", "queued", "failed"]


@dataclass(frozen=True)
class AddResult:
    outcome: AddOutcome
    detail: str = ""  # qBittorrent's words when it refused or did not answer


def backoff_seconds(attempts: int) -> float:
    """5 s, 10 s, 20 s … up to 5 minutes between tries while qBittorrent is down."""
    return min(5.0 * float(2 ** min(attempts, 10)), MAX_BACKOFF)


class TorrentAdder:
    def __init__(self, store: Store, qbt: QbtClient) -> None:
        self._store = store
        self._qbt = qbt

    async def add(
        self, download: Download, *, fail_on_reject: bool = True, announce: bool = False
    ) -> AddResult:
        """Add the download's torrent (its kept .torrent, else a magnet).

        ``fail_on_reject=False`` leaves the state to the caller (retry rolls back);
        ``announce`` tells the chat about a refusal (a background re-add: nobody
        is waiting for an answer).
        """
        log = for_download(download.id)
        try:
            await self._send(download)
        except (UnreachableError, AuthFailedError) as error:
            delay = backoff_seconds(download.add_attempts)
            await self._store.tracking.record_add_attempt(
                download.id, next_add_at=clock.shifted(timedelta(seconds=delay))
            )
            log.warning("download.add_queued", reason=str(error), retry_in_s=delay)
            return AddResult("queued", str(error))
        except RejectedError as error:
            if await self._already_there(download):
                return await self._added(download)
            if fail_on_reject:
                await self._store.downloads.move(
                    download.id,
                    State.FAILED,
                    reason=reason("qbt.refused", detail=error.detail),
                    expected={State.ACCEPTED},
                    announce=announce,
                )
            log.warning("download.add_refused", reason=error.detail)
            return AddResult("failed", error.detail)
        return await self._added(download)

    async def _send(self, download: Download) -> None:
        log = for_download(download.id)
        data = await self._store.tracking.torrent_file(download.id)
        if data is not None:
            await self._qbt.add(torrent_file=data, log=log)
        elif download.source_ref.lower().startswith("magnet:"):
            await self._qbt.add(magnet=download.source_ref, log=log)
        else:
            await self._qbt.add(magnet=magnet_uri(download.hash_values(), download.name), log=log)

    async def _added(self, download: Download) -> AddResult:
        await self._store.tracking.record_add_attempt(
            download.id, next_add_at=clock.shifted(ADDED_GRACE)
        )
        for_download(download.id).info("download.added_to_qbittorrent")
        return AddResult("added")

    async def _already_there(self, download: Download) -> bool:
        """qBittorrent also answers ``Fails.`` to a torrent it already has."""
        try:
            torrents = await self._qbt.list_torrents()
        except (UnreachableError, AuthFailedError, RejectedError):
            return False
        mine = set(download.hash_values())
        return any(mine.intersection(hashes_of(t)) for t in torrents)
