from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from store import Store
from store.migrate import migrate


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
