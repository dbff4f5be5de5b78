"""Jellyfin naming of library paths. Pure: no file I/O.

    <movies>/Title (Year) [tmdbid-N]/Title (Year) [tmdbid-N].mkv
    <movies>/Title (Year) [tmdbid-N]/Title (Year) [tmdbid-N] - part1.mkv
    <shows>/Title (Year) [tmdbid-N]/Season 01/Title S01E02.mkv
    <shows>/Title (Year) [tmdbid-N]/Season 01/Title S01E02.en.forced.srt

Every component is sanitized here, so a hostile title or file name can never
add a path separator, a ``..`` or an over-long component. Whether the result
stays inside its library root on the real file system (symlinked directories)
is checked by ``worker.layout.check_target``.
"""

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Literal

from core.display import BIDI_CONTROLS
from core.errors import AppError
from core.reasons import reason

# Linux (and most file systems) limit one path component to 255 bytes, not characters.
NAME_MAX_BYTES = 255
# Stands in for a component that sanitizes to nothing ("", ".", "..", "???").
PLACEHOLDER = "_"
# A library file's stem leaves this many bytes for what follows it, so a subtitle
# (".en.forced.sdh.2.srt") always fits after its video's exact stem: Jellyfin pairs
# them by that prefix, and cutting the two names differently would break the pair.
SUFFIX_ROOM_BYTES = 40
STEM_MAX_BYTES = NAME_MAX_BYTES - SUFFIX_ROOM_BYTES
# An extension longer than this is not a real one (a hostile name); cut to keep room.
EXT_MAX_BYTES = 16

# Windows (and SMB shares) refuse these characters; a colon in a title is usually
# a subtitle separator, so ": " reads best as " - ".
_REPLACEMENTS = str.maketrans(
    {"/": "-", "\\": "-", "|": "-", ":": "-", '"': "'", "<": "", ">": "", "?": "", "*": ""}
)
_COLON_SEPARATOR = re.compile(r"\s*:\s+")
_WHITESPACE = re.compile(r"\s+")
# Windows device names: a file called "CON.mkv" cannot be opened over SMB.
_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"} | {f"{p}{n}" for p in ("COM", "LPT") for n in range(1, 10)}
)
_DIGITS = re.compile(r"(\d+)")
_PART_WORD = re.compile(r"(?i)(?<![a-z])(cd|dvd|dis[ck]|part|pt)[\s._-]?\d{1,2}(?!\d)")
_PART_WORDS = {"cd": "cd", "dvd": "dvd", "disc": "disc", "disk": "disc"}
_PART_WORDS |= {"part": "part", "pt": "part"}


@dataclass(frozen=True)
class Title:
    kind: Literal["movie", "series"]
    title: str
    year: int | None
    tmdb_id: int | None = None
    # The library title's folder, fixed once chosen (``store.titles``): a renamed
    # TMDB entry or another metadata language keeps laying out into it.
    folder: str | None = None


@dataclass(frozen=True)
class LibraryFile:
    """One file of a download to place. ``source`` is relative to the torrent's
    content root (POSIX). A subtitle is named after the video it belongs to:
    ``video`` is that video's ``source`` and ``plan_targets`` copies the video's
    season, episodes and part onto it. ``part`` numbers the videos of one movie
    split into several files (CD1/CD2); ``plan_targets`` assigns it."""

    source: str
    role: Literal["video", "subtitle"]
    season: int | None = None
    episodes: tuple[int, ...] = ()
    language: str | None = None
    flags: tuple[str, ...] = ()
    video: str | None = None
    part: int | None = None
    # Jellyfin's multiple versions: "Title (Year) [tmdbid-N] - 2160p.mkv" beside the
    # first copy (a label of the release: edition, resolution, source).
    version: str | None = None


class DuplicateTargetError(AppError):
    """Two videos of one download would get the same library path."""

    code = "layout_duplicate"

    def __init__(self, target: Path, first: str, second: str) -> None:
        super().__init__(reason("layout.duplicate", first=first, second=second, target=str(target)))
        self.target = target
        self.sources = (first, second)


# --- components ----------------------------------------------------------------


