"""The qBittorrent WebUI API as jellybit uses it: the same cases against the fake
(``tests/support/fake_qbittorrent.py``, as 4.5 and as 5.x) and against real
qbittorrent-nox 4.5.2 and 5.3.0. What docs/qbittorrent.md says about the two versions
is checked here on both, and the fake must answer each case as the real version does:
status, body, content type, every field of a torrent, its files and its properties.

``tests/data/qbittorrent/<version>.json`` holds what the real versions list (a
torrent's fields, its properties, a file, the server state, a category): the real
instances are held to it here, and the fake answers from it.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.fake_qbittorrent import FakeQbittorrent, Version, record
from tests.support.fixtures import contract_targets, qbittorrent_command
from tests.support.qbittorrent import WebUiCalls, new_qbittorrent
from tests.support.torrents import (
    UPLOAD_STATES,
    MadeTorrent,
    magnet_for,
    make_content,
    make_torrent,
    seed,
    seeder_peer,
)

_names = itertools.count()
TIMEOUT = 10.0


@dataclass
class Target(WebUiCalls):
    """A qBittorrent WebUI to hold to the contract, real or fake."""

    version: Version
    url: str
    username: str
    password: str
    save_path: Path
    provide: Callable[[MadeTorrent], None]  # peers have it from now on
    peer: str | None  # the x.pe hint of those peers
    src: Path

    def new_torrent(self, kind: str = "hybrid", *, offered: bool = True) -> MadeTorrent:
        n = next(_names)
        content = make_content(
            self.src / f"c{n}", f"Contract.{n}.2021.1080p.mkv", 256 * 1024, seed=n
        )
        made = make_torrent(content, kind)  # type: ignore[arg-type]
        if offered:
            self.provide(made)
        return made

    def magnet(self, made: MadeTorrent, hashes: str = "all") -> str:
        return magnet_for(made, peer=self.peer, hashes=hashes)  # type: ignore[arg-type]


def _fake_target(version: Version, root: Path) -> Iterator[Target]:
    """The fake on a loop of its own thread, so the cases stay plain blocking calls."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    fake = FakeQbittorrent(version=version, root=root)
    asyncio.run_coroutine_threadsafe(fake.start(), loop).result(TIMEOUT)
    try:
        yield Target(
            version, fake.url, fake.username, fake.password, fake.downloads_dir, fake.offer,
            None, root / "src",
        )  # fmt: skip
    finally:
        asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(TIMEOUT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(TIMEOUT)


def _real_target(version: Version, root: Path) -> Iterator[Target]:
    command = qbittorrent_command(version)
    with (
        new_qbittorrent(root / "qbt", command=command) as qbt,
        new_qbittorrent(root / "seeder") as seeder,
    ):
        yield Target(
            version, qbt.url, qbt.username, qbt.password, qbt.downloads_dir,
            lambda made: seed(seeder, made), seeder_peer(seeder), root / "src",
        )  # fmt: skip


@pytest.fixture(scope="module", params=contract_targets())
def target(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Target]:
    name: str = request.param
    version: Version = "4.5" if name.endswith("4.5") else "5"
    root = tmp_path_factory.mktemp(name)
    make = _fake_target if name.startswith("fake") else _real_target
    yield from make(version, root)


def _until(probe: Callable[[], Any], what: str, within: float = 30) -> Any:
    deadline = time.monotonic() + within
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"not within {within} s: {what} (last {last!r})")


def _listed(target: Target, session: requests.Session, made: MadeTorrent) -> dict[str, Any] | None:
    for torrent in target.get(session, "torrents/info").json():
        if {torrent["infohash_v1"], torrent["infohash_v2"]} & {made.v1, made.v2}:
            return dict(torrent)
    return None


