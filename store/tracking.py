"""What the worker writes while it follows torrents in qBittorrent: snapshots,
poll-tick transitions and add attempts. Identity guards live in downloads.py."""

from collections.abc import Iterable, Sequence

from core import clock
from core.errors import InfohashTakenError, InvalidTransitionError
from core.ids import Id
from core.models import Download, SnapshotChange
from core.reasons import Reason
from core.states import State
from store import transitions
from store.db import Database
from store.download_rows import ACTIVE_JSON, DOWNLOAD_COLUMNS, load_downloads, with_hashes
from store.rows import fetch_all, fetch_one, json_list

# Columns a poll tick may write; SET clauses are built only from these names.
SNAPSHOT_COLUMNS = frozenset(
    {
        "name",
        "total_size",
        "progress",
        "download_speed",
        "eta",
        "save_path",
        "content_path",
        "qbt_state",
        "progress_at",
        "source_added_at",
        "completed_at",
        "free_space",
    }
)


class Tracking:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def match_infohashes(self, hashes: Iterable[str]) -> dict[str, Download]:
        """For each known hash, the download it belongs to: the active one when
        there is one, else the newest. Unknown hashes are absent."""
        wanted = list(dict.fromkeys(hashes))
        if not wanted:
            return {}
        rows = await fetch_all(
            self._db.reader,
            """SELECT h.infohash, h.download_id
            FROM download_infohash AS h JOIN download AS d ON d.id = h.download_id
            WHERE h.infohash IN (SELECT value FROM json_each(:hashes))
            ORDER BY d.state IN (SELECT value FROM json_each(:active)) DESC, d.id DESC""",
            {"hashes": json_list(wanted), "active": ACTIVE_JSON},
        )
        owner: dict[str, str] = {}
        for row in rows:
            owner.setdefault(row["infohash"], row["download_id"])
        downloads = await load_downloads(self._db.reader, owner.values())
        return {h: downloads[Id(download_id)] for h, download_id in owner.items()}

    async def list_in_states(self, states: Iterable[State]) -> list[Download]:
        rows = await fetch_all(
            self._db.reader,
            f"""SELECT {DOWNLOAD_COLUMNS} FROM download
            WHERE state IN (SELECT value FROM json_each(:states)) ORDER BY id""",
            {"states": json_list(states)},
        )
        return await with_hashes(self._db.reader, rows)

    async def list_stalled(self, cutoff: str) -> list[Download]:
        """Downloading with no progress since ``cutoff``: about to be stuck."""
        rows = await fetch_all(
            self._db.reader,
            f"""SELECT {DOWNLOAD_COLUMNS} FROM download
            WHERE state = 'downloading' AND progress_at < :cutoff ORDER BY id""",
            {"cutoff": cutoff},
        )
        return await with_hashes(self._db.reader, rows)

    async def list_due_for_add(self, now: str, *, waiting: bool = False) -> list[Download]:
        """Accepted downloads to add to qBittorrent, oldest first: new ones (no try
        yet), those whose next try is due, and with ``waiting`` (qBittorrent is back)
        those that wait for it, whenever their next try was."""
        rows = await fetch_all(
            self._db.reader,
            f"""SELECT {DOWNLOAD_COLUMNS} FROM download
            WHERE state = 'accepted' AND (next_add_at IS NULL OR next_add_at <= :now
              OR (:waiting AND error IS NOT NULL))
            ORDER BY id""",
            {"now": now, "waiting": int(waiting)},
        )
        return await with_hashes(self._db.reader, rows)

    async def apply_changes(self, changes: Sequence[SnapshotChange]) -> list[SnapshotChange]:
        """One poll tick in ONE transaction: snapshot columns, transitions and
        their notifications (a background change is announced in the chat).

        A transition applies only while the download is still in the state the
        caller saw (``from_state``) and the move is allowed
        (``store.transitions.move``); the changes whose transition applied are
        returned.
        """
        applied: list[SnapshotChange] = []
        if not changes:
            return applied
        now = clock.now()
        async with self._db.write() as conn:
            for change in changes:
                columns = sorted(change.fields)
                if not SNAPSHOT_COLUMNS.issuperset(columns):
                    raise ValueError(f"not snapshot columns: {set(columns) - SNAPSHOT_COLUMNS}")
                if columns:
                    assignments = ", ".join(f"{c} = :{c}" for c in columns)
                    await conn.execute(
                        f"UPDATE download SET {assignments}, updated_at = :now WHERE id = :id",
                        {**change.fields, "id": change.download_id, "now": now},
                    )
                move = change.transition
                if move is None:
                    continue
                try:
                    await transitions.move(
                        conn,
                        change.download_id,
                        move.to_state,
                        move.reason,
                        expected={move.from_state},
                        announce=True,
                    )
                except (InvalidTransitionError, InfohashTakenError):
                    continue  # moved meanwhile (a person's action): the next tick sees it
                applied.append(change)
        return applied

    async def record_add_attempt(
        self, download_id: Id, *, next_add_at: str | None, waiting: Reason | None = None
    ) -> None:
        """An add to qBittorrent was tried; the next try is due at ``next_add_at``.
        ``waiting``: why it is not in qBittorrent yet (shown while it is accepted)."""
        async with self._db.write() as conn:
            await conn.execute(
                """UPDATE download SET add_attempts = add_attempts + 1, next_add_at = :next,
                    error = :waiting
                WHERE id = :id AND state = 'accepted'""",
                {
                    "id": download_id,
                    "next": next_add_at,
                    "waiting": None if waiting is None else waiting.dumps(),
                },
            )

    async def torrent_file(self, download_id: Id) -> bytes | None:
        row = await fetch_one(
            self._db.reader,
            "SELECT data FROM download_torrent WHERE download_id = :id",
            {"id": download_id},
        )
        return None if row is None else bytes(row["data"])
