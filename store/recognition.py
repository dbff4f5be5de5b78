"""Recognitions, their files and candidates, overrides, and library link batches."""

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Self

from core import clock
from core.config import LinkMode
from core.errors import NotFoundError
from core.ids import Id, new_id
from core.reasons import Reason
from recognition.candidates import Candidate
from recognition.identify import Status
from recognition.parsing.files import Role
from recognition.parsing.release import Kind
from store.db import Database
from store.rows import fetch_one


@dataclass(frozen=True)
class StoredFile:
    path: str
    role: Role
    size: int
    season: int | None
    episodes: tuple[int, ...]
    language: str | None
    flags: tuple[str, ...]
    video: str | None = None  # a subtitle's video
    absolute: bool = False  # "S3 - 59": numbered across seasons


@dataclass(frozen=True)
class StoredCandidate:
    """A candidate of a recognition, as stored: the record and whether it is the one
    chosen (by the decision or the person)."""

    id: Id
    candidate: Candidate  # with its evidence and score
    selected: bool

    @classmethod
    def of(cls, candidate: Candidate, *, selected: bool, score: float | None = None) -> Self:
        """A candidate as a new row (``score``: instead of the candidate's own)."""
        scored = candidate if score is None else replace(candidate, score=score)
        return cls(new_id(), scored, selected)


@dataclass(frozen=True)
class StoredRecognition:
    id: Id
    download_id: Id
    kind: Kind
    title: str | None
    year: int | None
    season: int | None
    status: Status
    reason: Reason | None
    created_at: str
    files: tuple[StoredFile, ...]
    candidates: tuple[StoredCandidate, ...]

    def chosen(self) -> StoredCandidate | None:
        return next((c for c in self.candidates if c.selected), None)


@dataclass(frozen=True)
class FileLink:
    id: Id
    batch_id: Id
    source_path: str
    target_path: str
    method: LinkMode | None
    inode: int | None
    device: int | None
    linked_at: str | None
    removed_at: str | None


@dataclass(frozen=True)
class HeldLink:
    """A current link of another download at a path this one wants."""

    link: FileLink
    download_id: Id
    download_name: str

    @property
    def target_path(self) -> str:
        return self.link.target_path


