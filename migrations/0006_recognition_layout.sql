-- Recognition and library layout (docs/recognition.md, docs/layout.md).

-- Why a recognition waits or needs the person ("TMDB unreachable", "two
-- candidates are close", "a different file exists at …").
ALTER TABLE recognition ADD COLUMN reason TEXT;

-- The files of the torrent as recognized: what each is and where it goes.
CREATE TABLE recognition_file (
    recognition_id  TEXT    NOT NULL REFERENCES recognition (id) ON DELETE CASCADE,
    path            TEXT    NOT NULL,  -- as qBittorrent lists it: relative to the save path
    role            TEXT    NOT NULL,  -- video | subtitle
    size            INTEGER NOT NULL,
    season          INTEGER,
    episodes        TEXT,              -- JSON array of episode numbers
    language        TEXT,              -- subtitles: ISO 639-1 ("ru", "en")
    flags           TEXT,              -- subtitles: JSON array ("forced", "sdh")
    PRIMARY KEY (recognition_id, path)
);

-- What the review page shows of a candidate.
ALTER TABLE metadata_candidate ADD COLUMN overview TEXT;
ALTER TABLE metadata_candidate ADD COLUMN poster_path TEXT;
ALTER TABLE metadata_candidate ADD COLUMN popularity REAL;

-- A batch is planned first (every row written in one transaction), then each
-- file is linked and its row marked: re-running an interrupted batch finishes it.
ALTER TABLE file_link ADD COLUMN method TEXT;          -- hardlink | symlink | copy (as done)
ALTER TABLE file_link ADD COLUMN inode INTEGER;        -- of the target, when linked
ALTER TABLE file_link ADD COLUMN device INTEGER;
ALTER TABLE file_link ADD COLUMN linked_at TEXT;       -- NULL: planned, not yet done

-- Links made before this version were applied: they are not an unfinished batch.
-- (Their inode is unknown, so a relink never removes them: they stay, safely.)
UPDATE file_link SET linked_at = created_at WHERE removed_at IS NULL;
