"""Downloads and their infohashes: the guarded operations of the identity spec.

The invariant "at most one ACTIVE download per infohash" has no index behind
it (one hash may belong to several downloads over time); it is held by the
guarded operations below, each ONE write transaction, and by
``store.transitions.move``, which lets a terminal download become active again
only while no other active download owns one of its hashes.
"""

import re
import sqlite3
from collections.abc import Iterable

import aiosqlite

from core import clock
from core.errors import InfohashTakenError, InvalidInputError, NotFoundError
from core.ids import Id, new_id, parse_id
from core.infohash import Kind, normalize_infohashes
from core.models import CreateResult, Download, Infohash, NewDownload, StateTransition
from core.notifications import ADOPTED
from core.reasons import Reason, reason, text_reason
from core.states import ACTIVE, State
from store import transitions
from store.db import Database
from store.download_rows import (
    ACTIVE_JSON,
    DOWNLOAD_COLUMNS,
    current_state,
    find_download,
    load_download,
    read_download,
    read_with_hashes,
)
from store.outbox import enqueue
from store.rows import Queryable, fetch_all, fetch_one, json_list

# Which active download (other than :exclude) owns one of :hashes.
_ACTIVE_OWNERS_SQL = """
    SELECT h.infohash, h.download_id
    FROM download_infohash AS h JOIN download AS d ON d.id = h.download_id
    WHERE h.infohash IN (SELECT value FROM json_each(:hashes))
      AND d.state IN (SELECT value FROM json_each(:active))
      AND h.download_id != :exclude
    ORDER BY h.download_id
"""

_ADD_HASH_IF_FREE_SQL = """
    INSERT OR IGNORE INTO download_infohash (download_id, infohash, kind, created_at)
    SELECT :download_id, :infohash, :kind, :now
    WHERE NOT EXISTS (
        SELECT 1 FROM download_infohash AS h JOIN download AS d ON d.id = h.download_id
        WHERE h.infohash = :infohash AND h.download_id != :download_id
          AND d.state IN (SELECT value FROM json_each(:active)))
"""

# Conditions of list_downloads, combined in Python from these fixed fragments
# (values stay parameters) so that SQLite evaluates only what a query needs:
# every extra term costs per row when a search scans the table.
_IN_STATES = "+d.state IN (SELECT value FROM json_each(:states))"
_BEFORE_BROWSING = "d.id < :before"
_BEFORE_SEARCHING = "+d.id < :before"
_NAME_MATCH = "d.name LIKE :name ESCAPE '\\'"
_ID_MATCH = "d.id = :id"
# A subquery run once over the primary key (infohash, download_id); a
# correlated EXISTS per row made p95 34 ms at 10 000 downloads (bench/).
_HASH_MATCH = """d.id IN (SELECT h.download_id FROM download_infohash AS h
    WHERE h.infohash >= :hash_from AND h.infohash < :hash_to)"""
# Browsing walks the id index and stops at :limit; searching scans the table
# once and sorts the few matches ("+" keeps SQLite off the id index, which
# costs a second lookup per row).
_BROWSE_ORDER = "ORDER BY d.id DESC LIMIT :limit"
_SEARCH_ORDER = "ORDER BY +d.id DESC LIMIT :limit"

# A query of 6+ hex characters may be the start of an infohash.
_HASH_PREFIX = re.compile(r"[0-9a-fA-F]{6,64}")


