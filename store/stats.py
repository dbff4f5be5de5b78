"""Counts for ``/metrics``: one snapshot read, nothing kept in memory."""

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Stats:
    downloads_by_state: dict[str, int]
    outbox_unsent: int
    outbox_oldest: str | None  # created_at of the oldest unsent notification
    recognitions_by_status: dict[str, int]  # the current recognition of each download
    links_by_method: dict[str, int]  # files in the library


def read_stats(conn: sqlite3.Connection) -> Stats:
    def counts(sql: str) -> dict[str, int]:
        return {str(key): int(n) for key, n in conn.execute(sql).fetchall()}

    unsent, oldest = conn.execute(
        "SELECT count(*), min(created_at) FROM outbox WHERE sent_at IS NULL"
    ).fetchone()
    return Stats(
        downloads_by_state=counts("SELECT state, count(*) FROM download GROUP BY state"),
        outbox_unsent=int(unsent),
        outbox_oldest=oldest,
        recognitions_by_status=counts(
            """SELECT r.status, count(*) FROM recognition AS r
            WHERE r.id = (SELECT max(id) FROM recognition WHERE download_id = r.download_id)
            GROUP BY r.status"""
        ),
        links_by_method=counts(
            """SELECT coalesce(method, 'hardlink'), count(*) FROM file_link
            WHERE removed_at IS NULL AND linked_at IS NOT NULL GROUP BY 1"""
        ),
    )
