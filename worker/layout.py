"""File operations of the library layout.

Synchronous on purpose: every call blocks on the file system, so the caller
runs them in a thread. The rules they hold:

- nothing is read from outside a download's content root, nothing is written
  outside a library root (``resolve_source``, ``check_target``);
- an existing file is never overwritten (``link`` places files only with calls
  that fail when the name is taken) and never deleted unless it is still the
  very file this system made (``unlink_if_ours`` compares inode and device);
- a hardlink that cannot be made across file systems either fails with a
  reason a person can act on, or becomes a copy that the result reports.
"""

import errno
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from core.config import CrossDevice, LinkMode
from core.errors import AppError
from core.reasons import reason

MOUNTINFO = Path("/proc/self/mountinfo")
_CHUNK = 1024 * 1024
# Errors of os.link that mean "this file system has no hard links", not "refused".
_NO_HARDLINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS})


class LayoutError(AppError):
    """A file could not be placed; the message says why in words a person acts on."""

    code = "layout"


class EscapeError(LayoutError):
    """A source or target would leave its root (``..``, absolute, a symlink out)."""

    code = "layout_escape"


class StorageError(LayoutError):
    """The library folder refused a write (full, read-only, locked, no access, or any
    other error of the file system): a setup problem the person fixes, then presses
    Retry (the title chosen is kept). Never a question for review: no pick helps."""

    code = "layout_storage"


# What each refusal of the library's file system asks the person to fix.
_REFUSALS = {
    errno.ENOSPC: "layout.library_full",
    errno.EDQUOT: "layout.quota",
    errno.EACCES: "layout.not_writable",
    errno.EROFS: "layout.read_only",
    errno.EPERM: "layout.locked",  # chattr +i, or a file system that forbids the change
}


def _refused(where: Path, error: OSError, otherwise: str, **params: str) -> StorageError:
    """The library folder ``where`` refused a write: the reason names the fix where the
    errno tells it, else it is ``otherwise`` with ``params``; the OS's words are its detail."""
    code = _REFUSALS.get(error.errno or 0)
    if code is None:
        code = otherwise
    else:
        params = {"folder": str(where)}
    return StorageError(reason(code, error=str(error.strerror), **params))


class MissingError(LayoutError):
    """A file of the download is gone from the disk (deleted, or moved away): only
    downloading it again brings it back (Download again), no pick helps."""

    code = "layout_missing"


class TargetTakenError(LayoutError):
    """A different file is at the target; it is left untouched."""

    code = "layout_conflict"

    def __init__(self, target: Path) -> None:
        super().__init__(reason("layout.conflict", target=str(target)))
        self.target = target


@dataclass(frozen=True)
class Filesystem:
    """Where a path lives: the device id, its mount point and type (when known)."""

    device: int
    mount_point: Path
    fstype: str | None

    def __str__(self) -> str:
        kind = f" ({self.fstype})" if self.fstype else ""
        device = f"{os.major(self.device)}:{os.minor(self.device)}"
        return f"device {device}{kind} mounted at {self.mount_point}"


class CrossDeviceError(LayoutError):
    """A hardlink across file systems with ``cross_device = "fail"``."""

    code = "layout_cross_device"

    def __init__(
        self, source: Path, target: Path, source_fs: Filesystem, target_fs: Filesystem
    ) -> None:
        super().__init__(
            reason(
                "layout.cross_device",
                source=str(source),
                target=str(target),
                source_fs=str(source_fs),
                target_fs=str(target_fs),
            )
        )
        self.source = source
        self.target = target
        self.source_fs = source_fs
        self.target_fs = target_fs


@dataclass(frozen=True)
class Linked:
    """What ``link`` placed: the method it got and the identity of the target
    entry (``lstat``: for a symlink, the link itself), which ``unlink_if_ours``
    needs to tell this system's file from a user's replacement."""

    method: LinkMode
    inode: int
    device: int


# --- roots -------------------------------------------------------------------


