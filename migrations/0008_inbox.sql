-- The durable inbox of Telegram updates (docs/resilience.md): an update from an
-- allowed user is written here before Telegram is told it arrived, and handled
-- from here, step by step, so that a crash or an error resumes where it stopped.
CREATE TABLE inbox (
    update_id        INTEGER PRIMARY KEY NOT NULL,  -- Telegram's: a replay is a no-op
    chat_id          INTEGER,           -- updates of one chat are handled in order
    kind             TEXT    NOT NULL,  -- message | callback_query | other
    body             TEXT    NOT NULL,  -- the update as Telegram sent it (JSON)
    done_steps       INTEGER NOT NULL DEFAULT 0,  -- steps already handled (a magnet each)
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT    NOT NULL,
    last_error       TEXT,
    received_at      TEXT    NOT NULL,
    handled_at       TEXT               -- NULL: still to handle
);
CREATE INDEX inbox_pending ON inbox (handled_at, next_attempt_at);
