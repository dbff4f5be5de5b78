"""Import: a complete download becomes files in the Jellyfin library.

``importing`` downloads are recognized (once) and laid out as a batch: every
(source, target) is planned in one transaction, then each file is linked and
its row marked, so an interrupted batch is finished by running again. A relink
undoes the previous batch first (only links that are still ours). Uncertain
recognition or a conflict at a target -> ``review``; a refused cross-device
hardlink or a library folder that refuses a write -> ``failed``; success ->
``done``. These changes are announced in
the chat through the outbox.
"""

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from common.logs import Logger, get_logger
from core import clock
from core.config import LibrarySettings, LinkMode
from core.errors import ExternalError
from core.ids import Id
from core.models import Download, SnapshotChange, Transition
from core.naming import (
    DuplicateTargetError,
    LibraryFile,
    Title,
    episode_tag,
    folder_name,
    plan_targets,
    season_folder,
    version_label,
)
from core.reasons import Reason, reason
from core.states import State
from recognition.candidates import Candidate
from recognition.identify import Status
from recognition.placement import files_for
from recognition.recognize import RecognizedFile, Role
from store import Store
from store.recognition import FileLink, HeldLink, StoredCandidate, StoredFile, StoredRecognition
from worker.jellyfin import JellyfinClient
from worker.layout import (
    CrossDeviceError,
    EscapeError,
    LayoutError,
    Linked,
    MissingError,
    StorageError,
    check_target,
    link,
    resolve_source,
    same_file,
    unlink_if_ours,
)
from worker.pacing import Loop
from worker.recognizer import Recognizer
from worker.tmdb import parse_tmdb_id

TICK = 5.0
MAX_WAIT = 300.0
# An error of our own making (a bug, bad stored data, a library folder jellybit
# may not write to) is tried this often, 2 s and 4 s apart, then the download
# fails with the error as its reason: Retry once it is fixed.
UNEXPECTED_TRIES = 3
_PICK = reason("review.unsure")


