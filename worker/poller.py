"""The poller: follows qBittorrent through incremental ``sync/maindata``.

Cost per tick grows with what changed: only torrents in the answer are
matched (one query for all their hashes) and only changed snapshot columns
are written, in one transaction per tick. A full resync every few minutes
guards against lost deltas; removals are decided only on a full snapshot
(a qBittorrent restart or a hybrid changing its torrent id is not a removal).

qBittorrent 5.x dies serving ``sync/maindata`` after a torrent changed its id
(``Server.maindata_crashes_on_id_change``). On 5.x a tick therefore asks for
``torrents/info`` instead while any torrent may still change its id (known by
a v1 hash only, without metadata) or while the number of torrents differs from
the last snapshot (one came: it may be such a torrent); the first
``sync/maindata`` after such ticks is asked in a new WebUI session, whose sync
state holds no stale id (docs/qbittorrent.md).
"""

import asyncio
from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from typing import Any

from common.logs import for_download, get_logger
from core import clock
from core.config import QbittorrentSettings
from core.errors import ExternalError, InfohashTakenError, InvalidTransitionError
from core.live import (
    LiveMap,
    SyncResult,
    Torrent,
    contradicts,
    hashes_of,
    is_broken,
    is_complete,
    listing_answer,
    may_change_id,
    remaining_bytes,
)
from core.magnet import magnet_uri
from core.models import Download, NewDownload, SnapshotChange, Transition
from core.notifications import QBITTORRENT_BACK, QBITTORRENT_DOWN
from core.paths import map_remote_path
from core.reasons import Reason, reason
from core.states import ACTIVE, State
from store import Store
from worker.pacing import Loop
from worker.qbt import QbtClient, Server

FULL_RESYNC_EVERY = 300.0  # seconds
# qBittorrent's "infinite" ETA.
ETA_UNKNOWN = 8_640_000
# States in which a download's torrent is expected in qBittorrent.
IN_QBITTORRENT = frozenset({State.DOWNLOADING, State.STUCK})
COMPLETED_TO = State.IMPORTING  # the importer recognizes and lays it out


