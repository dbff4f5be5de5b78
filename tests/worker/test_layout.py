"""Library layout file operations (worker/layout.py) on real files.

Cross-device cases put the download on /dev/shm (tmpfs) and the library under
tmp_path: two file systems, so os.link really fails with EXDEV."""

import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import LinkMode
from worker.layout import (
    CrossDeviceError,
    EscapeError,
    LayoutError,
    Linked,
    TargetTakenError,
    check_target,
    filesystem_of,
    link,
    resolve_source,
    still_linked,
    unlink_if_ours,
)

SHM = Path("/dev/shm")
PAST = 1_000_000_000  # 2001-09-09: a copy must keep the source's mtime, not get "now"


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """A finished torrent: <downloads>/Dune.2021/{Dune.2021.mkv, Subs/rus.srt}."""
    root = tmp_path / "downloads" / "Dune.2021"
    (root / "Subs").mkdir(parents=True)
    (root / "Dune.2021.mkv").write_bytes(b"video" * 1000)
    (root / "Subs" / "rus.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\nПривет\n")
    os.utime(root / "Dune.2021.mkv", (PAST, PAST))
    return root


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "library" / "movies"
    root.mkdir(parents=True)
    return root


@pytest.fixture
def source(content: Path) -> Path:
    return resolve_source(content, "Dune.2021.mkv")


@pytest.fixture
def target(library: Path) -> Path:
    return library / "Dune (2021)" / "Dune (2021).mkv"


@pytest.fixture
def other_device(tmp_path: Path) -> Iterator[Path]:
    """A directory on another file system than tmp_path (tmpfs /dev/shm)."""
    if not SHM.is_dir():
        pytest.skip("/dev/shm does not exist here: no second file system to link across")
    if os.stat(SHM).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("/dev/shm is on the same file system as tmp_path here")
    path = Path(tempfile.mkdtemp(prefix="jellybit-test-", dir=SHM))
    yield path
    shutil.rmtree(path)


@pytest.fixture
def far_source(other_device: Path) -> Path:
    """A downloaded file on the other file system."""
    path = other_device / "Dune.2021.mkv"
    path.write_bytes(b"far video" * 1000)
    os.utime(path, (PAST, PAST))
    return path


def leftovers(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.startswith(".jellybit-")]


def device_id(path: Path) -> str:
    device = os.stat(path).st_dev
    return f"{os.major(device)}:{os.minor(device)}"


def mount_point(path: Path) -> Path:
    """The highest ancestor on the same device: an independent way to find it."""
    current = path.resolve()
    while current.parent != current and os.stat(current.parent).st_dev == os.stat(path).st_dev:
        current = current.parent
    return current


# --- link: the three methods ----------------------------------------------------


def test_hardlink_is_the_same_inode(source: Path, target: Path) -> None:
    linked = link(source, target, mode="hardlink", cross_device="fail")
    info = os.stat(target)
    assert linked == Linked("hardlink", info.st_ino, info.st_dev)
    assert info.st_ino == os.stat(source).st_ino
    assert info.st_nlink == 2
    assert target.read_bytes() == source.read_bytes()


def test_symlink_points_at_the_source(source: Path, target: Path) -> None:
    linked = link(source, target, mode="symlink", cross_device="fail")
    assert target.is_symlink()
    assert Path(os.readlink(target)) == source
    info = os.lstat(target)
    assert linked == Linked("symlink", info.st_ino, info.st_dev)  # the link itself, not the file


def test_copy_is_a_separate_file_with_the_same_bytes_and_mtime(source: Path, target: Path) -> None:
    linked = link(source, target, mode="copy", cross_device="fail")
    info = os.stat(target)
    assert linked == Linked("copy", info.st_ino, info.st_dev)
    assert info.st_ino != os.stat(source).st_ino
    assert info.st_nlink == 1  # the temporary name is gone
    assert target.read_bytes() == source.read_bytes()
    assert info.st_mtime == PAST
    assert leftovers(target.parent) == []


def test_copy_into_a_file_system_without_hardlinks(
    source: Path, target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_hardlinks(src: object, dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_hardlinks)
    linked = link(source, target, mode="copy", cross_device="fail")
    assert linked.method == "copy"
    assert target.read_bytes() == source.read_bytes()
    assert os.stat(target).st_mtime == PAST
    assert leftovers(target.parent) == []


@pytest.mark.parametrize("mode", ["hardlink", "symlink", "copy"])
def test_link_again_is_a_no_op(source: Path, target: Path, mode: LinkMode) -> None:
    first = link(source, target, mode=mode, cross_device="fail")
    before = os.lstat(target)
    again = link(source, target, mode=mode, cross_device="fail")
    after = os.lstat(target)
    assert again == first
    assert (after.st_ino, after.st_mtime_ns, after.st_nlink) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_nlink,
    )
    assert leftovers(target.parent) == []


