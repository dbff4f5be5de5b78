"""What each file of a torrent is for: a main video, a subtitle, or skipped (and why)."""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from recognition.folding import fold

Role = Literal["video", "subtitle", "skip"]

VIDEO_EXTENSIONS = frozenset(
    {"mkv", "mp4", "avi", "m4v", "mov", "wmv", "ts", "m2ts", "webm", "mpg", "mpeg"}
)
SUBTITLE_EXTENSIONS = frozenset({"srt", "ass", "ssa", "sub", "vtt", "idx", "sup"})

# A video whose name says sample/extra is skipped while it is smaller than this share
# of the largest video; at or above it, it is a main video whatever it is called (an
# episode titled "The Sample" is still an episode).
MARKED_EXTRA_MAX_SHARE = 0.5
# A video without any marker is skipped only when it is tiny beside the main video
# and does not carry an episode number: a promo clip next to a movie.
UNMARKED_EXTRA_MAX_SHARE = 0.05


@dataclass(frozen=True)
class TorrentFile:
    path: str  # inside the torrent, "/"-separated, with the torrent's folder if any
    size: int  # bytes


@dataclass(frozen=True)
class FileRole:
    path: str
    role: Role
    reason: str


_EXTRA_FOLDERS = frozenset(
    {
        "sample",
        "samples",
        "extra",
        "extras",
        "featurette",
        "featurettes",
        "behind the scenes",
        "deleted scene",
        "deleted scenes",
        "interview",
        "interviews",
        "scenes",
        "shorts",
        "clips",
        "trailer",
        "trailers",
        "other",
        "bonus",
        "bonus features",
        "special features",
        "making of",
        "promos",
        # a BD box's creditless openings and endings, menus, previews and commercials
        "nc",
        "ncop",
        "nced",
        "ncoped",
        "creditless",
        "menu",
        "menus",
        "preview",
        "previews",
        "cm",
        "cms",
        "pv",
        "pvs",
        "spot",
        "spots",
    }
)
_EXTRA_WORDS = re.compile(
    r"\b(?:samples?|trailers?|teaser|featurettes?|behindthescenes|deletedscenes?|"
    r"interviews?|makingof|extras|bonus|behind the scenes|deleted scenes?|making of|"
    r"nc(?:op|ed)\d*|creditless|"
    # a BD box's menus, previews, promotion videos and commercials ("PV01", "CM02")
    r"menus?\d*|previews?\d*|pv\d*|cm\d*|spots?\d*)\b"
)
_EPISODE_MARK = re.compile(
    r"(?i)(?:\bS\d{1,3}[ ._-]?E\d{1,4}|\b\d{1,2}x\d{2,3}\b|\bEp?\.?\s?\d{1,4}\b|\s-\s\d{1,4}\b)"
)


def classify_files(files: Sequence[TorrentFile]) -> list[FileRole]:
    """Each file's role: a main video, a subtitle, or skipped (and why).

    Samples and extras are known by folder (``Sample/``, ``Featurettes/``, …), by
    name (``-trailer``, ``.sample.``) for a video smaller than half the largest one,
    and, without any marker, by being under 5% of the largest video with no episode
    number. Never by an absolute size: a 20-minute short film alone is a video.
    """
    media = [f for f in files if extension(f.path) in VIDEO_EXTENSIONS | SUBTITLE_EXTENSIONS]
    largest = max((f.size for f in files if extension(f.path) in VIDEO_EXTENSIONS), default=0)
    shared = _shared_folders([f.path for f in media])
    roles = []
    for file in files:
        ext = extension(file.path)
        if ext not in VIDEO_EXTENSIONS and ext not in SUBTITLE_EXTENSIONS:
            roles.append(FileRole(file.path, "skip", "not a video or subtitle"))
            continue
        inner = folders(file.path)[len(shared) :]
        extra_folder = next((f for f in inner if fold(f) in _EXTRA_FOLDERS), None)
        if extra_folder is not None:
            roles.append(FileRole(file.path, "skip", f"in the {extra_folder!r} folder"))
            continue
        if ext in SUBTITLE_EXTENSIONS:
            roles.append(FileRole(file.path, "subtitle", "subtitle"))
            continue
        share = file.size / largest if largest > 0 else None
        percent = f"{share:.0%} of the largest video" if share is not None else "size unknown"
        own = stem(file.path)
        marker = _EXTRA_WORDS.search(" ".join(re.split(r"[\W_]+", own.casefold())))
        if marker and (share is None or share < MARKED_EXTRA_MAX_SHARE):
            roles.append(FileRole(file.path, "skip", f"name says {marker.group(0)}, {percent}"))
        elif (
            share is not None and share < UNMARKED_EXTRA_MAX_SHARE and not _EPISODE_MARK.search(own)
        ):
            roles.append(FileRole(file.path, "skip", f"small beside the main video, {percent}"))
        else:
            roles.append(FileRole(file.path, "video", "video"))
    return roles