class Poller:
    def __init__(
        self,
        store: Store,
        qbt: QbtClient,
        settings: QbittorrentSettings,
        *,
        on_complete: Callable[[], None],  # a download is to be imported: wakes the importer
        on_back: Callable[[], None],  # qBittorrent answers again: wakes the adder
        full_resync_every: float,
        outage_notice: float,
    ) -> None:
        self.live = LiveMap()
        self.wake = asyncio.Event()  # ingest and actions ask for a prompt tick
        self._on_complete = on_complete
        self._on_back = on_back
        self._store = store
        self._qbt = qbt
        self._settings = settings
        self._full_every = full_resync_every
        self._last_full = -float("inf")
        self._last_answer: float | None = None
        self._resync_now = False
        self._refollow = False  # a tick failed while following: the next full one follows all
        self._tick_lock = asyncio.Lock()
        self._log = get_logger()
        self._server: Server | None = None  # asked again after every outage
        self._stale_session = False  # ticks by listing since the last sync/maindata
        self.listings = 0  # ticks answered by torrents/info (the 5.x guard's cost)
        self._outage_notice = outage_notice
        self._down_since: float | None = None
        self._announced = False  # the person was told it is down: they hear when it is back
        self.loop = Loop(
            "poller",
            self.tick,
            interval=lambda: self._settings.poll_interval,
            wake=self.wake,
            on_failure=self._failed,
            on_recovery=self._recovered,
            probe=qbt.answers,
        )

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop.run(stop)

    async def _failed(self, error: Exception, failures: int) -> None:
        """qBittorrent down: asked for its version again when back (it may come back
        as another), and the person told once it has been down ``outage_notice``."""
        if not isinstance(error, ExternalError):
            return
        if self._down_since is None:
            self._down_since = clock.monotonic()
        self._server = None
        if not self._announced and clock.monotonic() - self._down_since >= self._outage_notice:
            await self._store.outbox.announce(QBITTORRENT_DOWN, {"reason": error.detail})
            self._announced = True

    async def _recovered(self, failures: int) -> None:
        self._on_back()  # what waited for it goes now
        if self._announced and self._down_since is not None:
            seconds = round(clock.monotonic() - self._down_since)
            await self._store.outbox.announce(QBITTORRENT_BACK, {"seconds": seconds})
        self._down_since, self._announced = None, False

    async def tick(self) -> SyncResult:
        """One sync: merge the answer, write what changed, reconcile."""
        async with self._tick_lock:
            answer = await self._answer()
            self._last_answer = clock.monotonic()
            result = self.live.apply(answer, everything=self._refollow)
            if result.full:
                self._last_full = clock.monotonic()
                self._resync_now = self._refollow = False
            try:
                await self._follow(result)
            except Exception:
                # The live map holds this answer now, so what it did not write would be
                # followed only once a followed field changes again (never, for a torrent
                # that waits for peers): the next tick is a full one that follows all.
                self._resync_now = self._refollow = True
                raise
            return result

    async def _answer(self) -> dict[str, Any]:
        """``sync/maindata``, or on 5.x a listing while an id may change (above)."""
        if self._server is None:
            self._server = await self._qbt.server()
            self._log.info(
                "qbittorrent.server", version=self._server.version, web_api=self._server.web_api
            )
        if self._server.maindata_crashes_on_id_change and await self._ids_may_change():
            self._stale_session = True
            self.listings += 1
            return listing_answer(await self._qbt.list_torrents())
        full = self._resync_now or clock.monotonic() - self._last_full >= self._full_every
        if self._stale_session:
            await self._qbt.new_session()
            self._stale_session, full = False, True
        return await self._qbt.sync(0 if full else self.live.rid)

    async def _ids_may_change(self) -> bool:
        if any(may_change_id(torrent) for torrent in self.live.torrents.values()):
            return True
        return not self.live.synced or await self._qbt.count() != len(self.live.torrents)

    def follow_all(self) -> None:
        """The next tick is full and follows every torrent, changed or not: a download
        made active again (retry) whose torrent sits unchanged (complete, seeding) is
        followed at once, not when one of its fields next changes (maybe never)."""
        self._resync_now = self._refollow = True
        self.wake.set()

    def knows(self, hashes: tuple[str, ...]) -> bool:
        """Whether qBittorrent has a torrent with any of ``hashes`` (as last polled)."""
        return self.live.synced and self.live.find(hashes) is not None

    def last_answer_age(self) -> float | None:
        """Seconds since qBittorrent last answered a sync (health); None: never."""
        return None if self._last_answer is None else clock.monotonic() - self._last_answer

    async def find_torrent(self, hashes: Iterable[str]) -> tuple[str, Torrent] | None:
        """The torrent of these hashes as qBittorrent has it now (a fresh tick first)."""
        await self.tick()
        return self.live.find(hashes)

    async def _follow(self, result: SyncResult) -> None:
        torrents = {tid: self.live.torrents[tid] for tid in result.changed}
        owners = await self._owners(torrents)
        changes: list[SnapshotChange] = []
        for torrent_id, torrent in torrents.items():
            download = owners.get(torrent_id)
            if download is None:
                download = await self._adopt(torrent)
            elif download.state in (State.REMOVED, State.FAILED):
                if contradicts(download.hash_values(), torrent):
                    continue  # refused for it: not brought back
                download = await self._recover(download)
            if download is None or download.state not in ACTIVE:  # their snapshot is kept
                continue
            if contradicts(download.hash_values(), torrent):
                await self._refuse_mismatched(download, torrent_id)
                continue
            await self._collect_hashes(download, torrent)
            change = snapshot_change(
                download, torrent, self._settings.path_map, free_space=self.live.free_space
            )
            if change is not None:
                changes.append(change)
        for change in await self._store.tracking.apply_changes(changes):
            if change.transition is not None:
                self._log_transition(change)
                if change.transition.to_state == COMPLETED_TO:
                    self._on_complete()
        if result.removed and not result.full:
            self._resync_now = True  # confirm removals on a full snapshot
            self.wake.set()
        if result.full:
            await self._mark_vanished()
        await self._mark_stalled()

    async def _owners(self, torrents: Mapping[str, Torrent]) -> dict[str, Download]:
        """torrent id -> the download it belongs to (the active one first)."""
        by_hash = await self._store.tracking.match_infohashes(
            h for torrent in torrents.values() for h in hashes_of(torrent)
        )
        owners: dict[str, Download] = {}
        for torrent_id, torrent in torrents.items():
            matches = [by_hash[h] for h in hashes_of(torrent) if h in by_hash]
            active = [d for d in matches if d.state in ACTIVE]
            if active or matches:
                owners[torrent_id] = (active or sorted(matches, key=lambda d: d.id))[-1]
        return owners

    async def _adopt(self, torrent: Torrent) -> Download | None:
        """A torrent no download knows becomes one (per the ``adopt`` policy)."""
        policy = self._settings.adopt
        if policy == "none" or (
            policy == "category" and torrent.get("category") != self._settings.category
        ):
            return None
        hashes = hashes_of(torrent)
        if not hashes:
            return None
        name = str(torrent.get("name") or "")
        new = NewDownload(
            name=name,
            origin="adopted",
            source_ref=magnet_uri(hashes, name),  # full hashes, never the torrent id
            state=State.DOWNLOADING,
        )
        result = await self._store.downloads.create_download_if_no_active(new, hashes)
        download = result.download
        if result.created:
            added_on = int(torrent.get("added_on") or 0)
            fields: dict[str, object] = {"progress_at": clock.now()}
            if added_on > 0:
                fields["source_added_at"] = clock.format_time(clock.from_ms(added_on * 1000))
            await self._store.tracking.apply_changes([SnapshotChange(download.id, fields)])
            for_download(download.id).info("download.adopted", name=name)
        return await self._store.downloads.get_download(download.id)

    async def _recover(self, download: Download) -> Download | None:
        """A removed or failed download whose torrent is back in qBittorrent."""
        try:
            await self._store.downloads.move(
                download.id,
                State.DOWNLOADING,
                reason=reason("qbt.back"),
                expected={State.REMOVED, State.FAILED},
            )
        except (InfohashTakenError, InvalidTransitionError) as error:
            for_download(download.id).info("download.not_recovered", reason=str(error))
            return None
        for_download(download.id).info("download.recovered")
        restart = SnapshotChange(download.id, {"progress_at": clock.now()})
        await self._store.tracking.apply_changes([restart])  # the stuck clock starts anew
        return await self._store.downloads.get_download(download.id)

    async def _refuse_mismatched(self, download: Download, torrent_id: str) -> None:
        """The metadata shows the magnet's v1 and v2 hashes are of two torrents: the
        download fails (so it holds neither hash) and its torrent leaves qBittorrent."""
        log = for_download(download.id)
        log.warning("download.mismatched_hashes", infohashes=list(download.hash_values()))
        await self._transition(download, State.FAILED, reason("magnet.mismatched"))
        try:
            await self._qbt.delete(torrent_id, delete_files=True, log=log)
        except ExternalError as error:  # a failed download is not recovered: see _recover
            log.warning("download.mismatched_not_deleted", reason=str(error))

    async def _collect_hashes(self, download: Download, torrent: Torrent) -> None:
        """qBittorrent revealed a hash the download lacks (a hybrid's second one)."""
        missing = set(hashes_of(torrent)) - set(download.hash_values())
        if not missing:
            return
        try:
            await self._store.downloads.add_infohashes(download.id, missing)
            for_download(download.id).info("download.infohashes_added", infohashes=sorted(missing))
        except InfohashTakenError as error:
            for_download(download.id).warning("download.infohash_taken", reason=str(error))

    async def _mark_vanished(self) -> None:
        """On a full snapshot: torrents gone before completion -> removed."""
        for download in await self._store.tracking.list_in_states(IN_QBITTORRENT):
            if self.live.find(download.hash_values()) is None:
                await self._transition(download, State.REMOVED, reason("qbt.vanished"))

    async def _mark_stalled(self) -> None:
        cutoff = clock.shifted(-timedelta(seconds=self._settings.stuck_after))
        for download in await self._store.tracking.list_stalled(cutoff):
            seconds = self._settings.stuck_after
            why = reason("qbt.no_progress", seconds=seconds)
            if download.free_space is not None and download.total_size:  # it stalled full
                left = round(download.total_size * (1 - download.progress))
                why = disk_full(left, download.free_space)
            await self._transition(download, State.STUCK, why)

    async def _transition(self, download: Download, to_state: State, why: Reason) -> None:
        move = Transition(download.state, to_state, why)
        change = SnapshotChange(download.id, {}, move)
        for applied in await self._store.tracking.apply_changes([change]):
            self._log_transition(applied)

    def _log_transition(self, change: SnapshotChange) -> None:
        assert change.transition is not None
        for_download(change.download_id).info(
            "download.state_changed",
            from_state=change.transition.from_state,
            to_state=change.transition.to_state,
            reason=change.transition.reason.english(),
        )


