"""Database backups with SQLite's online backup API: safe while jellybit writes.

The copy is one consistent snapshot (all pages in one step under a read
transaction; WAL lets the writer go on meanwhile), written to a temporary file
next to the target, fsynced and renamed: a backup file is complete or absent.
"""

import os
import sqlite3
from pathlib import Path

from common.logs import get_logger
from core import clock
from core.errors import AppError

KEEP = 5  # backups kept in data_dir/backups/; older ones are deleted
_PREFIX = "jellybit-"


class BackupError(AppError):
    code = "backup"


def backups_dir(database: Path) -> Path:
    """``data_dir/backups/`` (the database is ``data_dir/jellybit.db``)."""
    return database.parent / "backups"


def backup(database: Path, target: Path | None = None) -> Path:
    """Copy ``database`` to ``target``: a new file, or a directory to put a named
    copy in. Without ``target``, into ``backups_dir`` keeping the newest ``KEEP``.
    Returns the file written; a BackupError says in one line what went wrong."""
    if not database.is_file():
        raise BackupError(f"database {database} does not exist")
    started = clock.monotonic()
    try:
        source = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise BackupError(f"cannot open database {database}: {error}") from error
    try:
        version = int(source.execute("PRAGMA user_version").fetchone()[0])
        name = f"{_PREFIX}{_stamp()}-v{version}.db"
        rotate = target is None
        if target is None:
            target = backups_dir(database) / name
            _make_dir(target.parent)
        elif target.is_dir():
            target = target / name
        if target.exists():
            raise BackupError(f"{target} already exists: choose another path")
        if not target.parent.is_dir():
            raise BackupError(f"directory {target.parent} does not exist")
        _copy(source, target)
    finally:
        source.close()
    if rotate:
        _keep_newest(target.parent)
    get_logger().info(
        "database.backup",
        path=str(target),
        version=version,
        duration_ms=round((clock.monotonic() - started) * 1000, 1),
    )
    return target


def _copy(source: sqlite3.Connection, target: Path) -> None:
    partial = target.with_name(f".{target.name}.partial")
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)
            # One self-contained file (no -wal beside it); `run` switches back to WAL.
            copy.execute("PRAGMA journal_mode = DELETE")
        finally:
            copy.close()
        _fsync(partial)
        os.replace(partial, target)
        _fsync(target.parent)
    except (OSError, sqlite3.Error) as error:
        partial.unlink(missing_ok=True)
        raise BackupError(f"cannot write {target}: {error}") from error


def _stamp() -> str:
    """UTC time to the millisecond, safe in a file name: 20260130T091500.123Z."""
    return clock.log_timestamp().replace("-", "").replace(":", "")


def _make_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BackupError(f"cannot create {path}: {error}") from error


def _keep_newest(directory: Path) -> None:
    # The names start with the time, so name order is time order.
    ours = sorted(p for p in directory.glob(f"{_PREFIX}*.db") if p.is_file())
    for old in ours[:-KEEP]:
        old.unlink(missing_ok=True)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
