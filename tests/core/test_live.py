"""The poller's pure parts: the live map, path mapping, snapshot changes, backoff."""

from dataclasses import replace

import pytest

from core.ids import new_id
from core.live import KEPT_FIELDS, LiveMap, contradicts, hashes_of, is_complete, torrent_ids
from core.models import Download, Infohash
from core.paths import map_remote_path
from core.states import State
from worker.adder import backoff_seconds
from worker.poller import snapshot_change

V1 = "a" * 40
V2 = "b" * 64


def test_hashes_of_never_takes_the_truncated_id_when_full_hashes_are_known() -> None:
    assert hashes_of({"hash": V2[:40], "infohash_v1": "", "infohash_v2": V2}) == (V2,)
    assert hashes_of({"hash": V2[:40], "infohash_v1": V1, "infohash_v2": V2}) == (V1, V2)
    assert hashes_of({"hash": V1.upper()}) == (V1,)  # an old WebAPI: only the id
    assert hashes_of({"hash": "garbage"}) == ()


def test_partial_updates_merge_and_full_updates_replace() -> None:
    live = LiveMap()
    first = live.apply(
        {
            "rid": 1,
            "full_update": True,
            "torrents": {V1: {"name": "x", "progress": 0.1, "infohash_v1": V1}},
        }
    )
    assert first.full
    assert first.changed == {V1}
    partial = live.apply({"rid": 2, "torrents": {V1: {"progress": 0.5}}})
    assert not partial.full
    assert live.torrents[V1] == {"hash": V1, "name": "x", "progress": 0.5, "infohash_v1": V1}
    gone = live.apply({"rid": 3, "torrents_removed": [V1]})
    assert gone.removed == {V1}
    assert live.find([V1]) is None
    replaced = live.apply({"rid": 1, "full_update": True, "torrents": {}})
    assert replaced.full
    assert live.torrents == {}


def test_fields_jellybit_does_not_read_are_neither_kept_nor_followed() -> None:
    live = LiveMap()
    live.apply({"rid": 1, "full_update": True, "torrents": {V1: {"progress": 0.1, "ratio": 2}}})
    quiet = live.apply({"rid": 2, "torrents": {V1: {"time_active": 12, "last_activity": 5}}})
    assert quiet.changed == set()
    assert live.torrents[V1] == {"hash": V1, "progress": 0.1}
    assert live.apply({"rid": 3, "torrents": {V1: {"dlspeed": 7}}}).changed == {V1}
    assert set(live.torrents[V1]) <= KEPT_FIELDS


def test_a_hybrid_changing_its_torrent_id_stays_findable_by_every_hash() -> None:
    live = LiveMap()
    live.apply({"rid": 1, "full_update": True, "torrents": {V1: {"infohash_v1": V1}}})
    live.apply(
        {
            "rid": 2,
            "torrents_removed": [V1],
            "torrents": {V2[:40]: {"infohash_v1": V1, "infohash_v2": V2}},
        }
    )
    for key in (V1, V2, V2[:40]):
        found = live.find([key])
        assert found is not None
        assert found[0] == V2[:40]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/downloads/Movie/file.mkv", "/srv/downloads/Movie/file.mkv"),
        ("/downloads", "/srv/downloads"),
        ("/downloads/tv/x", "/media/tv/x"),  # the longest prefix wins
        ("/downloadsX/file", "/downloadsX/file"),  # whole components only
        ("/elsewhere/file", "/elsewhere/file"),
        ("", ""),
    ],
)
def test_remote_paths_map_by_the_longest_whole_prefix(path: str, expected: str) -> None:
    path_map = (("/downloads", "/srv/downloads"), ("/downloads/tv", "/media/tv"))
    assert map_remote_path(path, path_map) == expected


def download(**changes: object) -> Download:
    base = Download(
        id=new_id(), name="Movie", state=State.DOWNLOADING, origin="telegram", source_ref="",
        chat_id=1, message_id=None, save_path="/srv/downloads", content_path="/srv/downloads/Movie",
        total_size=100, progress=0.5, error=None, source_added_at=None, completed_at=None,
        created_at="2026-01-01T00:00:00Z", updated_at="2026-01-01T00:00:00Z",
        qbt_state="downloading", download_speed=10, eta=5, progress_at="2026-01-01T00:00:00Z",
        infohashes=(Infohash(V1, "v1"),),
    )  # fmt: skip
    return replace(base, **changes)  # type: ignore[arg-type]


def torrent(**changes: object) -> dict[str, object]:
    return {
        "name": "Movie", "size": 100, "progress": 0.5, "dlspeed": 10, "eta": 5,
        "save_path": "/downloads", "content_path": "/downloads/Movie", "state": "downloading",
        **changes,
    }  # fmt: skip


PATHS = (("/downloads", "/srv/downloads"),)


def test_nothing_changed_means_no_write() -> None:
    assert snapshot_change(download(), torrent(), PATHS) is None


def test_only_changed_columns_are_written_and_progress_restarts_the_clock() -> None:
    change = snapshot_change(download(), torrent(progress=0.75, dlspeed=99), PATHS)
    assert change is not None
    assert set(change.fields) == {"progress", "download_speed", "progress_at"}
    assert change.transition is None


