"""Searches and their results (``search``, ``search_result``): docs/search.md."""

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import PurePosixPath
from typing import Any, Literal

import aiosqlite

from core import clock
from core.ids import Id, new_id
from core.reasons import Reason
from core.search import MAX_RESULTS, SORTS, Found, SortBy, SourceAnswer, traits_of
from core.states import ACTIVE
from recognition.candidates import Candidate
from store.db import Database
from store.rows import fetch_one

ReleaseMark = Literal["library", "downloading", "version"]
ACTIVE_STATES = tuple(state.value for state in ACTIVE)
KEEP = timedelta(days=2)  # a search's buttons work this long

TITLES = "titles"  # the titles TMDB found for the words, to pick one
RELEASES = "releases"  # the releases of the title picked (or of the words)
TAKEN = "taken"  # a release was downloaded: the message is the download's now


@dataclass(frozen=True)
class NewSearch:
    """A search a reply starts: stored with the reply, in its step's transaction."""

    id: Id
    words: str
    offered: bool = False  # "Search for …?": started by a tap


@dataclass(frozen=True)
class SourceState:
    """How far one source got: still asked (``answered`` False), its count, its problem."""

    answered: bool = False
    count: int = 0
    problem: Reason | None = None


@dataclass(frozen=True)
class Marks:
    """(kind, TMDB id) of the titles the library holds, and of those a download from a
    search is getting now."""

    held: frozenset[tuple[str, str]] = frozenset()
    downloading: frozenset[tuple[str, str]] = frozenset()
    # The releases' torrents jellybit has: laid out (done), or on their way (active).
    done_hashes: frozenset[str] = frozenset()
    active_hashes: frozenset[str] = frozenset()
    # The resolutions of the files the library holds of the title picked.
    held_resolutions: frozenset[int] = frozenset()

    def in_library(self, title: Candidate) -> bool:
        return (title.kind, title.provider_id or "") in self.held

    def getting(self, title: Candidate) -> bool:
        return (title.kind, title.provider_id or "") in self.downloading

    def of_release(self, row: Found) -> ReleaseMark | None:
        """``library``: this torrent is in the library; ``downloading``: it is on its
        way; ``version``: the library holds the title in this resolution already."""
        if row.infohash in self.done_hashes:
            return "library"
        if row.infohash in self.active_hashes:
            return "downloading"
        resolution = traits_of(row.name).resolution
        return "version" if resolution in self.held_resolutions else None


@dataclass(frozen=True)
class Search:
    id: Id
    chat_id: int | None
    message_id: int | None
    words: str
    phase: str
    title: Candidate | None
    sort: SortBy
    page: int
    sources: dict[str, SourceState]
    running: bool
    problem: Reason | None
    download_id: Id | None
    shown: str | None
    updated_at: str
    titles: list[tuple[Id, Candidate]] = field(default_factory=list)
    releases: list[tuple[Id, Found]] = field(default_factory=list)


def found_json(row: Found) -> dict[str, Any]:
    data = {key: getattr(row, key) for key in Found.__slots__}
    data["published"] = row.published.isoformat() if row.published else None
    return {key: value for key, value in data.items() if value not in (None, False)}


def found_of(data: dict[str, Any]) -> Found:
    values = {key: data[key] for key in Found.__slots__ if key in data}
    if values.get("published"):
        values["published"] = datetime.fromisoformat(values["published"])
    return Found(**values)


async def insert_search(conn: aiosqlite.Connection, search: NewSearch, chat_id: int | None) -> None:
    """Inside a write transaction (the step that answers the words)."""
    now = clock.now()
    await conn.execute(
        """INSERT OR IGNORE INTO search (id, chat_id, words, phase, running, updated_at,
            created_at)
        VALUES (:id, :chat_id, :words, :phase, :running, :now, :now)""",
        {
            "id": search.id,
            "chat_id": chat_id,
            "words": search.words,
            "phase": TITLES,
            "running": 0 if search.offered else 1,
            "now": now,
        },
    )