class Recognitions:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def save(
        self,
        download_id: Id,
        *,
        kind: Kind,
        title: str | None,
        year: int | None,
        season: int | None,
        status: Status,
        reason: Reason | None,
        files: Sequence[StoredFile],
        candidates: Sequence[StoredCandidate],
    ) -> Id:
        """A new recognition of a download with its files and candidates, in ONE
        transaction (the newest recognition is the current one)."""
        recognition_id, now = new_id(), clock.now()
        async with self._db.write() as conn:
            await conn.execute(
                """INSERT INTO recognition (id, download_id, kind, title, year, season, episodes,
                    confidence, status, reason, created_at)
                VALUES (:id, :download_id, :kind, :title, :year, :season, NULL,
                    :confidence, :status, :reason, :now)""",
                {
                    "id": recognition_id,
                    "download_id": download_id,
                    "kind": kind,
                    "title": title,
                    "year": year,
                    "season": season,
                    "confidence": max((c.candidate.score for c in candidates), default=0.0),
                    "status": status,
                    "reason": None if reason is None else reason.dumps(),
                    "now": now,
                },
            )
            await conn.executemany(
                """INSERT INTO recognition_file (recognition_id, path, role, size, season,
                    episodes, language, flags, video, absolute)
                VALUES (:rid, :path, :role, :size, :season, :episodes, :language, :flags,
                    :video, :absolute)""",
                [
                    {
                        "rid": recognition_id,
                        "path": f.path,
                        "role": f.role,
                        "size": f.size,
                        "season": f.season,
                        "episodes": json.dumps(list(f.episodes)),
                        "language": f.language,
                        "flags": json.dumps(list(f.flags)),
                        "video": f.video,
                        "absolute": int(f.absolute),
                    }
                    for f in files
                ],
            )
            await conn.executemany(
                """INSERT INTO metadata_candidate (id, recognition_id, provider, provider_id, kind,
                    title, original_title, year, score, selected, overview, poster_path,
                    popularity, evidence, seasons, record, created_at)
                VALUES (:id, :rid, :provider, :provider_id, :kind, :title, :original_title, :year,
                    :score, :selected, :overview, :poster_path, :popularity, :evidence, :seasons,
                    :record, :now)""",
                [_candidate_row(c, recognition_id, now) for c in candidates],
            )
        return recognition_id

    async def current(self, download_id: Id) -> StoredRecognition | None:
        return await self._db.read(lambda conn: read_current(conn, download_id))

    async def choose(self, recognition_id: Id, candidate_id: Id) -> bool:
        """The person picked a candidate: it becomes the only selected one and the
        recognition is confirmed. NotFoundError (nothing changed) when the candidate
        is not one of this recognition's."""
        async with self._db.write() as conn:
            cursor = await conn.execute(
                """UPDATE metadata_candidate SET selected = (id = :candidate)
                WHERE recognition_id = :rid""",
                {"rid": recognition_id, "candidate": candidate_id},
            )
            found = await fetch_one(
                conn,
                "SELECT 1 FROM metadata_candidate WHERE id = :c AND recognition_id = :rid",
                {"c": candidate_id, "rid": recognition_id},
            )
            if found is None or cursor.rowcount == 0:
                raise NotFoundError("candidate", candidate_id)
            await conn.execute(
                "UPDATE recognition SET status = :status, reason = NULL WHERE id = :rid",
                {"rid": recognition_id, "status": Status.CONFIRMED},
            )
        return True

    async def set_status(self, recognition_id: Id, status: Status, reason: Reason | None) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE recognition SET status = :status, reason = :reason WHERE id = :id",
                {
                    "id": recognition_id,
                    "status": status,
                    "reason": None if reason is None else reason.dumps(),
                },
            )

    async def set_overrides(self, download_id: Id, values: Mapping[str, str]) -> None:
        """Fields set by the person (kind, title, year, season, episode_offset); an
        empty value removes the override."""
        now = clock.now()
        async with self._db.write() as conn:
            for field, value in values.items():
                if value == "":
                    await conn.execute(
                        "DELETE FROM override WHERE download_id = :id AND field = :field",
                        {"id": download_id, "field": field},
                    )
                    continue
                await conn.execute(
                    """INSERT INTO override (id, download_id, field, value, created_at)
                    VALUES (:oid, :id, :field, :value, :now)
                    ON CONFLICT (download_id, field)
                    DO UPDATE SET value = :value, created_at = :now""",
                    {
                        "oid": new_id(),
                        "id": download_id,
                        "field": field,
                        "value": value,
                        "now": now,
                    },
                )

    async def overrides(self, download_id: Id) -> dict[str, str]:
        return await self._db.read(lambda conn: read_overrides(conn, download_id))

    # --- library link batches ---------------------------------------------

    async def plan_batch(self, download_id: Id, links: Iterable[tuple[str, str]]) -> Id:
        """Every (source, target) of a batch written before any file is touched:
        an interrupted batch is finished by applying its planned rows again."""
        batch_id, now = new_id(), clock.now()
        async with self._db.write() as conn:
            await conn.executemany(
                """INSERT INTO file_link (id, download_id, apply_batch_id, source_path,
                    target_path, created_at)
                VALUES (:id, :download_id, :batch, :source, :target, :now)""",
                [
                    {
                        "id": new_id(),
                        "download_id": download_id,
                        "batch": batch_id,
                        "source": source,
                        "target": target,
                        "now": now,
                    }
                    for source, target in links
                ],
            )
        return batch_id

    async def mark_linked(self, link_id: Id, *, method: str, inode: int, device: int) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                """UPDATE file_link SET method = :method, inode = :inode, device = :device,
                    linked_at = :now WHERE id = :id""",
                {
                    "id": link_id,
                    "method": method,
                    "inode": inode,
                    "device": device,
                    "now": clock.now(),
                },
            )

    async def mark_removed(self, link_ids: Iterable[Id]) -> None:
        async with self._db.write() as conn:
            await conn.executemany(
                "UPDATE file_link SET removed_at = :now WHERE id = :id",
                [{"id": i, "now": clock.now()} for i in link_ids],
            )

    async def links(self, download_id: Id, *, current_only: bool = True) -> list[FileLink]:
        """The download's links, oldest first; by default those not removed."""
        return await self._db.read(lambda conn: read_links(conn, download_id, current_only))

    async def held_by_others(self, download_id: Id, targets: Sequence[str]) -> dict[str, HeldLink]:
        """Current links of other downloads at any of ``targets``, by target."""
        return await self._db.read(lambda conn: read_held(conn, download_id, targets))

    async def title_targets(self, download_id: Id) -> list[str]:
        """Where the other downloads of this download's title are linked."""
        rows = await self._db.read(
            lambda conn: conn.execute(
                """SELECT l.target_path FROM file_link l JOIN download d ON d.id = l.download_id
                WHERE l.removed_at IS NULL AND l.download_id != :id AND d.title_id =
                    (SELECT title_id FROM download WHERE id = :id)""",
                {"id": download_id},
            ).fetchall()
        )
        return [row[0] for row in rows]

    async def title_links(self, download_id: Id) -> list[FileLink]:
        """The files the other downloads of this download's title have in the library
        (current and linked): what a file of this one may already be."""
        rows = await self._db.read(
            lambda conn: conn.execute(
                """SELECT l.* FROM file_link l JOIN download d ON d.id = l.download_id
                WHERE l.removed_at IS NULL AND l.linked_at IS NOT NULL
                  AND l.download_id != :id AND d.title_id =
                    (SELECT title_id FROM download WHERE id = :id)
                ORDER BY l.id""",
                {"id": download_id},
            ).fetchall()
        )
        return [_link(row) for row in rows]


