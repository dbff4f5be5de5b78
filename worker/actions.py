"""What a person can do to a download, whichever front door they use (the bot,
the pages, the API): retry, relink, cancel, pick a candidate, pick a title they
searched for, correct the recognition's fields. Each is one method here.

Retry and cancel decide in the store first (the identity guard refuses before
any qBittorrent call), then act in qBittorrent, and undo the store change when
qBittorrent refuses. Errors are ``core.errors.AppError``s; each front door has
one place that turns them into words.
"""

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace

from common.logs import Logger, for_download
from core.errors import (
    ExternalError,
    InvalidTransitionError,
    NotFoundError,
    NotRecognizedError,
    RejectedError,
    SearchOffError,
)
from core.ids import Id, new_id
from core.live import Torrent, is_broken, is_complete
from core.models import Download
from core.reasons import Reason, reason
from core.states import ACTIVE, RETRYABLE, State
from recognition.candidates import Candidate, MediaKind
from recognition.identify import Status
from recognition.overrides import check_overrides
from store import Store
from store.recognition import StoredCandidate, StoredRecognition
from worker.adder import TorrentAdder
from worker.poller import Poller
from worker.qbt import SYSTEM, QbtClient
from worker.tmdb import TmdbClient

PICKABLE = frozenset({State.REVIEW, State.DONE})  # a title may be picked in these


@dataclass(frozen=True)
class RetryResult:
    download: Download
    queued: bool = False  # qBittorrent unreachable: added when it is back


