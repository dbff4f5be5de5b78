"""ULID identity: every entity gets a ULID, infohashes move to ``download_infohash``.

The design (docs/identity.md): ids are made from each row's ``created_at`` so
that id order is the historical order (old id order within one millisecond,
unparsable ``created_at`` -> migration time); tables are rebuilt with foreign
keys ON, parents first; the old tables are dropped children first; the new
ones are renamed (SQLite rewrites the REFERENCES); ``foreign_key_check`` must
be empty at the end. ``download.infohash`` becomes lowercase rows of
``download_infohash`` with the kind by length; ``idempotency_key`` is gone.
Timestamps are copied as they are; 0003 converts them.
"""

import sqlite3
from collections.abc import Iterable

from core import clock
from core.errors import InvalidInputError
from core.ids import BackfillIds, Id
from core.infohash import base32_to_hex, normalize_infohash

# Parents before children: the order of rebuilding and of inserting.
_TABLES = ("download", "recognition", "metadata_candidate", "hint", "override", "file_link")

_NEW_TABLES = """
CREATE TABLE download_new (
    id               TEXT    PRIMARY KEY NOT NULL,
    name             TEXT    NOT NULL DEFAULT '',
    state            TEXT    NOT NULL,
    source           TEXT    NOT NULL DEFAULT 'telegram',
    source_ref       TEXT    NOT NULL DEFAULT '',
    chat_id          INTEGER,
    message_id       INTEGER,
    save_path        TEXT,
    content_path     TEXT,
    total_size       INTEGER,
    progress         REAL    NOT NULL DEFAULT 0,
    error            TEXT,
    source_added_at  TEXT,
    completed_at     TEXT,
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL
);
CREATE TABLE download_infohash_new (
    download_id  TEXT NOT NULL REFERENCES download_new (id) ON DELETE CASCADE,
    infohash     TEXT NOT NULL,
    kind         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (infohash, download_id)
);
CREATE TABLE recognition_new (
    id           TEXT    PRIMARY KEY NOT NULL,
    download_id  TEXT    NOT NULL REFERENCES download_new (id) ON DELETE CASCADE,
    kind         TEXT    NOT NULL,
    title        TEXT,
    year         INTEGER,
    season       INTEGER,
    episodes     TEXT,
    confidence   REAL    NOT NULL DEFAULT 0,
    status       TEXT    NOT NULL,
    created_at   TEXT    NOT NULL
);
CREATE TABLE metadata_candidate_new (
    id              TEXT    PRIMARY KEY NOT NULL,
    recognition_id  TEXT    NOT NULL REFERENCES recognition_new (id) ON DELETE CASCADE,
    provider        TEXT    NOT NULL,
    provider_id     TEXT,
    kind            TEXT    NOT NULL,
    title           TEXT    NOT NULL,
    original_title  TEXT,
    year            INTEGER,
    score           REAL    NOT NULL DEFAULT 0,
    selected        INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT    NOT NULL
);
CREATE TABLE hint_new (
    id           TEXT    PRIMARY KEY NOT NULL,
    download_id  TEXT    NOT NULL REFERENCES download_new (id) ON DELETE CASCADE,
    text         TEXT    NOT NULL,
    created_at   TEXT    NOT NULL
);
CREATE TABLE override_new (
    id           TEXT    PRIMARY KEY NOT NULL,
    download_id  TEXT    NOT NULL REFERENCES download_new (id) ON DELETE CASCADE,
    field        TEXT    NOT NULL,
    value        TEXT    NOT NULL,
    created_at   TEXT    NOT NULL,
    UNIQUE (download_id, field)
);
CREATE TABLE file_link_new (
    id              TEXT    PRIMARY KEY NOT NULL,
    download_id     TEXT    NOT NULL REFERENCES download_new (id) ON DELETE CASCADE,
    apply_batch_id  TEXT    NOT NULL,
    source_path     TEXT    NOT NULL,
    target_path     TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    removed_at      TEXT
)
"""

_INDEXES = """
CREATE INDEX download_infohash_download ON download_infohash (download_id);
CREATE INDEX recognition_download ON recognition (download_id);
CREATE INDEX metadata_candidate_recognition ON metadata_candidate (recognition_id);
CREATE INDEX hint_download ON hint (download_id);
CREATE INDEX file_link_download ON file_link (download_id);
CREATE INDEX file_link_batch ON file_link (apply_batch_id)
"""

# Old key -> new ULID, per table (and per old apply_batch_id under "apply_batch").
IdMap = dict[object, Id]


def apply(conn: sqlite3.Connection) -> None:
    conn.row_factory = sqlite3.Row
    try:
        _rebuild(conn)
    finally:
        conn.row_factory = None


