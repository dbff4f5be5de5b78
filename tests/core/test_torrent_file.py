""".torrent files as people send them (core.torrent_file), checked against libtorrent."""

import hashlib
import random
from pathlib import Path
from typing import Any, cast

import libtorrent as lt
import pytest
from fastbencode import bencode  # type: ignore[attr-defined]  # no __all__
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InvalidInputError
from core.torrent_file import (
    BAD_LENGTH_REASON,
    MAX_CONTENT_BYTES,
    MAX_FILES,
    NOT_CANONICAL_REASON,
    TOO_MANY_FILES_REASON,
    TorrentFile,
    parse_torrent_file,
)

BROKEN_CHECKSUMS = "This .torrent file is damaged: its checksums are broken."
BROKEN_FILE_LIST = "This .torrent file is damaged: its list of files is broken."
NO_FILES = "This .torrent file has no files in it."
NO_NAME = "This .torrent file is damaged: the torrent has no name."

FLAGS = {"v1": lt.create_torrent.v1_only, "v2": lt.create_torrent.v2_only, "hybrid": 0}
FOLDER_FILES = {"a.bin": 100_000, "sub/b.bin": 50_000, "sub/deeper/c.txt": 3, "empty": 0}
PIECES = b"\x01" * 20


def write_content(root: Path, sizes: dict[str, int]) -> None:
    for index, (relative, size) in enumerate(sizes.items()):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(random.Random(index).randbytes(size))


def libtorrent_torrent(content: Path, kind: str) -> bytes:
    creator = lt.create_torrent(lt.list_files(str(content)), 0, FLAGS[kind])
    lt.set_piece_hashes(creator, str(content.parent))
    return lt.bencode(creator.generate())


def libtorrent_hashes(data: bytes) -> tuple[str, ...]:
    decoded = cast("lt.TorrentFileDict", lt.bdecode(data))  # the stub types bdecode loosely
    hashes = lt.torrent_info(decoded).info_hashes()
    v1 = (str(hashes.v1),) if hashes.has_v1() else ()
    v2 = (str(hashes.v2),) if hashes.has_v2() else ()
    return v1 + v2


def torrent(info: dict[bytes, Any], **extra: Any) -> bytes:
    """A .torrent with the given info dictionary, encoded canonically."""
    root = {b"announce": b"http://t.example/announce", b"info": info}
    root.update({key.encode(): value for key, value in extra.items()})
    return bytes(bencode(root))


def v1_single(**fields: Any) -> dict[bytes, Any]:
    """A v1 single-file info dictionary; keywords add or replace keys ("_" for a space)."""
    info: dict[bytes, Any] = {
        b"length": 5,
        b"name": b"movie.mkv",
        b"piece length": 16384,
        b"pieces": PIECES,
    }
    info.update({key.replace("_", " ").encode(): value for key, value in fields.items()})
    return info


def refusal(data: bytes) -> str:
    with pytest.raises(InvalidInputError) as raised:
        parse_torrent_file(data)
    return str(raised.value)