def resolve_source(content_root: Path, relative: str) -> Path:
    """The real path of a regular file inside ``content_root``.

    ``relative`` comes from a torrent, so it is hostile until proven otherwise:
    ``..``, absolute paths, NUL and symlinks (on any component) that lead out of
    the root raise ``EscapeError``."""
    if not relative or "\0" in relative:
        raise EscapeError(reason("layout.not_a_name", name=repr(relative)))
    if relative.startswith("/") or ".." in relative.split("/"):
        raise EscapeError(reason("layout.outside_download", name=repr(relative)))
    root = _real(content_root)
    # Not strict: a symlink to a missing file outside still counts as an escape.
    real = _real(root / relative)
    if not real.is_relative_to(root):
        raise EscapeError(reason("layout.outside_download", name=f"{relative!r} ({real})"))
    _require_regular_file(real, relative)
    return real


def _require_regular_file(path: Path, name: str) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise MissingError(reason("layout.missing", name=name, path=str(path))) from None
    except OSError as error:
        why = reason("layout.unreadable", name=name, path=str(path), error=str(error.strerror))
        raise LayoutError(why) from error
    if not stat.S_ISREG(mode):
        raise LayoutError(reason("layout.not_a_file", name=name, path=str(path)))


def check_target(root: Path, target: Path) -> Path:
    """``target`` with its directories resolved; ``EscapeError`` unless it stays
    inside ``root``, also through symlinked directories that already exist.

    The last component is not followed: it may be a symlink this system made."""
    if target.name in ("", ".", "..") or ".." in target.parts:
        raise EscapeError(reason("layout.outside_library", target=str(target), root=str(root)))
    real_root = _real(root)
    real = _real(target.parent) / target.name
    if not real.parent.is_relative_to(real_root):
        where = f"{target} ({real})"
        raise EscapeError(reason("layout.outside_library", target=where, root=str(real_root)))
    return real


# --- placing -----------------------------------------------------------------


def link(source: Path, target: Path, *, mode: LinkMode, cross_device: CrossDevice) -> Linked:
    """Place ``source`` at ``target`` by ``mode``; the parent directories are made.

    Running it again is a no-op when the target already is this file;
    ``TargetTakenError`` when it is another one (left untouched). A hardlink across
    file systems raises ``CrossDeviceError``, or with ``cross_device="copy"``
    becomes a copy: the result says ``"copy"``, never silently."""
    _require_regular_file(source, str(source))
    _make_parent(target)
    existing = _existing(source, target, mode=mode, cross_device=cross_device)
    if existing is not None:
        return existing
    try:
        return _place(source, target, mode=mode, cross_device=cross_device)
    except FileExistsError:
        # Appeared between the look and the call: judge it like any existing entry.
        existing = _existing(source, target, mode=mode, cross_device=cross_device)
        if existing is not None:
            return existing
        raise TargetTakenError(target) from None


def _make_parent(target: Path) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _cannot_write(target.parent, error) from error


def _place(source: Path, target: Path, *, mode: LinkMode, cross_device: CrossDevice) -> Linked:
    if mode == "symlink":
        return _symlink(source, target)
    if mode == "copy":
        return _copy(source, target)
    try:
        os.link(source, target)
    except OSError as error:
        if error.errno != errno.EXDEV:
            if isinstance(error, FileExistsError):
                raise
            raise _cannot_place(source, target, "hardlink", error) from error
        if cross_device == "fail":
            raise CrossDeviceError(
                source, target, filesystem_of(source), filesystem_of(target.parent)
            ) from error
        return _copy(source, target)
    return _linked("hardlink", target)


def _symlink(source: Path, target: Path) -> Linked:
    try:
        os.symlink(source, target)
    except FileExistsError:
        raise
    except OSError as error:
        raise _cannot_place(source, target, "symlink", error) from error
    return _linked("symlink", target)


