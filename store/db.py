"""SQLite connections: one writer behind an asyncio lock, one reader.

aiogram runs each update as its own task; without the lock the statements of
two handlers would interleave inside one transaction. WAL lets the reader run
beside the writer. Every write that must be atomic is one ``write()`` block,
which is one ``BEGIN IMMEDIATE`` transaction: SQLite serializes writers, also
across processes, so check-then-write inside it has no race.

The reader runs plain functions on its own thread (``read``): a page that needs
ten queries makes one trip to that thread instead of ten, and sees one snapshot.
Each trip costs the event loop ~80 µs and a hand-over of the GIL.
"""

import asyncio
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Self, TypeVar

import aiosqlite

BUSY_TIMEOUT_MS = 10_000
SETTINGS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}",
    "PRAGMA foreign_keys = ON",
    "PRAGMA synchronous = NORMAL",  # durable enough under WAL
)

T = TypeVar("T")
TraceCallback = Callable[[str], None]
Job = tuple[Callable[[sqlite3.Connection], Any], "asyncio.Future[Any]", bool]


async def _connect_writer(path: Path) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    for statement in SETTINGS:
        await conn.execute(statement)
    return conn


class Reader:
    """The read connection (``query_only``, autocommit) on a thread of its own."""

    def __init__(self, path: Path) -> None:
        # Opened here, used only by the reader thread from now on.
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        for statement in (*SETTINGS, "PRAGMA query_only = ON"):
            self._conn.execute(statement)
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="sqlite-reader", daemon=True)
        self._thread.start()

    async def read(self, query: Callable[[sqlite3.Connection], T], *, snapshot: bool = True) -> T:
        """``query(conn)`` on the reader thread, in one read transaction."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._jobs.put((query, future, snapshot))
        return await future

    async def execute_fetchall(self, sql: str, parameters: Mapping[str, Any]) -> list[sqlite3.Row]:
        return await self.read(lambda conn: conn.execute(sql, parameters).fetchall())

    async def set_trace_callback(self, callback: TraceCallback | None) -> None:
        await self.read(lambda conn: conn.set_trace_callback(callback), snapshot=False)

    async def close(self) -> None:
        self._jobs.put(None)  # served after the reads queued before it
        await asyncio.to_thread(self._thread.join)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            query, future, snapshot = job
            try:
                result = _in_snapshot(self._conn, query) if snapshot else query(self._conn)
                error = None
            except BaseException as caught:  # handed to the awaiting task
                result, error = None, caught
            future.get_loop().call_soon_threadsafe(_settle, future, result, error)
        self._conn.close()


def _in_snapshot(conn: sqlite3.Connection, query: Callable[[sqlite3.Connection], T]) -> T:
    conn.execute("BEGIN")
    try:
        return query(conn)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def _settle(future: "asyncio.Future[Any]", result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Database:
    def __init__(self, writer: aiosqlite.Connection, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path) -> Self:
        """Open an already migrated database file."""
        writer = await _connect_writer(path)
        mode = await (await writer.execute("PRAGMA journal_mode = WAL")).fetchone()
        if mode is None or mode[0] != "wal":
            raise sqlite3.OperationalError(f"cannot switch {path} to WAL mode")
        return cls(writer, Reader(path))

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
    def reader(self) -> Reader:
        """The read connection: never blocks on the writer."""
        return self._reader

    async def read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """Several reads in one trip to the reader thread, on one snapshot."""
        return await self._reader.read(query)

    async def set_trace_callback(self, callback: TraceCallback | None) -> None:
        """See every statement both connections run (tests count them)."""
        # sqlite3 takes None to remove the callback; aiosqlite's stub does not say so.
        await self._writer.set_trace_callback(callback)  # type: ignore[arg-type]
        await self._reader.set_trace_callback(callback)