def _complete(target: Target, session: requests.Session, made: MadeTorrent) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        torrent = _listed(target, session, made)
        if torrent is not None and target.peer is not None and torrent["progress"] < 1:
            # No tracker or DHT here: the seeder is named to it, as a tracker would
            # (a .torrent has no peer hint; an add is applied after its answer).
            target.post(session, "torrents/addPeers", hashes=torrent["hash"], peers=target.peer)
        done = torrent and torrent["progress"] == 1 and torrent["state"] in UPLOAD_STATES
        return torrent if done else None

    found: dict[str, Any] = _until(probe, f"{made.name} complete")
    return found


def _add(target: Target, session: requests.Session, **data: Any) -> requests.Response:
    return target.post(session, "torrents/add", **data)


# ---- auth and version -------------------------------------------------------------------


def test_login_answers_as_the_version_does(target: Target) -> None:
    session = requests.Session()
    bad = target.post(session, "auth/login", username=target.username, password="wrong")
    if target.version == "4.5":
        assert (bad.status_code, bad.text) == (200, "Fails.")
    else:
        assert bad.status_code == 401
    anonymous = target.get(session, "app/version")
    assert (anonymous.status_code, anonymous.text) == (403, "Forbidden")
    good = target.post(session, "auth/login", username=target.username, password=target.password)
    if target.version == "4.5":
        assert (good.status_code, good.text) == (200, "Ok.")
    else:
        assert (good.status_code, good.text) == (204, "")
    cookie = "SID" if target.version == "4.5" else f"QBT_SID_{target.url.rsplit(':', 1)[1]}"
    assert list(session.cookies.keys()) == [cookie]
    assert target.get(session, "app/version").status_code == 200
    assert target.post(session, "auth/logout").status_code == 200
    assert target.get(session, "app/version").status_code == 403


def test_versions_are_the_tested_ones(target: Target) -> None:
    session = target.session()
    app = target.get(session, "app/version")
    api = target.get(session, "app/webapiVersion")
    assert app.headers["Content-Type"].startswith("text/plain")
    expected = record(target.version)
    assert (app.text, api.text) == (expected["version"], expected["webapi"])


# ---- adding -----------------------------------------------------------------------------


def test_an_add_and_a_refused_add_answer_as_the_version_does(target: Target) -> None:
    session = target.session()
    made = target.new_torrent()
    first = _add(target, session, urls=target.magnet(made), category="contract", tags="jellybit")
    # 5.x checks for a duplicate only among torrents already in its session: an add in the
    # moment before libtorrent has loaded the first answers success and is dropped later
    # (docs/qbittorrent.md). A duplicate jellybit meets is one qBittorrent lists.
    _until(lambda: _listed(target, session, made), "the first add listed")
    again = _add(target, session, urls=target.magnet(made), category="contract")
    garbage = _add(target, session, files={"torrents": ("x.torrent", b"garbage")})
    if target.version == "4.5":
        assert (first.status_code, first.text) == (200, "Ok.")
        assert (again.status_code, again.text) == (200, "Fails.")
    else:
        assert first.status_code == 200
        assert first.json() == {
            "added_torrent_ids": [made.qbt_id],
            "failure_count": 0,
            "pending_count": 0,
            "success_count": 1,
        }
        assert again.status_code == 409
    assert garbage.status_code == 415
    assert garbage.text.startswith("Error: '")
    assert "is not a valid torrent file" in garbage.text
    torrent = _complete(target, session, made)
    assert (torrent["category"], torrent["tags"]) == ("contract", "jellybit")


def test_a_torrent_file_is_taken_under_any_field_name(target: Target) -> None:
    """qbittorrent-api names a file's field after its key (jellybit's "upload.torrent"),
    not the documented "torrents": qBittorrent takes every uploaded file."""
    session = target.session()
    made = target.new_torrent("v2")
    answer = _add(target, session, files={"upload.torrent": ("upload.torrent", made.data)})
    assert answer.status_code == 200
    assert _complete(target, session, made)["hash"] == made.qbt_id


