"""qBittorrent's torrents as the poller sees them: a live map merged from
``sync/maindata`` answers, and what a torrent's fields mean.

Pure: the poller feeds answers in; ``hashes_of`` is the one collector of a
torrent's infohashes. qBittorrent's ``hash`` field is its torrent id: for
v2-only and hybrid torrents it is the TRUNCATED v2 hash (40 hex, the length
of a v1), so it is used only to address API calls and only when both
``infohash_v1`` and ``infohash_v2`` are empty (old WebAPI versions).
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import InvalidInputError
from core.infohash import normalize_infohash

Torrent = dict[str, Any]

# Upload states of qBittorrent 4.x and 5.x (paused* became stopped* in 5.0).
UPLOAD_STATES = frozenset(
    {"uploading", "stalledUP", "pausedUP", "stoppedUP", "queuedUP", "checkingUP", "forcedUP"}
)
ERROR_STATES = frozenset({"error", "missingFiles"})
METADATA_STATES = frozenset({"metaDL", "forcedMetaDL"})
# Fields jellybit reads. qBittorrent reports many more that change on every
# refresh (time_active, last_activity, peers…); a torrent whose update carries
# none of these is merged but not followed up: a tick costs what matters.
FOLLOWED_FIELDS = frozenset(
    {
        "name", "size", "progress", "dlspeed", "eta", "save_path", "content_path", "state",
        "infohash_v1", "infohash_v2", "category", "added_on",
    }
)  # fmt: skip
# Fields the live map keeps: those jellybit reads (above, and what tells a torrent's
# metadata and id apart). qBittorrent sends ~50 more a torrent (trackers, ratios,
# limits, peers): kept, they were four fifths of the map (bench/poll_bench.py).
KEPT_FIELDS = FOLLOWED_FIELDS | {"hash", "has_metadata", "total_size"}


def hashes_of(torrent: Mapping[str, Any]) -> tuple[str, ...]:
    """The full infohashes of a torrent (v1 first); never the truncated id when
    the v1/v2 fields are known."""
    found = [torrent.get("infohash_v1") or "", torrent.get("infohash_v2") or ""]
    if not any(found):
        found = [torrent.get("hash") or ""]
    result = []
    for text in found:
        try:
            result.append(normalize_infohash(text)[0])
        except InvalidInputError:
            continue
    return tuple(result)


def torrent_ids(hashes: Iterable[str]) -> list[str]:
    """The ids qBittorrent may know a torrent of these hashes by: a v1 hash as it
    is, a v2 hash truncated to 40 characters."""
    return list(dict.fromkeys(h[:40] for h in hashes))


def has_metadata(torrent: Mapping[str, Any]) -> bool:
    """Whether qBittorrent knows the torrent's files (before, it only echoes the magnet)."""
    if "has_metadata" in torrent:
        return bool(torrent["has_metadata"])
    return torrent.get("state") not in METADATA_STATES and int(torrent.get("size") or 0) > 0


def contradicts(hashes: Iterable[str], torrent: Mapping[str, Any]) -> bool:
    """Whether a torrent with its metadata shows that ``hashes`` (a download's, from its
    magnet) are not all its own: one of them differs from the torrent's hash of that
    kind, or the torrent has none of that kind (a v1 hash and a v2 hash of two torrents)."""
    if not has_metadata(torrent) or not (torrent.get("infohash_v1") or torrent.get("infohash_v2")):
        return False
    theirs = {len(h): h for h in hashes_of(torrent)}
    return any(theirs.get(len(h)) != h for h in hashes)


def is_complete(torrent: Mapping[str, Any]) -> bool:
    """Judged by the API, never by the files (incomplete files exist at full size)."""
    return float(torrent.get("progress", 0)) >= 1 and torrent.get("state") in UPLOAD_STATES


def is_broken(torrent: Mapping[str, Any]) -> bool:
    return torrent.get("state") in ERROR_STATES


def remaining_bytes(torrent: Mapping[str, Any]) -> int:
    """What the torrent still has to write: its size less what it has (0 before its
    metadata: its size is unknown then)."""
    size = int(torrent.get("size") or 0)
    return max(0, size - round(size * float(torrent.get("progress") or 0)))


def needs_space(torrent: Mapping[str, Any]) -> bool:
    return remaining_bytes(torrent) > 0 and not is_complete(torrent)


def may_change_id(torrent: Mapping[str, Any]) -> bool:
    """Whether qBittorrent may re-register this torrent under another id: one known
    only by a v1 hash and still without metadata may turn out to be a hybrid, whose
    id becomes its v2[:40] once the metadata arrives."""
    if torrent.get("infohash_v2"):
        return False
    if "has_metadata" in torrent:
        return not torrent["has_metadata"]
    return torrent.get("state") in METADATA_STATES or int(torrent.get("total_size", 0) or 0) < 0


