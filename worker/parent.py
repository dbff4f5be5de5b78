"""Run in a worker process of jellybit: yield the CPU to it, end when it is gone.

Kept apart and light on imports: it must not pull in the store or the HTTP clients.
"""

import os
import select
import signal
import threading

# Below jellybit's own process: on a busy machine the loop that answers people
# gets a core before a long parse does.
NICENESS = 5


def exit_with_jellybit(jellybit: int) -> None:
    """A ``ProcessPoolExecutor`` initializer: run at a lower priority, leave Ctrl-C to
    jellybit, and exit as soon as the process ``jellybit`` ends (killed by SIGKILL or
    the OOM killer, it never shuts the pool down). Watched through a pidfd, which
    turns readable when that process exits: the worker's parent is the fork server,
    which lives as long as any worker does, so the parent's PID says nothing."""
    os.nice(NICENESS)
    # Ctrl-C in a terminal reaches the whole process group: jellybit's own stop ends
    # the pool; a worker that took the SIGINT itself printed a KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        watched = os.pidfd_open(jellybit)
    except ProcessLookupError:  # gone already
        os._exit(0)

    def watch() -> None:
        select.select([watched], [], [])
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-jellybit", daemon=True).start()