class Searches:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def start_everything(self, words: str, sources: list[str]) -> Id:
        """A search of the page or the API: the titles and the releases of the words,
        found together."""
        search = NewSearch(new_id(), words)
        async with self._db.write() as conn:
            await insert_search(conn, search, None)
        await self.pick_title(search.id, None, sources)
        async with self._db.write() as conn:
            await self._touch(conn, search.id, running=1)
        return search.id

    async def find(self, search_id: Id) -> Search | None:
        return await self._db.read(lambda conn: read_search(conn, search_id))

    async def result(self, result_id: Id) -> tuple[Search, str, dict[str, Any]] | None:
        """A button's result: its search, its kind and its data."""

        def read(conn: sqlite3.Connection) -> tuple[Search, str, dict[str, Any]] | None:
            row = conn.execute(
                "SELECT search_id, kind, data FROM search_result WHERE id = :id", {"id": result_id}
            ).fetchone()
            search = None if row is None else read_search(conn, Id(row["search_id"]))
            return None if search is None else (search, row["kind"], json.loads(row["data"]))

        return await self._db.read(read)

    async def running(self) -> list[Search]:
        """Searches whose sources are still to be asked (one a restart interrupted too)."""
        rows = await self._db.read(
            lambda conn: conn.execute("SELECT id FROM search WHERE running = 1").fetchall()
        )
        found = [await self.find(Id(row["id"])) for row in rows]
        return [search for search in found if search is not None]

    async def set_titles(
        self, search_id: Id, titles: list[Candidate], problem: Reason | None = None
    ) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                "DELETE FROM search_result WHERE search_id = :id AND kind = 'title'",
                {"id": search_id},
            )
            await conn.executemany(
                """INSERT INTO search_result (id, search_id, kind, rank, data)
                VALUES (:id, :search_id, 'title', :rank, :data)""",
                [
                    {
                        "id": new_id(),
                        "search_id": search_id,
                        "rank": rank,
                        "data": json.dumps(title.as_json(), ensure_ascii=False),
                    }
                    for rank, title in enumerate(titles)
                ],
            )
            await self._touch(conn, search_id, problem=None if problem is None else problem.dumps())
            # Titles are all a search in the chat waits for before its first tap.
            await conn.execute(
                "UPDATE search SET running = 0 WHERE id = :id AND phase = :titles",
                {"id": search_id, "titles": TITLES},
            )

    async def pick_title(self, search_id: Id, title: Candidate | None, sources: list[str]) -> None:
        """The releases of ``title`` (None: of the words) are asked for anew."""
        states = {name: {"answered": False, "count": 0} for name in sources}
        async with self._db.write() as conn:
            await conn.execute(
                "DELETE FROM search_result WHERE search_id = :id AND kind = 'release'",
                {"id": search_id},
            )
            await self._touch(
                conn,
                search_id,
                phase=RELEASES,
                title=None if title is None else json.dumps(title.as_json(), ensure_ascii=False),
                page=0,
                running=1 if sources else 0,
                sources=json.dumps(states),
            )

    async def add_answer(self, search_id: Id, answer: SourceAnswer) -> None:
        """One source's answer, shown as it arrives."""
        async with self._db.write() as conn:
            row = await fetch_one(
                conn, "SELECT sources FROM search WHERE id = :id", {"id": search_id}
            )
            if row is None:
                return
            states = json.loads(row["sources"])
            base = await fetch_one(
                conn,
                "SELECT count(*) AS n FROM search_result WHERE search_id = :id",
                {"id": search_id},
            )
            start = int(base["n"]) if base else 0
            kept = answer.found[: max(0, MAX_RESULTS - start)]  # at most 1 000 in all
            await conn.executemany(
                """INSERT INTO search_result (id, search_id, kind, rank, data)
                VALUES (:id, :search_id, 'release', :rank, :data)""",
                [
                    {
                        "id": new_id(),
                        "search_id": search_id,
                        "rank": start + index,
                        "data": json.dumps(found_json(found), ensure_ascii=False),
                    }
                    for index, found in enumerate(kept)
                ],
            )
            states[answer.source] = {
                "answered": True,
                "count": len(kept),
                "problem": None if answer.problem is None else answer.problem.dumps(),
            }
            done = all(state.get("answered") for state in states.values())
            await self._touch(conn, search_id, sources=json.dumps(states), running=0 if done else 1)

    async def change(self, search_id: Id, **values: object) -> None:
        """``sort``, ``page``: how the person looks at it."""
        if "sort" in values and values["sort"] not in SORTS:
            raise ValueError(values["sort"])
        async with self._db.write() as conn:
            await self._touch(conn, search_id, **values)

    async def taken(self, search_id: Id, download_id: Id) -> None:
        async with self._db.write() as conn:
            await self._touch(conn, search_id, phase=TAKEN, download_id=download_id, running=0)

    async def any_running(self) -> bool:
        row = await self._db.read(
            lambda conn: conn.execute("SELECT 1 FROM search WHERE running = 1 LIMIT 1").fetchone()
        )
        return row is not None

    async def due(self, limit: int = 20) -> list[Search]:
        """Searches shown in a chat whose state changed since."""
        rows = await self._db.read(
            lambda conn: conn.execute(
                """SELECT id FROM search WHERE message_id IS NOT NULL AND phase != :taken
                AND (shown_at IS NULL OR updated_at >= shown_at)
                ORDER BY updated_at LIMIT :limit""",
                {"taken": TAKEN, "limit": limit},
            ).fetchall()
        )
        found = [await self.find(Id(row["id"])) for row in rows]
        return [search for search in found if search is not None]

    async def shown_in(self, search_id: Id, message_id: int) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE search SET message_id = :message_id WHERE id = :id AND message_id IS NULL",
                {"id": search_id, "message_id": message_id},
            )

    async def mark_shown(self, search_id: Id, shown: str | None) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE search SET shown = coalesce(:shown, shown), shown_at = :now WHERE id = :id",
                {"id": search_id, "shown": shown, "now": clock.now()},
            )

    async def purge(self) -> int:
        before = clock.shifted(-KEEP)
        async with self._db.write() as conn:
            cursor = await conn.execute(
                "DELETE FROM search WHERE created_at < :before", {"before": before}
            )
            return cursor.rowcount

    async def marks(self, search: Search) -> Marks:
        """Which of the search's titles the library holds, and which a download from a
        search is getting now."""
        keys: list[tuple[str, str]] = [
            (title.kind, title.provider_id or "") for _, title in search.titles
        ]
        if search.title is not None:
            keys.append((search.title.kind, search.title.provider_id or ""))

        hashes = {row.infohash for _, row in search.releases if row.infohash}

        def read(conn: sqlite3.Connection) -> Marks:
            held = set()
            for kind, provider_id in keys:
                row = conn.execute(
                    """SELECT 1 FROM title WHERE provider = 'tmdb' AND kind = :kind
                    AND provider_id = :provider_id""",
                    {"kind": kind, "provider_id": provider_id},
                ).fetchone()
                if row is not None:
                    held.add((kind, provider_id))
            rows = conn.execute(
                f"""SELECT json_extract(s.title, '$.kind') AS kind,
                    json_extract(s.title, '$.provider_id') AS provider_id
                FROM search s JOIN download d ON d.id = s.download_id
                WHERE s.title IS NOT NULL
                  AND d.state IN ({",".join("?" * len(ACTIVE_STATES))})""",
                ACTIVE_STATES,
            ).fetchall()
            downloading = {(row["kind"], str(row["provider_id"])) for row in rows}
            known = [
                (row["state"], row["infohash"])
                for row in conn.execute(
                    f"""SELECT d.state, i.infohash FROM download_infohash i
                    JOIN download d ON d.id = i.download_id
                    WHERE i.infohash IN ({",".join("?" * len(hashes))})""",
                    sorted(hashes),
                ).fetchall()
            ]
            resolutions: set[int] = set()
            if search.title is not None and search.title.provider_id:
                for row in conn.execute(
                    """SELECT l.target_path, d.name FROM file_link l
                    JOIN download d ON d.id = l.download_id JOIN title t ON t.id = d.title_id
                    WHERE t.provider = 'tmdb' AND t.kind = :kind AND t.provider_id = :id
                      AND l.removed_at IS NULL AND l.linked_at IS NOT NULL""",
                    {"kind": search.title.kind, "id": search.title.provider_id},
                ).fetchall():
                    # The file's name has its version's label, else its torrent's name says.
                    named = traits_of(PurePosixPath(row["target_path"]).name).resolution
                    resolution = named or traits_of(row["name"]).resolution
                    if resolution is not None:
                        resolutions.add(resolution)
            return Marks(
                frozenset(held),
                frozenset(downloading & set(keys)),
                done_hashes=frozenset(h for state, h in known if state == "done"),
                active_hashes=frozenset(h for state, h in known if state in ACTIVE_STATES),
                held_resolutions=frozenset(resolutions),
            )

        return await self._db.read(read)

    @staticmethod
    async def _touch(conn: aiosqlite.Connection, search_id: Id, **values: object) -> None:
        columns = "".join(f"{name} = :{name}, " for name in values)
        await conn.execute(
            f"UPDATE search SET {columns}updated_at = :now WHERE id = :id",
            {**values, "id": search_id, "now": clock.now()},
        )


