"""Library titles: one row per movie or show the library holds, with its folder.

A title is what a download was recognized as (provider + kind + provider id); its
``folder`` is the one folder name under ``library.movies``/``library.shows`` that
every download of it lays out into, fixed once chosen, so a TMDB entry renamed
later, another metadata language or another year spelling never makes a second
folder. ``download.title_id`` points at it once the download is laid out.

Backfill: every download whose current recognition has a chosen candidate gets the
title of that candidate (one per provider id); the folder is the one its links
already use (the first component under the library root, read from the linked
target paths), else the folder the naming rules give it. Every link is kept.
"""

import re
import sqlite3
from pathlib import PurePosixPath
from typing import Literal

from core import clock
from core.ids import BackfillIds
from core.naming import Title, folder_name

_SCHEMA = """
CREATE TABLE title (
    id           TEXT    PRIMARY KEY NOT NULL,  -- ULID
    kind         TEXT    NOT NULL,              -- movie | series
    provider     TEXT    NOT NULL,              -- tmdb | local
    provider_id  TEXT    NOT NULL,              -- TMDB's id, or a local title's folder
    name         TEXT    NOT NULL,              -- as shown (TMDB's, in metadata.language)
    year         INTEGER,
    folder       TEXT    NOT NULL,              -- one component under the library root
    poster_path  TEXT,
    overview     TEXT,
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL,
    UNIQUE (provider, kind, provider_id)
);
CREATE INDEX title_folder ON title (kind, folder);
CREATE INDEX title_name ON title (name COLLATE NOCASE);
ALTER TABLE download ADD COLUMN title_id TEXT REFERENCES title (id);
CREATE INDEX download_title ON download (title_id);
CREATE INDEX file_link_target ON file_link (target_path) WHERE removed_at IS NULL;
"""

_SEASON = re.compile(r"^Season \d+$")


def apply(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    chosen = conn.execute(
        """SELECT r.download_id, c.provider, c.provider_id, c.kind, c.title, c.year,
            c.poster_path, c.overview, r.created_at
        FROM recognition r
        JOIN metadata_candidate c ON c.recognition_id = r.id AND c.selected = 1
        WHERE r.id = (SELECT max(id) FROM recognition WHERE download_id = r.download_id)
        ORDER BY r.created_at, r.id"""
    ).fetchall()
    ids = BackfillIds()
    titles: dict[tuple[str, str, str], str] = {}
    for download_id, provider, provider_id, stored_kind, name, year, poster, overview, at in chosen:
        kind: Literal["movie", "series"] = "series" if stored_kind == "series" else "movie"
        tmdb_id = int(provider_id) if provider == "tmdb" and str(provider_id).isdigit() else None
        folder = _folder_in_use(conn, download_id) or folder_name(Title(kind, name, year, tmdb_id))
        key = (provider, kind, provider_id if provider == "tmdb" and provider_id else folder)
        if key not in titles:
            titles[key] = ids.at(clock.to_ms(clock.parse_time(at)))
            conn.execute(
                """INSERT INTO title (id, kind, provider, provider_id, name, year, folder,
                    poster_path, overview, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (titles[key], kind, key[0], key[2], name, year, folder, poster, overview, at, at),
            )
        conn.execute("UPDATE download SET title_id = ? WHERE id = ?", (titles[key], download_id))


def _folder_in_use(conn: sqlite3.Connection, download_id: str) -> str | None:
    """The title folder of the download's first current link: a movie's file is in
    it, a show's is in it or in its ``Season NN`` folder."""
    row = conn.execute(
        """SELECT target_path FROM file_link WHERE download_id = ? AND removed_at IS NULL
        ORDER BY id LIMIT 1""",
        (download_id,),
    ).fetchone()
    if row is None:
        return None
    parent = PurePosixPath(row[0]).parent
    return parent.parent.name if _SEASON.match(parent.name) else parent.name