@pytest.fixture(scope="module")
def folder_torrent(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    content = tmp_path_factory.mktemp("content") / "Дюна (2021)"
    write_content(content, FOLDER_FILES)
    return libtorrent_torrent(content, "hybrid")


# --- real torrents: our hashes are libtorrent's -------------------------------------


@pytest.mark.parametrize("kind", ["v1", "v2", "hybrid"])
def test_a_folder_torrent_made_by_libtorrent(tmp_path: Path, kind: str) -> None:
    content = tmp_path / "Дюна (2021)"
    write_content(content, FOLDER_FILES)
    data = libtorrent_torrent(content, kind)

    parsed = parse_torrent_file(data)

    assert parsed.infohashes == libtorrent_hashes(data)
    assert [len(h) for h in parsed.infohashes] == {
        "v1": [40],
        "v2": [64],
        "hybrid": [40, 64],
    }[kind]
    assert parsed.name == "Дюна (2021)"
    assert parsed.total_size == sum(FOLDER_FILES.values())
    assert parsed.total_size == lt.torrent_info(data).size_on_disk()
    assert parsed.file_count == len(FOLDER_FILES)


@pytest.mark.parametrize("kind", ["v1", "v2", "hybrid"])
def test_a_single_file_torrent_made_by_libtorrent(tmp_path: Path, kind: str) -> None:
    content = tmp_path / "movie.mkv"
    content.write_bytes(random.Random(7).randbytes(70_000))
    data = libtorrent_torrent(content, kind)

    parsed = parse_torrent_file(data)

    assert parsed.infohashes == libtorrent_hashes(data)
    assert (parsed.name, parsed.total_size, parsed.file_count) == ("movie.mkv", 70_000, 1)


def test_a_trailing_newline_is_tolerated_like_libtorrent_does(folder_torrent: bytes) -> None:
    parsed = parse_torrent_file(folder_torrent + b"\r\n")
    assert parsed.infohashes == libtorrent_hashes(folder_torrent)


# --- hand-made torrents ---------------------------------------------------------


def test_the_v1_hash_is_sha1_of_the_info_bytes_as_in_the_file() -> None:
    info = v1_single()
    parsed = parse_torrent_file(torrent(info, comment=b"x"))
    assert parsed == TorrentFile(
        infohashes=(hashlib.sha1(bencode(info)).hexdigest(),),
        name="movie.mkv",
        total_size=5,
        file_count=1,
    )


def test_name_utf8_wins_and_bad_bytes_and_control_characters_are_cleaned() -> None:
    info = {**v1_single(), b"name.utf-8": "Дюна".encode()}
    assert parse_torrent_file(torrent(info)).name == "Дюна"
    info = v1_single(name=b"Dune\n\x00 \xff2021")
    assert parse_torrent_file(torrent(info)).name == "Dune \ufffd2021"


def test_padding_files_are_not_content() -> None:
    files = [
        {b"length": 10, b"path": [b"a"]},
        {b"attr": b"p", b"length": 16374, b"path": [b".pad", b"16374"]},
        {b"attr": b"x", b"length": 7, b"path": [b"b"]},
    ]
    info = v1_single(files=files)
    del info[b"length"]
    parsed = parse_torrent_file(torrent(info))
    assert (parsed.total_size, parsed.file_count) == (17, 2)


def test_a_v2_tree_counts_every_file_at_any_depth() -> None:
    leaf = {b"": {b"length": 4, b"pieces root": b"\x02" * 32}}
    info = {
        b"file tree": {b"a": leaf, b"d": {b"e": {b"f": leaf, b"g": leaf}}},
        b"meta version": 2,
        b"name": b"tree",
        b"piece length": 16384,
    }
    parsed = parse_torrent_file(torrent(info))
    assert parsed.infohashes == (hashlib.sha256(bencode(info)).hexdigest(),)
    assert (parsed.total_size, parsed.file_count) == (12, 3)


# --- hostile and broken files ------------------------------------------------------


def without(info: dict[bytes, Any], *keys: bytes) -> dict[bytes, Any]:
    return {key: value for key, value in info.items() if key not in keys}


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"d" * (11 * 1024 * 1024), "This file is too large to be a .torrent file (over 10 MB)."),
        (b"l" * 100_000, "This .torrent file is damaged: it is nested too deep."),
        (b"l" * 65 + b"e" * 65, "This .torrent file is damaged: it is nested too deep."),
        (b"", "This is not a .torrent file, or it is damaged."),
        (b"<html>not found</html>", "This is not a .torrent file, or it is damaged."),
        (b"d4:info", "This is not a .torrent file, or it is damaged."),
        (b"d4:infodee-junk", "This is not a .torrent file, or it is damaged."),
        (b"i1e", "This .torrent file is damaged: it does not describe any content."),
        (b"de", "This .torrent file is damaged: it does not describe any content."),
        (b"d4:infol4:nameee", "This .torrent file is damaged: it does not describe any content."),
        (b"d4:infoi1ee", "This .torrent file is damaged: it does not describe any content."),
        (
            b"d4:infod4:name1:a6:lengthi1e12:piece lengthi16384e6:pieces20:" + PIECES + b"ee",
            NOT_CANONICAL_REASON.english(),
        ),
        (b"d4:infod6:lengthi01e4:name1:aee", NOT_CANONICAL_REASON.english()),
        (b"d4:infod6:lengthi-0e4:name1:aee", NOT_CANONICAL_REASON.english()),
        (
            torrent(without(v1_single(), b"pieces")),
            "This .torrent file is damaged: it has no checksums of its content.",
        ),
        (
            torrent(without(v1_single(meta_version=2), b"pieces")),
            "This .torrent file is damaged: it has no checksums of its content.",
        ),
        (torrent(v1_single(pieces=b"\x01" * 21)), BROKEN_CHECKSUMS),
        (torrent(v1_single(pieces=[PIECES])), BROKEN_CHECKSUMS),
        (torrent(v1_single(length=-1)), BAD_LENGTH_REASON.english()),
        (torrent(v1_single(length=MAX_CONTENT_BYTES + 1)), BAD_LENGTH_REASON.english()),
        (torrent(v1_single(length=b"5")), BAD_LENGTH_REASON.english()),
        (torrent(without(v1_single(), b"length")), BAD_LENGTH_REASON.english()),
        (torrent(v1_single(files=b"a")), BROKEN_FILE_LIST),
        (torrent(v1_single(files=[1])), BROKEN_FILE_LIST),
        (torrent(v1_single(files=[])), NO_FILES),
        (torrent(v1_single(files=[{b"length": -5, b"path": [b"a"]}])), BAD_LENGTH_REASON.english()),
        (
            torrent(v1_single(files=[{b"length": MAX_CONTENT_BYTES, b"path": [b"a"]}] * 2)),
            "This torrent claims more than 1 PB of content: it is not real.",
        ),
        (
            torrent(v1_single(meta_version=2, file_tree={b"a": b"b"})),
            "This .torrent file is damaged: its folder tree is broken.",
        ),
        (torrent(v1_single(meta_version=2, file_tree={})), NO_FILES),
        (
            torrent(v1_single(meta_version=2, file_tree={b"a": {b"": {b"length": -1}}})),
            BAD_LENGTH_REASON.english(),
        ),
        (torrent(v1_single(name=b"")), NO_NAME),
        (torrent(v1_single(name=b"\x00\n ")), NO_NAME),
        (torrent(without(v1_single(), b"name")), NO_NAME),
        (torrent(v1_single(name=7)), NO_NAME),
    ],
    ids=lambda value: value if isinstance(value, str) else f"{len(value)} bytes",
)
def test_a_bad_torrent_file_is_refused_with_a_reason(data: bytes, reason: str) -> None:
    assert refusal(data) == reason