# --- reads, run on the reader thread (``Database.read``) ----------------------


def read_current(conn: sqlite3.Connection, download_id: Id) -> StoredRecognition | None:
    """The download's latest recognition with its files and candidates."""
    row = conn.execute(
        "SELECT * FROM recognition WHERE download_id = :id ORDER BY id DESC LIMIT 1",
        {"id": download_id},
    ).fetchone()
    if row is None:
        return None
    files = conn.execute(
        "SELECT * FROM recognition_file WHERE recognition_id = :id ORDER BY path", {"id": row["id"]}
    ).fetchall()
    candidates = conn.execute(
        "SELECT * FROM metadata_candidate WHERE recognition_id = :id ORDER BY score DESC, id",
        {"id": row["id"]},
    ).fetchall()
    return StoredRecognition(
        id=Id(row["id"]),
        download_id=Id(row["download_id"]),
        kind=row["kind"],
        title=row["title"],
        year=row["year"],
        season=row["season"],
        status=Status(row["status"]),
        reason=Reason.loads(row["reason"]),
        created_at=row["created_at"],
        files=tuple(_file(f) for f in files),
        candidates=tuple(_candidate(c) for c in candidates),
    )


def read_overrides(conn: sqlite3.Connection, download_id: Id) -> dict[str, str]:
    rows = conn.execute(
        "SELECT field, value FROM override WHERE download_id = :id", {"id": download_id}
    ).fetchall()
    return {row["field"]: row["value"] for row in rows}


def read_links(conn: sqlite3.Connection, download_id: Id, current_only: bool) -> list[FileLink]:
    rows = conn.execute(
        """SELECT * FROM file_link WHERE download_id = :id
          AND (:all = 1 OR removed_at IS NULL) ORDER BY id""",
        {"id": download_id, "all": 0 if current_only else 1},
    ).fetchall()
    return [_link(row) for row in rows]


def _link(row: sqlite3.Row) -> FileLink:
    return FileLink(
        id=Id(row["id"]),
        batch_id=Id(row["apply_batch_id"]),
        source_path=row["source_path"],
        target_path=row["target_path"],
        method=row["method"],
        inode=row["inode"],
        device=row["device"],
        linked_at=row["linked_at"],
        removed_at=row["removed_at"],
    )


def read_held(
    conn: sqlite3.Connection, download_id: Id, targets: Sequence[str]
) -> dict[str, HeldLink]:
    held: dict[str, HeldLink] = {}
    for start in range(0, len(targets), 500):  # SQLite's limit on bound parameters
        chunk = list(targets[start : start + 500])
        rows = conn.execute(
            f"""SELECT l.*, d.name AS download_name FROM file_link l
            JOIN download d ON d.id = l.download_id
            WHERE l.removed_at IS NULL AND l.download_id != ?
              AND l.target_path IN ({",".join("?" * len(chunk))})""",
            [download_id, *chunk],
        ).fetchall()
        for row in rows:
            held[row["target_path"]] = HeldLink(
                _link(row), Id(row["download_id"]), row["download_name"]
            )
    return held


def _file(r: sqlite3.Row) -> StoredFile:
    return StoredFile(
        path=r["path"],
        role=r["role"],
        size=r["size"],
        season=r["season"],
        episodes=tuple(json.loads(r["episodes"] or "[]")),
        language=r["language"],
        flags=tuple(json.loads(r["flags"] or "[]")),
        video=r["video"],
        absolute=bool(r["absolute"]),
    )


def _candidate_row(stored: StoredCandidate, recognition_id: Id, now: str) -> dict[str, object]:
    """The columns the queries read, and the whole record."""
    c = stored.candidate
    return {
        "id": stored.id,
        "rid": recognition_id,
        "provider": c.provider,
        "provider_id": c.provider_id,
        "kind": c.kind,
        "title": c.title,
        "original_title": c.original_title,
        "year": c.year,
        "score": c.score,
        "selected": int(stored.selected),
        "overview": c.overview,
        "poster_path": c.poster_path,
        "popularity": c.popularity,
        "evidence": json.dumps(c.evidence.as_json()) if c.evidence else None,
        "seasons": json.dumps(c.seasons) if c.seasons is not None else None,
        "record": json.dumps(c.as_json()),
        "now": now,
    }


def _candidate(r: sqlite3.Row) -> StoredCandidate:
    record = Candidate.from_json(json.loads(r["record"]))
    return StoredCandidate(Id(r["id"]), record, bool(r["selected"]))
