"""Reading download rows and writing their history: shared by the store modules."""

import sqlite3
from collections.abc import Iterable

from core.errors import NotFoundError
from core.ids import Id
from core.models import Download, Infohash
from core.reasons import Reason
from core.states import ACTIVE, State
from store.rows import Queryable, fetch_all, fetch_one, json_list

ACTIVE_JSON = json_list(sorted(ACTIVE))

DOWNLOAD_COLUMNS = """
    id, name, state, source AS origin, source_ref, chat_id, message_id, save_path, content_path,
    total_size, progress, error, source_added_at, completed_at, created_at, updated_at,
    qbt_state, download_speed, eta, progress_at, add_attempts, next_add_at, free_space
"""


async def current_state(conn: Queryable, download_id: Id) -> State:
    row = await fetch_one(conn, "SELECT state FROM download WHERE id = :id", {"id": download_id})
    if row is None:
        raise NotFoundError("download", download_id)
    return State(row["state"])


_BY_ID = f"SELECT {DOWNLOAD_COLUMNS} FROM download WHERE id = :id"
_HASHES_OF = """SELECT download_id, infohash, kind FROM download_infohash
    WHERE download_id IN (SELECT value FROM json_each(:ids)) ORDER BY kind, infohash"""


async def find_download(conn: Queryable, download_id: Id) -> Download | None:
    row = await fetch_one(conn, _BY_ID, {"id": download_id})
    if row is None:
        return None
    return (await with_hashes(conn, [row]))[0]


def read_download(conn: sqlite3.Connection, download_id: Id) -> Download | None:
    """``find_download`` on the reader thread (``Database.read``)."""
    row = conn.execute(_BY_ID, {"id": download_id}).fetchone()
    return None if row is None else read_with_hashes(conn, [row])[0]


def read_with_hashes(conn: sqlite3.Connection, rows: list[sqlite3.Row]) -> list[Download]:
    """``with_hashes`` on the reader thread."""
    if not rows:
        return []
    return _attach_hashes(rows, conn.execute(_HASHES_OF, _ids_of(rows)).fetchall())


async def load_download(conn: Queryable, download_id: Id) -> Download:
    found = await find_download(conn, download_id)
    if found is None:
        raise NotFoundError("download", download_id)
    return found


async def with_hashes(conn: Queryable, rows: list[sqlite3.Row]) -> list[Download]:
    """Attach every download's infohashes with one query (v1 before v2)."""
    if not rows:
        return []
    return _attach_hashes(rows, await fetch_all(conn, _HASHES_OF, _ids_of(rows)))


def _ids_of(rows: list[sqlite3.Row]) -> dict[str, str]:
    return {"ids": json_list(row["id"] for row in rows)}


def _attach_hashes(rows: list[sqlite3.Row], hash_rows: list[sqlite3.Row]) -> list[Download]:
    hashes: dict[str, list[Infohash]] = {}
    for row in hash_rows:
        hashes.setdefault(row["download_id"], []).append(Infohash(row["infohash"], row["kind"]))
    return [download_from_row(row, tuple(hashes.get(row["id"], ()))) for row in rows]


def download_from_row(row: sqlite3.Row, infohashes: tuple[Infohash, ...]) -> Download:
    values = dict(zip(row.keys(), tuple(row), strict=True))
    values["id"] = Id(values["id"])
    values["state"] = State(values["state"])
    values["error"] = Reason.loads(values["error"])
    return Download(**values, infohashes=infohashes)


async def load_downloads(conn: Queryable, ids: Iterable[str]) -> dict[Id, Download]:
    """Several downloads by id, with their hashes, in two queries."""
    rows = await fetch_all(
        conn,
        f"SELECT {DOWNLOAD_COLUMNS} FROM download WHERE id IN (SELECT value FROM json_each(:ids))",
        {"ids": json_list(set(ids))},
    )
    return {d.id: d for d in await with_hashes(conn, rows)}