class Downloads:
    def __init__(self, db: Database) -> None:
        self._db = db

    # --- guarded writes ---------------------------------------------------

    async def create_download_if_no_active(
        self, new: NewDownload, hashes: Iterable[str], *, torrent_file: bytes | None = None
    ) -> CreateResult:
        """Create a download with its hashes unless an active download owns one of them.

        Invariant: at most one active download per infohash. When an active
        download owns any of ``hashes`` it is returned instead (``created`` is
        False), and it gains the hashes of this call it lacks and no other
        active download owns (the second hash of a hybrid is not lost). The
        ``.torrent`` bytes, when given, are kept with a new download.
        """
        wanted = normalize_infohashes(hashes)
        if new.state not in ACTIVE:
            raise InvalidInputError(f"a new download must be active, not {new.state}")
        async with self._db.write() as conn:
            owners = await _active_owners(conn, wanted, exclude="")
            if owners:
                download_id = next(iter(owners.values()))
                await _add_hashes_if_free(conn, download_id, wanted)
                return CreateResult(await load_download(conn, download_id), created=False)
            created = await _insert_download(conn, new, wanted)
            if new.origin == "adopted":
                await enqueue(conn, created.id, ADOPTED)
            if torrent_file is not None:
                await conn.execute(
                    "INSERT INTO download_torrent (download_id, data, created_at)"
                    " VALUES (:id, :data, :now)",
                    {"id": created.id, "data": torrent_file, "now": created.created_at},
                )
            return CreateResult(created, created=True)

    async def move(
        self,
        download_id: Id,
        to_state: State,
        *,
        reason: Reason,
        expected: Iterable[State] = tuple(State),
        announce: bool = False,
    ) -> Download:
        """Change the state in its own transaction (``store.transitions.move``:
        the allowed moves, the identity guard, history, announcement); a refusal
        raises and changes nothing."""
        async with self._db.write() as conn:
            await transitions.move(
                conn, download_id, to_state, reason, expected=expected, announce=announce
            )
            return await load_download(conn, download_id)

    async def add_infohashes(self, download_id: Id, hashes: Iterable[str]) -> Download:
        """Add hashes to a download (a hybrid torrent revealing its second hash).

        Invariant: at most one active download per infohash. When another
        active download owns any of them, nothing is added and
        ``InfohashTakenError`` names the owner.
        """
        wanted = normalize_infohashes(hashes)
        async with self._db.write() as conn:
            await current_state(conn, download_id)
            owners = await _active_owners(conn, wanted, exclude=download_id)
            for infohash, owner in owners.items():
                raise InfohashTakenError(infohash, owner)
            await _add_hashes_if_free(conn, download_id, wanted)
            return await load_download(conn, download_id)

    # --- reads ------------------------------------------------------------

    async def find_download(self, text: object) -> Download | None:
        """The download whose id is ``text`` in any case; None — without a query —
        when ``text`` is not an id at all."""
        download_id = parse_id(text)
        if download_id is None:
            return None
        return await self._db.read(lambda conn: read_download(conn, download_id))

    async def find_downloads(self, download_ids: Iterable[Id]) -> list[Download]:
        """The downloads of these ids that exist, in one trip to the reader thread."""
        wanted = list(dict.fromkeys(download_ids))
        found = await self._db.read(lambda conn: [read_download(conn, i) for i in wanted])
        return [download for download in found if download is not None]

    async def get_download(self, download_id: Id) -> Download:
        found = await self.find_download(download_id)
        if found is None:
            raise NotFoundError("download", download_id)
        return found

    async def find_active_by_infohash(self, hashes: Iterable[str]) -> Download | None:
        """The active download that owns any of ``hashes`` (v1 or v2), if any."""
        owners = await _active_owners(self._db.reader, normalize_infohashes(hashes), exclude="")
        if not owners:
            return None
        return await find_download(self._db.reader, next(iter(owners.values())))

    async def owners_of(self, hashes: Iterable[str]) -> list[Download]:
        """Every download, in any state, that has any of ``hashes``, newest first,
        with all its hashes (what ingest knows of a link before it decides)."""
        wanted = json_list(normalize_infohashes(hashes))
        sql = f"""SELECT {DOWNLOAD_COLUMNS} FROM download AS d WHERE d.id IN (
            SELECT h.download_id FROM download_infohash AS h
            WHERE h.infohash IN (SELECT value FROM json_each(:hashes))) ORDER BY d.id DESC"""
        return await self._db.read(
            lambda conn: read_with_hashes(conn, conn.execute(sql, {"hashes": wanted}).fetchall())
        )

    async def list_downloads(
        self,
        query: str = "",
        *,
        states: Iterable[State] = tuple(State),
        limit: int = 50,
        before: Id | None = None,
    ) -> list[Download]:
        """Newest first. ``query`` matches a name substring (ASCII case-insensitive),
        an infohash prefix of 6+ hex characters (v1 or v2) or an id in any case;
        a query that looks like a hash matches hashes only. ``before`` pages by id."""
        text = query.strip()
        wanted_states = frozenset(states)
        hash_prefix = text.lower() if _HASH_PREFIX.fullmatch(text) else ""
        download_id = parse_id(text)
        where = [] if wanted_states >= frozenset(State) else [_IN_STATES]
        if before is not None:
            where.append(_BEFORE_SEARCHING if text else _BEFORE_BROWSING)
        if text:
            matches = [] if _looks_like_hash(hash_prefix) else [_NAME_MATCH]
            matches += [_ID_MATCH] if download_id else []
            matches += [_HASH_MATCH] if hash_prefix else []
            where.append("(" + " OR ".join(matches) + ")")
        sql = f"SELECT {DOWNLOAD_COLUMNS} FROM download AS d"
        sql += (" WHERE " + " AND ".join(where) if where else "") + " "
        sql += _SEARCH_ORDER if text else _BROWSE_ORDER
        params = {
            "states": json_list(wanted_states),
            "before": before,
            "limit": max(1, min(limit, 500)),
            "name": f"%{_escape_like(text)}%",
            "id": download_id,
            "hash_from": hash_prefix,
            "hash_to": hash_prefix + "~",  # a range on the primary key, not a scan
        }
        return await self._db.read(
            lambda conn: read_with_hashes(conn, conn.execute(sql, params).fetchall())
        )

    async def reason_of_state(self, download_id: Id) -> Reason | None:
        """Why the download is in its state: the reason of its latest move (where a
        done one went, what a review asks)."""
        row = await fetch_one(
            self._db.reader,
            """SELECT reason FROM state_transition WHERE download_id = :id
            ORDER BY id DESC LIMIT 1""",
            {"id": download_id},
        )
        return None if row is None else Reason.loads(row["reason"])

    async def list_transitions(self, download_id: Id) -> list[StateTransition]:
        """The history of a download, oldest first."""
        return await self._db.read(lambda conn: read_transitions(conn, download_id))


