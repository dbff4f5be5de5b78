"""What a library path says of itself (pure): the season, episodes and version
label of a file jellybit laid out with ``core.naming``'s names."""

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

_EPISODE = re.compile(r" S(\d{2,})E(\d{2,})(?:-E(\d{2,}))?(?: - (.+))?$")


@dataclass(frozen=True)
class Entry:
    season: int | None
    episodes: tuple[int, ...]
    label: str  # the version's label ("2160p BluRay"); "" for the first copy


def read_entry(kind: str, folder: str, target: str) -> Entry:
    """A movie's ``Folder - label.mkv``, an episode's ``Title S01E02 - label.mkv``."""
    stem = PurePosixPath(target).stem
    if kind == "series":
        found = _EPISODE.search(stem)
        if found is None:
            return Entry(None, (), "")
        first, last = int(found.group(2)), int(found.group(3) or found.group(2))
        return Entry(int(found.group(1)), tuple(range(first, last + 1)), found.group(4) or "")
    rest = stem[len(folder) :] if stem.startswith(folder) else ""
    return Entry(None, (), rest[3:] if rest.startswith(" - ") else "")