class Importer:
    def __init__(
        self,
        store: Store,
        recognizer: Recognizer,
        library: LibrarySettings,
        jellyfin: JellyfinClient,
        wake: asyncio.Event,  # also set by the poller and the actions: a download to import
    ) -> None:
        self.wake = wake
        self.loop = Loop("importer", self.tick, interval=TICK, wake=self.wake)
        self._store = store
        self._recognizer = recognizer
        self._library = library
        self._jellyfin = jellyfin
        self._not_before: dict[Id, float] = {}  # waiting for TMDB or qBittorrent: backoff
        self._failures: dict[Id, int] = {}  # external errors in a row
        self._crashes: dict[Id, int] = {}  # unexpected errors in a row
        self._refresh_pending: list[str] = []

    async def run(self, stop: asyncio.Event) -> None:
        # The parser processes start with the first download to recognize
        # (worker/cpu.py): an idle jellybit holds none.
        await self.loop.run(stop)

    async def tick(self) -> None:
        """Every ``importing`` download that is due, one per worker process at a
        time (a big season pack does not hold back a movie)."""
        batch: dict[tuple[Any, ...], Any] = {}  # TMDB's answers, shared by this batch
        due = [
            download
            for download in await self._store.tracking.list_in_states({State.IMPORTING})
            if clock.monotonic() >= self._not_before.get(download.id, 0.0)
        ]
        gate = asyncio.Semaphore(self._recognizer.parallel)

        async def one(download: Download) -> None:
            async with gate:
                try:
                    await self.process(download, batch)
                    self._crashes.pop(download.id, None)
                except Exception as error:  # one broken download must not hold back the others
                    await self._crashed(download, error)

        await asyncio.gather(*(one(download) for download in due))
        await self._refresh_jellyfin([])

    async def process(
        self, download: Download, batch: dict[tuple[Any, ...], Any] | None = None
    ) -> None:
        log = get_logger(download_id=download.id)
        recognition = await self._store.recognitions.current(download.id)
        if recognition is None or recognition.status == Status.WAITING:
            try:
                outcome = await self._recognizer.recognize(download, log, batch)
            except ExternalError as error:
                await self._wait(download, recognition, error, log)
                return
            self._failures.pop(download.id, None)
            if outcome.status != Status.AUTO:
                await self._move(download, State.REVIEW, outcome.reason)
                return
            recognition = await self._store.recognitions.current(download.id)
        assert recognition is not None
        chosen = recognition.chosen()
        if chosen is None:
            await self._move(download, State.REVIEW, recognition.reason or _PICK)
            return
        if chosen.candidate.kind != recognition.kind:
            # The person picked a show for what read as a movie in parts (or the other
            # way round): its files are read again as that kind.
            recognition = await self._recognizer.recognize_as(download, recognition, chosen)
        await self._lay_out(download, recognition, chosen, log.bind(recognition_id=recognition.id))

    async def _wait(
        self,
        download: Download,
        recognition: StoredRecognition | None,
        error: ExternalError,
        log: Logger,
    ) -> None:
        """An external system is down: wait visibly, try again later, never guess."""
        why = reason("waiting", system=error.system, detail=error.detail)
        failures = self._failures.get(download.id, 0) + 1
        self._failures[download.id] = failures
        self._not_before[download.id] = clock.monotonic() + min(2.0 * 2 ** (failures - 1), MAX_WAIT)
        if recognition is None:
            await self._store.recognitions.save(
                download.id, kind="unknown", title=None, year=None, season=None,
                status=Status.WAITING, reason=why, files=[], candidates=[],
            )  # fmt: skip
        else:
            await self._store.recognitions.set_status(recognition.id, Status.WAITING, why)
        log.warning("import.waiting", reason=str(error), attempt=failures)

    async def _crashed(self, download: Download, error: Exception) -> None:
        """Try again soon; the ``UNEXPECTED_TRIES``-th time, undo and fail with the
        error as the reason (announced like every failure), never loop silently."""
        log = get_logger(download_id=download.id)
        crashes = self._crashes.get(download.id, 0) + 1
        log.exception("import.failed_unexpectedly", attempt=crashes)
        if crashes < UNEXPECTED_TRIES:
            self._crashes[download.id] = crashes
            self._not_before[download.id] = clock.monotonic() + 2.0 * 2 ** (crashes - 1)
            return
        self._crashes.pop(download.id, None)
        self._not_before.pop(download.id, None)
        detail = f"{type(error).__name__}: {error}"[:300]
        why = reason("import.error", detail=detail)
        try:
            await self._abandon(download, State.FAILED, why, log)
        except Exception:  # even undoing fails (the store?): the next tick tries again
            log.exception("import.abandon_failed")

    async def _lay_out(
        self,
        download: Download,
        recognition: StoredRecognition,
        chosen: StoredCandidate,
        log: Logger,
    ) -> None:
        title = await self._library_title(download, chosen)
        planned = await self._batch(download, recognition, chosen, title, log)
        if planned is None:
            return
        rows, merged = planned
        if not rows:
            await self._move(download, State.REVIEW, reason("review.no_video"))
            return
        log = log.bind(batch_id=rows[0].batch_id if rows else None)
        try:
            linked = [await self._link(download, row) for row in rows if row.linked_at is None]
        except (CrossDeviceError, StorageError) as error:  # setup: fix it, press Retry
            await self._abandon(download, State.FAILED, error.reason, log)
            return
        except MissingError as error:  # its files are gone: Download again, no pick helps
            await self._abandon(download, State.FAILED, error.reason, log)
            return
        except LayoutError as error:  # a conflict, an escape: the person decides
            await self._abandon(download, State.REVIEW, error.reason, log)
            return
        methods = {entry.method for entry in linked} | {r.method for r in rows if r.method}
        targets = [row.target_path for row in rows]
        log.info("import.done", files=len(rows), methods=sorted(methods))
        await self._refresh_jellyfin(targets)
        done = merged or _summary(title, methods, self._library.link_mode)
        await self._move(download, State.DONE, done)

    async def _library_title(self, download: Download, chosen: StoredCandidate) -> Title:
        """The chosen candidate as the library's title: a title the library already
        has keeps its folder, whatever the candidate's name is today."""
        title = _title(chosen.candidate)
        held = await self._store.titles.adopt(download.id, chosen.candidate, folder_name(title))
        return replace(title, folder=held.folder)

    async def _batch(
        self,
        download: Download,
        recognition: StoredRecognition,
        chosen: StoredCandidate,
        title: Title,
        log: Logger,
    ) -> tuple[list[FileLink], Reason | None] | None:
        """The batch to apply, and what the done message says when the download
        merged into what the library had: an unfinished batch (a crash midway) is
        finished; otherwise the previous one is undone (relink) and a new one
        planned. None: the download went elsewhere (review, or done: skipped)."""
        links = await self._store.recognitions.links(download.id)
        batches = {row.batch_id for row in links if row.linked_at is None}
        if batches:
            batch = min(batches)
            return [row for row in links if row.batch_id == batch], None
        await self._undo(links, log)
        candidate = chosen.candidate
        files, why = files_for(
            candidate.kind,
            candidate.seasons,
            candidate.evidence,
            [_recognized(f) for f in recognition.files],
        )
        if why is not None:
            await self._move(download, State.REVIEW, why)
            return None
        library_files = [
            LibraryFile(
                source=f.path,
                role="video" if f.role == "video" else "subtitle",
                season=f.season,
                episodes=f.episodes,
                language=f.language,
                flags=f.flags,
                video=f.video,
            )
            for f in files
        ]
        try:
            targets = self._plan(title, library_files)
            same = await self._already_there(download, library_files)
            held = await self._held(
                download, [str(t) for s, t in targets.items() if s not in same], log
            )
            merged = await self._merge(download, title, library_files, targets, held, log, same)
        except DuplicateTargetError as error:
            await self._move(download, State.REVIEW, error.reason)
            return None
        if merged is None:
            return None
        targets, why = merged
        targets = {source: target for source, target in targets.items() if source not in same}
        if same and not any(f.role == "video" and f.source in targets for f in library_files):
            # Every video is a file the title already shows: nothing is laid out twice.
            log.info("import.already_there", files=len(same))
            await self._move(download, State.DONE, reason("import.kept", folder=folder_name(title)))
            return None
        batch = await self._store.recognitions.plan_batch(
            download.id, [(source, str(target)) for source, target in targets.items()]
        )
        rows = [r for r in await self._store.recognitions.links(download.id) if r.batch_id == batch]
        if not rows and why is not None:  # every file was already there: skipped
            await self._move(download, State.DONE, why)
            return None
        return rows, why

    def _plan(self, title: Title, files: Sequence[LibraryFile]) -> dict[str, Path]:
        return plan_targets(title, files, movies=self._library.movies, shows=self._library.shows)

    async def _already_there(
        self, download: Download, files: Sequence[LibraryFile]
    ) -> frozenset[str]:
        """The sources that are a file the title already has in the library (the same
        inode, or the same size and bytes for a copy). Such a file is never a version,
        whatever brought the download here: a second ingest, adopt, retry, relink."""
        held = await self._store.recognitions.title_links(download.id)
        if not held:
            return frozenset()
        return await asyncio.to_thread(
            _same_files,
            Path(download.save_path or ""),
            [f.source for f in files],
            [Path(row.target_path) for row in held],
        )

    async def _held(
        self, download: Download, targets: list[str], log: Logger
    ) -> dict[str, HeldLink]:
        """Other downloads' links at ``targets``; a link whose file is gone from the
        library (the person deleted it) is marked removed and holds nothing. A library
        root that is empty is taken as not mounted: its links are kept."""
        held = await self._store.recognitions.held_by_others(download.id, targets)
        roots = (self._library.movies, self._library.shows)
        gone = await asyncio.to_thread(
            lambda: [
                h.link.id
                for h in held.values()
                if h.link.linked_at is not None
                and not os.path.lexists(h.target_path)
                and _mounted(roots, Path(h.target_path))
            ]
        )
        if gone:
            await self._store.recognitions.mark_removed(gone)
            log.info("import.gone_links_released", links=len(gone))
        return {t: h for t, h in held.items() if h.link.id not in gone}

    async def _merge(
        self,
        download: Download,
        title: Title,
        files: Sequence[LibraryFile],
        targets: dict[str, Path],
        held: Mapping[str, HeldLink],
        log: Logger,
        same: frozenset[str] = frozenset(),
    ) -> tuple[dict[str, Path], Reason | None] | None:
        """The targets once what the library already holds is accounted for, by
        ``library.duplicates`` (or the person's choice for this download): a version
        beside it, in its place, asked, or skipped. New seasons and episodes simply
        join the title's folder ("Added S02 to …"). None: asked (review)."""
        folder = folder_name(title)
        if not held:
            others = await self._store.recognitions.title_targets(download.id)
            added = _added(title, [f for f in files if f.source not in same], others)
            merged = None if added is None else reason("import.merged", what=added, folder=folder)
            return targets, merged
        choice = (await self._store.recognitions.overrides(download.id)).get("duplicates")
        policy = choice or self._library.duplicates
        first = held[min(held)]
        if policy == "review":
            why = reason("layout.in_library", target=first.target_path, other=first.download_name)
            await self._move(download, State.REVIEW, why)
            return None
        taken = {Path(t) for t in held}
        if policy == "skip":
            kept = {s: t for s, t in targets.items() if t not in taken}
            return kept, None if kept else reason("import.kept", folder=folder)
        if policy == "replace":
            await self._undo([h.link for h in held.values()], log)
            return targets, reason("import.replaced", folder=folder)
        label = version_label(download.name) or "2"
        for attempt in range(1, 10):
            wanted = label if attempt == 1 else f"{label} {attempt}"
            versioned = [
                replace(f, version=wanted) if targets[f.source] in taken else f for f in files
            ]
            again = self._plan(title, versioned)
            moved = [str(t) for s, t in again.items() if t != targets[s]]
            if not await self._store.recognitions.held_by_others(download.id, moved):
                return again, reason("import.version", folder=folder, label=wanted)
        raise DuplicateTargetError(Path(first.target_path), first.download_name, download.name)

    async def _link(self, download: Download, row: FileLink) -> Linked:
        target = Path(row.target_path)
        linked = await asyncio.to_thread(
            _link_one,
            Path(download.save_path or ""),
            Path(download.content_path or download.save_path or ""),
            row.source_path,
            self._root_of(target),
            target,
            self._library,
        )
        await self._store.recognitions.mark_linked(
            row.id, method=linked.method, inode=linked.inode, device=linked.device
        )
        return linked

    async def _abandon(self, download: Download, to_state: State, why: Reason, log: Logger) -> None:
        """A batch that cannot complete is undone: nothing half-applied stays."""
        await self._undo(await self._store.recognitions.links(download.id), log)
        log.warning("import.abandoned", reason=why.english())
        await self._move(download, to_state, why)

    async def remove_links(self, download_id: Id) -> int:
        """The download's current links undone (only files still ours), Jellyfin told."""
        links = await self._store.recognitions.links(download_id)
        await self._undo(links, get_logger(download_id=download_id))
        await self._refresh_jellyfin([row.target_path for row in links])
        return len(links)

    async def _undo(self, links: Sequence[FileLink], log: Logger) -> None:
        for row in links:
            if row.inode is not None and row.device is not None:
                target = Path(row.target_path)
                await asyncio.to_thread(
                    unlink_if_ours, target, row.inode, row.device, self._root_of(target)
                )
        if links:
            await self._store.recognitions.mark_removed([row.id for row in links])
            log.info("import.undone", links=len(links))

    def _root_of(self, target: Path) -> Path:
        shows = self._library.shows
        return shows if target.is_relative_to(shows) else self._library.movies

    async def _move(self, download: Download, to_state: State, why: Reason) -> None:
        move = Transition(State.IMPORTING, to_state, why)
        for _ in await self._store.tracking.apply_changes([SnapshotChange(download.id, {}, move)]):
            get_logger(download_id=download.id).info(
                "download.state_changed",
                from_state=State.IMPORTING,
                to_state=to_state,
                reason=why.english(),
            )

    async def _refresh_jellyfin(self, paths: list[str]) -> None:
        """Tell Jellyfin about new files; a failure is retried on the next tick and
        never fails the import."""
        if not self._jellyfin.enabled:
            return
        self._refresh_pending.extend(paths)
        if not self._refresh_pending:
            return
        try:
            await self._jellyfin.media_updated(self._refresh_pending)
            self._refresh_pending = []
        except ExternalError as error:
            get_logger().warning("jellyfin.refresh_delayed", reason=str(error))