class Actions:
    def __init__(
        self,
        *,
        store: Store,
        qbittorrent: QbtClient,  # revives a stuck torrent, deletes one
        adder: TorrentAdder,  # adds a torrent again (retry, download again)
        poller: Poller,  # the torrent as qBittorrent has it now; follows it at once
        wake_importer: Callable[[], None],  # a download is to be laid out (again)
        tmdb: TmdbClient | None,  # a found title's details; None: no TMDB key
        remove_links: Callable[[Id], Awaitable[int]],  # the importer's: undo a download's links
    ) -> None:
        self._store = store
        self._qbt = qbittorrent
        self._adder = adder
        self._poller = poller
        self._wake_importer = wake_importer
        self._tmdb = tmdb
        self._remove_links = remove_links

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
            self._poller.follow_all()
            return RetryResult(await self._store.downloads.get_download(download.id))
        added = await self._adder.add(activated, fail_on_reject=False)
        if added.outcome == "failed":
            await self._undo_activation(
                download, reason("person.retry_failed", detail=added.detail)
            )
            log.warning("download.retry_failed", reason=added.detail)
            raise RejectedError(SYSTEM, added.detail)
        self._poller.wake.set()
        log.info("download.retried", queued=added.outcome == "queued")
        current = await self._store.downloads.get_download(download.id)
        return RetryResult(current, queued=added.outcome == "queued")

    async def download_again(self, download_id: Id) -> RetryResult:
        """Its files are gone from the disk (``Download.files_gone``): back to
        accepted (guarded: refused before qBittorrent is asked when another active
        download has one of its hashes), its torrent out of qBittorrent without its
        files, then added anew: qBittorrent fetches what is missing, and the title
        already chosen is laid out. qBittorrent away or refusing: nothing changes."""
        download = await self._store.downloads.get_download(download_id)
        if not download.files_gone():
            raise InvalidTransitionError(download.id, download.state, State.ACCEPTED)
        log = for_download(download.id)
        activated = await self._store.downloads.move(
            download.id,
            State.ACCEPTED,
            reason=reason("person.download_again"),
            expected={download.state},
        )
        back = download.error or reason("person.download_again")
        try:
            present = await self._poller.find_torrent(activated.hash_values())
            if present is not None:
                await self._qbt.delete(present[0], delete_files=False, log=log)
        except ExternalError:
            await self._undo_activation(download, back)
            raise
        added = await self._adder.add(activated, fail_on_reject=False)
        if added.outcome == "failed":
            await self._undo_activation(download, back)
            log.warning("download.download_again_failed", reason=added.detail)
            raise RejectedError(SYSTEM, added.detail)
        self._poller.wake.set()
        log.info("download.download_again", queued=added.outcome == "queued")
        current = await self._store.downloads.get_download(download.id)
        return RetryResult(current, queued=added.outcome == "queued")

    async def _undo_activation(self, download: Download, why: Reason) -> None:
        """Back to the state it was in, with its reason: the person is told why."""
        await self._store.downloads.move(
            download.id, download.state, reason=why, expected={State.ACCEPTED}
        )

    async def resolve_duplicate(self, download_id: Id, choice: str) -> Download:
        """The person's answer to "the library already has it" (``layout.in_library``):
        keep both (``version``), ``replace`` it, or ``skip`` this copy; laid out again
        with the title already chosen."""
        check_overrides({"duplicates": choice})
        download = await self._store.downloads.get_download(download_id)
        if download.state != State.REVIEW:
            raise InvalidTransitionError(download.id, download.state, State.IMPORTING)
        await self._store.recognitions.set_overrides(download.id, {"duplicates": choice})
        moved = await self._store.downloads.move(
            download.id, State.IMPORTING, reason=reason("person.picked"), expected={State.REVIEW}
        )
        for_download(download.id).info("download.duplicate_resolved", choice=choice)
        self._wake_importer()
        return moved

    async def decide(self, download_id: Id, candidate_id: Id) -> Download:
        """The person picked a title: a download in review is laid out with it, a
        done one is relinked with it. An unknown candidate is a ``NotFoundError``."""
        download, recognition = await self._pickable(download_id)
        return await self._decide(download, recognition.id, candidate_id)

    async def pick_found(self, download_id: Id, kind: MediaKind, tmdb_id: int) -> Download:
        """A title the person found by searching becomes a candidate (of a new
        recognition: a copy of the current one, same files and parse), then it is
        picked like any other. Whether it may be picked is checked once TMDB has
        answered: a download that moved on during the wait refuses it, unchanged."""
        if self._tmdb is None or not self._tmdb.enabled:
            raise SearchOffError()
        found = await self._tmdb.details(kind, tmdb_id)
        download, recognition = await self._pickable(download_id)
        return await self._decide(download, *await self._with_candidate(recognition, found))

    async def _decide(self, download: Download, recognition_id: Id, candidate_id: Id) -> Download:
        """The pick, for a download and recognition ``_pickable`` has just read."""
        await self._store.recognitions.choose(recognition_id, candidate_id)
        for_download(download.id).info(
            "download.title_chosen", recognition_id=recognition_id, candidate_id=candidate_id
        )
        if download.state == State.DONE:
            return await self.relink(download.id)
        chosen = await self._store.downloads.move(
            download.id, State.IMPORTING, reason=reason("person.picked"), expected={State.REVIEW}
        )
        self._wake_importer()
        return chosen

    async def correct(self, download_id: Id, values: Mapping[str, str]) -> bool:
        """Fields set by the person (an empty one is removed). True when the download
        is recognized again with them now; False when they are only kept for its
        recognition, which has not happened yet."""
        check_overrides(values)
        download = await self._store.downloads.get_download(download_id)
        await self._store.recognitions.set_overrides(download.id, values)
        set_fields = sorted(field for field, value in values.items() if value)
        for_download(download.id).info("download.overrides_set", fields=set_fields)
        recognition = await self._store.recognitions.current(download.id)
        if recognition is None or download.state not in PICKABLE | {State.IMPORTING}:
            return False
        why = reason("person.corrected")
        await self._store.recognitions.set_status(recognition.id, Status.WAITING, why)
        if download.state == State.REVIEW:
            await self._store.downloads.move(
                download.id, State.IMPORTING, reason=why, expected={State.REVIEW}
            )
        elif download.state == State.DONE:
            await self.relink(download.id)
        self._wake_importer()
        return True

    async def _pickable(self, download_id: Id) -> tuple[Download, StoredRecognition]:
        download = await self._store.downloads.get_download(download_id)
        if download.state not in PICKABLE:
            raise InvalidTransitionError(download.id, download.state, State.IMPORTING)
        recognition = await self._store.recognitions.current(download.id)
        if recognition is None:
            raise NotRecognizedError(download.id)
        return download, recognition

    async def _with_candidate(
        self, recognition: StoredRecognition, found: Candidate
    ) -> tuple[Id, Id]:
        """The recognition and candidate ids of ``found``: among the current candidates,
        or in a new recognition that holds it beside them (one transaction: ``save``)."""
        for stored in recognition.candidates:
            candidate = stored.candidate
            same = (candidate.provider, candidate.kind, candidate.provider_id)
            if same == (found.provider, found.kind, found.provider_id):
                return recognition.id, stored.id
        # The person's own pick: nothing is surer.
        picked = StoredCandidate.of(found, selected=False, score=1.0)
        kept = [replace(c, id=new_id(), selected=False) for c in recognition.candidates]
        saved = await self._store.recognitions.save(
            recognition.download_id,
            kind=recognition.kind,
            title=recognition.title,
            year=recognition.year,
            season=recognition.season,
            status=Status.NEEDS_REVIEW,
            reason=reason("picked"),
            files=recognition.files,
            candidates=[picked, *kept],
        )
        for_download(recognition.download_id).info(
            "recognition.found_by_hand", recognition_id=saved, candidate_id=picked.id
        )
        return saved, picked.id

    async def relink(self, download_id: Id) -> Download:
        """done -> importing (guarded): the layout is applied again with the
        current recognition; refused when another active download has the hash."""
        relinked = await self._store.downloads.move(
            download_id, State.IMPORTING, reason=reason("person.relink"), expected={State.DONE}
        )
        for_download(relinked.id).info("download.relink_requested")
        self._wake_importer()
        return relinked

    async def relink_title(self, title_id: Id) -> list[Download]:
        """Every done download of a library title laid out again (its folder kept)."""
        inventory = await self._store.titles.inventory(title_id)
        if inventory is None:
            raise NotFoundError("title", title_id)
        done = [d for d, _, state in inventory.downloads if state == State.DONE]
        return [await self.relink(download_id) for download_id in done]

    async def remove_from_library(self, download_id: Id) -> int:
        """jellybit's links of a done download undone (a version the person does not
        want): only files that are still the ones it made; the torrent and its files
        in qBittorrent stay. Relink puts them back. How many were removed."""
        download = await self._store.downloads.get_download(download_id)
        if download.state != State.DONE:
            raise InvalidTransitionError(download.id, download.state, State.DONE)
        removed = await self._remove_links(download.id)
        for_download(download.id).info("download.removed_from_library", links=removed)
        return removed

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


class CatalogueSearch:
    """The person's own search for a title (the review page); reads only."""

    def __init__(self, tmdb: TmdbClient | None) -> None:
        self._tmdb = tmdb

    @property
    def enabled(self) -> bool:
        return self._tmdb is not None and self._tmdb.enabled

    async def search(self, kind: MediaKind, text: str, year: int | None) -> list[Candidate]:
        if self._tmdb is None or not self._tmdb.enabled:
            raise SearchOffError()
        return await self._tmdb.search(kind, text, year)
