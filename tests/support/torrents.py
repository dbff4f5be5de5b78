"""Real torrents for tests: libtorrent-made v1, v2 and hybrid .torrent files and
``add_magnet``; the rest (content, magnets with a peer hint, seeding) is the sandbox's,
in ``sandbox/torrents.py``."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import libtorrent as lt
import qbittorrentapi

from sandbox.torrents import (
    FAILED_STATES,
    UPLOAD_STATES,
    MadeTorrent,
    TorrentFailed,
    find_torrent,
    is_complete,
    magnet_for,
    make_content,
    peer_handshake,
    seed,
    seeder_peer,
    wait_complete,
    wait_for,
    wait_serving,
)
from worker.qbt import add_accepted

if TYPE_CHECKING:
    from sandbox.qbittorrent import QbtInstance

__all__ = [
    "FAILED_STATES",
    "UPLOAD_STATES",
    "Kind",
    "MadeTorrent",
    "TorrentFailed",
    "add_magnet",
    "find_torrent",
    "is_complete",
    "magnet_for",
    "make_content",
    "make_torrent",
    "peer_handshake",
    "remind_of_the_seeder",
    "seed",
    "seeder_peer",
    "tracker_stand_in",
    "wait_complete",
    "wait_for",
    "wait_serving",
]

Kind = Literal["v1", "v2", "hybrid"]

_FLAGS: dict[Kind, int] = {
    "v1": lt.create_torrent.v1_only,
    "v2": lt.create_torrent.v2_only,
    "hybrid": 0,
}


def make_torrent(content: Path, kind: Kind, piece_size: int = 0) -> MadeTorrent:
    """A v1-only, v2-only or hybrid torrent of ``content`` (a file or a folder)."""
    entries = lt.list_files(str(content))
    creator = lt.create_torrent(entries, piece_size, _FLAGS[kind])
    lt.set_piece_hashes(creator, str(content.parent))
    data = lt.bencode(creator.generate())  # generate_buf() fails: returns bytes as str
    info = lt.torrent_info(data)
    hashes = info.info_hashes()
    return MadeTorrent(
        data=data,
        v1=hashes.v1.to_bytes().hex() if hashes.has_v1() else None,
        v2=hashes.v2.to_bytes().hex() if hashes.has_v2() else None,
        name=info.name(),
        content=content,
    )


def add_magnet(
    client: qbittorrentapi.Client, magnet: str, *, save_path: Path | None = None
) -> None:
    """``torrents_add`` a magnet; a refusal (4.x ``Fails.``, 5.x counts) raises."""
    result = client.torrents_add(
        urls=magnet, save_path=None if save_path is None else str(save_path)
    )
    if not add_accepted(result):
        raise RuntimeError(f"torrents_add({magnet!r}) answered {result!r}")


WAITING_FOR_DATA = frozenset({"stalledDL", "metaDL", "forcedMetaDL", "downloading"})


def remind_of_the_seeder(
    client: qbittorrentapi.Client,
    peer: str,
    states: frozenset[str] = WAITING_FOR_DATA,
    served: AbstractSet[str] | None = None,
) -> None:
    """This swarm is one seeder found by a peer hint (no tracker, DHT or PeX); once
    libtorrent loses that peer it may wait minutes before it tries it again (seen
    on 4.5 and 5.x: a retried torrent stalled for the whole wait). A real swarm has
    trackers; here the seeder is added again to every torrent still waiting for
    data — of those whose hash is in ``served``, when given — as a tracker would."""
    waiting = [
        str(info["hash"])
        for info in client.torrents_info()
        if info.get("state") in states and (served is None or not served.isdisjoint(_hashes(info)))
    ]
    if waiting:
        client.torrents_add_peers(peers=[peer], torrent_hashes=waiting)


def _hashes(info: Mapping[str, object]) -> set[str]:
    return {str(info[key]) for key in ("hash", "infohash_v1", "infohash_v2") if info.get(key)}


# The stand-in's handshakes come from here, an address no test probes from: the seeder
# refuses a second connection from one address to the same torrent.
STAND_IN_ADDRESS = "127.0.0.9"


@contextlib.contextmanager
def tracker_stand_in(
    leecher: QbtInstance, seeder: QbtInstance, every: float = 2.0
) -> Iterator[None]:
    """While inside, ``leecher`` is reminded of ``seeder`` every ``every`` s, from a
    thread, for every torrent the seeder serves that still waits for data or metadata —
    as the tracker of a real swarm would announce it (a torrent the seeder does not
    have has no peers). Without it a magnet whose first connection failed (under load)
    waits out libtorrent's reconnect backoff: a minute or more, beyond a test's wait."""
    stop = threading.Event()
    peer = seeder_peer(seeder)
    handshaken: set[str] = set()

    def serving() -> set[str]:
        """The hashes the seeder lists and answers a handshake for: one it lists but
        does not serve yet drops the leecher, who then waits ~60 s (``wait_serving``)."""
        listed = set().union(*map(_hashes, seeder.client().torrents_info()))
        for info_hash in listed - handshaken:
            if peer_handshake(seeder.torrent_port, info_hash, source=STAND_IN_ADDRESS):
                handshaken.add(info_hash)
        return listed & handshaken

    def remind() -> None:
        while not stop.wait(every):
            try:
                remind_of_the_seeder(leecher.client(), peer, served=serving())
            except qbittorrentapi.APIError:
                pass  # a test stopped, restarted or killed the leecher: the next round tries
            except Exception as error:  # never end silently: every later wait would stall
                print(f"tracker stand-in: {error!r}")

    thread = threading.Thread(target=remind, name="tracker-stand-in", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
