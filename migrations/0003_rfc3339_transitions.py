"""RFC 3339 timestamps everywhere, and the ``state_transition`` history.

Legacy timestamps ('YYYY-MM-DD HH:MM:SS', UTC) become 'YYYY-MM-DDTHH:MM:SSZ'.
A required timestamp that cannot be parsed takes the time in its row's ULID
(which 0002 took from the same value, or from the migration time); an optional
one becomes NULL. Each existing download gets one history row: the state it
had before the upgrade.
"""

import sqlite3

from core import clock
from core.ids import BackfillIds, Id, id_timestamp_ms

# table -> (key expression whose ULID dates the row, required columns, optional columns)
_TIME_COLUMNS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "download": ("id", ("created_at", "updated_at"), ("source_added_at", "completed_at")),
    "download_infohash": ("download_id", ("created_at",), ()),
    "recognition": ("id", ("created_at",), ()),
    "metadata_candidate": ("id", ("created_at",), ()),
    "hint": ("id", ("created_at",), ()),
    "override": ("id", ("created_at",), ()),
    "file_link": ("id", ("created_at",), ("removed_at",)),
}

_SCHEMA = """
CREATE TABLE state_transition (
    id           TEXT PRIMARY KEY NOT NULL,
    download_id  TEXT NOT NULL REFERENCES download (id) ON DELETE CASCADE,
    from_state   TEXT,
    to_state     TEXT NOT NULL,
    reason       TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX state_transition_download ON state_transition (download_id, id);
CREATE INDEX download_state ON download (state)
"""


def apply(conn: sqlite3.Connection) -> None:
    for table, (dated_by, required, optional) in _TIME_COLUMNS.items():
        _convert_table(conn, table, dated_by, required, optional)
    for statement in _SCHEMA.split(";"):
        conn.execute(statement)
    _record_current_states(conn)


def _convert_table(
    conn: sqlite3.Connection,
    table: str,
    dated_by: str,
    required: tuple[str, ...],
    optional: tuple[str, ...],
) -> None:
    columns = ", ".join((dated_by, *required, *optional))
    rows = conn.execute(f"SELECT rowid, {columns} FROM {table}").fetchall()
    names = (*required, *optional)
    for rowid, key, *values in rows:
        fallback = clock.format_time(clock.from_ms(id_timestamp_ms(Id(key))))
        converted = {
            name: _convert(value, fallback if name in required else None)
            for name, value in zip(names, values, strict=True)
        }
        assignments = ", ".join(f"{name} = :{name}" for name in names)
        conn.execute(
            f"UPDATE {table} SET {assignments} WHERE rowid = :rowid",
            {**converted, "rowid": rowid},
        )


def _convert(value: object, fallback: str | None) -> str | None:
    moment = clock.parse_legacy_time(value)
    return fallback if moment is None else clock.format_time(moment)


def _record_current_states(conn: sqlite3.Connection) -> None:
    rows = conn.execute("SELECT id, state, updated_at FROM download ORDER BY updated_at, id")
    generator = BackfillIds()
    for download_id, state, updated_at in rows.fetchall():
        conn.execute(
            "INSERT INTO state_transition (id, download_id, from_state, to_state, reason,"
            " created_at) VALUES (:id, :download_id, NULL, :state, 'before upgrade', :at)",
            {
                "id": generator.at(clock.to_ms(clock.parse_time(updated_at))),
                "download_id": download_id,
                "state": state,
                "at": updated_at,
            },
        )