def sanitize_component(name: str) -> str:
    """One safe path component: no separators or control characters, nothing
    Windows refuses, not hidden, not ``.``/``..``, at most 255 bytes of UTF-8."""
    return _fit(name, "", NAME_MAX_BYTES)


def sanitize_filename(stem: str, ext: str) -> str:
    """``stem.ext`` as one safe component; a long stem is cut, the extension kept."""
    return _fit(stem, _dotted(_extension_token(ext)), NAME_MAX_BYTES)


def _fit(head: str, tail: str, limit: int) -> str:
    """``head`` sanitized and cut so that ``head + tail`` fits ``limit`` bytes.
    ``tail`` is built by this module from clean parts and is kept whole."""
    head = _clean(head)
    if _reserved(head + tail):
        head = PLACEHOLDER + head  # before the cut, so the prefix counts against the limit
    return _cut(head, limit - len(tail.encode())) + tail


def _clean(name: str) -> str:
    name = unicodedata.normalize("NFC", name)  # one spelling of "й" on disk and in Jellyfin
    name = "".join(_clean_char(char) for char in name)
    name = _COLON_SEPARATOR.sub(" - ", name).translate(_REPLACEMENTS)
    return _trim(_WHITESPACE.sub(" ", name))


def _clean_char(char: str) -> str:
    category = unicodedata.category(char)
    if category == "Cs":  # a lone surrogate (undecodable bytes) cannot be written as UTF-8
        return "\ufffd"
    if category == "Cc" or char in BIDI_CONTROLS:
        return " " if char.isspace() else ""  # a tab still separates words
    return char


def _trim(name: str) -> str:
    """Spaces and dots at either end: a leading dot hides the file from
    Jellyfin's scan, trailing ones are dropped by Windows and SMB."""
    return name.strip(" .")


def _cut(name: str, limit: int) -> str:
    """At most ``limit`` bytes of UTF-8, cut on a character boundary."""
    cut = name.encode()[: max(limit, 0)].decode("utf-8", "ignore")
    return _trim(cut) or PLACEHOLDER


def _reserved(name: str) -> bool:
    return name.split(".")[0].strip().upper() in _RESERVED


def _token(text: str) -> str:
    """A dot-separated part of a file name (extension, language, flag)."""
    return _clean(text).replace(".", "").replace(" ", "").lower()


def _extension_token(ext: str) -> str:
    """A cleaned extension; dots inside ("en.srt") stay, a hostile length does not."""
    cleaned = _clean(ext).replace(" ", "").lower()
    return cleaned.encode()[:EXT_MAX_BYTES].decode("utf-8", "ignore").strip(".")


def _dotted(token: str) -> str:
    return f".{token}" if token else ""


# --- names -------------------------------------------------------------------


def folder_name(title: Title) -> str:
    """The title's own folder, else ``Title (Year) [tmdbid-N]`` (the year and id
    only when known)."""
    if title.folder is not None:
        return sanitize_component(title.folder)
    return _fit(title.title, _title_tags(title), NAME_MAX_BYTES)


def _title_tags(title: Title) -> str:
    year = f" ({title.year})" if title.year is not None else ""
    tmdb = f" [tmdbid-{title.tmdb_id}]" if title.tmdb_id is not None else ""
    return year + tmdb


def season_folder(season: int) -> str:
    """``Season 01``; season 0 is Jellyfin's specials (``Season 00``)."""
    _check_number("season", season)
    return f"Season {season:02d}"


def episode_tag(season: int, episodes: Sequence[int]) -> str:
    """``S01E02``, or the range ``S01E01-E02`` for a file holding several episodes."""
    if not episodes:
        raise ValueError("an episode tag needs at least one episode")
    for number in (season, *episodes):
        _check_number("season or episode", number)
    first, last = min(episodes), max(episodes)
    tag = f"S{season:02d}E{first:02d}"
    return tag if first == last else f"{tag}-E{last:02d}"


def _check_number(what: str, number: int) -> None:
    if number < 0:
        raise ValueError(f"{what} must not be negative: {number}")


def target_path(title: Title, file: LibraryFile, *, movies: Path, shows: Path) -> Path:
    """Where ``file`` goes in the library (under ``movies`` or ``shows``).

    A series file without episodes keeps its own (sanitized) name inside the
    season folder, or in the show folder when the season is unknown too, so
    Jellyfin parses it itself instead of trusting a guess."""
    return _target(title, file, movies=movies, shows=shows, copy=1)