def test_link_refuses_a_source_that_is_not_a_file(content: Path, target: Path) -> None:
    with pytest.raises(LayoutError, match="not a regular file"):
        link(content / "Subs", target, mode="hardlink", cross_device="fail")
    assert not target.parent.exists()  # refused before anything was made


# --- link: a different file is already there --------------------------------------


@pytest.mark.parametrize("mode", ["hardlink", "symlink", "copy"])
@pytest.mark.parametrize(
    "user_bytes", [b"the user's own cut", b"video" * 999 + b"VIDEO"], ids=["other", "same-size"]
)
def test_a_different_file_at_the_target_is_left_alone(
    source: Path, target: Path, mode: LinkMode, user_bytes: bytes
) -> None:
    target.parent.mkdir(parents=True)
    target.write_bytes(user_bytes)
    before = os.stat(target)
    with pytest.raises(TargetTakenError, match="already exists") as raised:
        link(source, target, mode=mode, cross_device="copy")
    assert raised.value.target == target
    assert target.read_bytes() == user_bytes
    assert os.stat(target).st_ino == before.st_ino
    assert leftovers(target.parent) == []


def test_an_identical_user_copy_is_not_taken_for_a_hardlink(source: Path, target: Path) -> None:
    """Same bytes on the same file system: not what a hardlink makes, so not ours
    (unlink_if_ours would later delete the user's file)."""
    target.parent.mkdir(parents=True)
    shutil.copy2(source, target)
    with pytest.raises(TargetTakenError):
        link(source, target, mode="hardlink", cross_device="copy")


def test_an_identical_copy_is_taken_in_copy_mode(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True)
    shutil.copy2(source, target)
    linked = link(source, target, mode="copy", cross_device="fail")
    assert linked == Linked("copy", os.stat(target).st_ino, os.stat(target).st_dev)


def test_a_symlink_elsewhere_is_a_conflict(content: Path, source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True)
    target.symlink_to(content / "Subs" / "rus.srt")
    with pytest.raises(TargetTakenError):
        link(source, target, mode="symlink", cross_device="fail")
    assert Path(os.readlink(target)) == content / "Subs" / "rus.srt"


def test_a_dangling_symlink_at_the_target_is_a_conflict(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True)
    target.symlink_to("/nonexistent/file")
    modes: tuple[LinkMode, ...] = ("hardlink", "symlink", "copy")
    for mode in modes:
        with pytest.raises(TargetTakenError):
            link(source, target, mode=mode, cross_device="fail")
    assert os.readlink(target) == "/nonexistent/file"


def test_a_directory_at_the_target_is_a_conflict(source: Path, target: Path) -> None:
    target.mkdir(parents=True)
    with pytest.raises(TargetTakenError):
        link(source, target, mode="copy", cross_device="fail")
    assert target.is_dir()


# --- link: across file systems ----------------------------------------------------


def test_cross_device_hardlink_fails_naming_both_file_systems(
    far_source: Path, target: Path, tmp_path: Path
) -> None:
    with pytest.raises(CrossDeviceError) as raised:
        link(far_source, target, mode="hardlink", cross_device="fail")
    message = str(raised.value)
    assert f"is on device {device_id(far_source)} (tmpfs) mounted at {SHM};" in message
    assert f"on device {device_id(tmp_path)} " in message
    assert f"mounted at {mount_point(tmp_path)}." in message
    assert str(far_source) in message
    assert str(target) in message
    assert 'library.cross_device = "copy"' in message
    assert "put the library on the same file system" in message
    assert raised.value.reason.code == "layout.cross_device"
    assert raised.value.source_fs.mount_point == mount_point(far_source)
    assert raised.value.target_fs.device == os.stat(tmp_path).st_dev
    assert not target.exists()
    assert leftovers(target.parent) == []


def test_cross_device_hardlink_becomes_a_reported_copy(far_source: Path, target: Path) -> None:
    linked = link(far_source, target, mode="hardlink", cross_device="copy")
    info = os.stat(target)
    assert linked == Linked("copy", info.st_ino, info.st_dev)
    assert info.st_dev != os.stat(far_source).st_dev
    assert target.read_bytes() == far_source.read_bytes()
    assert info.st_mtime == PAST
    assert leftovers(target.parent) == []
    # Running again finds the copy it made: no conflict, nothing copied again.
    assert link(far_source, target, mode="hardlink", cross_device="copy") == linked


