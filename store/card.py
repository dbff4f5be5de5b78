"""Everything the download card shows, read in one trip on one snapshot."""

import sqlite3
from dataclasses import dataclass

from core.ids import Id
from core.models import Download, StateTransition
from store.download_rows import read_download
from store.downloads import read_transitions
from store.recognition import FileLink, StoredRecognition, read_current, read_links, read_overrides
from store.telegram import read_hints
from store.titles import LibraryTitle, read_title


@dataclass(frozen=True)
class DownloadCard:
    download: Download
    recognition: StoredRecognition | None
    links: list[FileLink]  # not removed, oldest first
    hints: list[str]
    overrides: dict[str, str]
    history: list[StateTransition]
    title: LibraryTitle | None  # the library title it was laid out as


def read_card(conn: sqlite3.Connection, download_id: Id) -> DownloadCard | None:
    download = read_download(conn, download_id)
    if download is None:
        return None
    return DownloadCard(
        download=download,
        recognition=read_current(conn, download_id),
        links=read_links(conn, download_id, current_only=True),
        hints=read_hints(conn, download_id),
        overrides=read_overrides(conn, download_id),
        history=read_transitions(conn, download_id),
        title=_title(conn, download_id),
    )


def _title(conn: sqlite3.Connection, download_id: Id) -> LibraryTitle | None:
    row = conn.execute(
        "SELECT title_id FROM download WHERE id = :id", {"id": download_id}
    ).fetchone()
    return None if row is None or row[0] is None else read_title(conn, Id(row[0]))
