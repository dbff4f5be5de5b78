"""Remote path mapping: qBittorrent may see the files under other paths (a
container, another host). ``qbittorrent.path_map`` maps its prefixes to ours."""

from collections.abc import Iterable
from pathlib import PurePosixPath


def map_remote_path(path: str, path_map: Iterable[tuple[str, str]]) -> str:
    """Translate a qBittorrent path by the longest matching prefix (whole
    components only: "/data" does not match "/database")."""
    if not path:
        return path
    candidate = PurePosixPath(path)
    best: tuple[int, str] | None = None
    for remote, local in path_map:
        prefix = PurePosixPath(remote)
        if candidate == prefix or prefix in candidate.parents:
            length = len(prefix.parts)
            if best is None or length > best[0]:
                rest = candidate.relative_to(prefix)
                best = (length, str(PurePosixPath(local) / rest))
    return path if best is None else best[1]