def _target(title: Title, file: LibraryFile, *, movies: Path, shows: Path, copy: int) -> Path:
    name = _video_stem(title, file) + _tail(file, copy)
    if title.kind == "movie":
        return movies / folder_name(title) / name
    folder = shows / folder_name(title)
    for season in _season_dirs(file):
        folder /= season
    return folder / name


def _season_dirs(file: LibraryFile) -> tuple[str, ...]:
    if file.season is None and not file.episodes:
        return ()
    # Episodes without a season are absolute numbering, which Jellyfin reads as season 1.
    return (season_folder(1 if file.season is None else file.season),)


def _video_stem(title: Title, file: LibraryFile) -> str:
    """The stem of the video's file name; a subtitle shares its video's stem."""
    version = f" - {_clean(file.version)}" if file.version else ""
    if title.kind == "movie":
        part = f" - {part_word(file.video or file.source)}{file.part}" if file.part else ""
        if title.folder is not None:  # Jellyfin's versions: the folder's name, exactly
            return _fit(folder_name(title), version + part, STEM_MAX_BYTES)
        return _fit(title.title, _title_tags(title) + version + part, STEM_MAX_BYTES)
    if file.episodes:
        season = 1 if file.season is None else file.season
        tag = " " + episode_tag(season, file.episodes) + version
        return _fit(title.title, tag, STEM_MAX_BYTES)
    own = PurePosixPath(file.video or file.source).stem
    return _fit(own, "", STEM_MAX_BYTES)


def part_word(source: str) -> str:
    """The word of a movie's part as the release writes it (in the file's name or its
    folder), among those Jellyfin stacks: ``cd`` ("Movie.CD1.avi", "CD2/…"),
    ``disc`` ("Disc 1"), else ``part``."""
    found = _PART_WORD.search(str(PurePosixPath(source).with_suffix("")))
    return "part" if found is None else _PART_WORDS[found.group(1).casefold()]


def _tail(file: LibraryFile, copy: int) -> str:
    """What follows the stem: ``.mkv``, or ``.en.forced.srt`` for a subtitle; a
    second subtitle of the same language gets a number (``.en.2.srt``)."""
    ext = _dotted(_extension_token(PurePosixPath(file.source).suffix))
    if file.role == "video":
        return ext
    words = [_token(file.language or ""), *map(_token, file.flags), str(copy) if copy > 1 else ""]
    # Words are kept by importance while they fit the room a stem leaves (only
    # hostile flags are that long): the number keeps two names apart, the
    # language is what Jellyfin shows; the extension is always kept.
    room = SUFFIX_ROOM_BYTES - len(ext.encode())
    kept: list[int] = []
    for index in (len(words) - 1, *range(len(words) - 1)):
        size = len(_dotted(words[index]).encode())
        if words[index] and size <= room:
            kept.append(index)
            room -= size
    return "".join(_dotted(words[index]) for index in sorted(kept)) + ext


# --- a whole download ----------------------------------------------------------


def plan_targets(
    title: Title, files: Iterable[LibraryFile], *, movies: Path, shows: Path
) -> dict[str, Path]:
    """Library path of every file of one download, keyed by ``source``.

    Beyond ``target_path``: the videos of a movie split into several files get
    ``part1``, ``part2``… in natural order of their names (CD2 before CD10);
    a subtitle takes the season, episodes and part of its ``video`` (or of the
    only video when it names none); subtitles that would collide get numbered.
    Two videos that would collide raise ``DuplicateTargetError``."""
    listed = _with_parts(title, list(files))
    videos = {file.source: file for file in listed if file.role == "video"}
    plan: dict[str, Path] = {}
    owners: dict[Path, str] = {}
    for file in listed:
        placed = file if file.role == "video" else _follow_video(file, videos)
        target = _free_target(title, placed, owners, movies=movies, shows=shows)
        plan[file.source] = target
        owners[target] = file.source
    return plan


