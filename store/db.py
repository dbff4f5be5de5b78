"""SQLite connections: one writer behind an asyncio lock, one reader.

aiogram runs each update as its own task; without the lock the statements of
two handlers would interleave inside one transaction. WAL lets the reader run
beside the writer. Every write that must be atomic is one ``write()`` block,
which is one ``BEGIN IMMEDIATE`` transaction: SQLite serializes writers, also
across processes, so check-then-write inside it has no race.
"""

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Self

import aiosqlite

BUSY_TIMEOUT_MS = 10_000

TraceCallback = Callable[[str], None]


async def _connect(path: Path, *, query_only: bool) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.execute("PRAGMA synchronous = NORMAL")  # durable enough under WAL
    if query_only:
        await conn.execute("PRAGMA query_only = ON")
    return conn


class Database:
    def __init__(self, writer: aiosqlite.Connection, reader: aiosqlite.Connection) -> None:
        self._writer = writer
        self._reader = reader
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path) -> Self:
        """Open an already migrated database file."""
        writer = await _connect(path, query_only=False)
        mode = await (await writer.execute("PRAGMA journal_mode = WAL")).fetchone()
        if mode is None or mode[0] != "wal":
            raise sqlite3.OperationalError(f"cannot switch {path} to WAL mode")
        reader = await _connect(path, query_only=True)
        return cls(writer, reader)

    async def close(self) -> None:
        async with self._write_lock:
            await self._writer.close()
        await self._reader.close()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction: commits when the block ends, rolls back on error."""
        async with self._write_lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                await self._writer.execute("ROLLBACK")
                raise
            await self._writer.execute("COMMIT")

    @property
    def reader(self) -> aiosqlite.Connection:
        """The read connection: autocommit, ``query_only``; never blocks on the writer."""
        return self._reader

    async def set_trace_callback(self, callback: TraceCallback | None) -> None:
        """See every statement both connections run (tests count them)."""
        # sqlite3 takes None to remove the callback; aiosqlite's stub does not say so.
        await self._writer.set_trace_callback(callback)  # type: ignore[arg-type]
        await self._reader.set_trace_callback(callback)  # type: ignore[arg-type]
