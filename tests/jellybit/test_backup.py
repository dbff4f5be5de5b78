"""Backups: SQLite's online backup API, automatic before migrations, and ``jellybit backup``."""

import asyncio
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from store import Store
from store.backup import KEEP, BackupError, backup, backups_dir
from store.migrate import MigrationError, available_migrations, latest_version, migrate
from tests.jellybit.test_cli import EXAMPLE, jellybit

NAME = re.compile(r"jellybit-\d{8}T\d{6}\.\d{3}Z-v(\d+)\.db")


def integrity_and_version(path: Path) -> tuple[str, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        (check,) = conn.execute("PRAGMA integrity_check").fetchone()
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        return str(check), int(version)
    finally:
        conn.close()


def chats_in(path: Path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM telegram_chat").fetchone()[0])
    finally:
        conn.close()


def one_version_behind(path: Path) -> None:
    """A database that the latest migration is pending on."""
    migrate(path, available_migrations()[:-1])
    assert integrity_and_version(path)[1] == latest_version() - 1


async def test_backup_while_the_app_writes_is_a_consistent_copy(
    db_path: Path, tmp_path: Path
) -> None:
    store = await Store.open(db_path)
    written = 0
    writing = True

    async def write_continuously() -> None:
        nonlocal written
        while writing:
            await store.telegram.set_chat_language(written + 1, "en")
            written += 1

    writer = asyncio.create_task(write_continuously())
    try:
        copies = []
        for n in range(5):
            before = written
            copy = await asyncio.to_thread(backup, db_path, tmp_path / f"copy-{n}.db")
            copies.append((copy, before, written))
            await asyncio.sleep(0.01)  # let some writes land between the copies
    finally:
        writing = False
        await writer
        await store.close()
    assert written > 0
    for copy, before, after in copies:
        assert integrity_and_version(copy) == ("ok", latest_version())
        assert before <= chats_in(copy) <= after  # one snapshot, taken during the copy
        assert not copy.with_name(copy.name + "-wal").exists()  # a single self-contained file
    assert list(tmp_path.glob(".*partial*")) == []


def test_default_backups_go_to_data_dir_backups_and_only_the_newest_are_kept(
    db_path: Path,
) -> None:
    folder = backups_dir(db_path)
    folder.mkdir()
    old = [folder / f"jellybit-20200101T000000.00{i}Z-v1.db" for i in range(KEEP + 1)]
    for path in old:
        shutil.copy(db_path, path)
    (folder / "mine.db").write_bytes(b"not ours")

    made = backup(db_path)

    assert made.parent == folder
    match = NAME.fullmatch(made.name)
    assert match is not None
    assert int(match.group(1)) == latest_version()
    kept = sorted(p.name for p in folder.glob("jellybit-*.db"))
    assert kept == sorted([p.name for p in old[-(KEEP - 1) :]] + [made.name])
    assert (folder / "mine.db").read_bytes() == b"not ours"


def test_backup_into_a_directory_refuses_an_existing_file_and_a_missing_directory(
    db_path: Path, tmp_path: Path
) -> None:
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"keep me")
    with pytest.raises(BackupError, match="already exists"):
        backup(db_path, taken)
    assert taken.read_bytes() == b"keep me"
    with pytest.raises(BackupError, match="does not exist"):
        backup(db_path, tmp_path / "nowhere" / "copy.db")
    with pytest.raises(BackupError, match="does not exist"):
        backup(tmp_path / "absent.db", tmp_path / "copy.db")
    into_dir = backup(db_path, tmp_path)  # a directory: a named file inside
    assert into_dir.parent == tmp_path
    assert NAME.fullmatch(into_dir.name)


def test_migrate_backs_up_first_only_when_a_migration_is_pending(tmp_path: Path) -> None:
    path = tmp_path / "jellybit.db"
    folder = backups_dir(path)
    migrate(path)  # the file did not exist: nothing to back up
    migrate(path)  # nothing pending
    assert not folder.exists()

    other = tmp_path / "older" / "jellybit.db"
    one_version_behind(other)
    assert migrate(other) == [latest_version()]
    (made,) = backups_dir(other).iterdir()
    match = NAME.fullmatch(made.name)
    assert match is not None
    assert int(match.group(1)) == latest_version() - 1
    assert integrity_and_version(made) == ("ok", latest_version() - 1)
    assert integrity_and_version(other) == ("ok", latest_version())


def test_migrate_keeps_only_the_newest_backups(tmp_path: Path) -> None:
    path = tmp_path / "jellybit.db"
    one_version_behind(path)
    folder = backups_dir(path)
    folder.mkdir()
    for i in range(KEEP + 2):
        (folder / f"jellybit-20200101T000000.00{i}Z-v1.db").write_bytes(b"old")
    migrate(path)
    kept = sorted(p.name for p in folder.iterdir())
    assert len(kept) == KEEP
    assert kept[:-1] == [f"jellybit-20200101T000000.00{i}Z-v1.db" for i in range(3, KEEP + 2)]
    assert integrity_and_version(folder / kept[-1]) == ("ok", latest_version() - 1)


def test_a_failed_backup_stops_the_migration_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "jellybit.db"
    one_version_behind(path)
    before = path.read_bytes()
    backups_dir(path).write_bytes(b"")  # a file where the directory should be
    with pytest.raises(MigrationError, match="backup before the migration failed"):
        migrate(path)
    assert path.read_bytes() == before
    assert integrity_and_version(path) == ("ok", latest_version() - 1)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    shutil.copy(EXAMPLE, path)
    return path


def test_migrate_command_says_why_when_the_backup_fails(config: Path) -> None:
    path = config.parent / "var" / "jellybit.db"
    path.parent.mkdir()
    one_version_behind(path)
    backups_dir(path).write_bytes(b"")
    result = jellybit("migrate", "--config", str(config), cwd=config.parent)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "not migrating: the backup before the migration failed" in result.stderr
    assert integrity_and_version(path)[1] == latest_version() - 1


def test_backup_command_default_and_explicit_paths(config: Path) -> None:
    cwd = config.parent
    path = cwd / "var" / "jellybit.db"
    migrate(path)
    default = jellybit("backup", "--config", str(config), cwd=cwd)
    assert default.returncode == 0, default.stderr
    (made,) = backups_dir(path).iterdir()
    assert NAME.fullmatch(made.name)
    assert f"backed up to {made}" in default.stdout

    target = cwd / "copy.db"
    explicit = jellybit("backup", str(target), "--config", str(config), cwd=cwd)
    assert explicit.returncode == 0, explicit.stderr
    assert integrity_and_version(target) == ("ok", latest_version())

    again = jellybit("backup", str(target), "--config", str(config), cwd=cwd)
    assert again.returncode == 1
    assert f"{target} already exists" in again.stderr
    assert "Traceback" not in again.stderr
    bad = jellybit("backup", str(cwd / "no" / "such" / "x.db"), "--config", str(config), cwd=cwd)
    assert bad.returncode == 1
    assert "does not exist" in bad.stderr
    assert "Traceback" not in bad.stderr
