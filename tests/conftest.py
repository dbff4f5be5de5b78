from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import structlog

from bot import sender
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
    it starts with the chats' bursts full (the pacer is one per process)."""
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


# The longest modules start first, so that with load-by-file no worker is left with one
# of them at the end while the others idle (``make test``'s wall time is the longest worker).
LONGEST_FIRST = (
    "integration/test_crash.py",
    "integration/test_qbittorrent5.py",
    "integration/test_lifecycle.py",
    "integration/test_downloads.py",
    "integration/test_shutdown.py",
    "contract/test_qbittorrent.py",
    "core/test_recognition_sets.py",
    "jellybit/test_install.py",
    "core/test_parsing_suites.py",
    "sandbox/test_sandbox.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.path.as_posix()
        return next((i for i, end in enumerate(LONGEST_FIRST) if path.endswith(end)), 99)

    items.sort(key=rank)  # stable: the order inside a module stays
