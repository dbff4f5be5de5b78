"""Small helpers shared by the store modules."""

import json
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any, Protocol


def json_list(values: Iterable[object]) -> str:
    """A parameter for ``IN (SELECT value FROM json_each(:param))``: one static
    statement for any number of values, no SQL built from strings."""
    return json.dumps([str(value) for value in values])


class Queryable(Protocol):
    """The writer (aiosqlite) inside a transaction, or the reader."""

    async def execute_fetchall(
        self, sql: str, parameters: Mapping[str, Any]
    ) -> Iterable[sqlite3.Row]: ...


async def fetch_all(conn: Queryable, sql: str, params: Mapping[str, Any]) -> list[sqlite3.Row]:
    return list(await conn.execute_fetchall(sql, params))


async def fetch_one(conn: Queryable, sql: str, params: Mapping[str, Any]) -> sqlite3.Row | None:
    rows = await fetch_all(conn, sql, params)
    return rows[0] if rows else None
