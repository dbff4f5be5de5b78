"""Run in a child process of jellybit: yield the CPU to it, end when it is gone.

Kept apart and light on imports: a spawned process imports this module before
it runs anything, so it must not pull in the store or the HTTP clients.
"""

import os
import threading
import time

PARENT_CHECK = 1.0  # seconds between two looks at the parent
# Below jellybit's own process: on a busy machine the loop that answers people
# gets a core before a long parse does.
NICENESS = 5


def exit_with_parent(parent: int) -> None:
    """A ``ProcessPoolExecutor`` initializer: run at a lower priority, and exit as
    soon as ``parent`` is no longer this process's parent (killed by SIGKILL or
    the OOM killer, which never shut the pool down)."""
    os.nice(NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
