"""common/heap.py on this machine's glibc: the pages busy threads freed go back."""

import subprocess
import sys

# Threads allocate and free 2 KiB blocks (malloc's, not Python's small-object
# allocator), a few survivors pinning the heap, as a busy evening leaves it.
_BUSY_THREADS = """
import threading
from common.heap import give_back

def rss_mib():
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024

kept = []

def busy():
    blocks = [bytes(2048) for _ in range(6_000)]
    kept.append(blocks[-1])
    del blocks

for _ in range(8):
    threads = [threading.Thread(target=busy) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
before = rss_mib()
print(give_back(), round(before), round(rss_mib()))
"""


def test_the_pages_freed_by_busy_threads_go_back_to_the_system() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _BUSY_THREADS],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    given, before, after = done.stdout.split()
    assert given == "True"
    assert int(after) <= int(before) / 2, (before, after)
