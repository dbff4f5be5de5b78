-- What the poller and the add/re-add loop need (docs/database.md).

-- The download's live view of its torrent, written by the poller when it changes.
ALTER TABLE download ADD COLUMN qbt_state TEXT;          -- qBittorrent's state name as last seen
ALTER TABLE download ADD COLUMN download_speed INTEGER;  -- bytes per second
ALTER TABLE download ADD COLUMN eta INTEGER;             -- seconds; NULL when unknown
ALTER TABLE download ADD COLUMN progress_at TEXT;        -- when progress last grew: stuck detection

-- Adding to qBittorrent: an accepted download is (re)added when next_add_at is due.
ALTER TABLE download ADD COLUMN add_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE download ADD COLUMN next_add_at TEXT;

-- The .torrent a download came from, kept so that a retry can add it again.
-- A table of its own keeps download rows small for scans.
CREATE TABLE download_torrent (
    download_id  TEXT PRIMARY KEY NOT NULL REFERENCES download (id) ON DELETE CASCADE,
    data         BLOB NOT NULL,
    created_at   TEXT NOT NULL
);
