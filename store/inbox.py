"""The inbox of Telegram updates: stored before they are confirmed, handled step by
step (docs/resilience.md). A step's replies go into the outbox in the step's own
transaction, so a step is done exactly when its replies are queued."""

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import aiosqlite

from core import clock
from core.ids import Id, new_id
from core.notifications import REPLY
from store.db import Database
from store.rows import fetch_all
from store.telegram import insert_hint

KEEP_HANDLED_DAYS = 7


@dataclass(frozen=True)
class Reply:
    """A message to send to the chat of an update: rendered text, buttons (JSON),
    the message it answers, and the download it is about (its role: ``status`` for
    the one status message a download has, ``reply`` for the others)."""

    text: str
    markup: str | None = None
    reply_to: int | None = None
    download_id: Id | None = None
    role: str | None = None


@dataclass(frozen=True)
class Received:
    update_id: int
    chat_id: int | None
    kind: str
    body: str  # JSON


@dataclass(frozen=True)
class Entry:
    update_id: int
    chat_id: int | None
    kind: str
    body: str
    done_steps: int
    attempts: int
    received_at: str


class Inbox:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def store(self, updates: Sequence[Received]) -> None:
        """Every update once, in ONE transaction: a replay of a stored one changes
        nothing. Called before Telegram is told the updates arrived."""
        if not updates:
            return
        now = clock.now()
        async with self._db.write() as conn:
            await conn.executemany(
                """INSERT OR IGNORE INTO inbox (update_id, chat_id, kind, body,
                    next_attempt_at, received_at)
                VALUES (:update_id, :chat_id, :kind, :body, :now, :now)""",
                [{**u.__dict__, "now": now} for u in updates],
            )

    async def pending(self, now: str, limit: int = 200) -> list[Entry]:
        """Unhandled updates whose next try is due, oldest first. A chat's message
        waits while an earlier one of that chat waits for its retry (a chat's
        messages are handled in order); button presses wait for nothing."""
        rows = await fetch_all(
            self._db.reader,
            """SELECT update_id, chat_id, kind, body, done_steps, attempts, received_at
            FROM inbox AS i WHERE handled_at IS NULL AND next_attempt_at <= :now
              AND (kind = 'callback_query' OR NOT EXISTS (
                SELECT 1 FROM inbox AS e
                WHERE e.handled_at IS NULL AND e.chat_id IS i.chat_id
                  AND e.kind != 'callback_query' AND e.update_id < i.update_id
                  AND e.next_attempt_at > :now))
            ORDER BY update_id LIMIT :limit""",
            {"now": now, "limit": limit},
        )
        return [Entry(**dict(row)) for row in rows]

    async def step_done(
        self,
        update_id: int,
        chat_id: int,
        steps: int,
        replies: Iterable[Reply],
        *,
        hint: tuple[Id, str] | None = None,
        handled: bool = False,
    ) -> None:
        """``steps`` steps of the update are done: its replies are queued (and a hint
        stored) in the same transaction; ``handled``: that was the last step."""
        now = clock.now()
        async with self._db.write() as conn:
            for reply in replies:
                await enqueue_reply(conn, chat_id, reply, now)
            if hint is not None:
                await insert_hint(conn, *hint)
            await conn.execute(
                """UPDATE inbox SET done_steps = max(done_steps, :steps),
                    handled_at = CASE WHEN :handled THEN :now ELSE handled_at END
                WHERE update_id = :update_id""",
                {"update_id": update_id, "steps": steps, "handled": int(handled), "now": now},
            )

    async def handled(self, update_id: int) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE inbox SET handled_at = :now WHERE update_id = :id AND handled_at IS NULL",
                {"id": update_id, "now": clock.now()},
            )

    async def failed(self, update_id: int, error: str, next_attempt_at: str) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                """UPDATE inbox SET attempts = attempts + 1, last_error = :error,
                    next_attempt_at = :next WHERE update_id = :id""",
                {"id": update_id, "error": error[:500], "next": next_attempt_at},
            )

    async def purge(self, before: str) -> None:
        """Handled updates older than ``before`` go (a replay that old is not kept by
        Telegram either)."""
        async with self._db.write() as conn:
            await conn.execute(
                "DELETE FROM inbox WHERE handled_at IS NOT NULL AND handled_at < :before",
                {"before": before},
            )


async def enqueue_reply(conn: aiosqlite.Connection, chat_id: int, reply: Reply, now: str) -> None:
    """Inside a write transaction: a reply in the chat's outbox queue."""
    payload = {"text": reply.text, "markup": reply.markup, "reply_to": reply.reply_to}
    if reply.role is not None:
        payload["role"] = reply.role
    await conn.execute(
        """INSERT INTO outbox (id, chat_id, download_id, kind, payload, next_attempt_at,
            created_at)
        VALUES (:id, :chat_id, :download_id, :kind, :payload, :now, :now)""",
        {
            "id": new_id(),
            "chat_id": chat_id,
            "download_id": reply.download_id,
            "kind": REPLY,
            "payload": json.dumps(payload, ensure_ascii=False),
            "now": now,
        },
    )