def _with_parts(title: Title, files: list[LibraryFile]) -> list[LibraryFile]:
    """The videos of a movie split into files get parts; editions of one film
    (theatrical and director's cut) are versions, never parts: Jellyfin plays parts
    one after the other."""
    videos = sorted((f for f in files if f.role == "video"), key=lambda f: natural_key(f.source))
    if title.kind != "movie" or len(videos) < 2 or any(v.part is not None for v in videos):
        return files  # one video, or parts the caller already chose
    editions = {video.source: edition_label(video.source) for video in videos}
    labelled = [label for label in editions.values() if label]
    no_part_words = not any(_PART_WORD.search(video.source) for video in videos)
    if no_part_words and len(labelled) >= len(videos) - 1 and len(set(labelled)) == len(labelled):
        return [
            replace(f, version=editions[f.source] or None) if f.source in editions else f
            for f in files
        ]
    parts = {video.source: number for number, video in enumerate(videos, start=1)}
    return [replace(f, part=parts[f.source]) if f.source in parts else f for f in files]


_EDITION = re.compile(
    r"(?i)(?<![a-z])(director'?s[ ._-]cut|extended(?:[ ._-](?:cut|edition))?|"
    r"theatrical(?:[ ._-]cut)?|unrated|uncut|final[ ._-]cut|imax|remastered|"
    r"special[ ._-]edition|criterion|"
    r"ultimate[ ._-](?:cut|edition)|redux)(?![a-z])"
)
_RESOLUTION = re.compile(r"(?i)(?<![a-z0-9])(2160p|4k|uhd|1080[pi]|720p|576p|480p)(?![a-z0-9])")
_SOURCE = re.compile(
    r"(?i)(?<![a-z])(remux|blu-?ray|bdrip|brrip|web-?dl|webrip|web|hdtv|dvdrip|dvd)(?![a-z])"
)
_SOURCES = {"bluray": "BluRay", "blu-ray": "BluRay", "bdrip": "BDRip", "brrip": "BDRip"}
_SOURCES |= {"web-dl": "WEB-DL", "webdl": "WEB-DL", "webrip": "WEBRip", "web": "WEB"}
_SOURCES |= {"hdtv": "HDTV", "dvdrip": "DVDRip", "dvd": "DVD", "remux": "Remux"}


def edition_label(name: str) -> str:
    """The edition a release or file name says ("Director's Cut"), or ""."""
    found = _EDITION.search(PurePosixPath(name).name)
    return (
        found.group(1).replace(".", " ").replace("_", " ").title().replace("'S", "'s")
        if found
        else ""
    )


def version_label(name: str) -> str:
    """A version's label from a release name, as Jellyfin shows it: the edition,
    the resolution and the source ("Director's Cut 2160p BluRay"); "" when it says
    none of them."""
    resolution = _RESOLUTION.search(name)
    source = _SOURCE.search(name)
    words = [
        edition_label(name),
        {"4k": "2160p", "uhd": "2160p"}.get(
            resolution.group(1).casefold(), resolution.group(1).lower()
        )
        if resolution
        else "",
        _SOURCES[source.group(1).casefold()] if source else "",
    ]
    return " ".join(word for word in words if word)


def _follow_video(subtitle: LibraryFile, videos: dict[str, LibraryFile]) -> LibraryFile:
    video = videos.get(subtitle.video) if subtitle.video is not None else None
    if video is None and subtitle.video is None and len(videos) == 1:
        video = next(iter(videos.values()))
    if video is None:
        return subtitle
    return replace(
        subtitle,
        season=video.season,
        episodes=video.episodes,
        part=video.part,
        version=video.version,
        video=video.source,
    )


def _free_target(
    title: Title, file: LibraryFile, owners: dict[Path, str], *, movies: Path, shows: Path
) -> Path:
    copy = 1
    while (target := _target(title, file, movies=movies, shows=shows, copy=copy)) in owners:
        if file.role == "video":
            raise DuplicateTargetError(target, owners[target], file.source)
        copy += 1
    return target


def natural_key(text: str) -> tuple[tuple[str, int], ...]:
    """Sort key that orders numbers by value: ``CD2`` before ``CD10``."""
    pieces = _DIGITS.split(text)  # text, number, text, number, …: positions line up
    return tuple(
        ("", int(piece)) if index % 2 else (piece.casefold(), 0)
        for index, piece in enumerate(pieces)
    )