def test_a_torrent_file_downloads_into_the_save_path_with_every_field(target: Target) -> None:
    session = target.session()
    made = target.new_torrent("v1")
    answer = _add(target, session, files={"torrents": ("upload.torrent", made.data)})
    assert answer.status_code == 200
    torrent = _complete(target, session, made)
    expected = set(record(target.version)["torrent"])
    assert set(torrent) == expected, set(torrent) ^ expected
    assert torrent["hash"] == made.qbt_id
    assert torrent["save_path"].rstrip("/") == str(target.save_path)
    assert torrent["content_path"] == str(target.save_path / made.name)
    assert torrent["size"] == torrent["total_size"] == 256 * 1024
    assert (target.save_path / made.name).read_bytes() == made.content.read_bytes()
    files = target.get(session, "torrents/files", hash=torrent["hash"]).json()
    assert [(f["name"], f["size"]) for f in files] == [(made.name, 256 * 1024)]
    assert set(files[0]) == set(record(target.version)["file"])
    props = target.get(session, "torrents/properties", hash=torrent["hash"]).json()
    assert set(props) == set(record(target.version)["properties"])
    assert props["hash"] == torrent["hash"]
    assert props["save_path"].rstrip("/") == str(target.save_path)


def test_a_hybrid_sent_by_its_v1_hash_is_listed_by_its_v2_id_once_it_has_metadata(
    target: Target,
) -> None:
    """torrents/info only: on 5.x sync/maindata in this case is the crash the poller avoids."""
    session = target.session()
    made = target.new_torrent("hybrid")
    assert _add(target, session, urls=target.magnet(made, hashes="v1")).status_code == 200
    torrent = _complete(target, session, made)
    assert torrent["hash"] == made.qbt_id == made.v2[:40]  # type: ignore[index]
    assert (torrent["infohash_v1"], torrent["infohash_v2"]) == (made.v1, made.v2)


def test_a_magnet_nobody_has_waits_for_metadata(target: Target) -> None:
    session = target.session()
    made = target.new_torrent("v1", offered=False)
    assert _add(target, session, urls=magnet_for(made)).status_code == 200
    time.sleep(1.0)
    torrent = _listed(target, session, made)
    assert torrent is not None
    assert (torrent["state"], torrent["size"], torrent["total_size"]) == ("metaDL", 0, -1)
    assert torrent.get("has_metadata", False) is False
    assert "has_metadata" in torrent or target.version == "4.5"
    unknown = "0" * 40
    for path in ("torrents/properties", "torrents/files"):
        assert target.get(session, path, hash=unknown).status_code == 404
    target.post(session, "torrents/delete", hashes=torrent["hash"], deleteFiles="false")


# ---- following: sync/maindata -----------------------------------------------------------


def test_maindata_is_full_then_partial_then_tells_removals(target: Target) -> None:
    session = target.session()
    full = target.get(session, "sync/maindata", rid=0).json()
    assert full["full_update"] is True
    assert isinstance(full["rid"], int)
    assert set(full["server_state"]) == set(record(target.version)["server_state"])
    made = target.new_torrent("v2")
    assert _add(target, session, urls=target.magnet(made), category="follow").status_code == 200
    torrent = _complete(target, session, made)
    added = target.get(session, "sync/maindata", rid=full["rid"]).json()
    assert "full_update" not in added
    only_in_maindata = set(record(target.version)["maindata_torrent_only"])
    assert set(added["torrents"][torrent["hash"]]) == set(torrent) - {"hash"} | only_in_maindata
    unchanged = target.get(session, "sync/maindata", rid=added["rid"]).json()
    listed = unchanged.get("torrents", {}).get(torrent["hash"], {})
    assert "name" not in listed
    assert "infohash_v2" not in listed
    assert unchanged["rid"] > added["rid"]
    assert "follow" in (full.get("categories", {}) | added.get("categories", {}))
    target.post(session, "torrents/delete", hashes=torrent["hash"], deleteFiles="true")
    removed = _until(
        lambda: (
            target.get(session, "sync/maindata", rid=unchanged["rid"])
            .json()
            .get("torrents_removed")
        ),
        "the removal announced",
    )
    assert removed == [torrent["hash"]]
    # The files go on libtorrent's disk thread: after the removal is listed, not with it.
    _until(lambda: not (target.save_path / made.name).exists(), "the files deleted")