def _recognized(file: StoredFile) -> RecognizedFile:
    role: Role = "video" if file.role == "video" else "subtitle"
    return RecognizedFile(
        file.path,
        role,
        file.season,
        file.episodes,
        file.language,
        file.flags,
        file.video,
        absolute=file.absolute,
    )


def _title(chosen: Candidate) -> Title:
    tmdb_id = None
    if chosen.provider == "tmdb":
        tmdb_id = parse_tmdb_id(chosen.provider_id)
        if tmdb_id is None:  # stored before ids were checked on the way in
            raise ValueError(f"not a TMDB id: {chosen.provider_id!r}"[:80])
    if chosen.kind == "series":
        return Title(kind="series", title=chosen.title, year=chosen.year, tmdb_id=tmdb_id)
    return Title(kind="movie", title=chosen.title, year=chosen.year, tmdb_id=tmdb_id)


def _added(title: Title, files: Sequence[LibraryFile], others: Sequence[str]) -> str | None:
    """What a show's download adds to what the library had of it: its new seasons
    ("S02"), else its episodes ("S01E05"); None when the title is new to the library."""
    if title.kind != "series" or not others:
        return None
    had = {PurePosixPath(path).parent.name for path in others}
    videos = [f for f in files if f.role == "video" and f.episodes]
    seasons = sorted({1 if f.season is None else f.season for f in videos})
    new = [f"S{n:02d}" for n in seasons if season_folder(n) not in had]
    tags = new or [episode_tag(1 if f.season is None else f.season, f.episodes) for f in videos]
    return ", ".join(tags[:5]) + (" …" if len(tags) > 5 else "") if tags else None


