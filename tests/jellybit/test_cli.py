"""The jellybit command as a person runs it: real processes, exit codes, no tracebacks."""

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from store.migrate import latest_version
from tests.support.qbittorrent import free_port

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config.example.toml"


def jellybit(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jellybit", *args],
        cwd=cwd,
        env=clean_env(env),
        capture_output=True,
        text=True,
        timeout=60,
    )


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JELLYBIT_")}
    return {**env, **(extra or {})}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """The shipped example, in a directory of its own (data_dir resolves there)."""
    path = tmp_path / "config.toml"
    shutil.copy(EXAMPLE, path)
    return path


def test_run_with_a_missing_config_file_lists_missing_keys(tmp_path: Path) -> None:
    # Without --config (nor $JELLYBIT_CONFIG) and no ./config.toml, run starts the sandbox.
    result = jellybit("run", "--config", "config.toml", cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"config file {tmp_path / 'config.toml'} not found" in result.stderr
    assert "config.example.toml" in result.stderr
    assert "telegram.token: missing" in result.stderr
    assert "telegram.allowed_users: missing" in result.stderr


def test_a_bad_value_gets_one_clear_line_and_exit_2(config: Path) -> None:
    text = config.read_text().replace("poll_interval = 5", 'poll_interval = "fast"')
    config.write_text(text.replace('mode = "polling"', 'mode = "push"'))
    result = jellybit("migrate", "--config", str(config), cwd=config.parent)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line.strip() for line in result.stderr.splitlines()]
    assert 'qbittorrent.poll_interval: must be a positive number, got "fast"' in lines
    assert any(line.startswith("telegram.mode: must be one of") for line in lines)
    assert not (config.parent / "var").exists()  # a bad config changes nothing


def test_migrate_creates_a_fresh_database_at_the_latest_version(config: Path) -> None:
    result = jellybit("migrate", "--config", str(config), cwd=config.parent)
    assert result.returncode == 0, result.stderr
    database = config.parent / "var" / "jellybit.db"
    assert f"migrated to version {latest_version()}" in result.stdout
    conn = sqlite3.connect(database)
    assert conn.execute("PRAGMA user_version").fetchone() == (latest_version(),)
    conn.close()

    status = jellybit("migrate", "--status", cwd=ROOT, env={"JELLYBIT_CONFIG": str(config)})
    assert status.returncode == 0
    assert f"version {latest_version()}, latest {latest_version()}, up to date" in status.stdout


def test_migrate_status_before_and_a_database_newer_than_the_code(config: Path) -> None:
    status = jellybit("migrate", "--status", "--config", str(config), cwd=config.parent)
    assert "does not exist yet" in status.stdout
    jellybit("migrate", "--config", str(config), cwd=config.parent)
    conn = sqlite3.connect(config.parent / "var" / "jellybit.db")
    conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    conn.close()

    refused = jellybit("migrate", "--config", str(config), cwd=config.parent)
    assert refused.returncode == 1
    assert "newer than this jellybit" in refused.stderr
    assert "Traceback" not in refused.stderr
    status = jellybit("migrate", "--status", "--config", str(config), cwd=config.parent)
    assert "newer than this jellybit" in status.stdout


def test_check_prints_a_checklist(config: Path) -> None:
    """The shipped example as it is; every item is in tests/jellybit/test_check.py."""
    closed = free_port()
    config.write_text(
        config.read_text()
        .replace('language = "ru"', 'language = "en"')
        .replace('url = "http://127.0.0.1:8080"', f'url = "http://127.0.0.1:{closed}"')
    )
    before = jellybit("check", "--config", str(config), cwd=config.parent)
    assert before.returncode == 1
    assert "Traceback" not in before.stderr
    assert "✓ the configuration is valid" in before.stdout
    assert "✗ keys for `jellybit run` are missing" in before.stdout
    assert "✗ database" in before.stdout
    assert "run `jellybit migrate`" in before.stdout
    assert f"✗ qBittorrent is unreachable at http://127.0.0.1:{closed}" in before.stdout


def test_run_migrates_and_stops_cleanly_on_sigterm(config: Path) -> None:
    """Telegram and qBittorrent unreachable (closed ports): it runs, and stops."""
    closed, web_port = free_port(), free_port()
    config.write_text(
        config.read_text()
        .replace("allowed_users = []", "allowed_users = [42]")
        .replace('api_base = ""', f'api_base = "http://127.0.0.1:{closed}"')
        .replace('url = "http://127.0.0.1:8080"', f'url = "http://127.0.0.1:{closed}"')
        .replace('listen = "127.0.0.1:8090"', f'listen = "127.0.0.1:{web_port}"')
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "jellybit", "run", "--config", str(config)],
        cwd=config.parent,
        env=clean_env({"JELLYBIT_TELEGRAM_TOKEN": "123456:test-token"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: list[str] = []
    try:
        stream = process.stderr
        assert stream is not None
        reader = threading.Thread(target=lambda: seen.extend(_until_started(stream)))
        reader.start()
        reader.join(timeout=30)
        assert any("jellybit.started" in line for line in seen), seen
        process.send_signal(signal.SIGTERM)
        _, rest = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, rest
    assert '"event": "jellybit.stopped"' in rest
    database = config.parent / "var" / "jellybit.db"
    conn = sqlite3.connect(database)
    assert conn.execute("PRAGMA user_version").fetchone() == (latest_version(),)
    conn.close()


def _until_started(stream: IO[str]) -> Iterator[str]:
    for line in stream:
        yield line
        if "jellybit.started" in line:
            return


def test_version_is_the_one_in_pyproject(tmp_path: Path) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    done = jellybit("--version", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, f"jellybit {project['project']['version']}\n")


def test_with_no_config_file_the_environment_is_the_configuration(tmp_path: Path) -> None:
    env = {
        "JELLYBIT_QBITTORRENT_URL": "http://127.0.0.1:9",
        "JELLYBIT_GENERAL_DATA_DIR": str(tmp_path / "data"),
        "JELLYBIT_TELEGRAM_ALLOWED_USERS": "[111111111]",
    }
    done = jellybit("check", "--log-level", "warning", cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr  # a checklist (nothing runs here), not exit 2
    lines = done.stdout.splitlines()
    assert lines[0].startswith("✓ "), done.stdout
    assert '· qbittorrent.url = "http://127.0.0.1:9" — из: JELLYBIT_QBITTORRENT_URL' in lines
    bad = jellybit("check", cwd=tmp_path, env={"JELLYBIT_QBITTORRENT_POLL_INTERVAL": "-1"})
    assert bad.returncode == 2
    assert "(from JELLYBIT_QBITTORRENT_POLL_INTERVAL)" in bad.stderr