@pytest.mark.parametrize(
    ("state", "fields", "to_state"),
    [
        (State.ACCEPTED, {}, State.DOWNLOADING),
        (State.DOWNLOADING, {"progress": 1, "state": "stalledUP"}, State.IMPORTING),
        (State.DOWNLOADING, {"progress": 1, "state": "stoppedUP"}, State.IMPORTING),  # 5.x name
        (State.DOWNLOADING, {"progress": 1, "state": "checkingUP"}, State.IMPORTING),
        (State.DOWNLOADING, {"state": "missingFiles"}, State.STUCK),
        (State.DOWNLOADING, {"state": "error"}, State.STUCK),
        (State.STUCK, {"progress": 0.6}, State.DOWNLOADING),
        (State.STUCK, {}, None),
        (State.DOWNLOADING, {"progress": 1, "state": "downloading"}, None),  # not yet verified
    ],
)
def test_transitions(state: State, fields: dict[str, object], to_state: State | None) -> None:
    change = snapshot_change(download(state=state), torrent(**fields), PATHS)
    moved = None if change is None or change.transition is None else change.transition.to_state
    assert moved == to_state


def test_a_download_without_a_stuck_clock_gets_one() -> None:
    change = snapshot_change(download(progress_at=None), torrent(), PATHS)
    assert change is not None
    assert set(change.fields) == {"progress_at"}


def test_is_complete_needs_an_upload_state() -> None:
    assert is_complete({"progress": 1, "state": "uploading"})
    assert not is_complete({"progress": 1, "state": "pausedDL"})


def test_backoff_doubles_up_to_five_minutes() -> None:
    assert [backoff_seconds(n) for n in range(8)] == [5, 10, 20, 40, 80, 160, 300, 300]


def test_a_full_answer_after_a_failed_follow_up_marks_every_torrent_changed() -> None:
    live = LiveMap()
    torrent = {"name": "A", "state": "metaDL", "infohash_v1": V1, "progress": 0}
    live.apply({"rid": 1, "full_update": True, "torrents": {V1: torrent}})
    again = {"rid": 2, "full_update": True, "torrents": {V1: torrent}}
    assert live.apply(again).changed == set()  # nothing changed: nothing to follow
    assert live.apply(again, everything=True).changed == {V1}  # the last follow-up failed


def test_metadata_that_contradicts_a_magnets_hashes_is_seen() -> None:
    other_v2 = "c" * 64
    before = {"state": "metaDL", "size": 0, "infohash_v1": V1, "infohash_v2": other_v2}
    assert not contradicts((V1, other_v2), before)  # before metadata: the magnet echoed
    v1_only = {"state": "stalledDL", "size": 5, "infohash_v1": V1, "infohash_v2": ""}
    assert contradicts((V1, other_v2), v1_only)  # its v2 is of another torrent
    hybrid = {"has_metadata": True, "infohash_v1": V1, "infohash_v2": V2}
    assert contradicts((V1, other_v2), hybrid)
    assert not contradicts((V1, V2), hybrid)
    assert not contradicts((V1,), hybrid)  # a hybrid added by its v1: it gains its v2
    assert not contradicts((V2,), {"has_metadata": True, "hash": V2[:40]})  # an old WebAPI


def test_a_torrent_is_known_by_its_v1_and_its_truncated_v2() -> None:
    assert torrent_ids([V1, V2]) == [V1, V2[:40]]


def test_the_free_space_is_followed_and_judges_the_unfinished_torrents_again() -> None:
    live = LiveMap()
    seeding = {"size": 100, "progress": 1.0, "state": "stalledUP"}
    fetching = {"size": 100, "progress": 0.25, "state": "downloading"}
    full = {"rid": 1, "full_update": True, "server_state": {"free_space_on_disk": 500}}
    live.apply(full | {"torrents": {"a": seeding, "b": fetching}})
    assert live.free_space == 500
    assert live.apply({"rid": 2}).changed == set()  # nothing new
    assert live.apply({"rid": 3, "server_state": {"free_space_on_disk": 50}}).changed == {"b"}
    assert live.free_space == 50
    listing = {"rid": 0, "full_update": True, "torrents": {"b": fetching}}  # 5.x's torrents/info
    live.apply(listing)
    assert live.free_space == 50  # a listing does not tell it: the last figure stays


def test_a_zero_before_any_figure_is_not_checked_yet_and_later_a_full_disk() -> None:
    """qBittorrent answers 0 until its disk checker has run (its first answers after a
    start, and again after a restart); a 0 once the figure is known is a full disk, in
    a partial answer or in a periodic full one."""
    live = LiveMap()
    live.apply({"rid": 1, "full_update": True, "server_state": {"free_space_on_disk": 0}})
    assert live.free_space is None
    live.apply({"rid": 2, "server_state": {"free_space_on_disk": 700}})
    assert live.free_space == 700
    live.apply({"rid": 3, "server_state": {"free_space_on_disk": 0}})
    assert live.free_space == 0
    live.apply({"rid": 4, "full_update": True, "server_state": {"free_space_on_disk": 0}})
    assert live.free_space == 0  # a resync: still full
    live.apply({"rid": 5, "server_state": {"free_space_on_disk": 900}})
    restarted = {"rid": 1, "full_update": True, "server_state": {"free_space_on_disk": 0}}
    live.apply(restarted)
    assert live.free_space is None  # its checker has not answered yet


def test_a_download_short_of_space_keeps_the_free_figure_only_while_short() -> None:
    half = torrent(progress=0.5, size=1000, state="downloading")
    short = snapshot_change(download(), half, PATHS, free_space=400)
    assert short is not None
    assert short.fields["free_space"] == 400  # 500 left, 400 free
    fits = snapshot_change(download(), half, PATHS, free_space=600)
    assert fits is not None
    assert fits.fields.get("free_space") is None
