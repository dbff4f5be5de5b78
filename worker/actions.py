"""What a person can do to a download: retry and cancel.

Both decide in the store first (the identity guard refuses before any
qBittorrent call), then act in qBittorrent, and undo the store change when
qBittorrent refuses.
"""

from collections.abc import Callable
from dataclasses import dataclass

from common.logs import Logger, for_download
from core.errors import ExternalError, InvalidTransitionError, NotFoundError, RejectedError
from core.ids import Id
from core.live import Torrent, is_broken, is_complete
from core.models import Download
from core.reasons import reason
from core.states import ACTIVE, RETRYABLE, State
from store import Store
from worker.adder import TorrentAdder
from worker.poller import Poller
from worker.qbt import SYSTEM, QbtClient


@dataclass(frozen=True)
class RetryResult:
    download: Download
    queued: bool = False  # qBittorrent unreachable: added when it is back


class Actions:
    def __init__(
        self,
        store: Store,
        qbt: QbtClient,
        adder: TorrentAdder,
        poller: Poller,
        wake_importer: Callable[[], None],
    ) -> None:
        self._store = store
        self._qbt = qbt
        self._adder = adder
        self._poller = poller
        self._wake_importer = wake_importer

    async def retry(self, download_id: Id) -> RetryResult:
        """failed/stuck/removed -> accepted (guarded), then into qBittorrent.

        Raises ``InfohashTakenError`` when another active download owns a hash
        (no qBittorrent call is made) and ``InvalidTransitionError`` from other
        states. When qBittorrent refuses the torrent, the state is rolled back
        and ``RejectedError`` carries the reason.
        """
        download = await self._store.downloads.get_download(download_id)
        log = for_download(download.id)
        activated = await self._store.downloads.move(
            download.id, State.ACCEPTED, reason=reason("person.retry"), expected=RETRYABLE
        )
        try:
            present = await self._poller.find_torrent(activated.hash_values())
        except ExternalError as error:  # accepted now: added when qBittorrent is back
            log.warning("download.retry_queued", reason=str(error))
            return RetryResult(await self._store.downloads.get_download(download.id), queued=True)
        if present is not None:
            await self._revive(*present, log=log)
            self._poller.wake.set()
            return RetryResult(await self._store.downloads.get_download(download.id))
        added = await self._adder.add(activated, fail_on_reject=False)
        if added.outcome == "failed":
            await self._store.downloads.move(
                download.id,
                download.state,
                reason=reason("person.retry_failed", detail=added.detail),
                expected={State.ACCEPTED},
            )
            log.warning("download.retry_failed", reason=added.detail)
            raise RejectedError(SYSTEM, added.detail)
        self._poller.wake.set()
        log.info("download.retried", queued=added.outcome == "queued")
        current = await self._store.downloads.get_download(download.id)
        return RetryResult(current, queued=added.outcome == "queued")

    async def decide(self, download_id: Id, candidate_id: Id) -> Download:
        """The person picked a title (the review page): a download in review is
        laid out with it, a done one is relinked with it."""
        download = await self._store.downloads.get_download(download_id)
        if download.state not in (State.REVIEW, State.DONE):
            raise InvalidTransitionError(download.id, download.state, State.IMPORTING)
        recognition = await self._store.recognitions.current(download.id)
        if recognition is None:
            raise NotFoundError("recognition of download", download.id)
        await self._store.recognitions.choose(recognition.id, candidate_id)
        for_download(download.id).info(
            "download.title_chosen", recognition_id=recognition.id, candidate_id=candidate_id
        )
        if download.state == State.DONE:
            return await self.relink(download.id)
        chosen = await self._store.downloads.move(
            download.id, State.IMPORTING, reason=reason("person.picked"), expected={State.REVIEW}
        )
        self._wake_importer()
        return chosen

    async def relink(self, download_id: Id) -> Download:
        """done -> importing (guarded): the layout is applied again with the
        current recognition; refused when another active download has the hash."""
        relinked = await self._store.downloads.move(
            download_id, State.IMPORTING, reason=reason("person.relink"), expected={State.DONE}
        )
        for_download(relinked.id).info("download.relink_requested")
        self._wake_importer()
        return relinked

    async def cancel(self, download_id: Id) -> Download:
        """An active download -> removed; its torrent leaves qBittorrent (with
        the data when incomplete). qBittorrent unreachable: nothing changes."""
        download = await self._store.downloads.get_download(download_id)
        if download.state not in ACTIVE:
            raise InvalidTransitionError(download.id, download.state, State.REMOVED)
        log = for_download(download.id)
        found = await self._poller.find_torrent(download.hash_values())
        if found is not None:
            torrent_id, torrent = found
            await self._qbt.delete(torrent_id, delete_files=not is_complete(torrent), log=log)
        cancelled = await self._store.downloads.move(
            download.id, State.REMOVED, reason=reason("person.cancel"), expected=ACTIVE
        )
        log.info("download.cancelled", torrent_deleted=found is not None)
        return cancelled

    async def _revive(self, torrent_id: str, torrent: Torrent, *, log: Logger) -> None:
        """The torrent is still there (stuck): check it if broken, ask for peers,
        start it. A failure here is not fatal: the poller follows it anyway."""
        try:
            if is_broken(torrent):
                await self._qbt.recheck(torrent_id, log=log)
            await self._qbt.reannounce(torrent_id, log=log)
            await self._qbt.start(torrent_id, log=log)
        except ExternalError as error:
            log.warning("download.revive_failed", reason=str(error))