def _copy(source: Path, target: Path) -> Linked:
    """A complete copy appears at ``target`` at once or not at all: it is written
    under a hidden temporary name (Jellyfin skips dot files) and then hardlinked
    into place, which fails instead of replacing anything that took the name."""
    try:
        handle, name = tempfile.mkstemp(prefix=".jellybit-", suffix=".part", dir=target.parent)
    except OSError as error:
        raise _cannot_write(target.parent, error) from error
    os.close(handle)
    temporary = Path(name)
    try:
        shutil.copy2(source, temporary)  # copy2: the copy keeps the mtime and mode
        _link_into_place(temporary, target)
    except FileExistsError:
        raise
    except OSError as error:
        raise _cannot_place(source, target, "copy", error) from error
    finally:
        temporary.unlink(missing_ok=True)
    return _linked("copy", target)


def _link_into_place(temporary: Path, target: Path) -> None:
    try:
        os.link(temporary, target)
    except OSError as error:
        if error.errno not in _NO_HARDLINKS:
            raise
        _copy_exclusive(temporary, target)


def _copy_exclusive(temporary: Path, target: Path) -> None:
    """For a library file system without hard links: create the name exclusively
    (still never replacing) and fill it. Not atomic, so a failure removes the
    partial file, which is certainly ours: this call created it."""
    with temporary.open("rb") as reader, target.open("xb") as writer:
        try:
            shutil.copyfileobj(reader, writer, _CHUNK)
            shutil.copystat(temporary, target)
        except BaseException:
            target.unlink(missing_ok=True)
            raise


def _linked(method: LinkMode, target: Path) -> Linked:
    info = os.lstat(target)
    return Linked(method, info.st_ino, info.st_dev)


def _cannot_write(folder: Path, error: OSError) -> StorageError:
    return _refused(folder, error, "layout.cannot_write", folder=str(folder))


def _cannot_place(source: Path, target: Path, method: str, error: OSError) -> StorageError:
    if method == "hardlink" and error.errno == errno.EPERM:
        # Linux also refuses a hardlink to a file jellybit does not own
        # (fs.protected_hardlinks): not only a locked folder.
        why = reason(
            "layout.link_refused",
            source=str(source),
            folder=str(target.parent),
            error=str(error.strerror),
        )
        return StorageError(why)
    return _refused(
        target.parent,
        error,
        "layout.cannot_place",
        source=str(source),
        target=str(target),
        method=method,
    )


# --- what is already there ----------------------------------------------------


def _existing(
    source: Path, target: Path, *, mode: LinkMode, cross_device: CrossDevice
) -> Linked | None:
    """``Linked`` when the target already is what ``link`` would make (a re-run),
    None when nothing is there; ``TargetTakenError`` for anything else."""
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return None
    if mode == "symlink":
        same = stat.S_ISLNK(info.st_mode) and _real(target) == _real(source)
        method: LinkMode = "symlink"
    elif _same_inode(source, info):
        same, method = True, "hardlink"  # also for "copy": it is this very file
    else:
        copies = mode == "copy" or (cross_device == "copy" and _other_device(source, target))
        same, method = copies and _same_content(source, target, info), "copy"
    if not same:
        raise TargetTakenError(target)
    return Linked(method, info.st_ino, info.st_dev)


def _same_inode(source: Path, info: os.stat_result) -> bool:
    source_info = os.stat(source)
    return stat.S_ISREG(info.st_mode) and (info.st_ino, info.st_dev) == (
        source_info.st_ino,
        source_info.st_dev,
    )


def _other_device(source: Path, target: Path) -> bool:
    """A hardlink-mode re-run finds a copy only where the hardlink became one."""
    return os.stat(source).st_dev != os.stat(target.parent).st_dev


