"""Real torrents for tests: generated content, libtorrent-made .torrent files,
magnets with a peer hint, and a seeder that serves them over loopback."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote

import libtorrent as lt
import qbittorrentapi

from tests.support.qbittorrent import QbtInstance

Kind = Literal["v1", "v2", "hybrid"]

# qBittorrent 4.5 states meaning "all wanted data is here".
UPLOAD_STATES = frozenset(
    {"uploading", "stalledUP", "pausedUP", "stoppedUP", "queuedUP", "checkingUP", "forcedUP"}
)

_FLAGS: dict[Kind, int] = {
    "v1": lt.create_torrent.v1_only,
    "v2": lt.create_torrent.v2_only,
    "hybrid": 0,
}


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


def wait_for(
    client: qbittorrentapi.Client,
    t: MadeTorrent,
    condition: Callable[[qbittorrentapi.TorrentDictionary], bool],
    *,
    timeout: float = 20,
    interval: float = 0.1,
) -> qbittorrentapi.TorrentDictionary:
    """Poll until ``t`` is listed and ``condition`` holds; TimeoutError otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        info = find_torrent(client, t)
        if info is not None and condition(info):
            return info
        if time.monotonic() > deadline:
            seen = None if info is None else (info.get("state"), info.get("progress"))
            raise TimeoutError(
                f"{t.name!r} ({t.qbt_id}) after {timeout}s: (state, progress)={seen}"
            )
        time.sleep(interval)


def wait_complete(
    client: qbittorrentapi.Client, t: MadeTorrent, *, timeout: float = 20
) -> qbittorrentapi.TorrentDictionary:
    """Wait until ``t`` has progress 1 and an upload state."""
    return wait_for(client, t, is_complete, timeout=timeout)


def add_magnet(
    client: qbittorrentapi.Client, magnet: str, *, save_path: Path | None = None
) -> None:
    """``torrents_add`` a magnet; qBittorrent answers ``Fails.`` with HTTP 200 on failure."""
    result = client.torrents_add(
        urls=magnet, save_path=None if save_path is None else str(save_path)
    )
    if result != "Ok.":
        raise RuntimeError(f"torrents_add({magnet!r}) answered {result!r}")


def seed(
    seeder: QbtInstance,
    t: MadeTorrent,
    *,
    up_limit: int | None = None,
    timeout: float = 15,
) -> None:
    """Add ``t`` to ``seeder`` with its content in place and wait until it seeds.

    ``up_limit`` is in bytes/s (slows downloads enough to see ``downloading``).
    """
    client = seeder.client()
    result = client.torrents_add(
        torrent_files=t.data,
        save_path=str(t.content.parent),
        is_skip_checking=True,
        upload_limit=up_limit,
    )
    if result != "Ok.":
        raise RuntimeError(f"seeder refused {t.name!r}: {result!r}")
    wait_complete(client, t, timeout=timeout)