def read_search(conn: sqlite3.Connection, search_id: Id) -> Search | None:
    row = conn.execute("SELECT * FROM search WHERE id = :id", {"id": search_id}).fetchone()
    if row is None:
        return None
    results = conn.execute(
        "SELECT id, kind, data FROM search_result WHERE search_id = :id ORDER BY kind, rank",
        {"id": search_id},
    ).fetchall()
    titles = [
        (Id(r["id"]), Candidate.from_json(json.loads(r["data"])))
        for r in results
        if r["kind"] == "title"
    ]
    releases = [
        (Id(r["id"]), found_of(json.loads(r["data"]))) for r in results if r["kind"] == "release"
    ]
    sources = {
        name: SourceState(
            bool(state.get("answered")),
            int(state.get("count") or 0),
            Reason.loads(state.get("problem")),
        )
        for name, state in json.loads(row["sources"]).items()
    }
    return Search(
        id=Id(row["id"]),
        chat_id=row["chat_id"],
        message_id=row["message_id"],
        words=row["words"],
        phase=row["phase"],
        title=Candidate.from_json(json.loads(row["title"])) if row["title"] else None,
        sort=row["sort"] if row["sort"] in SORTS else "quality",
        page=row["page"],
        sources=sources,
        running=bool(row["running"]),
        problem=Reason.loads(row["problem"]),
        download_id=Id(row["download_id"]) if row["download_id"] else None,
        shown=row["shown"],
        updated_at=row["updated_at"],
        titles=titles,
        releases=releases,
    )