def listing_answer(torrents: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``torrents/info`` as a full ``sync/maindata`` answer (``rid`` 0: the next
    incremental sync starts afresh)."""
    listed = {str(t["hash"]): dict(t) for t in torrents if t.get("hash")}
    return {"rid": 0, "full_update": True, "torrents": listed}


@dataclass
class SyncResult:
    """What one ``sync/maindata`` answer changed: torrent ids (``changed``: new
    torrents, and torrents with a changed field of ``FOLLOWED_FIELDS``)."""

    full: bool
    changed: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)


class LiveMap:
    """The torrents qBittorrent has, merged from full and partial sync answers.

    Partial answers carry only the changed fields of changed torrents; they are
    merged into the previous state. ``full_update`` replaces everything. Only
    ``KEPT_FIELDS`` are kept.
    """

    def __init__(self) -> None:
        self.rid = 0
        self.torrents: dict[str, Torrent] = {}
        self._by_hash: dict[str, str] = {}
        self.synced = False  # at least one full answer seen
        # Bytes free on the disk of qBittorrent's default save path (``server_state``;
        # a partial answer carries it when it changed, a listing never): None, unknown.
        self.free_space: int | None = None

    def apply(self, answer: Mapping[str, Any], *, everything: bool = False) -> SyncResult:
        """Merge an answer. A full one replaces the snapshot, and only torrents that
        are new or differ in a followed field count as changed: a full snapshot costs
        what changed too (the 5.x listings, the periodic resync). ``everything``: on a
        full answer, every torrent counts as changed (the last follow-up failed)."""
        full = bool(answer.get("full_update")) or self.rid == 0
        result = SyncResult(full=full)
        before: dict[str, Torrent] = {}
        if full:
            before = self.torrents
            result.removed = set(self.torrents)
            self.torrents = {}
            self._by_hash = {}
            self.synced = True
        for torrent_id in answer.get("torrents_removed") or ():
            if self._drop(torrent_id):
                result.removed.add(torrent_id)
        for torrent_id, fields in (answer.get("torrents") or {}).items():
            known = torrent_id in self.torrents
            self._merge(torrent_id, fields)
            if full:
                old = before.get(torrent_id)
                if (
                    everything
                    or old is None
                    or any(old.get(k) != fields.get(k) for k in FOLLOWED_FIELDS)
                ):
                    result.changed.add(torrent_id)
            elif not known or not FOLLOWED_FIELDS.isdisjoint(fields):
                result.changed.add(torrent_id)
        result.removed -= result.changed
        free = (answer.get("server_state") or {}).get("free_space_on_disk")
        if full and "server_state" in answer and int(answer.get("rid", 0)) < self.rid:
            self.free_space = None  # qBittorrent restarted (its rid starts anew)
        # A 0 before any figure is "not checked yet": qBittorrent's first answers after
        # its start carry it until its disk checker has answered. Later, a full disk.
        checked = isinstance(free, int) and free >= 0 and (free > 0 or self.free_space is not None)
        if checked and free != self.free_space:
            self.free_space = free
            # Whether each unfinished download still fits is judged anew; seeding ones
            # need no space, so the many of them cost nothing here.
            result.changed |= {tid for tid, t in self.torrents.items() if needs_space(t)}
        self.rid = int(answer.get("rid", self.rid))
        return result

    def find(self, hashes: Iterable[str]) -> tuple[str, Torrent] | None:
        """The torrent (id, fields) that has any of ``hashes`` in any form."""
        for infohash in hashes:
            torrent_id = self._by_hash.get(infohash)
            if torrent_id is not None:
                return torrent_id, self.torrents[torrent_id]
        return None

    def _merge(self, torrent_id: str, fields: Mapping[str, Any]) -> None:
        torrent = self.torrents.setdefault(torrent_id, {"hash": torrent_id})
        for old in self._keys(torrent_id, torrent):
            self._by_hash.pop(old, None)
        torrent.update((k, v) for k, v in fields.items() if k in KEPT_FIELDS)
        for key in self._keys(torrent_id, torrent):
            self._by_hash[key] = torrent_id

    def _drop(self, torrent_id: str) -> bool:
        torrent = self.torrents.pop(torrent_id, None)
        if torrent is None:
            return False
        for key in self._keys(torrent_id, torrent):
            if self._by_hash.get(key) == torrent_id:
                del self._by_hash[key]
        return True

    @staticmethod
    def _keys(torrent_id: str, torrent: Mapping[str, Any]) -> set[str]:
        """Every hash form a torrent can be found by (the id too, for API calls)."""
        return {torrent_id.lower(), *hashes_of(torrent)}
