""".torrent files as people send them: checked, with their infohashes computed."""

import hashlib
from dataclasses import dataclass
from typing import Any

from fastbencode import bdecode, bencode  # type: ignore[attr-defined]  # no __all__

from core.errors import InvalidInputError
from core.magnet import clean_name
from core.reasons import reason

MAX_TORRENT_BYTES = 10 * 1024 * 1024
# Real torrents nest a few levels (a v2 file tree adds one per folder); a hostile
# "llll…" must not reach code that walks the decoded value recursively.
MAX_NESTING = 64
# 1 PiB: far beyond any real torrent, far below where sums could misbehave downstream.
MAX_CONTENT_BYTES = 2**50
# The largest real torrents (whole archives, game mods) list some tens of thousands
# of files; more is not something to put in a media library, and every file is a
# row, a parse and a line on the review page.
MAX_FILES = 50_000

TOO_LARGE_REASON = reason("torrent.too_large")
NOT_CANONICAL_REASON = reason("torrent.not_canonical")
BAD_LENGTH_REASON = reason("torrent.bad_length")
TOO_MANY_FILES_REASON = reason("torrent.too_many_files", limit=MAX_FILES)
# fastbencode refuses these forms outright; they are valid bencode in spirit but not
# canonical, and only canonical bytes let us hash the info dictionary exactly.
_NON_CANONICAL_ERRORS = ("dict keys disordered", "leading zeros", "negative zero")
_SHA1_SIZE = 20


@dataclass(frozen=True)
class TorrentFile:
    infohashes: tuple[str, ...]  # lowercase hex, v1 (40) first then v2 (64)
    name: str
    total_size: int  # bytes of content, padding files not counted
    file_count: int


def parse_torrent_file(data: bytes) -> TorrentFile:
    """A .torrent file, checked; every refusal is an InvalidInputError saying why.
    Up to 0.6 s for the largest: callers on the event loop run it in ``worker.cpu``."""
    if len(data) > MAX_TORRENT_BYTES:
        raise InvalidInputError(TOO_LARGE_REASON)
    # A newline appended by an editor or a web server is no reason to refuse the file
    # (libtorrent ignores anything after the top dictionary).
    info = _info_dictionary(_decode(data.rstrip()))
    info_bytes = _exact_info_bytes(data, info)
    has_v1 = b"pieces" in info
    has_v2 = info.get(b"meta version") == 2 and isinstance(info.get(b"file tree"), dict)
    if not has_v1 and not has_v2:
        raise InvalidInputError(reason("torrent.no_pieces"))
    v1_lengths = _v1_file_lengths(info) if has_v1 else []  # checked in hybrids too
    # A hybrid lists its files twice; the v2 tree has no padding entries, so it wins.
    lengths = _v2_file_lengths(info[b"file tree"]) if has_v2 else v1_lengths
    hashes = [hashlib.sha1(info_bytes).hexdigest()] if has_v1 else []
    if has_v2:
        hashes.append(hashlib.sha256(info_bytes).hexdigest())
    return TorrentFile(
        infohashes=tuple(hashes),
        name=_name(info),
        total_size=_total_size(lengths),
        file_count=len(lengths),
    )


def _decode(data: bytes) -> Any:
    try:
        # max_depth makes the decoder stop at the limit, before building anything deeper.
        return bdecode(data, max_depth=MAX_NESTING)
    except RecursionError as error:
        raise InvalidInputError(reason("torrent.too_deep", levels=MAX_NESTING)) from error
    except (ValueError, TypeError, OverflowError) as error:
        if any(reason in str(error) for reason in _NON_CANONICAL_ERRORS):
            raise InvalidInputError(NOT_CANONICAL_REASON) from error
        raise InvalidInputError(reason("torrent.not_bencode")) from error


def _info_dictionary(root: Any) -> dict[bytes, Any]:
    info = root.get(b"info") if isinstance(root, dict) else None
    if not isinstance(info, dict):
        raise InvalidInputError(reason("torrent.no_info"))
    return info


def _exact_info_bytes(data: bytes, info: dict[bytes, Any]) -> bytes:
    """The info dictionary's bytes exactly as in the file: what clients hash.

    fastbencode cannot tell where a value lay in its input, so re-encode and make
    sure the result is there verbatim; a hash of different bytes would name a
    torrent nobody has.
    """
    encoded: bytes = bencode(info)
    if b"4:info" + encoded not in data:
        raise InvalidInputError(NOT_CANONICAL_REASON)
    return encoded


def _v1_file_lengths(info: dict[bytes, Any]) -> list[int]:
    pieces = info[b"pieces"]
    if not isinstance(pieces, bytes) or len(pieces) % _SHA1_SIZE:
        raise InvalidInputError(reason("torrent.bad_pieces"))
    if b"files" not in info:
        return [_length(info.get(b"length"))]
    entries = info[b"files"]
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InvalidInputError(reason("torrent.bad_file_list"))
    if len(entries) > 2 * MAX_FILES:  # padding may at most double the entries
        raise InvalidInputError(TOO_MANY_FILES_REASON)
    lengths = [_length(entry.get(b"length")) for entry in entries if not _is_padding(entry)]
    if not lengths:
        raise InvalidInputError(reason("torrent.no_files"))
    if len(lengths) > MAX_FILES:
        raise InvalidInputError(TOO_MANY_FILES_REASON)
    return lengths


def _is_padding(entry: dict[bytes, Any]) -> bool:
    """BEP 47 padding files only align pieces: they are not content."""
    attr = entry.get(b"attr")
    return isinstance(attr, bytes) and b"p" in attr


def _v2_file_lengths(tree: dict[bytes, Any]) -> list[int]:
    """Lengths in a BEP 52 file tree: folders map names to nodes, a file is a
    node whose only key is b"" holding its length."""
    lengths: list[int] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        for key, child in node.items():
            if not isinstance(child, dict):
                raise InvalidInputError(reason("torrent.bad_file_tree"))
            if key == b"":
                lengths.append(_length(child.get(b"length")))
                if len(lengths) > MAX_FILES:
                    raise InvalidInputError(TOO_MANY_FILES_REASON)
            else:
                pending.append(child)
    if not lengths:
        raise InvalidInputError(reason("torrent.no_files"))
    return lengths


def _length(value: Any) -> int:
    if not isinstance(value, int) or not 0 <= value <= MAX_CONTENT_BYTES:
        raise InvalidInputError(BAD_LENGTH_REASON)
    return value


def _total_size(lengths: list[int]) -> int:
    total = sum(lengths)
    if total > MAX_CONTENT_BYTES:
        raise InvalidInputError(reason("torrent.too_much_content"))
    return total


def _name(info: dict[bytes, Any]) -> str:
    # name.utf-8 is what old clients wrote when name was in a local code page.
    for key in (b"name.utf-8", b"name"):
        raw = info.get(key)
        if isinstance(raw, bytes) and (name := clean_name(raw.decode("utf-8", "replace"))):
            return name
    raise InvalidInputError(reason("torrent.no_name"))
