"""Stopping the sandbox as people do: a second Ctrl-C, or ``timeout``'s signal to the
whole process group, leaves no qbittorrent-nox and no leaked semaphore behind."""

import signal
import time
from pathlib import Path

import pytest

from sandbox.qbittorrent import pid_alive
from tests.sandbox.test_sandbox import (
    STOP_WITHIN,
    qbittorrent_pids,
    start_sandbox,
    stop_sandbox,
    wait_for_banner,
)


@pytest.mark.parametrize("how", ["Ctrl-C twice", "timeout"])
def test_a_second_signal_exits_at_once_and_leaves_no_process_behind(
    tmp_path: Path, how: str
) -> None:
    """A second SIGINT while stopping exits at once (os._exit): it still stops both
    qbittorrent-nox, and unlinks the CPU pool's semaphores (else multiprocessing's
    resource tracker warns of "leaked semaphore objects"). ``timeout`` signals its
    command and then its whole process group: jellybit may get the signal twice."""
    wrapper = ("timeout", "600") if how == "timeout" else ()
    process = start_sandbox(tmp_path, "jellybit.log", wrapper)
    log = tmp_path / "jellybit.log"
    try:
        wait_for_banner(process, log)
        jellybit = _children(process.pid)[0] if wrapper else process.pid
        left = _descendants(jellybit)  # qbittorrent-nox x2, fork server, tracker, workers
        assert set(qbittorrent_pids(tmp_path)) <= set(left)
        if wrapper:
            process.send_signal(signal.SIGTERM)  # as when its time is up
        else:
            process.send_signal(signal.SIGINT)
            time.sleep(0.05)  # handled as the second one, while stopping
            process.send_signal(signal.SIGINT)
        code = process.wait(STOP_WITHIN)
        deadline = time.monotonic() + 10
        while [pid for pid in left if pid_alive(pid)] and time.monotonic() < deadline:
            time.sleep(0.05)
        text = log.read_text(errors="replace")
        assert [pid for pid in left if pid_alive(pid)] == [], text[-3000:]
        if wrapper:  # timeout exits with its command's code: a graceful stop (the two
            # signals arrived as one) or an exit now
            assert code in (0, 128 + signal.SIGTERM)
        else:
            assert code == 128 + signal.SIGINT
            assert "jellybit.exit_now" in text
        assert "leaked" not in text
    finally:
        stop_sandbox(process, tmp_path)


def _children(pid: int) -> list[int]:
    return [
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in (task / "children").read_text().split()
    ]


def _descendants(pid: int) -> list[int]:
    found = _children(pid)
    for child in list(found):
        found += _descendants(child)
    return found
