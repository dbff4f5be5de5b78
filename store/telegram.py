"""The bot's memory: its messages about downloads, chat languages, hints."""

import sqlite3
from dataclasses import dataclass
from enum import StrEnum

import aiosqlite

from core import clock
from core.ids import Id, new_id
from core.models import Download
from core.notifications import REPLY
from store.db import Database
from store.download_rows import load_downloads
from store.rows import fetch_all, fetch_one


class Role(StrEnum):
    """What a message about a download is to it. A download has one message per
    chat, its ``STATUS``; a newer one supersedes it (the older is then deleted from
    the chat, or, once Telegram no longer lets the bot delete it, ``MOVED``: kept,
    so that a reply to it still adds a hint). ``REPLY`` (a duplicate's answer, ``/status``)
    and ``NOTIFICATION`` (a notice): messages of an older jellybit, kept so that their
    buttons and replies still work."""

    STATUS = "status"
    REPLY = "reply"
    SUPERSEDED = "superseded"
    MOVED = "moved"
    NOTIFICATION = "notification"


@dataclass(frozen=True)
class BotMessage:
    """A message the bot sent about a download (``role``: one of the roles above);
    ``shown``: what it shows (``Views``' key); ``photo``: its poster's URL, None for
    a text message."""

    chat_id: int
    message_id: int
    download_id: Id
    role: Role
    shown: str | None = None
    photo: str | None = None
    rendered_at: str | None = None  # when ``shown`` was rendered, if before the send


async def remember_message(conn: aiosqlite.Connection, message: BotMessage) -> None:
    """Inside a write transaction: a message the bot sent about a download. A status
    message supersedes the download's earlier one in that chat (one message per
    download) and becomes the download's ``message_id`` in its own chat."""
    now = clock.now()
    params = {
        "chat_id": message.chat_id,
        "message_id": message.message_id,
        "download_id": message.download_id,
        "role": message.role,
        "shown": message.shown,
        "photo": message.photo,
        "now": now,
        # A reply rendered when its update was handled shows the download as it was
        # then: a change since makes the status updater show it anew.
        "shown_at": message.rendered_at or now,
    }
    await conn.execute(
        """INSERT OR REPLACE INTO telegram_message
            (chat_id, message_id, download_id, role, shown, shown_at, photo, created_at)
        VALUES (:chat_id, :message_id, :download_id, :role, :shown, :shown_at, :photo, :now)""",
        params,
    )
    if message.role == Role.STATUS:
        await conn.execute(
            """UPDATE telegram_message SET role = 'superseded'
            WHERE download_id = :download_id AND chat_id = :chat_id AND role = 'status'
              AND message_id != :message_id""",
            params,
        )
        await conn.execute(
            """UPDATE download SET message_id = :message_id
            WHERE id = :download_id AND chat_id = :chat_id""",
            params,
        )


@dataclass(frozen=True)
class StatusMessage:
    chat_id: int
    message_id: int
    shown: str | None
    photo: str | None
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

    async def status_messages_due(
        self, shown_before: str, waiting_before: str
    ) -> list[StatusMessage]:
        """Status messages whose download changed since they were last shown, not
        shown since ``shown_before`` (edits are rate-limited); and those of downloads
        still at 0 % not shown since ``waiting_before`` (their "waited so far" grows
        while nothing else changes)."""
        rows = await fetch_all(
            self._db.reader,
            """SELECT m.chat_id, m.message_id, m.shown, m.photo, m.download_id
            FROM telegram_message AS m JOIN download AS d ON d.id = m.download_id
            WHERE m.role = 'status' AND m.shown_at <= :before
              AND (d.updated_at >= m.shown_at
                   OR (d.state = 'downloading' AND d.progress = 0
                       AND m.shown_at <= :waiting_before))
            ORDER BY m.shown_at""",
            {"before": shown_before, "waiting_before": waiting_before},
        )
        downloads = await load_downloads(self._db.reader, (row["download_id"] for row in rows))
        return [
            StatusMessage(
                row["chat_id"],
                row["message_id"],
                row["shown"],
                row["photo"],
                downloads[row["download_id"]],
            )
            for row in rows
        ]

    async def news_waiting(self, download_id: Id, chat_id: int) -> bool:
        """Whether a message about the download waits in the chat's outbox (it will be
        sent anew and supersede the one the chat has)."""
        row = await fetch_one(
            self._db.reader,
            """SELECT 1 FROM outbox WHERE sent_at IS NULL AND download_id = :download_id
              AND (chat_id IS NULL OR chat_id = :chat_id) LIMIT 1""",
            {"download_id": download_id, "chat_id": chat_id},
        )
        return row is not None

    async def message(self, chat_id: int, message_id: int) -> BotMessage | None:
        row = await fetch_one(
            self._db.reader,
            """SELECT download_id, role, shown, photo FROM telegram_message
            WHERE chat_id = :chat_id AND message_id = :message_id""",
            {"chat_id": chat_id, "message_id": message_id},
        )
        if row is None:
            return None
        return BotMessage(
            chat_id, message_id, Id(row["download_id"]), Role(row["role"]), row["shown"],
            row["photo"],
        )  # fmt: skip

    async def superseded(self, chat_id: int | None = None) -> list[BotMessage]:
        """Messages a download's newer message superseded (of one chat, or all): to
        delete from the chat."""
        rows = await fetch_all(
            self._db.reader,
            """SELECT chat_id, message_id, download_id, shown, photo FROM telegram_message
            WHERE role = 'superseded' AND (:chat_id IS NULL OR chat_id = :chat_id)
            ORDER BY created_at LIMIT 50""",
            {"chat_id": chat_id},
        )
        return [
            BotMessage(
                r["chat_id"],
                r["message_id"],
                Id(r["download_id"]),
                Role.SUPERSEDED,
                r["shown"],
                r["photo"],
            )
            for r in rows
        ]

    async def retire(self, chat_id: int, message_id: int, *, deleted: bool) -> None:
        """A superseded message is gone from the chat (forgotten), or stays there
        (``MOVED``: Telegram no longer lets the bot delete it)."""
        params = {"chat_id": chat_id, "message_id": message_id}
        async with self._db.write() as conn:
            if deleted:
                await conn.execute(
                    """DELETE FROM telegram_message
                    WHERE chat_id = :chat_id AND message_id = :message_id""",
                    params,
                )
            else:
                await conn.execute(
                    """UPDATE telegram_message SET role = 'moved'
                    WHERE chat_id = :chat_id AND message_id = :message_id""",
                    params,
                )

    async def mark_shown(
        self, chat_id: int, message_id: int, shown: str, photo: str | None
    ) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                """UPDATE telegram_message SET shown = :shown, shown_at = :now, photo = :photo
                WHERE chat_id = :chat_id AND message_id = :message_id""",
                {
                    "chat_id": chat_id,
                    "message_id": message_id,
                    "shown": shown,
                    "photo": photo,
                    "now": clock.now(),
                },
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

    async def remember(self, message: BotMessage) -> None:
        async with self._db.write() as conn:
            await remember_message(conn, message)

    async def add_hint(self, download_id: Id, text: str) -> None:
        async with self._db.write() as conn:
            await insert_hint(conn, download_id, text)

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