@pytest.mark.parametrize("end", [-1, -2, -100, 1000, 10])
def test_a_truncated_torrent_is_invalid_bencode(folder_torrent: bytes, end: int) -> None:
    assert refusal(folder_torrent[:end]) == "This is not a .torrent file, or it is damaged."


def test_a_torrent_of_exactly_10_mib_is_read_and_one_byte_more_is_not() -> None:
    limit = 10 * 1024 * 1024
    # "7:comment" and "<8 digits>:" frame the comment's bytes.
    comment_size = limit - len(torrent(v1_single())) - len(b"7:comment") - len(b"10000000:")
    at_limit = torrent(v1_single(), comment=b"x" * comment_size)
    assert len(at_limit) == limit
    assert parse_torrent_file(at_limit).name == "movie.mkv"
    assert refusal(at_limit + b" ") == "This file is too large to be a .torrent file (over 10 MB)."


def v1_files(count: int, padding: int = 0) -> bytes:
    files = [{b"length": 1, b"path": [b"f%d" % n]} for n in range(count)]
    files += [{b"attr": b"p", b"length": 1, b"path": [b".pad", b"%d" % n]} for n in range(padding)]
    return torrent(v1_single(files=files))


def v2_files(count: int) -> bytes:
    tree = {b"d": {b"f%d" % n: {b"": {b"length": 1}} for n in range(count)}}
    return torrent(without(v1_single(meta_version=2, file_tree=tree), b"pieces"))


def test_a_torrent_of_at_most_max_files_files_is_read_and_one_more_is_not() -> None:
    assert parse_torrent_file(v1_files(MAX_FILES)).file_count == MAX_FILES
    assert parse_torrent_file(v1_files(MAX_FILES, padding=MAX_FILES)).file_count == MAX_FILES
    assert parse_torrent_file(v2_files(MAX_FILES)).file_count == MAX_FILES
    assert refusal(v1_files(MAX_FILES + 1)) == TOO_MANY_FILES_REASON.english()
    assert refusal(v1_files(MAX_FILES + 1, padding=MAX_FILES)) == TOO_MANY_FILES_REASON.english()
    assert refusal(v2_files(MAX_FILES + 1)) == TOO_MANY_FILES_REASON.english()
    assert refusal(v1_files(3, padding=2 * MAX_FILES)) == TOO_MANY_FILES_REASON.english()


# --- anything at all: only InvalidInputError ----------------------------------------


def parse_or_refuse(data: bytes) -> TorrentFile | None:
    try:
        return parse_torrent_file(data)
    except InvalidInputError:
        return None


@given(st.binary(max_size=2000))
def test_any_bytes_are_parsed_or_refused_with_invalid_input(data: bytes) -> None:
    parse_or_refuse(data)
    parse_or_refuse(b"d4:info" + data)


# Keys a torrent uses, so that generated dictionaries often look like one.
_TORRENT_KEYS = st.sampled_from(
    [b"", b"length", b"files", b"path", b"attr", b"pieces", b"name", b"meta version", b"file tree"]
)
_bencode_values = st.recursive(
    st.integers(-(2**70), 2**70) | st.binary(max_size=30),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(_TORRENT_KEYS | st.binary(max_size=5), children, max_size=5)
    ),
    max_leaves=30,
)


@given(st.dictionaries(_TORRENT_KEYS, _bencode_values))
def test_any_info_dictionary_is_parsed_or_refused_with_invalid_input(
    info: dict[bytes, Any],
) -> None:
    parsed = parse_or_refuse(torrent(info))
    if parsed is not None:
        assert parsed.infohashes
        assert parsed.name
        assert 0 <= parsed.total_size <= MAX_CONTENT_BYTES


@given(st.data())
def test_a_damaged_real_torrent_is_parsed_or_refused_with_invalid_input(
    folder_torrent: bytes, data: st.DataObject
) -> None:
    damaged = bytearray(folder_torrent)
    for _ in range(data.draw(st.integers(1, 5))):
        position = data.draw(st.integers(0, len(damaged) - 1))
        damaged[position] = data.draw(st.integers(0, 255))
    parse_or_refuse(bytes(damaged))
