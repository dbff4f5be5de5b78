"""The one way a download's state changes (docs/architecture.md).

``move`` runs inside the caller's write transaction: it checks the move against
``core.states.MOVES``, applies the guarded UPDATE, writes the
``state_transition`` row and, for a change in the background, the outbox row
that tells the chat. A terminal download becomes active again only while no
other active download owns one of its hashes (the identity guard that replaced
the unique index).
"""

from collections.abc import Iterable
from datetime import timedelta

import aiosqlite

from core import clock
from core.errors import InfohashTakenError, InvalidTransitionError
from core.ids import Id, new_id
from core.notifications import ANNOUNCED
from core.reasons import Reason
from core.states import TROUBLE, State, may_move, reactivates
from store.download_rows import ACTIVE_JSON, current_state
from store.outbox import enqueue
from store.rows import fetch_all

# A download moved into accepted (a retry) is added by whoever moved it: the adder's
# loop leaves it alone for ADD_GRACE (a download created accepted is due at once).
ADD_GRACE = timedelta(seconds=60)

_MOVE_SQL = """
    UPDATE download SET state = :to_state, updated_at = :now,
        error = CASE WHEN :trouble THEN :reason ELSE NULL END,
        next_add_at = CASE WHEN :to_state = 'accepted' THEN :add_after ELSE next_add_at END
    WHERE id = :id AND state = :from_state
"""

_NO_OTHER_ACTIVE_OWNER = """
      AND NOT EXISTS (
        SELECT 1 FROM download_infohash AS mine
        JOIN download_infohash AS other
          ON other.infohash = mine.infohash AND other.download_id != mine.download_id
        JOIN download AS o ON o.id = other.download_id
        WHERE mine.download_id = :id AND o.state IN (SELECT value FROM json_each(:active)))
"""

_OTHER_ACTIVE_OWNERS = """
    SELECT mine.infohash, other.download_id
    FROM download_infohash AS mine
    JOIN download_infohash AS other
      ON other.infohash = mine.infohash AND other.download_id != mine.download_id
    JOIN download AS o ON o.id = other.download_id
    WHERE mine.download_id = :id AND o.state IN (SELECT value FROM json_each(:active))
    ORDER BY other.download_id LIMIT 1
"""


async def move(
    conn: aiosqlite.Connection,
    download_id: Id,
    to_state: State,
    reason: Reason,
    *,
    expected: Iterable[State] = tuple(State),
    announce: bool = False,
) -> State:
    """Move the download from its current state, one of ``expected`` (the caller's
    view), to ``to_state``; ``announce``: a background change the chat is told
    about (a change the person caused was answered directly). Returns the state
    it left. Refuses — changing nothing — with ``InvalidTransitionError`` (not
    expected, or not a move of ``MOVES``) or ``InfohashTakenError`` (it would
    become active beside another active owner of a hash)."""
    current = await current_state(conn, download_id)
    if current not in frozenset(expected) or not may_move(current, to_state):
        raise InvalidTransitionError(download_id, current, to_state)
    guarded = reactivates(current, to_state)
    params = {
        "id": download_id,
        "from_state": current,
        "to_state": to_state,
        "reason": reason.dumps(),
        "trouble": to_state in TROUBLE,
        "now": clock.now(),
        "add_after": clock.shifted(ADD_GRACE),
        "active": ACTIVE_JSON,
    }
    sql = _MOVE_SQL + _NO_OTHER_ACTIVE_OWNER if guarded else _MOVE_SQL
    cursor = await conn.execute(sql, params)
    if cursor.rowcount == 0:
        owners = await fetch_all(conn, _OTHER_ACTIVE_OWNERS, params)
        for row in owners:
            raise InfohashTakenError(row["infohash"], Id(row["download_id"]))
        raise InvalidTransitionError(download_id, current, to_state)
    await record_transition(conn, download_id, current, to_state, reason)
    kind = ANNOUNCED.get(to_state)
    if announce and kind is not None:
        await enqueue(conn, download_id, kind, {"reason": reason.dumps()})
    return current


async def record_transition(
    conn: aiosqlite.Connection,
    download_id: Id,
    from_state: State | None,
    to_state: State,
    reason: Reason,
) -> None:
    """The history row of a move (``from_state`` None: the download's creation)."""
    await conn.execute(
        """INSERT INTO state_transition (id, download_id, from_state, to_state, reason, created_at)
        VALUES (:id, :download_id, :from_state, :to_state, :reason, :now)""",
        {
            "id": new_id(),
            "download_id": download_id,
            "from_state": from_state,
            "to_state": to_state,
            "reason": reason.dumps(),
            "now": clock.now(),
        },
    )
