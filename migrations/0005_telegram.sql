-- Telegram: the bot's messages about downloads, and the outbox of notifications.

-- Every message the bot sent about a download: a reply to it adds a hint to
-- that download; the status message keeps the text it shows so that an edit
-- is sent only when the text changes (Telegram refuses identical edits).
CREATE TABLE telegram_message (
    chat_id      INTEGER NOT NULL,
    message_id   INTEGER NOT NULL,
    download_id  TEXT    NOT NULL REFERENCES download (id) ON DELETE CASCADE,
    role         TEXT    NOT NULL,   -- status | reply | notification
    shown        TEXT,               -- the text and buttons as last sent (status)
    shown_at     TEXT,               -- when they were sent: edits are rate-limited
    created_at   TEXT    NOT NULL,
    PRIMARY KEY (chat_id, message_id)
);
CREATE INDEX telegram_message_download ON telegram_message (download_id, role);

-- Notifications are written in the transaction of the change they announce and
-- sent by the dispatcher in id order per chat, with retries: none is lost when
-- Telegram or jellybit is down.
CREATE TABLE outbox (
    id               TEXT    PRIMARY KEY NOT NULL,
    chat_id          INTEGER,           -- NULL: every allowed user (fanned out when sent)
    download_id      TEXT    REFERENCES download (id) ON DELETE CASCADE,
    kind             TEXT    NOT NULL,  -- done | review | stuck | failed | removed | adopted
    payload          TEXT    NOT NULL,  -- JSON: what the text needs beyond the download
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT    NOT NULL,
    last_error       TEXT,
    sent_at          TEXT,
    message_id       INTEGER,           -- the message it became
    created_at       TEXT    NOT NULL
);
CREATE INDEX outbox_pending ON outbox (sent_at, next_attempt_at);

-- The language of each chat's person (Telegram's language_code), so that
-- notifications sent later speak it too.
CREATE TABLE telegram_chat (
    chat_id     INTEGER PRIMARY KEY NOT NULL,  -- Telegram's own id: a natural key
    language    TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);