def _same_content(source: Path, target: Path, info: os.stat_result) -> bool:
    """Same size and bytes. Compared directly rather than by hashes: the first
    differing chunk ends it, and both files are read once either way."""
    if not stat.S_ISREG(info.st_mode) or info.st_size != os.stat(source).st_size:
        return False
    try:
        with source.open("rb") as left, target.open("rb") as right:
            while chunk := left.read(_CHUNK):
                if chunk != right.read(_CHUNK):
                    return False
    except OSError:
        return False  # a file this system cannot read is not one it made
    return True


def same_file(source: Path, target: Path) -> bool:
    """Whether ``target`` (followed, as Jellyfin reads it) is the file ``source``
    is: the same inode, or, for a copy, the same size and bytes. A version is only
    ever a different file."""
    try:
        info = os.stat(target)
        return _same_inode(source, info) or _same_content(source, target, info)
    except OSError:
        return False  # gone, or unreadable: not a file the library shows


def still_linked(target: Path, inode: int, device: int) -> bool:
    """Whether ``target`` is still the entry ``link`` made and something Jellyfin can
    play: a file the person deleted or replaced is not, nor a symlink whose download
    is gone."""
    try:
        info = os.lstat(target)
        playable = stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return False
    return (info.st_ino, info.st_dev) == (inode, device) and playable


# --- undoing -----------------------------------------------------------------


def unlink_if_ours(target: Path, inode: int, device: int, root: Path) -> bool:
    """Remove ``target`` only if it is still the entry ``link`` made (that inode
    on that device: a user's replacement stays), then the folders it leaves
    empty, up to but never including ``root``. True when it removed the file."""
    real = check_target(root, target)  # never delete outside the library
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        removed = False  # already gone; an earlier run may have died before pruning
    else:
        if (info.st_ino, info.st_dev) != (inode, device):
            return False
        # A user replacing the file in the instant between lstat and unlink
        # would lose it; no call removes a name only if it is a given inode.
        real.unlink(missing_ok=True)
        removed = True
    _prune_empty(real.parent, _real(root))
    return removed


def _prune_empty(folder: Path, root: Path) -> None:
    while folder != root and folder.is_relative_to(root):
        try:
            folder.rmdir()  # only ever removes an empty folder
        except FileNotFoundError:
            pass
        except OSError:
            return  # not empty (or not ours to remove): everything above stays too
        folder = folder.parent


# --- file systems --------------------------------------------------------------


def filesystem_of(path: Path) -> Filesystem:
    """The file system ``path`` (which exists) is on: for messages a person
    can act on, and for ``jellybit check``."""
    real = _real(path)
    device = os.stat(real).st_dev
    mount = _mount_of(real)
    if mount is None:
        return Filesystem(device, _walk_to_mount_point(real, device), None)
    return Filesystem(device, *mount)


def _mount_of(real: Path) -> tuple[Path, str] | None:
    """The mount holding ``real`` by /proc/self/mountinfo: the longest mount
    point above it, the later entry of stacked ones. Unlike device ids, this
    also tells bind mounts of one file system apart (they refuse hardlinks too)."""
    try:
        lines = MOUNTINFO.read_text().splitlines()
    except OSError:
        return None  # not Linux, or no /proc
    best: tuple[Path, str] | None = None
    for line in lines:
        fields, _, after = line.partition(" - ")
        parts = fields.split()
        if len(parts) < 5 or not after:
            continue
        mount_point = Path(_unescape(parts[4]))
        deeper = best is None or len(mount_point.parts) >= len(best[0].parts)
        if real.is_relative_to(mount_point) and deeper:
            best = (mount_point, after.split()[0])
    return best


def _walk_to_mount_point(real: Path, device: int) -> Path:
    """Without mountinfo: the highest ancestor still on ``device``."""
    current = real
    while current.parent != current and os.stat(current.parent).st_dev == device:
        current = current.parent
    return current


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def _real(path: Path) -> Path:
    """``path`` with every existing symlink resolved. Unlike ``Path.resolve``
    this does not raise on a symlink loop (a hostile torrent can hold one);
    the loop then fails later as a file that cannot be opened."""
    return Path(os.path.realpath(path))
