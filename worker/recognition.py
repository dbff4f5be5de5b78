"""Recognition: from a complete torrent to a recognition with scored candidates.

Files come from qBittorrent; names are parsed with guessit in a worker PROCESS:
it is CPU-bound, and in a thread its long regular-expression calls hold the GIL
(the loop lagged ~90 ms during a 200-file season; bench/import_bench.py);
hints and overrides win over parsing; candidates come from TMDB (or, with
``provider = "none"``, the parsed name is the only one). The top candidate is
accepted only when it is clearly ahead; otherwise the person picks on the
review page.
"""

import asyncio
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context

from core.config import MetadataSettings
from core.ids import new_id
from core.models import Download
from core.recognize import Recognized, RecognizedFile, TorrentFile, recognize
from core.scoring import Candidate, MediaKind, decide, score
from jellybit.logs import Logger
from store import Store
from store.recognition import StoredCandidate, StoredFile
from worker.parent import exit_with_parent
from worker.poller import Poller
from worker.qbt import QbtClient
from worker.tmdb import TmdbClient

MAX_CANDIDATES = 5


def parser_pool() -> ProcessPoolExecutor:
    """The one process that runs guessit. Spawned, not forked: the parent has
    threads (SQLite, qBittorrent) mid-call. It ends by itself when jellybit dies
    without shutting it down (SIGKILL, OOM): it holds both ends of its own task
    pipe, so it would otherwise wait for work forever, and keep the resource
    tracker alive with it."""
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=get_context("spawn"),
        initializer=exit_with_parent,
        initargs=(os.getpid(),),
    )


@dataclass(frozen=True)
class Outcome:
    status: str  # auto | needs_review
    reason: str | None


class Recognizer:
    def __init__(
        self,
        store: Store,
        qbt: QbtClient,
        poller: Poller,
        settings: MetadataSettings,
        tmdb: TmdbClient | None,
    ) -> None:
        self._store = store
        self._qbt = qbt
        self._poller = poller
        self._settings = settings
        self._tmdb = tmdb
        self._parser = parser_pool()

    async def close(self) -> None:
        await asyncio.to_thread(self._parser.shutdown, wait=True, cancel_futures=True)

    async def recognize(self, download: Download, log: Logger) -> Outcome:
        """Recognize and store the result. Raises ``UnreachableError`` when
        qBittorrent or TMDB cannot answer: nothing is guessed meanwhile."""
        files = await self._files(download)
        hints = await self._store.telegram.hints(download.id)
        overrides = await self._store.recognitions.overrides(download.id)
        loop = asyncio.get_running_loop()
        recognized = await loop.run_in_executor(
            self._parser, recognize, download.name, files, hints, dict(overrides)
        )
        candidates = await self._candidates(recognized)
        chosen = decide(candidates, self._settings.auto_accept) if candidates else None
        reason = None if chosen is not None else _review_reason(recognized, candidates)
        status = "auto" if chosen is not None else "needs_review"
        recognition_id = await self._store.recognitions.save(
            download.id,
            kind=recognized.kind,
            title=recognized.title,
            year=recognized.year,
            season=recognized.season,
            status=status,
            reason=reason,
            files=[_stored_file(f, files) for f in recognized.files if f.role != "skip"],
            candidates=[_stored(c, c is chosen) for c in candidates],
        )
        log.info(
            "recognition.done",
            recognition_id=recognition_id,
            kind=recognized.kind,
            title=recognized.title,
            year=recognized.year,
            status=status,
            candidates=len(candidates),
        )
        return Outcome(status, reason)

    async def _files(self, download: Download) -> list[TorrentFile]:
        found = await self._poller.find_torrent(download.hash_values())
        if found is None:
            return []
        answer = await self._qbt.torrent_files(found[0])
        return [TorrentFile(path=str(f["name"]), size=int(f["size"])) for f in answer]

    async def _candidates(self, recognized: Recognized) -> list[Candidate]:
        title, kind = recognized.title, recognized.kind
        if title is None or kind == "unknown":
            return []
        if self._settings.provider == "none" or self._tmdb is None:
            return [_local(recognized, kind, title)]
        found = await self._tmdb.search(kind, title, recognized.year)
        if not found and recognized.alt_title:  # "Дюна / Dune": the other name
            found = await self._tmdb.search(kind, recognized.alt_title, recognized.year)
        if not found and recognized.year is not None:  # a wrong year must not hide the title
            found = await self._tmdb.search(kind, title, None)
        return score(title, recognized.alt_title, recognized.year, found)[:MAX_CANDIDATES]


def _local(recognized: Recognized, kind: MediaKind, title: str) -> Candidate:
    """With no metadata provider the parsed name is the only candidate: sure
    enough when it has a title, and a year for a movie."""
    complete = kind == "series" or recognized.year is not None
    return Candidate(
        provider="local",
        provider_id=None,
        kind=kind,
        title=title,
        original_title=None,
        year=recognized.year,
        overview=None,
        poster_path=None,
        popularity=0.0,
        score=1.0 if complete else 0.0,
    )


def _review_reason(recognized: Recognized, candidates: Sequence[Candidate]) -> str:
    if recognized.title is None or recognized.kind == "unknown":
        return "could not tell what this is from its name"
    if not candidates:
        return f"no match for {recognized.title!r} in the metadata"
    if len(candidates) > 1:
        return "several titles match; pick the right one"
    return "the match is not certain enough"


def _stored(candidate: Candidate, selected: bool) -> StoredCandidate:
    return StoredCandidate(
        id=new_id(),
        provider=candidate.provider,
        provider_id=candidate.provider_id,
        kind=candidate.kind,
        title=candidate.title,
        original_title=candidate.original_title,
        year=candidate.year,
        overview=candidate.overview,
        poster_path=candidate.poster_path,
        popularity=candidate.popularity,
        score=candidate.score,
        selected=selected,
    )


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
    )
