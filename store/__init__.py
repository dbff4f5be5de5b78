"""SQLite persistence (aiosqlite). ``Store`` bundles the database and its parts."""

from dataclasses import dataclass
from pathlib import Path
from typing import Self

from core.ids import Id
from store.card import DownloadCard, read_card
from store.db import Database
from store.downloads import Downloads
from store.inbox import Inbox
from store.outbox import Outbox
from store.recognition import Recognitions
from store.search import Searches
from store.telegram import TelegramState
from store.titles import Titles
from store.tracking import Tracking


@dataclass(frozen=True)
class Store:
    db: Database
    downloads: Downloads
    tracking: Tracking
    outbox: Outbox
    telegram: TelegramState
    recognitions: Recognitions
    inbox: Inbox
    titles: Titles
    searches: Searches

    @classmethod
    async def open(cls, path: Path) -> Self:
        """Open a migrated database (``store.migrate.migrate`` brings it up to date)."""
        db = await Database.open(path)
        return cls(
            db=db,
            downloads=Downloads(db),
            tracking=Tracking(db),
            outbox=Outbox(db),
            telegram=TelegramState(db),
            recognitions=Recognitions(db),
            inbox=Inbox(db),
            titles=Titles(db),
            searches=Searches(db),
        )

    async def card(self, download_id: Id) -> DownloadCard | None:
        """The download card's data (None: no such download), one snapshot."""
        return await self.db.read(lambda conn: read_card(conn, download_id))

    async def close(self) -> None:
        await self.db.close()
