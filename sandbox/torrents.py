"""Real torrents without libtorrent: generated content, v1 .torrent files, magnets with a
peer hint, and a local seeder that really serves them over loopback.

The sandbox seeds its sample torrents with these; the tests use them too, through
``tests/support/torrents.py`` (which adds libtorrent-made v2 and hybrid torrents).
"""

from __future__ import annotations

import hashlib
import random
import secrets
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote

import qbittorrentapi
from fastbencode import bencode  # type: ignore[attr-defined]  # no __all__

from core import clock
from sandbox.qbittorrent import QbtInstance
from worker.qbt import add_accepted

PIECE_SIZE = 256 * 1024

# qBittorrent 4.5 states meaning "all wanted data is here".
UPLOAD_STATES = frozenset(
    {"uploading", "stalledUP", "pausedUP", "stoppedUP", "queuedUP", "checkingUP", "forcedUP"}
)
FAILED_STATES = frozenset({"error", "missingFiles"})


def make_content(
    directory: Path,
    name: str,
    size: int,
    *,
    files: int = 1,
    seed: int = 0,
    names: Sequence[str] | None = None,
) -> Path:
    """Write deterministic pseudo-random content of ``size`` bytes in total.

    One file ``directory/name`` when ``files == 1`` and no ``names``; otherwise a
    folder ``directory/name`` holding ``files`` files (``names``, relative paths
    that may contain subfolders, default ``<name>.01.bin`` …). The bytes depend
    only on ``seed``, ``name`` and each file's relative path.
    """
    if names is not None:
        if files not in (1, len(names)):
            raise ValueError(f"files={files} but {len(names)} names")
        files = len(names)
    if files < 1 or size < files:
        raise ValueError(f"need 1 <= files <= size, got files={files} size={size}")
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"bad content name {name!r}")
    root = directory / name
    if root.exists():
        raise FileExistsError(root)
    directory.mkdir(parents=True, exist_ok=True)
    if names is None and files == 1:
        root.write_bytes(random.Random(f"{seed}/{name}").randbytes(size))
        return root
    relnames = (
        list(names) if names is not None else [f"{name}.{i:02d}.bin" for i in range(1, files + 1)]
    )
    share, rest = divmod(size, files)
    for i, rel in enumerate(relnames):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        length = share + (rest if i == files - 1 else 0)
        path.write_bytes(random.Random(f"{seed}/{name}/{rel}").randbytes(length))
    return root


@dataclass(frozen=True)
class MadeTorrent:
    data: bytes  # the bencoded .torrent
    v1: str | None  # lowercase hex, 40 chars
    v2: str | None  # lowercase hex, 64 chars
    name: str
    content: Path  # the file or folder the torrent describes

    @property
    def qbt_id(self) -> str:
        """qBittorrent's ``hash`` for it: ``v2[:40]`` when there is a v2 hash, else v1."""
        if self.v2 is not None:
            return self.v2[:40]
        assert self.v1 is not None
        return self.v1


def make_v1_torrent(content: Path, piece_size: int = PIECE_SIZE) -> MadeTorrent:
    """A trackerless v1 torrent of ``content`` (a file, or a folder of files in path order)."""
    files = sorted(p for p in content.rglob("*") if p.is_file())
    paths = [content] if content.is_file() else files
    pieces, buffer = bytearray(), bytearray()
    for path in paths:
        with path.open("rb") as fh:
            while chunk := fh.read(piece_size - len(buffer)):
                buffer += chunk
                if len(buffer) == piece_size:
                    pieces += hashlib.sha1(buffer).digest()
                    buffer.clear()
    if buffer:
        pieces += hashlib.sha1(buffer).digest()
    info: dict[bytes, object] = {
        b"name": content.name.encode(),
        b"piece length": piece_size,
        b"pieces": bytes(pieces),
    }
    if content.is_file():
        info[b"length"] = content.stat().st_size
    else:
        info[b"files"] = [
            {
                b"length": path.stat().st_size,
                b"path": [part.encode() for part in path.relative_to(content).parts],
            }
            for path in paths
        ]
    data: bytes = bencode({b"created by": b"jellybit sandbox", b"info": info})
    info_hash = hashlib.sha1(bencode(info)).hexdigest()
    return MadeTorrent(data=data, v1=info_hash, v2=None, name=content.name, content=content)


def magnet_for(
    t: MadeTorrent,
    *,
    peer: str | None = None,
    hashes: Literal["all", "v1", "v2"] = "all",
) -> str:
    """``magnet:?xt=urn:btih:<v1>&xt=urn:btmh:1220<v2>&dn=<name>[&x.pe=<peer>]``."""
    parts: list[str] = []
    if hashes in ("all", "v1") and t.v1 is not None:
        parts.append(f"xt=urn:btih:{t.v1}")
    if hashes in ("all", "v2") and t.v2 is not None:
        parts.append(f"xt=urn:btmh:1220{t.v2}")
    if not parts:
        raise ValueError(f"torrent {t.name!r} has no {hashes} hash")
    parts.append(f"dn={quote(t.name, safe='')}")
    if peer is not None:
        parts.append(f"x.pe={peer}")
    return "magnet:?" + "&".join(parts)


def seeder_peer(seeder: QbtInstance) -> str:
    """The ``x.pe`` peer hint for ``seeder``."""
    return f"127.0.0.1:{seeder.torrent_port}"