def read_transitions(conn: sqlite3.Connection, download_id: Id) -> list[StateTransition]:
    rows = conn.execute(
        """SELECT id, download_id, from_state, to_state, reason, created_at
        FROM state_transition WHERE download_id = :id ORDER BY id""",
        {"id": download_id},
    ).fetchall()
    return [
        StateTransition(
            id=Id(row["id"]),
            download_id=Id(row["download_id"]),
            from_state=None if row["from_state"] is None else State(row["from_state"]),
            to_state=State(row["to_state"]),
            reason=Reason.loads(row["reason"]) or text_reason(""),  # NOT NULL
            created_at=row["created_at"],
        )
        for row in rows
    ]


# --- statements run inside a transaction or on the reader -----------------


async def _active_owners(conn: Queryable, hashes: Iterable[str], *, exclude: str) -> dict[str, Id]:
    """infohash -> the active download owning it, oldest owner first."""
    rows = await fetch_all(
        conn,
        _ACTIVE_OWNERS_SQL,
        {"hashes": json_list(hashes), "active": ACTIVE_JSON, "exclude": exclude},
    )
    owners: dict[str, Id] = {}
    for row in rows:
        owners.setdefault(row["infohash"], Id(row["download_id"]))
    return owners


async def _add_hashes_if_free(
    conn: aiosqlite.Connection, download_id: Id, hashes: dict[str, Kind]
) -> None:
    now = clock.now()
    await conn.executemany(
        _ADD_HASH_IF_FREE_SQL,
        [
            {
                "download_id": download_id,
                "infohash": h,
                "kind": k,
                "now": now,
                "active": ACTIVE_JSON,
            }
            for h, k in hashes.items()
        ],
    )


async def _insert_download(
    conn: aiosqlite.Connection, new: NewDownload, hashes: dict[str, Kind]
) -> Download:
    """Insert and return the new download (built here: no read-back on the hot path)."""
    download_id, now = new_id(), clock.now()
    await conn.execute(
        """INSERT INTO download (id, name, state, source, source_ref, chat_id,
            created_at, updated_at)
        VALUES (:id, :name, :state, :source, :source_ref, :chat_id, :now, :now)""",
        {
            "id": download_id,
            "name": new.name,
            "state": new.state,
            "source": new.origin,
            "source_ref": new.source_ref,
            "chat_id": new.chat_id,
            "now": now,
        },
    )
    await conn.executemany(
        """INSERT INTO download_infohash (download_id, infohash, kind, created_at)
        VALUES (:download_id, :infohash, :kind, :now)""",
        [
            {"download_id": download_id, "infohash": h, "kind": k, "now": now}
            for h, k in hashes.items()
        ],
    )
    await transitions.record_transition(
        conn, download_id, None, new.state, reason(f"created.{new.origin}")
    )
    return Download(
        id=download_id,
        name=new.name,
        state=new.state,
        origin=new.origin,
        source_ref=new.source_ref,
        chat_id=new.chat_id,
        message_id=None,
        save_path=None,
        content_path=None,
        total_size=None,
        progress=0.0,
        error=None,
        source_added_at=None,
        completed_at=None,
        created_at=now,
        updated_at=now,
        infohashes=tuple(Infohash(h, k) for h, k in sorted(hashes.items(), key=_hash_order)),
    )


def _hash_order(item: tuple[str, Kind]) -> tuple[str, str]:
    """v1 before v2, as ``_with_hashes`` reads them."""
    return item[1], item[0]


def _looks_like_hash(hex_text: str) -> bool:
    """8+ hex characters with a letter are a (pasted) hash, not words of a name;
    all digits may be a date in a name (20210515), so those search names too."""
    return len(hex_text) >= 8 and not hex_text.isdigit()


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
