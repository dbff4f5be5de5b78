"""Recognition: from a complete torrent to a recognition with weighed candidates.

Files come from qBittorrent; names are parsed in the worker processes of
``worker.cpu`` (in a thread guessit held the GIL: the loop lagged ~90 ms during a
200-file season; bench/import_bench.py); the small text
files of the torrent (``.nfo``) and the magnet's ``dn`` are read for ids; hints and
overrides win over parsing; the title is found and decided by
``recognition.identify`` (TMDB, or with ``provider = "none"`` the parsed name).
"""

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from common.logs import Logger
from core.config import MetadataSettings
from core.errors import InvalidInputError, RejectedError
from core.ids import new_id
from core.magnet import parse_magnet
from core.models import Download
from core.reasons import Reason
from recognition.candidates import MediaKind
from recognition.identify import Release, Status, identify_download, parse_release_of
from recognition.lookups import Lookup
from recognition.parsing.files import extension
from recognition.recognize import Recognized, RecognizedFile, TorrentFile
from store import Store
from store.recognition import StoredCandidate, StoredFile, StoredRecognition
from worker.cpu import CpuPool
from worker.layout import LayoutError, resolve_source
from worker.poller import Poller
from worker.qbt import QbtClient
from worker.tmdb import TmdbClient

TEXT_EXTENSIONS = frozenset({"nfo", "txt"})
MAX_TEXT_BYTES = 256 * 1024  # an .nfo is a few KiB; more is not an .nfo
MAX_TEXTS = 4


@dataclass(frozen=True)
class Outcome:
    status: Status  # AUTO or NEEDS_REVIEW
    reason: Reason


class Recognizer:
    def __init__(
        self,
        store: Store,
        qbt: QbtClient,
        poller: Poller,
        settings: MetadataSettings,
        tmdb: TmdbClient | None,
        cpu: CpuPool,
    ) -> None:
        self._store = store
        self._qbt = qbt
        self._poller = poller
        self._settings = settings
        self._tmdb = tmdb if tmdb is not None and tmdb.enabled else None
        self._cpu = cpu
        self.parallel = cpu.workers  # downloads worth recognizing at once

    async def recognize(
        self, download: Download, log: Logger, cache: dict[tuple[Any, ...], Any] | None = None
    ) -> Outcome:
        """Recognize and store the result. Raises ``UnreachableError`` when
        qBittorrent or TMDB cannot answer: nothing is guessed meanwhile. ``cache``
        holds TMDB's answers for a batch of downloads."""
        source = await self._release(download)
        files = source.files
        lookup = None if self._tmdb is None else Lookup(self._tmdb, {} if cache is None else cache)
        found = await identify_download(
            source,
            self._parse,
            lookup,
            auto_accept=self._settings.auto_accept,
            language=self._settings.language,
        )
        recognized, chosen = found.recognized, found.chosen
        status = Status.AUTO if chosen is not None else Status.NEEDS_REVIEW
        recognition_id = await self._store.recognitions.save(
            download.id,
            kind=recognized.kind,
            title=recognized.title,
            year=recognized.year,
            season=recognized.season,
            status=status,
            reason=found.reason,
            files=[_stored_file(f, files) for f in recognized.files if f.role != "skip"],
            candidates=[StoredCandidate.of(c, selected=c is chosen) for c in found.candidates],
        )
        log.info(
            "recognition.done",
            recognition_id=recognition_id,
            kind=recognized.kind,
            title=recognized.title,
            year=recognized.year,
            status=status,
            reason=found.reason.code,
            candidates=len(found.candidates),
            tmdb_requests=lookup.spent if lookup else 0,
        )
        return Outcome(status, found.reason)

    async def recognize_as(
        self, download: Download, recognition: StoredRecognition, chosen: StoredCandidate
    ) -> StoredRecognition:
        """The person picked a title of another kind than the files read as (a show
        for "Part 1…N"): the files are read again as that kind, the pick kept."""
        source = await self._release(download)
        recognized = await self._parse(source, chosen.candidate.kind)
        await self._store.recognitions.save(
            download.id,
            kind=recognized.kind,
            title=recognized.title,
            year=recognized.year,
            season=recognized.season,
            status=Status.CONFIRMED,
            reason=None,
            files=[_stored_file(f, source.files) for f in recognized.files if f.role != "skip"],
            candidates=[
                replace(c, id=new_id(), selected=c.id == chosen.id) for c in recognition.candidates
            ],
        )
        current = await self._store.recognitions.current(download.id)
        assert current is not None  # just saved
        return current

    async def _release(self, download: Download) -> Release:
        files = await self._files(download)
        return Release(
            name=download.name,
            files=tuple(files),
            hints=tuple(await self._store.telegram.hints(download.id)),
            overrides=dict(await self._store.recognitions.overrides(download.id)),
            texts=tuple(await asyncio.to_thread(_texts, download, files)),
            dn=_dn(download),
        )

    async def _parse(self, source: Release, kind: MediaKind | None) -> Recognized:
        return await self._cpu.call(parse_release_of, source, kind)

    async def _files(self, download: Download) -> list[TorrentFile]:
        """The torrent's files, by the id in the poller's last answer (the one that saw
        it complete): a poll of its own only before the poller's first answer, or
        when qBittorrent no longer knows that id (the torrent was deleted since)."""
        hashes = download.hash_values()
        live = self._poller.live
        seen = live.find(hashes) if live.synced else None
        if seen is not None:
            try:
                return _torrent_files(await self._qbt.torrent_files(seen[0]))
            except RejectedError:  # 404: gone since that answer
                pass
        found = await self._poller.find_torrent(hashes)
        if found is None:
            return []
        return _torrent_files(await self._qbt.torrent_files(found[0]))


def _torrent_files(answer: Sequence[Mapping[str, Any]]) -> list[TorrentFile]:
    return [TorrentFile(path=str(f["name"]), size=int(f["size"])) for f in answer]


def _dn(download: Download) -> str | None:
    """The magnet's ``dn``: it may carry a year or an id the torrent's own name lost."""
    try:
        name = parse_magnet(download.source_ref).name
    except InvalidInputError:
        return None
    return name if name and name != download.name else None


def _texts(download: Download, files: Sequence[TorrentFile]) -> list[str]:
    """The small text files of the download (``.nfo``): read from the save path,
    bounded in number and size; one that cannot be read is left out."""
    if not download.save_path:
        return []
    texts = []
    for file in files:
        if extension(file.path) not in TEXT_EXTENSIONS or not 0 < file.size <= MAX_TEXT_BYTES:
            continue
        try:
            path = resolve_source(Path(download.save_path), file.path)
            with path.open("rb") as source:
                texts.append(source.read(MAX_TEXT_BYTES).decode("utf-8", "replace"))
        except (OSError, LayoutError):
            continue
        if len(texts) == MAX_TEXTS:
            break
    return texts


def _stored_file(file: RecognizedFile, files: Sequence[TorrentFile]) -> StoredFile:
    sizes = {f.path: f.size for f in files}
    return StoredFile(
        path=file.path,
        role=file.role,
        size=sizes.get(file.path, 0),
        season=file.season,
        episodes=file.episodes,
        language=file.language,
        flags=file.flags,
        video=file.video,
        absolute=file.absolute,
    )