def find_torrent(
    client: qbittorrentapi.Client, t: MadeTorrent
) -> qbittorrentapi.TorrentDictionary | None:
    """The torrent matching ``t`` by ``infohash_v1``/``infohash_v2``, whatever its id.

    (A hybrid added by a btih-only magnet changes its ``hash`` once metadata arrives.)
    """
    for info in client.torrents_info():
        if (t.v1 is not None and info.get("infohash_v1") == t.v1) or (
            t.v2 is not None and info.get("infohash_v2") == t.v2
        ):
            return info
    return None


def is_complete(info: qbittorrentapi.TorrentDictionary) -> bool:
    """All data is here, by the API (never judge by the file system)."""
    return info.get("progress") == 1 and info.get("state") in UPLOAD_STATES


class TorrentFailed(RuntimeError):
    """The torrent reached a state it will not leave by itself (``error``, ``missingFiles``)."""


def wait_for(
    client: qbittorrentapi.Client,
    t: MadeTorrent,
    condition: Callable[[qbittorrentapi.TorrentDictionary], bool],
    *,
    timeout: float = 20,
    interval: float = 0.1,
    fail_states: frozenset[str] = FAILED_STATES,
) -> qbittorrentapi.TorrentDictionary:
    """Poll until ``t`` is listed and ``condition`` holds.

    TimeoutError after ``timeout``; TorrentFailed at once if the torrent is in one of
    ``fail_states`` and ``condition`` does not hold (pass ``frozenset()`` to wait anyway).
    """
    deadline = clock.monotonic() + timeout
    while True:
        info = find_torrent(client, t)
        if info is not None:
            if condition(info):
                return info
            if info.get("state") in fail_states:
                raise TorrentFailed(f"{t.name!r} ({t.qbt_id}): {_summary(info)}")
        if clock.monotonic() > deadline:
            seen = "not listed" if info is None else _summary(info)
            raise TimeoutError(f"{t.name!r} ({t.qbt_id}) after {timeout}s: {seen}")
        time.sleep(interval)


def _summary(info: qbittorrentapi.TorrentDictionary) -> str:
    keys = ("state", "progress", "num_seeds", "num_leechs", "hash")
    return ", ".join(f"{key}={info.get(key)!r}" for key in keys)


def wait_complete(
    client: qbittorrentapi.Client, t: MadeTorrent, *, timeout: float = 20
) -> qbittorrentapi.TorrentDictionary:
    """Wait until ``t`` has progress 1 and an upload state."""
    return wait_for(client, t, is_complete, timeout=timeout)


def peer_handshake(
    port: int, info_hash: str, *, source: str = "127.0.0.2", timeout: float = 2.0
) -> bool:
    """Whether 127.0.0.1:``port`` answers a plain BitTorrent handshake for ``info_hash``
    (hex; a v2 hash is truncated to 20 bytes as on the wire).

    Connects from ``source`` (127.0.0.2) so the peer does not take it for the instance
    under test at 127.0.0.1: libtorrent refuses a second connection from the same IP to
    the same torrent, including one that is still closing.
    """
    ih = bytes.fromhex(info_hash)[:20]
    hello = b"\x13BitTorrent protocol" + bytes(8) + ih + b"-JB0000-" + secrets.token_bytes(12)
    try:
        with socket.create_connection(
            ("127.0.0.1", port), timeout=timeout, source_address=(source, 0)
        ) as sock:
            sock.sendall(hello)
            reply = b""
            while len(reply) < 68:
                chunk = sock.recv(68 - len(reply))
                if not chunk:
                    return False
                reply += chunk
    except OSError:
        return False
    return reply[:20] == hello[:20] and reply[28:48] == ih


def wait_serving(seeder: QbtInstance, t: MadeTorrent, *, timeout: float = 15) -> None:
    """Wait until ``seeder`` accepts peer connections for ``t`` (every hash it has).

    qBittorrent reports a just-added torrent as ``stalledUP`` up to ~0.7 s (seen under
    load) before libtorrent accepts peers for it; a leecher that connects in that window
    is dropped after its handshake and only retries ~60 s later.
    """
    deadline = clock.monotonic() + timeout
    for info_hash in (h for h in (t.v1, t.v2) if h is not None):
        while not peer_handshake(seeder.torrent_port, info_hash):
            if clock.monotonic() > deadline:
                raise TimeoutError(
                    f"seeder does not serve {t.name!r} ({info_hash}) after {timeout}s"
                )
            time.sleep(0.05)


def seed(
    seeder: QbtInstance,
    t: MadeTorrent,
    *,
    up_limit: int | None = None,
    skip_checking: bool = True,
    timeout: float = 15,
) -> None:
    """Add ``t`` to ``seeder`` with its content in place; return once it really serves it.

    ``up_limit`` is in bytes/s (slows downloads enough to see ``downloading``).
    ``skip_checking=False`` hashes the content first (then libtorrent refuses peers for
    ~1 s after qBittorrent already reports ``stalledUP``; ``wait_serving`` covers it).
    """
    client = seeder.client()
    result = client.torrents_add(
        torrent_files=t.data,
        save_path=str(t.content.parent),
        is_skip_checking=skip_checking,
        upload_limit=up_limit,
    )
    if not add_accepted(result):
        raise RuntimeError(f"seeder refused {t.name!r}: {result!r}")
    wait_complete(client, t, timeout=timeout)
    wait_serving(seeder, t, timeout=timeout)
