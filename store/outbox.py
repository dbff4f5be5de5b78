"""The outbox: notifications written in the transaction of the change they
announce, sent later by the dispatcher in id order per chat."""

import json
from collections.abc import Iterable

import aiosqlite

from core import clock
from core.ids import Id, new_id
from core.models import Notification
from store.db import Database
from store.rows import fetch_all
from store.telegram import BotMessage, remember_message


async def enqueue(
    conn: aiosqlite.Connection,
    download_id: Id,
    kind: str,
    payload: dict[str, object] | None = None,
) -> None:
    """Inside a write transaction: announce ``kind`` about a download to its chat
    (every allowed user when it has none, e.g. an adopted torrent)."""
    now = clock.now()
    await conn.execute(
        """INSERT INTO outbox (id, chat_id, download_id, kind, payload, next_attempt_at,
            created_at)
        SELECT :id, chat_id, id, :kind, :payload, :now, :now
        FROM download WHERE id = :download_id""",
        {
            "id": new_id(),
            "download_id": download_id,
            "kind": kind,
            "payload": json.dumps(payload or {}, ensure_ascii=False),
            "now": now,
        },
    )


class Outbox:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def announce(self, kind: str, payload: dict[str, object] | None = None) -> None:
        """A notification about jellybit itself (no download) to every allowed user:
        ``qbittorrent_down`` / ``qbittorrent_back``."""
        now = clock.now()
        async with self._db.write() as conn:
            await conn.execute(
                """INSERT INTO outbox (id, chat_id, download_id, kind, payload,
                    next_attempt_at, created_at)
                VALUES (:id, NULL, NULL, :kind, :payload, :now, :now)""",
                {
                    "id": new_id(),
                    "kind": kind,
                    "payload": json.dumps(payload or {}, ensure_ascii=False),
                    "now": now,
                },
            )

    async def due(self, now: str, limit: int = 50) -> list[Notification]:
        """The oldest unsent notification of each chat, when its next try is due:
        a chat's notifications go out in order, a failing one holds the rest."""
        rows = await fetch_all(
            self._db.reader,
            """SELECT o.* FROM outbox AS o
            WHERE o.sent_at IS NULL AND o.next_attempt_at <= :now
              AND o.id = (SELECT min(id) FROM outbox
                          WHERE sent_at IS NULL AND chat_id IS o.chat_id)
            ORDER BY o.id LIMIT :limit""",
            {"now": now, "limit": limit},
        )
        return [
            Notification(
                id=Id(row["id"]),
                chat_id=row["chat_id"],
                download_id=None if row["download_id"] is None else Id(row["download_id"]),
                kind=row["kind"],
                payload=json.loads(row["payload"]),
                attempts=row["attempts"],
                created_at=row["created_at"],
            )
            for row in rows
        ]

    async def fan_out(self, notification: Notification, chat_ids: Iterable[int]) -> None:
        """Replace a notification for "every allowed user" by one per chat."""
        async with self._db.write() as conn:
            for chat_id in chat_ids:
                await conn.execute(
                    """INSERT INTO outbox (id, chat_id, download_id, kind, payload,
                        next_attempt_at, created_at)
                    SELECT :id, :chat_id, download_id, kind, payload, next_attempt_at, created_at
                    FROM outbox WHERE id = :source""",
                    {"id": new_id(), "chat_id": chat_id, "source": notification.id},
                )
            await conn.execute("DELETE FROM outbox WHERE id = :id", {"id": notification.id})

    async def mark_sent(
        self, notification_id: Id, message_id: int | None, about: BotMessage | None = None
    ) -> None:
        """Sent (``message_id`` None: dropped); the message it became is remembered in
        the same transaction, so a kill between the two cannot leave a message that
        is remembered but still queued (sent again, a second status message)."""
        async with self._db.write() as conn:
            if about is not None:
                await remember_message(conn, about)
            await conn.execute(
                """UPDATE outbox SET sent_at = :now, message_id = :message_id,
                    attempts = attempts + 1, last_error = NULL WHERE id = :id""",
                {"id": notification_id, "message_id": message_id, "now": clock.now()},
            )
            # A search's first message: its later states are edits of it.
            await conn.execute(
                """UPDATE search SET message_id = :message_id
                WHERE id = (SELECT json_extract(payload, '$.search_id') FROM outbox WHERE id = :id)
                  AND message_id IS NULL""",
                {"id": notification_id, "message_id": message_id},
            )

    async def mark_failed(self, notification_id: Id, error: str, next_attempt_at: str) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                """UPDATE outbox SET attempts = attempts + 1, last_error = :error,
                    next_attempt_at = :next WHERE id = :id""",
                {"id": notification_id, "error": error[:500], "next": next_attempt_at},
            )
