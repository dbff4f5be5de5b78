"""The bot's memory: its messages about downloads, chat languages, hints."""

import sqlite3
from dataclasses import dataclass

import aiosqlite

from core import clock
from core.ids import Id, new_id
from core.models import Download
from core.notifications import REPLY
from store.db import Database
from store.download_rows import load_downloads
from store.rows import fetch_all, fetch_one


@dataclass(frozen=True)
class BotMessage:
    """A message the bot sent about a download (``role``: status, reply, notification)."""

    chat_id: int
    message_id: int
    download_id: Id
    role: str
    shown: str | None = None


async def remember_message(conn: aiosqlite.Connection, message: BotMessage) -> None:
    """Inside a write transaction: a message the bot sent about a download; the
    status one also becomes the download's ``message_id``."""
    now = clock.now()
    await conn.execute(
        """INSERT OR REPLACE INTO telegram_message
            (chat_id, message_id, download_id, role, shown, shown_at, created_at)
        VALUES (:chat_id, :message_id, :download_id, :role, :shown, :now, :now)""",
        {
            "chat_id": message.chat_id,
            "message_id": message.message_id,
            "download_id": message.download_id,
            "role": message.role,
            "shown": message.shown,
            "now": now,
        },
    )
    if message.role == "status":
        await conn.execute(
            """UPDATE download SET chat_id = :chat_id, message_id = :message_id
            WHERE id = :id""",
            {
                "chat_id": message.chat_id,
                "message_id": message.message_id,
                "id": message.download_id,
            },
        )


@dataclass(frozen=True)
class StatusMessage:
    chat_id: int
    message_id: int
    shown: str | None
    download: Download


class TelegramState:
    def __init__(self, db: Database) -> None:
        self._db = db
        # Every page and update asks for its chat's language, and only
        # set_chat_language changes it (one process owns the database), so the
        # answers are kept: a few chats, the allowed users.
        self._languages: dict[int, str | None] = {}

    async def answered(self, download_id: Id) -> bool:
        """Whether a reply about the download was queued or sent: one ingested by an
        update that stopped before its reply was queued has none yet."""
        row = await fetch_one(
            self._db.reader,
            """SELECT 1 FROM outbox WHERE download_id = :id AND kind = :reply
            UNION ALL SELECT 1 FROM telegram_message WHERE download_id = :id LIMIT 1""",
            {"id": download_id, "reply": REPLY},
        )
        return row is not None

    async def download_of_message(self, chat_id: int, message_id: int) -> Id | None:
        row = await fetch_one(
            self._db.reader,
            """SELECT download_id FROM telegram_message
            WHERE chat_id = :chat_id AND message_id = :message_id""",
            {"chat_id": chat_id, "message_id": message_id},
        )
        return None if row is None else Id(row["download_id"])

    async def status_messages_due(self, shown_before: str) -> list[StatusMessage]:
        """Status messages whose download changed since they were last shown,
        not shown since ``shown_before`` (edits are rate-limited)."""
        rows = await fetch_all(
            self._db.reader,
            """SELECT m.chat_id, m.message_id, m.shown, m.download_id
            FROM telegram_message AS m JOIN download AS d ON d.id = m.download_id
            WHERE m.role = 'status' AND d.updated_at >= m.shown_at AND m.shown_at <= :before
            ORDER BY m.shown_at""",
            {"before": shown_before},
        )
        downloads = await load_downloads(self._db.reader, (row["download_id"] for row in rows))
        return [
            StatusMessage(
                row["chat_id"], row["message_id"], row["shown"], downloads[row["download_id"]]
            )
            for row in rows
        ]

    async def mark_shown(self, chat_id: int, message_id: int, shown: str) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                """UPDATE telegram_message SET shown = :shown, shown_at = :now
                WHERE chat_id = :chat_id AND message_id = :message_id""",
                {"chat_id": chat_id, "message_id": message_id, "shown": shown, "now": clock.now()},
            )

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        """Remember the chat's language (the bot calls it on every update: an
        unchanged language writes nothing)."""
        if self._languages.get(chat_id) == language:
            return
        async with self._db.write() as conn:
            await conn.execute(
                """INSERT INTO telegram_chat (chat_id, language, updated_at)
                VALUES (:chat_id, :language, :now)
                ON CONFLICT (chat_id) DO UPDATE SET language = :language, updated_at = :now""",
                {"chat_id": chat_id, "language": language, "now": clock.now()},
            )
        self._languages[chat_id] = language

    def known_language(self, chat_id: int) -> str | None:
        """The chat's language if this process has already read or written it."""
        return self._languages.get(chat_id)

    async def chat_language(self, chat_id: int) -> str | None:
        if chat_id in self._languages:
            return self._languages[chat_id]
        row = await fetch_one(
            self._db.reader,
            "SELECT language FROM telegram_chat WHERE chat_id = :chat_id",
            {"chat_id": chat_id},
        )
        # setdefault: a set_chat_language that ran during the read wins.
        return self._languages.setdefault(chat_id, None if row is None else str(row["language"]))

    async def hints(self, download_id: Id) -> list[str]:
        return await self._db.read(lambda conn: read_hints(conn, download_id))


async def insert_hint(conn: aiosqlite.Connection, download_id: Id, text: str) -> None:
    """Inside a write transaction: one hint."""
    await conn.execute(
        """INSERT INTO hint (id, download_id, text, created_at)
        VALUES (:id, :download_id, :text, :now)""",
        {"id": new_id(), "download_id": download_id, "text": text, "now": clock.now()},
    )


def read_hints(conn: sqlite3.Connection, download_id: Id) -> list[str]:
    rows = conn.execute(
        "SELECT text FROM hint WHERE download_id = :id ORDER BY id", {"id": download_id}
    ).fetchall()
    return [row["text"] for row in rows]
