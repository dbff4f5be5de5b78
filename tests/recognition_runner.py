"""The product's recognition as ``tests.recognition_eval`` runs it: ``identify_download``
with the parser inline (the product runs it in a worker process)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.config import MetadataSettings
from core.naming import episode_tag
from recognition.candidates import Candidate, MediaKind
from recognition.gather import query_of
from recognition.identify import Release, identify_download, parse_release_of
from recognition.lookups import Lookup
from recognition.placement import files_for
from recognition.recognize import Recognized, RecognizedFile, TorrentFile
from tests.recognition_eval import Case, Result
from worker.tmdb import TmdbClient


async def parse(source: Release, kind: MediaKind | None) -> Recognized:
    return parse_release_of(source, kind)


async def identify(case: Case, tmdb: TmdbClient, content: Path) -> Result:
    texts = tuple(p.read_text(encoding="utf-8") for p in sorted(content.rglob("*.nfo")))
    source = Release(
        name=case.name,
        files=tuple(TorrentFile(path, size) for path, size in case.files),
        hints=case.hints,
        texts=texts,
        dn=case.dn,
    )
    settings = MetadataSettings(language=case.language)
    found = await identify_download(
        source, parse, Lookup(tmdb), auto_accept=settings.auto_accept, language=case.language
    )
    chosen = found.chosen
    offered = tuple(c.ref for c in found.candidates)
    explain = [
        f"query: {query_of(found.recognized)}",
        f"reason: {found.reason}",
        *(
            f"{c.ref} {c.title!r} ({c.year}) pop {c.popularity} seasons {c.seasons} "
            f"score {c.score}: {c.evidence}"
            for c in found.candidates
        ),
        *(f"file {f.path}: S{f.season} E{f.episodes} {f.role}" for f in found.recognized.files),
    ]
    return Result(
        chosen.ref if chosen else None,
        offered,
        _tags(
            files_for(chosen.kind, chosen.seasons, chosen.evidence, found.recognized.files)[0]
            if chosen
            else (),
            chosen,
        ),
        found.reason.code,
        tuple(explain),
    )


def _tags(files: Sequence[RecognizedFile], chosen: Candidate | None) -> dict[str, str]:
    tags = {}
    for file in files:
        if file.role != "video":
            continue
        if chosen is None or chosen.kind != "series":
            tags[file.path] = "movie"
        elif file.episodes:
            season = 1 if file.season is None else file.season
            tags[file.path] = episode_tag(season, file.episodes)
        else:
            tags[file.path] = "none"
    return tags