def _summary(title: Title, methods: set[LinkMode], mode: LinkMode) -> Reason:
    """Where it went; a hardlink that became a copy is said, never silent."""
    copied = mode == "hardlink" and "copy" in methods
    return reason("import.done_copied" if copied else "import.done", folder=folder_name(title))


def _mounted(roots: Sequence[Path], target: Path) -> bool:
    """Whether the library root holding ``target`` has anything in it (an unmounted
    disk's mount point is an empty folder, or none)."""
    root = next((r for r in roots if target.is_relative_to(r)), None)
    if root is None:
        return True
    try:
        with os.scandir(root) as entries:
            return next(entries, None) is not None
    except OSError:
        return False


def _same_files(save_path: Path, sources: Sequence[str], held: Sequence[Path]) -> frozenset[str]:
    """The sources that are one of the ``held`` library files (in a thread: file
    system calls block). A source that cannot be read is left to ``_link_one``,
    which says why."""
    same = set()
    for source in sources:
        try:
            real = resolve_source(save_path, source)
        except LayoutError:
            continue
        if any(same_file(real, target) for target in held):
            same.add(source)
    return frozenset(same)


def _link_one(
    save_path: Path,
    content: Path,
    source: str,
    root: Path,
    target: Path,
    library: LibrarySettings,
) -> Linked:
    """Both ends checked, then linked (in a thread: file system calls block).
    The source must be inside the download's content, the target inside its root."""
    resolved = resolve_source(save_path, source)
    inside = content.resolve()
    if resolved != inside and not resolved.is_relative_to(inside):
        raise EscapeError(reason("layout.outside_download", name=source))
    return link(
        resolved,
        check_target(root, target),
        mode=library.link_mode,
        cross_device=library.cross_device,
    )