def test_server_state_tells_the_free_space_of_the_save_paths_disk(target: Target) -> None:
    """jellybit compares it with what a download still needs (a full disk is said)."""
    session = target.session()
    full = target.get(session, "sync/maindata", rid=0).json()
    assert isinstance(full["server_state"]["free_space_on_disk"], int)  # 0 until checked
    free, rid = full["server_state"]["free_space_on_disk"], full["rid"]
    deadline = time.monotonic() + 10
    while free == 0 and time.monotonic() < deadline:  # the checker answers in the background
        time.sleep(0.1)
        later = target.get(session, "sync/maindata", rid=rid).json()
        assert set(later.get("server_state", {})) <= set(full["server_state"])  # changed only
        free, rid = later.get("server_state", {}).get("free_space_on_disk", free), later["rid"]
    actual = shutil.disk_usage(target.save_path).free
    assert abs(free - actual) <= max(actual // 100, 256 << 20)  # others write meanwhile


def test_5_leaves_empty_collections_out_of_a_full_answer(target: Target) -> None:
    session = target.session()
    for torrent in target.get(session, "torrents/info").json():
        target.post(session, "torrents/delete", hashes=torrent["hash"], deleteFiles="true")
    _until(lambda: not target.get(session, "torrents/info").json(), "no torrents left")
    full = target.get(session, "sync/maindata", rid=0).json()
    collections = {"categories", "tags", "torrents", "trackers"}
    if target.version == "5":
        assert all(full[key] for key in collections & set(full))
        assert "torrents" not in full
        assert "trackers" not in full
        assert "categories" in full  # the categories of the earlier adds are kept
    else:
        assert collections <= set(full)
        assert full["torrents"] == {}
    categories = target.get(session, "torrents/categories").json()
    assert all(set(c) == set(record(target.version)["category"]) for c in categories.values())
    if target.version == "5":
        count = target.get(session, "torrents/count")
        assert (count.status_code, count.text) == (200, "0")
    else:
        assert target.get(session, "torrents/count").status_code == 404


# ---- acting: stop, start, recheck, reannounce, delete ------------------------------------


def test_stop_and_start_by_the_versions_verbs(target: Target) -> None:
    session = target.session()
    made = target.new_torrent("v1")
    assert _add(target, session, urls=target.magnet(made)).status_code == 200
    torrent_id = _complete(target, session, made)["hash"]
    stop, start = ("stop", "start") if target.version == "5" else ("pause", "resume")
    wrong = "pause" if target.version == "5" else "stop"
    assert target.post(session, f"torrents/{wrong}", hashes=torrent_id).status_code == 404
    answer = target.post(session, f"torrents/{stop}", hashes=torrent_id)
    assert (answer.status_code, answer.text) == (200, "")
    stopped = record(target.version)["stopped_state"]
    _until(lambda: (_listed(target, session, made) or {}).get("state") == stopped, stopped)
    assert target.post(session, f"torrents/{start}", hashes=torrent_id).status_code == 200
    _until(
        lambda: (_listed(target, session, made) or {}).get("state") in UPLOAD_STATES - {stopped},
        "seeding again",
    )
    for action in ("recheck", "reannounce"):
        answer = target.post(session, f"torrents/{action}", hashes=torrent_id)
        assert (answer.status_code, answer.text) == (200, "")
    _complete(target, session, made)  # a recheck of complete data ends complete
    gone = target.post(session, "torrents/delete", hashes="1" * 40, deleteFiles="false")
    assert (gone.status_code, gone.text) == (200, "")
    target.post(session, "torrents/delete", hashes=torrent_id, deleteFiles="false")
    _until(lambda: _listed(target, session, made) is None, "deleted")
    assert (target.save_path / made.name).exists()  # deleteFiles=false keeps the data