def test_cross_device_symlink_and_copy_work(far_source: Path, library: Path) -> None:
    symlinked = link(far_source, library / "a.mkv", mode="symlink", cross_device="fail")
    copied = link(far_source, library / "b.mkv", mode="copy", cross_device="fail")
    assert (symlinked.method, copied.method) == ("symlink", "copy")
    assert (library / "b.mkv").read_bytes() == far_source.read_bytes()


def test_filesystem_of_tmpfs(other_device: Path) -> None:
    found = filesystem_of(other_device)
    assert found.mount_point == SHM
    assert found.fstype == "tmpfs"
    assert found.device == os.stat(other_device).st_dev


# --- resolve_source ---------------------------------------------------------------


def test_resolve_source_gives_the_real_path(content: Path) -> None:
    assert resolve_source(content, "Subs/rus.srt") == (content / "Subs" / "rus.srt").resolve()
    assert resolve_source(content, "./Subs//rus.srt") == (content / "Subs" / "rus.srt").resolve()


@pytest.mark.parametrize(
    "relative",
    ["../outside.mkv", "Subs/../../outside.mkv", "/etc/passwd", "a\x00b", "", ".."],
)
def test_resolve_source_rejects_names_that_leave_the_root(content: Path, relative: str) -> None:
    (content.parent / "outside.mkv").write_bytes(b"not in the torrent")
    with pytest.raises(EscapeError):
        resolve_source(content, relative)


def test_resolve_source_rejects_a_symlink_out_of_the_root(content: Path) -> None:
    (content / "passwd.mkv").symlink_to("/etc/passwd")
    with pytest.raises(EscapeError, match="outside the download"):
        resolve_source(content, "passwd.mkv")


def test_resolve_source_rejects_a_symlinked_folder_out_of_the_root(content: Path) -> None:
    (content / "etc").symlink_to("/etc")
    with pytest.raises(EscapeError):
        resolve_source(content, "etc/passwd")


def test_resolve_source_rejects_a_symlink_to_a_missing_file_outside(content: Path) -> None:
    (content / "gone.mkv").symlink_to("/nonexistent/gone.mkv")
    with pytest.raises(EscapeError):
        resolve_source(content, "gone.mkv")


def test_resolve_source_follows_a_symlink_that_stays_inside(content: Path) -> None:
    (content / "alias.mkv").symlink_to("Dune.2021.mkv")
    assert resolve_source(content, "alias.mkv") == (content / "Dune.2021.mkv").resolve()


def test_resolve_source_through_a_symlinked_root(content: Path, tmp_path: Path) -> None:
    (tmp_path / "alias").symlink_to(content)
    assert resolve_source(tmp_path / "alias", "Dune.2021.mkv") == (content / "Dune.2021.mkv")


@pytest.mark.parametrize("relative", ["missing.mkv", "Subs"])
def test_resolve_source_wants_an_existing_file(content: Path, relative: str) -> None:
    with pytest.raises(LayoutError) as raised:
        resolve_source(content, relative)
    assert not isinstance(raised.value, EscapeError)


def test_resolve_source_survives_a_symlink_loop(content: Path) -> None:
    (content / "loop-a").symlink_to("loop-b")
    (content / "loop-b").symlink_to("loop-a")
    with pytest.raises(LayoutError):
        resolve_source(content, "loop-a")


# --- check_target -----------------------------------------------------------------


def test_check_target_inside(library: Path, target: Path) -> None:
    assert check_target(library, target) == target


