"""The inbox of Telegram updates: stored as Telegram sent them before they are
confirmed, handled step by step (docs/resilience.md). A step's replies go into the
outbox in the step's own transaction, so a step is done exactly when its replies are
queued. A row has an id of its own (arrival order); a replay is an update whose
``update_id`` and content were both seen before (migrations/0010_inbox_rows.py)."""

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import aiosqlite

from core import clock
from core.ids import Id, new_id
from core.notifications import REPLY
from store.db import Database
from store.rows import fetch_all, fetch_one
from store.search import NewSearch, insert_search
from store.telegram import insert_hint

KEEP_HANDLED_DAYS = 7
HANDLED = "handled"
SET_ASIDE = "set_aside"


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
    photo: str | None = None  # a poster's URL: sent as a photo with the text as caption
    search: NewSearch | None = None  # the search this message shows (stored with it)


@dataclass(frozen=True)
class Received:
    update_id: int
    digest: str  # core.updates.digest of the body
    chat_id: int | None
    kind: str
    body: str  # JSON, as Telegram sent it


@dataclass(frozen=True)
class Stored:
    """What ``Inbox.store`` did with a batch: the new rows, the replays it ignored,
    and the new rows whose ``update_id`` an earlier, different update had."""

    new: list[Received]
    replays: list[Received]
    reused_ids: list[Received]


@dataclass(frozen=True)
class Entry:
    id: Id
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

    async def store(self, updates: Sequence[Received]) -> Stored:
        """Every update once, in ONE transaction: a replay (same ``update_id``, same
        digest) changes nothing. Called before Telegram is told the updates arrived."""
        stored = Stored([], [], [])
        if not updates:
            return stored
        now = clock.now()
        async with self._db.write() as conn:
            for update in updates:
                seen = await fetch_all(
                    conn,
                    "SELECT digest FROM inbox WHERE update_id = :update_id",
                    {"update_id": update.update_id},
                )
                digests = {row["digest"] for row in seen}
                if update.digest in digests:
                    stored.replays.append(update)
                    continue
                if digests:
                    stored.reused_ids.append(update)
                await conn.execute(
                    """INSERT INTO inbox (id, update_id, digest, chat_id, kind, body,
                        next_attempt_at, received_at)
                    VALUES (:id, :update_id, :digest, :chat_id, :kind, :body, :now, :now)""",
                    {**update.__dict__, "id": new_id(), "now": now},
                )
                stored.new.append(update)
        return stored

    async def pending(self, now: str, limit: int = 200) -> list[Entry]:
        """Unhandled updates whose next try is due, in order of arrival. One that
        waits for its retry holds up nothing: the chat's later updates go on."""
        rows = await fetch_all(
            self._db.reader,
            """SELECT id, update_id, chat_id, kind, body, done_steps, attempts, received_at
            FROM inbox WHERE handled_at IS NULL AND next_attempt_at <= :now
            ORDER BY id LIMIT :limit""",
            {"now": now, "limit": limit},
        )
        return [Entry(**dict(row)) for row in rows]

    async def step_done(
        self,
        entry_id: Id,
        chat_id: int,
        steps: int,
        replies: Iterable[Reply],
        *,
        hint: tuple[Id, str] | None = None,
        handled: bool = False,
    ) -> None:
        """``steps`` steps of the update are done: its replies are queued (and a hint
        stored) in the same transaction; ``handled``: that was the last step."""
        await self._finish(entry_id, chat_id, steps, replies, hint, HANDLED if handled else None)

    async def set_aside(
        self, entry_id: Id, chat_id: int, steps: int, replies: Iterable[Reply], error: str
    ) -> None:
        """The update is given up on (it cannot be parsed, or kept failing): its
        apology queued in the same transaction; it is never tried again."""
        await self._finish(entry_id, chat_id, steps, replies, None, SET_ASIDE, error)

    async def _finish(
        self,
        entry_id: Id,
        chat_id: int,
        steps: int,
        replies: Iterable[Reply],
        hint: tuple[Id, str] | None,
        outcome: str | None,
        error: str | None = None,
    ) -> None:
        now = clock.now()
        async with self._db.write() as conn:
            for reply in replies:
                if reply.search is not None:
                    await insert_search(conn, reply.search, chat_id)
                await enqueue_reply(conn, chat_id, reply, now)
            if hint is not None:
                await insert_hint(conn, *hint)
            await conn.execute(
                """UPDATE inbox SET done_steps = max(done_steps, :steps),
                    handled_at = CASE WHEN :outcome IS NULL THEN handled_at ELSE :now END,
                    outcome = coalesce(:outcome, outcome),
                    last_error = coalesce(:error, last_error)
                WHERE id = :id""",
                {
                    "id": entry_id,
                    "steps": steps,
                    "outcome": outcome,
                    "now": now,
                    "error": None if error is None else error[:500],
                },
            )

    async def handled(self, entry_id: Id) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                """UPDATE inbox SET handled_at = :now, outcome = :handled
                WHERE id = :id AND handled_at IS NULL""",
                {"id": entry_id, "now": clock.now(), "handled": HANDLED},
            )

    async def failed(self, entry_id: Id, error: str, next_attempt_at: str) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                """UPDATE inbox SET attempts = attempts + 1, last_error = :error,
                    next_attempt_at = :next WHERE id = :id""",
                {"id": entry_id, "error": error[:500], "next": next_attempt_at},
            )

    async def set_aside_count(self) -> int:
        row = await fetch_one(
            self._db.reader,
            "SELECT count(*) AS n FROM inbox WHERE outcome = :set_aside",
            {"set_aside": SET_ASIDE},
        )
        return 0 if row is None else int(row["n"])

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
    payload = {
        "text": reply.text,
        "markup": reply.markup,
        "reply_to": reply.reply_to,
        "photo": reply.photo,
    }
    if reply.role is not None:
        payload["role"] = reply.role
    if reply.search is not None:
        payload["search_id"] = reply.search.id
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
