import fnmatch
import re
from collections.abc import AsyncIterator, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import structlog
from xdist.scheduler import LoadScopeScheduling

from store import Store
from store.migrate import migrate
from tests.support.telegram import FakeTelegram


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    """A fake Bot API server (tests/support/telegram.py) for one test."""
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture(autouse=True)
def _fresh_pacer() -> None:
    """Telegram counts a chat's messages per bot; every test runs a bot of its own, so
    it starts with the chats' bursts full (the pacer is one per process). Imported
    here: the controller of a parallel run, which loads this file before it starts
    its workers, never imports aiogram (3 s of CPU)."""
    from bot import sender

    sender.PACER = sender.ChatPacer()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh database file at the latest migration."""
    path = tmp_path / "jellybit.db"
    migrate(path)
    return path


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(db_path)
    yield opened
    await opened.close()


@pytest.fixture(autouse=True)
def _logs_to_stderr() -> Iterator[None]:
    """A test that runs the CLI in-process configures logging onto pytest's
    captured stream, which is closed after it: the next test must not write there."""
    _plain_tracebacks()
    yield
    structlog.reset_defaults()


def _plain_tracebacks() -> None:
    """structlog's default console renderer prints tracebacks through rich with every
    local variable: a test's updates of 200 KB take it minutes. Plain ones are enough."""
    structlog.configure(
        processors=[
            *structlog.get_config()["processors"][:-1],
            structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback),
        ]
    )


# ``make test`` runs tests in parallel by scope: a module, or a module against one
# qBittorrent version (its tests share that version's qbittorrent-nox, and the 4.5 and
# 5.x halves of a long module run side by side), or one decision set. The longest scopes
# start first, so that no worker is left with one of them at the end while the others
# idle: the run's wall time is its longest worker's. Those that mostly wait (on a real
# qBittorrent, a download, a timer) alternate with those that keep a core busy (a
# decision set, "[heldout/fresh2.json]"), so that the waits overlap work: all waiting
# at once left both cores half idle for 35 s of a run. Scopes of under ~7 s (wall, in a
# full run) follow in file order: they fill the end (tests/bot/test_search.py, left out,
# ran the last 15 s of a run alone).
LONGEST_FIRST = (
    "integration/test_crash.py[qbt4.5]",
    "[heldout/fresh2.json]",
    "[world/world2.json]",
    "integration/test_qbittorrent5.py",
    "[world/world1.json]",
    "[world/world3.json]",
    "integration/test_crash.py[qbt5]",
    "[regression/releases.json]",
    "[world/world4.json]",
    "jellybit/test_install.py",
    "[heldout/fresh3.json]",
    "[heldout/fresh.json]",
    "integration/test_lifecycle.py[qbt4.5]",
    "recognition/test_recognition_sets.py",
    "integration/test_lifecycle.py[qbt5]",
    "recognition/test_parsing_suites.py",
    "bot/test_chat.py",
    "web/test_api.py",
    "contract/test_qbittorrent.py",
    "bot/test_lazy_aiogram.py",
    "bot/test_front_door.py",
    "bot/test_update_shapes.py",
    "integration/test_downloads.py[qbt4.5]",
    "sandbox/test_sandbox.py",
    "integration/test_downloads.py[qbt5]",
    "core/test_torrent_file.py",
    "bot/test_search.py",
    "jellybit/test_cli.py",
    "bot/test_inbox.py",
    "test_conventions.py",
    "worker/test_import.py",
    "web/test_pages.py",
    "web/test_review_flow.py",
    "recognition/test_guess_siblings.py",
    "integration/test_shutdown.py[qbt4.5]",
    "common/test_i18n.py",
    "integration/test_shutdown.py[qbt5]",
    "recognition/test_rebulk_fast.py",
    "worker/test_recognition_layout.py",
    "contract/test_qbittorrent_search.py",
    "web/test_browser.py",
    "sandbox/test_sandbox_chat.py",
    "test_harness.py[qbt4.5]",
    "test_harness.py[qbt5]",
    "worker/test_library_refusals.py",
    "integration/test_search.py[qbt4.5]",
    "integration/test_search.py[qbt5]",
    "sandbox/test_sandbox_signals.py",
    "bot/test_one_message.py",
    "worker/test_disk_space.py",
    "bot/test_supervision.py",
    "sandbox/test_fake_telegram.py",
    "jellybit/test_check.py",
    "worker/test_nothing_twice.py",
)
_VERSION = re.compile(r"\[(?:.*-)?(qbt[\d.]+)(?:-.*)?\]$")


# Modules whose every test is a long CPU-bound run of its own (a decision set): each
# test its own scope, so that they spread over the workers.
ONE_SCOPE_PER_TEST = ("recognition/test_recognition_sets.py",)


def scope_of(nodeid: str) -> str:
    """``tests/a/test_b.py``; for a test against one qBittorrent, ``…py[qbt5]``; for a
    test of ``ONE_SCOPE_PER_TEST``, the test itself."""
    module, _, test = nodeid.partition("::")
    if module.endswith(ONE_SCOPE_PER_TEST):
        return nodeid
    version = _VERSION.search(test)
    return f"{module}[{version[1]}]" if version else module


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: _rank(scope_of(item.nodeid)))  # stable: a scope's order stays


@cache
def _rank(scope: str) -> int:
    ends = (scope, scope.partition("::")[0])  # a set's scope is its test
    found = (i for i, end in enumerate(LONGEST_FIRST) if any(e.endswith(end) for e in ends))
    return next(found, len(LONGEST_FIRST))


class _ByScope(LoadScopeScheduling):  # type: ignore[misc]  # xdist has no types
    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadScopeScheduling | None:
    """``--dist loadscope`` groups by ``scope_of``; keep the order above with
    ``--no-loadscope-reorder`` (xdist's default sorts scopes by their number of tests)."""
    return _ByScope(config, log) if config.getvalue("dist") == "loadscope" else None


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):
        _rewrite_test_modules_once(config)


def _rewrite_test_modules_once(config: pytest.Config) -> None:
    """The controller of a parallel run writes pytest's assertion-rewritten bytecode of
    the test modules before it starts its workers (1.4 s of CPU). Each worker would
    rewrite them all again (~3 s of CPU each): PYTHONDONTWRITEBYTECODE, as on this
    machine, keeps pytest from writing what it rewrote, but it reads what is there.
    pytest has no public call for this, so nothing here may fail a run: a module it
    cannot rewrite (a syntax error), a pytest whose private names differ, or
    ``--assert=plain`` leave the workers to do (and report) what they would anyway."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
            try_makedirs,
        )
    except ImportError:
        return
    state = config.stash.get(assertstate_key, None)  # none: not rewriting at all
    if state is None:
        return
    patterns = [*config.getini("python_files"), "conftest.py"]
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        if not any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns):
            continue
        cache = get_cache_dir(path)
        pyc = cache / (path.name[:-3] + PYC_TAIL)
        try:
            if _read_pyc(path, pyc) is None and try_makedirs(cache):
                source_hash, code = _rewrite_test(path, config)
                _write_pyc(state, code, source_hash, pyc)
        except Exception:  # the worker that imports it reports it
            continue