def snapshot_change(
    download: Download,
    torrent: Torrent,
    path_map: Iterable[tuple[str, str]],
    *,
    free_space: int | None = None,
) -> SnapshotChange | None:
    """What changed between the stored download and the torrent, and the state
    move that follows; None when nothing did. ``free_space``: what qBittorrent's
    disk has free (``server_state``), None when unknown."""
    now = clock.now()
    seen = _snapshot(torrent, path_map)
    # Kept only while the rest does not fit: the status message says so, with both figures.
    seen["free_space"] = free_space if _short_of_space(torrent, free_space) else None
    fields = {k: v for k, v in seen.items() if getattr(download, k) != v}
    grew = float(seen["progress"]) > download.progress
    move = _disk_full(download, torrent, free_space) or _next_state(download, torrent, grew)
    # The stuck clock restarts on progress, on (re)entering downloading, and
    # for a download that never had one (recovered, or from before 0004).
    restarts = move is not None and move.to_state == State.DOWNLOADING
    if grew or restarts or download.progress_at is None:
        fields["progress_at"] = now
    if move is not None and move.to_state == COMPLETED_TO:
        fields["completed_at"] = now
    if not fields and move is None:
        return None
    return SnapshotChange(download.id, fields, move)


def _snapshot(torrent: Torrent, path_map: Iterable[tuple[str, str]]) -> dict[str, Any]:
    size = int(torrent.get("size") or 0)  # total_size counts v2 pad files
    eta = int(torrent.get("eta") or 0)
    maps = tuple(path_map)
    return {
        "name": str(torrent.get("name") or ""),
        "total_size": size if size > 0 else None,
        "progress": round(float(torrent.get("progress") or 0), 4),
        "download_speed": int(torrent.get("dlspeed") or 0),
        "eta": eta if 0 < eta < ETA_UNKNOWN else None,
        "save_path": map_remote_path(str(torrent.get("save_path") or ""), maps) or None,
        "content_path": map_remote_path(str(torrent.get("content_path") or ""), maps) or None,
        "qbt_state": str(torrent.get("state") or ""),
    }


