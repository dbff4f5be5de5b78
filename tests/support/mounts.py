"""A tmpfs of a given size mounted for one test (a full disk, a read-only one),
unmounted after. The suite runs as root, as CI does."""

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def tmpfs(point: Path, *, size: str, read_only: bool = False) -> Iterator[Path]:
    point.mkdir(parents=True, exist_ok=True)
    options = f"size={size}" + (",ro" if read_only else "")
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], check=True)
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=True)


def resize(point: Path, size: str, *, read_only: bool = False) -> None:
    """The same mount, now ``size`` (and writable unless ``read_only``): the fix."""
    options = f"remount,size={size}," + ("ro" if read_only else "rw")
    subprocess.run(["mount", "-o", options, str(point)], check=True)