_FILM_FOLDERS = frozenset({"movie", "movies", "film", "films", "фильм", "фильмы"})
# A franchise's film as fansubs name it: "Show Movie 2 - Subtitle", "Show Movie -
# Subtitle", "Show the Movie: Subtitle", "Gekijouban Show", "劇場版".
_FILM_NAME = re.compile(
    r"(?i)(?<![^\W_])(?:(?:the\s+)?movie(?:\s*\d{1,2})?\s*(?:[-:~]\s|$)|gekijou?ban(?![^\W_]))"
    r"|劇場版"
)


def without_films(roles: Sequence[FileRole]) -> list[FileRole]:
    """A series box's films (videos in a ``Movie/``, ``Films/`` folder, or named as a
    franchise's film, "Show Movie 2 - Subtitle", beside episodes outside one) skipped:
    a film is no episode of the show."""
    shared = _shared_folders([r.path for r in roles if r.role != "skip"])

    def film(role: FileRole) -> str | None:
        inner = folders(role.path)[len(shared) :]
        own = _bare(stem(role.path))
        if role.role == "video" and _FILM_NAME.search(own) and not _EPISODE_MARK.search(own):
            return "name"  # "Seinfeld - S04E14 - The Movie" is an episode
        return next((f for f in inner if fold(f) in _FILM_FOLDERS), None)

    if not any(r.role == "video" and film(r) is None for r in roles):
        return list(roles)
    return [
        FileRole(r.path, "skip", f"a film of the series, by its {folder!r}")
        if r.role != "skip" and (folder := film(r)) is not None
        else r
        for r in roles
    ]


def extension(path: str) -> str:
    return PurePosixPath(path.replace("\\", "/")).suffix.lower().lstrip(".")


def stem(path: str) -> str:
    return PurePosixPath(path.replace("\\", "/")).stem


def folders(path: str) -> tuple[str, ...]:
    return PurePosixPath(path.replace("\\", "/")).parts[:-1]


def _shared_folders(paths: Sequence[str]) -> tuple[str, ...]:
    """Folders every media file is in (the torrent's own folder): never a marker,
    so a torrent named "Shorts" or "Extras" still has main videos."""
    if not paths:
        return ()
    shared = folders(paths[0])
    for path in paths[1:]:
        theirs = folders(path)
        length = 0
        while length < min(len(shared), len(theirs)) and shared[length] == theirs[length]:
            length += 1
        shared = shared[:length]
    return shared


_TAGS_IN_BRACKETS = re.compile(r"\[[^\]]*\]|\([^)]*\)|【[^】]*】")


def _bare(name: str) -> str:
    """A file's name without its bracketed tags and with spaces for dots and
    underscores: "[Grp] Show Movie 1 - Title [BD 1080p]" → "Show Movie 1 - Title"."""
    return " ".join(_TAGS_IN_BRACKETS.sub(" ", name).replace("_", " ").split())
