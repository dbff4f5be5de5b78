"""The inbox keys its rows by an id of its own, not by Telegram's ``update_id``.

Telegram's update ids are not unique forever (after a week without updates the
next one is chosen at random; a new bot token, or the sandbox's server after a
restart, starts its own sequence), so a replay is an update whose id AND content
were seen: ``digest`` is the content's fingerprint (``core.updates.digest``), and
an id seen again with other content is a new row. Rows are ordered by ``id``
(arrival), and ``outcome`` tells a handled update from one set aside.
"""

import json
import sqlite3

from core import clock, updates
from core.ids import BackfillIds

_TABLE = """CREATE TABLE inbox (
    id               TEXT    PRIMARY KEY NOT NULL,  -- ULID: the order of arrival
    update_id        INTEGER NOT NULL,  -- Telegram's, for logs and replays
    digest           TEXT    NOT NULL,  -- sha-256 of the content (core.updates.digest)
    chat_id          INTEGER,           -- a chat's messages are handled in order
    kind             TEXT    NOT NULL,  -- message | edited_message | callback_query | …
    body             TEXT    NOT NULL,  -- the update as Telegram sent it (JSON)
    done_steps       INTEGER NOT NULL DEFAULT 0,  -- steps already handled (a magnet each)
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT    NOT NULL,
    last_error       TEXT,
    received_at      TEXT    NOT NULL,
    handled_at       TEXT,              -- NULL: still to handle
    outcome          TEXT,              -- handled | set_aside (NULL while pending)
    UNIQUE (update_id, digest)
)"""


def apply(conn: sqlite3.Connection) -> None:
    old = conn.execute(
        """SELECT update_id, chat_id, kind, body, done_steps, attempts, next_attempt_at,
            last_error, received_at, handled_at FROM inbox ORDER BY update_id"""
    ).fetchall()
    conn.execute("DROP TABLE inbox")
    conn.execute(_TABLE)
    conn.execute("CREATE INDEX inbox_pending ON inbox (handled_at, next_attempt_at)")
    ids = BackfillIds()
    for row in old:
        (update_id, chat_id, kind, body, done, attempts, next_at, error, received, handled) = row
        try:
            fingerprint = updates.digest(json.loads(body))
        except ValueError:
            fingerprint = updates.digest({"body": body})
        conn.execute(
            """INSERT INTO inbox (id, update_id, digest, chat_id, kind, body, done_steps,
                attempts, next_attempt_at, last_error, received_at, handled_at, outcome)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                ids.at(clock.to_ms(clock.parse_time(received))),
                update_id,
                fingerprint,
                chat_id,
                kind,
                body,
                done,
                attempts,
                next_at,
                error,
                received,
                handled,
                None if handled is None else "handled",
            ),
        )
