"""Migration runner: numbered files in ``migrations/``, ``PRAGMA user_version``.

Each migration and its version bump run in ONE transaction: a migration that
fails leaves the database exactly as it was. Foreign keys stay ON throughout
(``PRAGMA foreign_keys`` is a no-op inside a transaction), so migrations must
write parents before children.
"""

import importlib
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import structlog

from core import clock
from core.errors import AppError
from store.backup import BackupError, backup

log = structlog.get_logger("store.migrate")

_NAME = re.compile(r"(\d{4})_(\w+)\.(sql|py)")


class MigrationError(AppError):
    code = "migration"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: Callable[[sqlite3.Connection], None]


def available_migrations() -> list[Migration]:
    """All migrations shipped with the code, in version order, numbered 1..N without gaps."""
    found: list[Migration] = []
    for entry in resources.files("migrations").iterdir():
        match = _NAME.fullmatch(entry.name)
        if match is None:
            continue
        number, name, suffix = match.groups()
        if suffix == "sql":
            apply = _sql_migration(entry.read_text(encoding="utf-8"))
        else:
            apply = importlib.import_module(f"migrations.{entry.name[:-3]}").apply
        found.append(Migration(int(number), name, apply))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise MigrationError("migrations must be numbered 0001, 0002, … without gaps")
    return found


def latest_version() -> int:
    return len(available_migrations())


def current_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode with the project's PRAGMAs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


def migrate(path: Path, migrations: list[Migration] | None = None) -> list[int]:
    """Apply pending migrations to the database at ``path``; returns the versions applied.

    An existing database with pending migrations is backed up first (into
    ``data_dir/backups/``); when that fails, nothing is migrated."""
    chain = available_migrations() if migrations is None else migrations
    if path.exists():
        _backup_if_pending(path, len(chain))
    conn = connect(path)
    try:
        return _apply_pending(conn, chain)
    finally:
        conn.close()


def _backup_if_pending(path: Path, latest: int) -> None:
    # Read-only: the file stays exactly as it was if the backup fails.
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        version = current_version(conn)
    finally:
        conn.close()
    if version >= latest:
        return  # up to date, or newer (refused below, untouched)
    try:
        backup(path)
    except BackupError as error:
        raise MigrationError(
            f"not migrating: the backup before the migration failed ({error})"
        ) from error


def _apply_pending(conn: sqlite3.Connection, chain: list[Migration]) -> list[int]:
    current = current_version(conn)
    latest = len(chain)
    if current > latest:
        raise MigrationError(
            f"the database is at version {current}, newer than this jellybit "
            f"(knows up to {latest}): upgrade jellybit or restore a backup"
        )
    applied = []
    for migration in chain[current:]:
        _apply_one(conn, migration)
        applied.append(migration.version)
    return applied


def _apply_one(conn: sqlite3.Connection, migration: Migration) -> None:
    started = clock.monotonic()
    conn.execute("BEGIN IMMEDIATE")
    try:
        migration.apply(conn)
        conn.execute(f"PRAGMA user_version = {migration.version:d}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        log.error("migration.failed", version=migration.version, name=migration.name)
        raise
    log.info(
        "migration.applied",
        version=migration.version,
        name=migration.name,
        duration_ms=round((clock.monotonic() - started) * 1000, 1),
    )


def _sql_migration(script: str) -> Callable[[sqlite3.Connection], None]:
    statements = list(split_statements(script))

    def apply(conn: sqlite3.Connection) -> None:
        for statement in statements:
            conn.execute(statement)

    return apply


def split_statements(script: str) -> Iterator[str]:
    """Split a script into statements (``executescript`` would COMMIT our transaction)."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statement = buffer.strip()
            buffer = ""
            if _has_code(statement):
                yield statement
    if _has_code(buffer):
        raise MigrationError(f"incomplete SQL statement at the end: {buffer.strip()[:60]!r}")


def _has_code(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith("--") for line in text.splitlines())
