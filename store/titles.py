"""Library titles (``title``): what the library holds, one folder each."""

import json
import sqlite3
from dataclasses import dataclass, replace

from core import clock
from core.ids import Id, new_id
from core.library import read_entry
from recognition.candidates import Candidate, MediaKind, Season
from store.db import Database


@dataclass(frozen=True)
class LibraryTitle:
    """A movie or show the library holds: the candidate it was adopted as (TMDB's
    record, refreshed by each download of it) and its one folder."""

    id: Id
    folder: str  # one component under library.movies / library.shows, fixed once chosen
    candidate: Candidate  # without a download's evidence and score

    @property
    def kind(self) -> MediaKind:
        return self.candidate.kind

    @property
    def name(self) -> str:
        return self.candidate.title

    @property
    def year(self) -> int | None:
        return self.candidate.year


class Titles:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def adopt(self, download_id: Id, chosen: Candidate, folder: str) -> LibraryTitle:
        """The title of ``chosen`` (created with ``folder`` when the library has no
        such title yet; an existing title keeps its folder, its record is refreshed
        and keeps its poster and overview when TMDB sent none), made the download's
        title, in one transaction."""
        key = chosen.provider_id if chosen.provider == "tmdb" and chosen.provider_id else folder
        record = json.dumps(replace(chosen, evidence=None, score=0.0).as_json())
        now = clock.now()
        async with self._db.write() as conn:
            await conn.execute(
                """INSERT INTO title (id, kind, provider, provider_id, name, year, folder,
                    poster_path, overview, record, created_at, updated_at)
                VALUES (:id, :kind, :provider, :key, :name, :year, :folder, :poster,
                    :overview, :record, :now, :now)
                ON CONFLICT (provider, kind, provider_id) DO UPDATE SET
                    name = excluded.name, year = excluded.year,
                    poster_path = coalesce(excluded.poster_path, title.poster_path),
                    overview = coalesce(excluded.overview, title.overview),
                    record = json_set(excluded.record,
                        '$.poster_path', coalesce(excluded.poster_path, title.poster_path),
                        '$.overview', coalesce(excluded.overview, title.overview)),
                    updated_at = excluded.updated_at""",
                {
                    "id": new_id(),
                    "kind": chosen.kind,
                    "provider": chosen.provider,
                    "key": key,
                    "name": chosen.title,
                    "year": chosen.year,
                    "folder": folder,
                    "poster": chosen.poster_path,
                    "overview": chosen.overview,
                    "record": record,
                    "now": now,
                },
            )
            cursor = await conn.execute(
                "SELECT * FROM title WHERE provider = :provider AND kind = :kind"
                " AND provider_id = :key",
                {"provider": chosen.provider, "kind": chosen.kind, "key": key},
            )
            row = await cursor.fetchone()
            assert row is not None  # just written
            await conn.execute(
                "UPDATE download SET title_id = :title WHERE id = :id",
                {"title": row["id"], "id": download_id},
            )
        return title_of(row)

    async def get(self, title_id: Id) -> LibraryTitle | None:
        return await self._db.read(lambda conn: read_title(conn, title_id))

    async def list(self, query: str = "", *, offset: int = 0, limit: int = 25) -> "list[TitleRow]":
        return await self._db.read(lambda conn: read_titles(conn, query, offset, limit))

    async def inventory(self, title_id: Id) -> "Inventory | None":
        """What the library holds of a title, in one read."""
        return await self._db.read(lambda conn: read_inventory(conn, title_id))


def read_title(conn: sqlite3.Connection, title_id: Id) -> LibraryTitle | None:
    row = conn.execute("SELECT * FROM title WHERE id = :id", {"id": title_id}).fetchone()
    return None if row is None else title_of(row)


def title_of(row: sqlite3.Row) -> LibraryTitle:
    record = Candidate.from_json(json.loads(row["record"]))
    return LibraryTitle(Id(row["id"]), row["folder"], record)