def _short_of_space(torrent: Torrent, free_space: int | None) -> bool:
    return free_space is not None and remaining_bytes(torrent) > free_space


def _disk_full(download: Download, torrent: Torrent, free_space: int | None) -> Transition | None:
    """qBittorrent 4.5 and 5.x show a torrent that could not write (libtorrent's upload
    mode after ENOSPC) as ``error``, without the OS's words: with less free space than
    it still needs, that is a full disk."""
    state = download.state
    if state not in (State.DOWNLOADING, State.ACCEPTED) or torrent.get("state") != "error":
        return None
    if free_space is None or not _short_of_space(torrent, free_space):
        return None
    return Transition(state, State.STUCK, disk_full(remaining_bytes(torrent), free_space))


def disk_full(needed: int, free: int) -> Reason:
    return reason("qbt.disk_full", needed_bytes=needed, free_bytes=free)


def _next_state(download: Download, torrent: Torrent, grew: bool) -> Transition | None:
    state = download.state
    if state not in (State.ACCEPTED, State.DOWNLOADING, State.STUCK):
        return None
    if is_complete(torrent):
        return Transition(state, COMPLETED_TO, reason("qbt.complete"))
    if is_broken(torrent) and state != State.STUCK:
        qbt_state = str(torrent.get("state"))
        code = "qbt.missing_files" if qbt_state == "missingFiles" else "qbt.error"
        return Transition(state, State.STUCK, reason(code, qbt_state=qbt_state))
    if state == State.ACCEPTED:
        return Transition(state, State.DOWNLOADING, reason("qbt.seen"))
    if state == State.STUCK and grew and not is_broken(torrent):
        return Transition(state, State.DOWNLOADING, reason("qbt.resumed"))
    return None