def test_check_target_rejects_a_symlinked_folder_out_of_the_library(
    library: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (library / "Dune (2021)").symlink_to(elsewhere)
    with pytest.raises(EscapeError, match="outside the library"):
        check_target(library, library / "Dune (2021)" / "Dune (2021).mkv")
    with pytest.raises(EscapeError):
        check_target(library, library / "Dune (2021)" / "deeper" / "Dune (2021).mkv")


def test_check_target_allows_a_symlinked_folder_inside_the_library(library: Path) -> None:
    (library / "real").mkdir()
    (library / "alias").symlink_to(library / "real")
    assert check_target(library, library / "alias" / "x.mkv") == library / "real" / "x.mkv"


def test_check_target_through_a_symlinked_library_root(library: Path, tmp_path: Path) -> None:
    (tmp_path / "media").symlink_to(library)
    alias = tmp_path / "media"
    assert check_target(alias, alias / "Dune" / "x.mkv") == library / "Dune" / "x.mkv"


@pytest.mark.parametrize(
    "relative", ["../shows/x.mkv", "Dune/../../x.mkv", "..", "/etc/passwd", "."]
)
def test_check_target_rejects_paths_out_of_the_library(library: Path, relative: str) -> None:
    with pytest.raises(EscapeError):
        check_target(library, library / relative)


def test_check_target_does_not_follow_the_last_component(library: Path, source: Path) -> None:
    """Our own symlink (symlink mode) points out of the library; it is still inside."""
    (library / "x.mkv").symlink_to(source)
    assert check_target(library, library / "x.mkv") == library / "x.mkv"


# --- unlink_if_ours ---------------------------------------------------------------


def test_unlink_removes_our_link_and_prunes_empty_folders(library: Path, source: Path) -> None:
    target = library / "Show (2020)" / "Season 01" / "Show S01E01.mkv"
    linked = link(source, target, mode="hardlink", cross_device="fail")
    assert unlink_if_ours(target, linked.inode, linked.device, library) is True
    assert not target.exists()
    assert not (library / "Show (2020)").exists()
    assert library.is_dir()  # the root stays, even empty
    assert source.exists()
    assert os.stat(source).st_nlink == 1


def test_unlink_keeps_folders_that_hold_something_else(library: Path, source: Path) -> None:
    target = library / "Show (2020)" / "Season 01" / "Show S01E01.mkv"
    linked = link(source, target, mode="hardlink", cross_device="fail")
    (library / "Show (2020)" / "poster.jpg").write_bytes(b"jpeg")
    assert unlink_if_ours(target, linked.inode, linked.device, library) is True
    assert not (library / "Show (2020)" / "Season 01").exists()
    assert (library / "Show (2020)" / "poster.jpg").exists()


def test_unlink_leaves_a_user_replacement(library: Path, source: Path, target: Path) -> None:
    linked = link(source, target, mode="hardlink", cross_device="fail")
    target.unlink()
    target.write_bytes(b"the user's better release")
    assert unlink_if_ours(target, linked.inode, linked.device, library) is False
    assert target.read_bytes() == b"the user's better release"


@pytest.mark.parametrize("mode", ["symlink", "copy"])
def test_unlink_removes_symlinks_and_copies(
    library: Path, source: Path, target: Path, mode: LinkMode
) -> None:
    linked = link(source, target, mode=mode, cross_device="fail")
    assert unlink_if_ours(target, linked.inode, linked.device, library) is True
    assert not os.path.lexists(target)
    assert source.exists()


def test_unlink_of_a_file_in_the_root_keeps_the_root(library: Path, source: Path) -> None:
    target = library / "loose.mkv"
    linked = link(source, target, mode="hardlink", cross_device="fail")
    assert unlink_if_ours(target, linked.inode, linked.device, library) is True
    assert library.is_dir()


def test_unlink_of_a_gone_file_still_prunes(library: Path) -> None:
    (library / "Dune (2021)").mkdir()
    gone = library / "Dune (2021)" / "Dune (2021).mkv"
    assert unlink_if_ours(gone, 1, 1, library) is False
    assert not (library / "Dune (2021)").exists()
    assert library.is_dir()


def test_unlink_refuses_a_path_outside_the_library(
    library: Path, content: Path, source: Path
) -> None:
    info = os.stat(source)
    with pytest.raises(EscapeError):
        unlink_if_ours(source, info.st_ino, info.st_dev, library)
    assert source.exists()


def test_a_symlink_whose_download_is_gone_is_no_longer_in_the_library(tmp_path: Path) -> None:
    """ "Already in the library" asks ``still_linked``: a symlink jellybit made whose
    download was deleted is the same entry, but nothing Jellyfin can play."""
    source = tmp_path / "downloads" / "Film.mkv"
    source.parent.mkdir()
    source.write_bytes(b"x" * 64)
    target = tmp_path / "library" / "Film (2021).mkv"
    target.parent.mkdir()
    target.symlink_to(source)
    entry = os.lstat(target)
    assert still_linked(target, entry.st_ino, entry.st_dev)
    source.unlink()
    assert not still_linked(target, entry.st_ino, entry.st_dev)
    assert not still_linked(tmp_path / "library" / "gone.mkv", entry.st_ino, entry.st_dev)