@dataclass(frozen=True)
class HeldFile:
    """One video of a title in the library, and where it came from."""

    target_path: str
    size: int | None
    download_id: Id
    download_name: str
    season: int | None
    episodes: tuple[int, ...]
    label: str


@dataclass(frozen=True)
class Inventory:
    title: LibraryTitle
    files: tuple[HeldFile, ...]  # videos, by season, episode, label
    seasons: tuple[Season, ...]  # TMDB's, from the latest chosen candidate (shows)
    downloads: tuple[tuple[Id, str, str], ...]  # (id, name, state), newest first

    def episodes(self) -> dict[int, dict[int, list[HeldFile]]]:
        """Season → episode → the copies held of it."""
        grid: dict[int, dict[int, list[HeldFile]]] = {}
        for held in self.files:
            for episode in held.episodes:
                grid.setdefault(held.season or 1, {}).setdefault(episode, []).append(held)
        return grid


@dataclass(frozen=True)
class TitleRow:
    title: LibraryTitle
    files: int
    downloads: int


def read_titles(conn: sqlite3.Connection, query: str, offset: int, limit: int) -> list[TitleRow]:
    """Titles by name (a case-insensitive part of it), with their counts."""
    rows = conn.execute(
        """SELECT t.*,
            (SELECT count(*) FROM download d WHERE d.title_id = t.id) AS downloads,
            (SELECT count(*) FROM file_link l JOIN download d ON d.id = l.download_id
             WHERE d.title_id = t.id AND l.removed_at IS NULL AND l.linked_at IS NOT NULL)
             AS files
        FROM title t WHERE :q = '' OR t.name LIKE '%' || :q || '%' ESCAPE '\\'
        ORDER BY t.name COLLATE NOCASE, t.id LIMIT :limit OFFSET :offset""",
        {"q": _like(query), "limit": limit, "offset": offset},
    ).fetchall()
    return [TitleRow(title_of(row), row["files"], row["downloads"]) for row in rows]


def read_inventory(conn: sqlite3.Connection, title_id: Id) -> Inventory | None:
    title = read_title(conn, title_id)
    if title is None:
        return None
    links = conn.execute(
        """SELECT l.target_path, d.id AS download_id, d.name, f.size, f.role
        FROM file_link l JOIN download d ON d.id = l.download_id
        LEFT JOIN recognition_file f ON f.path = l.source_path AND f.recognition_id =
            (SELECT max(id) FROM recognition WHERE download_id = d.id)
        WHERE d.title_id = :id AND l.removed_at IS NULL AND l.linked_at IS NOT NULL""",
        {"id": title_id},
    ).fetchall()
    files = []
    for row in links:
        if row["role"] not in (None, "video"):
            continue
        entry = read_entry(title.kind, title.folder, row["target_path"])
        files.append(
            HeldFile(
                row["target_path"],
                row["size"],
                Id(row["download_id"]),
                row["name"],
                entry.season,
                entry.episodes,
                entry.label,
            )
        )
    files.sort(key=lambda f: (f.season or 0, f.episodes, f.label, f.target_path))
    downloads = conn.execute(
        "SELECT id, name, state FROM download WHERE title_id = :id ORDER BY id DESC",
        {"id": title_id},
    ).fetchall()
    seasons = conn.execute(
        """SELECT c.seasons FROM metadata_candidate c
        JOIN recognition r ON r.id = c.recognition_id
        JOIN download d ON d.id = r.download_id
        WHERE d.title_id = :id AND c.selected = 1 AND c.seasons IS NOT NULL
        ORDER BY r.id DESC LIMIT 1""",
        {"id": title_id},
    ).fetchone()
    known = tuple(Season(*s) for s in json.loads(seasons[0])) if seasons else ()
    return Inventory(
        title,
        tuple(files),
        tuple(s for s in known if s.episodes),
        tuple((Id(r["id"]), r["name"], r["state"]) for r in downloads),
    )


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