def _rebuild(conn: sqlite3.Connection) -> None:
    rows = {table: _rows(conn, table) for table in _TABLES}
    ids = _assign_ids(rows)
    _statements(conn, _NEW_TABLES)
    _copy_downloads(conn, rows["download"], ids["download"])
    _copy(conn, "recognition", rows["recognition"], ids, {"download_id": "download"})
    _copy(
        conn,
        "metadata_candidate",
        rows["metadata_candidate"],
        ids,
        {"recognition_id": "recognition"},
    )
    _copy(conn, "hint", rows["hint"], ids, {"download_id": "download"})
    _copy(conn, "override", rows["override"], ids, {"download_id": "download"})
    _copy_file_links(conn, rows["file_link"], ids)
    for table in reversed(_TABLES):
        conn.execute(f"DROP TABLE {table}")
    for table in (*_TABLES, "download_infohash"):
        conn.execute(f"ALTER TABLE {table}_new RENAME TO {table}")
    _statements(conn, _INDEXES)
    problems = conn.execute("PRAGMA foreign_key_check").fetchall()
    if problems:
        raise sqlite3.IntegrityError(f"foreign_key_check after migration: {problems[:5]}")


def _rows(conn: sqlite3.Connection, table: str) -> list[sqlite3.Row]:
    return conn.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()


def _assign_ids(rows: dict[str, list[sqlite3.Row]]) -> dict[str, IdMap]:
    """One generator for all tables: ids are unique across entities and, within a
    millisecond, increase in old id order."""
    generator = BackfillIds()
    migration_ms = clock.now_ms()
    result: dict[str, IdMap] = {}
    for table in _TABLES:
        result[table] = {
            row["id"]: generator.at(_created_ms(row["created_at"], migration_ms))
            for row in rows[table]
        }
    batches: IdMap = {}
    for row in rows["file_link"]:
        if row["apply_batch_id"] not in batches:
            ms = _created_ms(row["created_at"], migration_ms)
            batches[row["apply_batch_id"]] = generator.at(ms)
    result["apply_batch"] = batches
    return result


def _created_ms(created_at: object, fallback_ms: int) -> int:
    moment = clock.parse_legacy_time(created_at)
    return fallback_ms if moment is None else clock.to_ms(moment)


def _copy_downloads(conn: sqlite3.Connection, rows: list[sqlite3.Row], ids: IdMap) -> None:
    for row in rows:
        values = _as_dict(row)
        del values["infohash"], values["idempotency_key"]
        values["id"] = ids[row["id"]]
        _insert(conn, "download_new", values)
        infohash, kind = _legacy_infohash(row)
        _insert(
            conn,
            "download_infohash_new",
            {
                "download_id": values["id"],
                "infohash": infohash,
                "kind": kind,
                "created_at": row["created_at"],
            },
        )


def _legacy_infohash(row: sqlite3.Row) -> tuple[str, str]:
    """The old column held the hash 'as received': hex of any case, maybe base32."""
    text = str(row["infohash"]).strip()
    try:
        if len(text) == 32:
            text = base32_to_hex(text)
        return normalize_infohash(text)
    except InvalidInputError as error:
        raise InvalidInputError(
            f"download {row['id']}: cannot migrate infohash {row['infohash']!r}: {error}"
        ) from error


def _copy(
    conn: sqlite3.Connection,
    table: str,
    rows: Iterable[sqlite3.Row],
    ids: dict[str, IdMap],
    parents: dict[str, str],
) -> None:
    for row in rows:
        values = _as_dict(row)
        values["id"] = ids[table][row["id"]]
        for column, parent in parents.items():
            values[column] = ids[parent][row[column]]
        _insert(conn, f"{table}_new", values)


def _copy_file_links(
    conn: sqlite3.Connection, rows: list[sqlite3.Row], ids: dict[str, IdMap]
) -> None:
    """Batch ids become ULIDs too: rows of one old batch share the new one."""
    for row in rows:
        values = _as_dict(row)
        values["id"] = ids["file_link"][row["id"]]
        values["download_id"] = ids["download"][row["download_id"]]
        values["apply_batch_id"] = ids["apply_batch"][row["apply_batch_id"]]
        _insert(conn, "file_link_new", values)


def _as_dict(row: sqlite3.Row) -> dict[str, object]:
    return dict(zip(row.keys(), tuple(row), strict=True))


def _insert(conn: sqlite3.Connection, table: str, values: dict[str, object]) -> None:
    columns = ", ".join(values)
    placeholders = ", ".join(f":{key}" for key in values)
    conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({placeholders})", values)


def _statements(conn: sqlite3.Connection, script: str) -> None:
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)
