"""Adding a download's torrent to qBittorrent, in the background.

A new download is committed in the accepted state and added here, by the
``adder`` loop, never by the step that answered the person: nothing a chat waits
for waits on qBittorrent. Unreachable: it stays accepted, the reason is shown on
its status message, and it is tried again with backoff (and at once when the
poller sees qBittorrent back). Refused while the torrent is not there (looked up
by every hash first): the download fails with the reason and the chat is told.
A retry adds by itself (``add``), waited for by the person's action.
"""

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from common.logs import for_download
from core import clock
from core.errors import AuthFailedError, ExternalError, RejectedError, UnreachableError
from core.ids import Id
from core.live import hashes_of, torrent_ids
from core.magnet import magnet_uri
from core.models import Download
from core.reasons import reason
from core.states import State
from store import Store
from store.transitions import ADD_GRACE
from worker.pacing import Loop
from worker.poller import Poller
from worker.qbt import SYSTEM, QbtClient

MAX_BACKOFF = 300.0
TICK = 5.0  # seconds between looks at what is due (woken at once by ingest)

AddOutcome = Literal["added", "queued", "failed"]


@dataclass(frozen=True)
class AddResult:
    outcome: AddOutcome
    detail: str = ""  # qBittorrent's words when it refused or did not answer


def backoff_seconds(attempts: int) -> float:
    """5 s, 10 s, 20 s … up to 5 minutes between tries while qBittorrent is down."""
    return min(5.0 * float(2 ** min(attempts, 10)), MAX_BACKOFF)


class AdderWake:
    """How the others wake the adder: a download is due (ingest), or qBittorrent
    answers again (the poller) and what waits for it goes now too. Made before the
    poller and the adder, so that each gets it when it is built."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self._back = False

    def due(self) -> None:
        self.event.set()

    def qbittorrent_back(self) -> None:
        self._back = True
        self.event.set()

    def take_back(self) -> bool:
        """Whether qBittorrent came back since the last call."""
        back, self._back = self._back, False
        return back


class TorrentAdder:
    def __init__(self, store: Store, qbt: QbtClient, poller: Poller, wake: AdderWake) -> None:
        self._store = store
        self._qbt = qbt
        # A download whose torrent the poller already sees is the poller's to move,
        # not to add again.
        self._poller = poller
        self._wake = wake
        self.loop = Loop("adder", self.tick, interval=TICK, wake=wake.event)
        self._in_flight: dict[Id, asyncio.Future[AddResult]] = {}

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop.run(stop)

    async def tick(self) -> None:
        """Add what is due, oldest first; stop at the first that finds qBittorrent
        unreachable (the rest would only wait as long)."""
        waiting = self._wake.take_back()
        for download in await self._store.tracking.list_due_for_add(clock.now(), waiting=waiting):
            if self._poller.knows(download.hash_values()):
                # A complete torrent sits unchanged: a partial update would never
                # bring it up, so the poller's next tick follows every torrent.
                self._poller.follow_all()
                continue
            if (await self.add(download, announce=True)).outcome == "queued":
                return

    async def add(
        self, download: Download, *, fail_on_reject: bool = True, announce: bool = False
    ) -> AddResult:
        """Add the download's torrent (its kept .torrent, else a magnet); a second
        call for a download being added waits for the first one's result.

        ``fail_on_reject=False`` leaves the state to the caller (retry rolls back);
        ``announce`` tells the chat about a refusal (a background add: nobody is
        waiting for an answer).
        """
        running = self._in_flight.get(download.id)
        if running is not None:
            return await asyncio.shield(running)
        future = asyncio.ensure_future(self._add(download, fail_on_reject, announce))
        self._in_flight[download.id] = future
        future.add_done_callback(lambda _: self._in_flight.pop(download.id, None))
        return await asyncio.shield(future)

    async def _add(self, download: Download, fail_on_reject: bool, announce: bool) -> AddResult:
        log = for_download(download.id)
        try:
            await self._send(download)
        except (UnreachableError, AuthFailedError) as error:
            return await self._queued(download, error)
        except RejectedError as error:
            there = await self._already_there(download)
            if there:
                return await self._added(download)
            if there is None:  # the lookup found qBittorrent away: nothing is decided
                return await self._queued(download, UnreachableError(SYSTEM, error.detail))
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

    async def _queued(self, download: Download, error: ExternalError) -> AddResult:
        delay = backoff_seconds(download.add_attempts)
        await self._store.tracking.record_add_attempt(
            download.id,
            next_add_at=clock.shifted(timedelta(seconds=delay)),
            waiting=reason("qbt.unreachable", detail=error.detail),
        )
        for_download(download.id).warning(
            "download.add_queued", reason=str(error), retry_in_s=delay
        )
        return AddResult("queued", str(error))

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
            download.id, next_add_at=clock.shifted(ADD_GRACE)
        )
        for_download(download.id).info("download.added_to_qbittorrent")
        return AddResult("added")

    async def _already_there(self, download: Download) -> bool | None:
        """qBittorrent also refuses a torrent it already has: look for it by every
        hash the download has — by the torrent ids they make (qBittorrent's own lookup
        knows a torrent only by its id), then in the whole listing (a hybrid added by
        its v1 hash is listed under its v2's id). None: qBittorrent did not answer."""
        mine = download.hash_values()
        try:
            for torrent_id in torrent_ids(mine):
                if await self._qbt.has_torrent(torrent_id):
                    return True
            listed = await self._qbt.list_torrents()
        except ExternalError:
            return None
        return any(set(mine).intersection(hashes_of(t)) for t in listed)
