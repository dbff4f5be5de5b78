"""The real-qBittorrent harness works: isolated instances, real loopback downloads."""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import qbittorrentapi
from fastbencode import bdecode, bencode  # type: ignore[attr-defined]  # no __all__

from tests.support.fixtures import qbt, seeder
from tests.support.qbittorrent import (
    QbtInstance,
    QbtStartError,
    free_port,
    new_qbittorrent,
    pid_alive,
    pid_listens_on,
)
from tests.support.torrents import (
    Kind,
    MadeTorrent,
    add_magnet,
    magnet_for,
    make_content,
    make_torrent,
    peer_handshake,
    seed,
    seeder_peer,
    wait_complete,
)

__all__ = ["qbt", "seeder"]  # module-scoped fixtures of a real qBittorrent

MiB = 1024 * 1024
EPISODES = ("Show.S01E01.mkv", "Show.S01E02.mkv", "Extras/Show.S01E01.Sample.mkv")


def digests(path: Path) -> dict[str, str]:
    """sha256 of every file under ``path`` (or of ``path`` itself), by relative path."""
    if path.is_file():
        return {".": hashlib.sha256(path.read_bytes()).hexdigest()}
    return {
        p.relative_to(path).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


def download(seeder: QbtInstance, qbt: QbtInstance, t: MadeTorrent) -> Path:
    """Seed ``t``, add only its magnet (with the peer hint) to ``qbt``, wait, return content."""
    seed(seeder, t)
    client = qbt.client()
    add_magnet(client, magnet_for(t, peer=seeder_peer(seeder)))
    info = wait_complete(client, t, timeout=20)
    assert info["hash"] == t.qbt_id
    return Path(str(info["content_path"]))


def test_make_content_is_deterministic(tmp_path: Path) -> None:
    a = make_content(tmp_path / "a", "Show", 1000, names=EPISODES, seed=7)
    b = make_content(tmp_path / "b", "Show", 1000, names=EPISODES, seed=7)
    c = make_content(tmp_path / "c", "Show", 1000, names=EPISODES, seed=8)
    assert digests(a) == digests(b) != digests(c)
    assert sorted(digests(a)) == sorted(EPISODES)
    assert sum(p.stat().st_size for p in a.rglob("*") if p.is_file()) == 1000
    single = make_content(tmp_path, "Movie.mkv", 123)
    assert single.is_file()
    assert single.stat().st_size == 123
    with pytest.raises(FileExistsError):
        make_content(tmp_path, "Movie.mkv", 123)


@pytest.mark.parametrize("kind", ["v1", "v2", "hybrid"])
def test_make_torrent_hashes(tmp_path: Path, kind: Kind) -> None:
    content = make_content(tmp_path, f"H.{kind}", 100_000, names=EPISODES)
    t = make_torrent(content, kind, piece_size=16 * 1024)
    info = bencode(bdecode(t.data)[b"info"])
    assert t.v1 == (None if kind == "v2" else hashlib.sha1(info).hexdigest())
    assert t.v2 == (None if kind == "v1" else hashlib.sha256(info).hexdigest())
    assert t.name == f"H.{kind}"
    assert t.qbt_id == (t.v1 if kind == "v1" else t.v2 and t.v2[:40])
    magnet = magnet_for(t, peer="127.0.0.1:1")
    assert magnet.endswith(f"&dn=H.{kind}&x.pe=127.0.0.1:1")
    assert (f"urn:btih:{t.v1}" in magnet) == (kind != "v2")
    assert (f"urn:btmh:1220{t.v2}" in magnet) == (kind != "v1")


@pytest.mark.parametrize("kind", ["v1", "v2", "hybrid"])
def test_real_download_from_magnet(
    seeder: QbtInstance, qbt: QbtInstance, tmp_path: Path, kind: Kind
) -> None:
    if kind == "v1":
        content = make_content(tmp_path, "Movie.2024.v1.mkv", 3 * MiB, seed=1)
    else:
        content = make_content(tmp_path, f"Show.S01.{kind}", 3 * MiB, names=EPISODES, seed=2)
    t = make_torrent(content, kind)

    downloaded = download(seeder, qbt, t)

    assert downloaded == qbt.downloads_dir / t.name
    assert digests(downloaded) == digests(content)


def test_isolated_config(seeder: QbtInstance, qbt: QbtInstance) -> None:
    prefs = qbt.client().app_preferences()
    assert prefs["listen_port"] == qbt.torrent_port
    assert (prefs["dht"], prefs["lsd"], prefs["pex"], prefs["upnp"]) == (False,) * 4
    assert prefs["web_ui_address"] == "127.0.0.1"
    assert prefs["current_network_interface"] == "lo"
    assert prefs["bypass_local_auth"] is False
    assert prefs["web_ui_max_auth_fail_count"] == 0
    assert prefs["queueing_enabled"] is False
    assert prefs["temp_path_enabled"] is False
    assert prefs["resolve_peer_countries"] is False
    assert prefs["refresh_interval"] == 200
    assert Path(str(prefs["save_path"])) == qbt.downloads_dir
    assert qbt.pid is not None
    assert seeder.pid is not None
    assert pid_listens_on(qbt.pid, qbt.webui_port)
    assert not pid_listens_on(seeder.pid, qbt.webui_port)


def test_seeder_serves_only_its_torrents(seeder: QbtInstance, tmp_path: Path) -> None:
    t = make_torrent(make_content(tmp_path, "Served.bin", 64 * 1024, seed=4), "hybrid")
    assert t.v1 is not None
    assert t.v2 is not None
    assert not peer_handshake(seeder.torrent_port, t.v1)
    seed(seeder, t, skip_checking=False)
    # One IP per probe: the seeder refuses a second connection from an IP to a torrent.
    assert peer_handshake(seeder.torrent_port, t.v1, source="127.0.0.3")
    assert peer_handshake(seeder.torrent_port, t.v2, source="127.0.0.4")


def test_wrong_password_is_rejected(qbt: QbtInstance) -> None:
    bad = qbittorrentapi.Client(
        host=qbt.url,
        username=qbt.username,
        password="not-" + qbt.password,
        REQUESTS_ARGS={"timeout": 10},
    )
    for _ in range(6):  # more than qBittorrent's default ban threshold (5)
        with pytest.raises(qbittorrentapi.LoginFailed):
            bad.auth_log_in()
    with pytest.raises(urllib.error.HTTPError) as no_cookie:
        urllib.request.urlopen(f"{qbt.url}/api/v2/app/version", timeout=10)
    assert no_cookie.value.code == 403
    assert qbt.client().app_version().startswith("v")  # not banned


def test_restart_keeps_torrents(seeder: QbtInstance, qbt: QbtInstance, tmp_path: Path) -> None:
    t = make_torrent(make_content(tmp_path, "Kept.bin", 256 * 1024, seed=3), "hybrid")
    download(seeder, qbt, t)
    client = qbt.client()
    before = {info["hash"] for info in client.torrents_info()}
    old_pid = qbt.pid

    qbt.restart()

    assert qbt.pid != old_pid
    assert old_pid is not None
    assert not pid_alive(old_pid)
    assert {info["hash"] for info in client.torrents_info()} == before  # logs in again
    assert wait_complete(qbt.client(), t, timeout=10)["hash"] == t.qbt_id


def test_second_instance_on_same_profile_is_detected(qbt: QbtInstance) -> None:
    twin = QbtInstance(
        root=qbt.root,
        webui_port=qbt.webui_port,
        torrent_port=qbt.torrent_port,
        password=qbt.password,
        command=qbt.command,
    )
    with pytest.raises(QbtStartError, match="exited with 0"):
        twin.start()
    assert not twin.running
    assert qbt.running
    assert qbt.client().app_version()


def test_taken_webui_port_is_detected(qbt: QbtInstance, tmp_path: Path) -> None:
    other = QbtInstance(root=tmp_path / "q", webui_port=qbt.webui_port, torrent_port=free_port())
    with pytest.raises(QbtStartError, match="exited with 1"):
        other.start()
    assert not other.running


def test_stop_leaves_no_process(tmp_path: Path) -> None:
    with new_qbittorrent(tmp_path / "q") as instance:
        pid = instance.pid
        assert pid is not None
        assert pid_alive(pid)
        url = instance.url
    assert not pid_alive(pid)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{url}/api/v2/app/version", timeout=2)
    instance.stop()  # idempotent
    assert not instance.running
