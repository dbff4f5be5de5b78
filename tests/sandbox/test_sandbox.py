"""The first-run sandbox: ``jellybit run`` with no config file, driven as a person does it.

The end-to-end test starts the real command in an empty directory (two real
qbittorrent-nox, the embedded Bot API server, the real bot, worker and web app) and
taps through ``/sandbox`` in Chromium on a phone viewport."""

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import libtorrent as lt
import pytest
from playwright.async_api import Locator, Page, async_playwright

from core.torrent_file import parse_torrent_file
from sandbox.page import message_html
from sandbox.qbittorrent import QbtInstance, new_qbittorrent, pid_alive
from sandbox.run import web_port
from sandbox.samples import SAMPLES
from sandbox.torrents import make_content, make_v1_torrent
from tests.web.test_browser import ARGS, CHROMIUM, PHONE, shoot

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "common" / "locales" / "ru" / "LC_MESSAGES" / "jellybit.po"
BANNER = re.compile(r"SANDBOX: not connected to Telegram; open (http://\S+/sandbox)")
REVIEW_SAMPLE = next(i for i, s in enumerate(SAMPLES) if s.label == "Movie to review")
SERIES = next(s for s in SAMPLES if s.label == "Series")
STARTUP_WITHIN = 120.0  # imports (aiogram), two qbittorrent-nox, seeding: ~15 s alone
STOP_WITHIN = 30.0
WAIT_MS = 60_000  # Playwright's waits for the chat: a real download and import


# --- the whole way, as a person ------------------------------------------------------------


def start_sandbox(
    cwd: Path, log_name: str, wrapper: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    """``jellybit run`` in ``cwd`` (under ``wrapper``: ``timeout`` say), logging to
    ``cwd / log_name``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JELLYBIT_", "LC_"))}
    env |= {"LANG": "C.UTF-8", "PYTHONPATH": str(ROOT)}  # an English-speaking machine
    with (cwd / log_name).open("wb") as log:
        return subprocess.Popen(
            [*wrapper, sys.executable, "-m", "jellybit", "run"],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def stop_sandbox(process: subprocess.Popen[bytes], cwd: Path) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_WITHIN)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_WITHIN)
    for name in ("qbittorrent", "seeder"):  # only if the sandbox could not stop them
        QbtInstance(cwd / "var" / "sandbox" / name, 0, 0).stop_stale()


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """``jellybit run`` in an empty directory; stopped by its PID (SIGTERM)."""
    process = start_sandbox(tmp_path, "jellybit.log")
    try:
        yield wait_for_banner(process, tmp_path / "jellybit.log"), process, tmp_path
    finally:
        stop_sandbox(process, tmp_path)


def wait_for_banner(process: subprocess.Popen[bytes], log_path: Path) -> str:
    deadline = time.monotonic() + STARTUP_WITHIN
    while True:
        text = log_path.read_text(errors="replace")
        found = BANNER.search(text)
        if found and "jellybit.started" in text:
            return found.group(1)
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no sandbox (exit code {process.returncode}):\n{text[-3000:]}")
        time.sleep(0.1)


async def test_a_sample_magnet_goes_all_the_way_to_the_library(
    sandbox: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    url, process, cwd = sandbox
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport=PHONE)
        chat = await context.new_page()
        await chat.goto(url)
        assert "not connected to Telegram" in await chat.inner_text("body")

        await chat.click(f'button[data-sample="{REVIEW_SAMPLE}"]')
        # Accepted, downloaded from the local seeder: no year, so the title waits for a pick,
        # offered in the chat: a tap on the candidate decides.
        asked = chat.locator(".msg.bot", has_text="Which title is it?").last
        await asked.wait_for(timeout=WAIT_MS)
        # No TMDB in the sandbox, so no search: its link says to type the title.
        review = await _open_link(chat, asked, "Type the title")
        # The link's token became a session (gone from the URL).
        assert re.search(r"/review/[0-9a-z]{26}(#correct)?$", review.url)
        await shoot(review, "sandbox-review")
        await review.close()
        await shoot(chat, "sandbox-chat-review")
        await asked.locator("button").first.click()  # the best candidate's button
        # "… putting it into the library" may last less than the page's poll: Done says it
        done = chat.locator(".msg.bot", has_text="🎬 Done").last
        await done.wait_for(timeout=WAIT_MS)
        card = await _open_link(chat, done, "Open")
        card_text = await card.inner_text("body")
        assert "In the library" in card_text
        assert "hardlink" in card_text
        await shoot(chat, "sandbox-chat")
        assert await chat.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

        # The same sample again, as a person does after a while: it is in the library, so
        # nothing downloads, and the chat shows the film once (the Done message moved down).
        await chat.click(f'button[data-sample="{REVIEW_SAMPLE}"]')
        again = chat.locator(".msg.bot", has_text="Already in the library").last
        await again.wait_for(timeout=WAIT_MS)
        bot_name = SAMPLES[REVIEW_SAMPLE].name
        await chat.wait_for_function(
            "name => [...document.querySelectorAll('.msg.bot')]"
            ".filter(m => m.innerText.includes(name)).length === 1",
            arg=bot_name,
            timeout=WAIT_MS,
        )
        await shoot(chat, "sandbox-chat-again")
        await browser.close()

    spec = SAMPLES[REVIEW_SAMPLE]
    (placed,) = (cwd / "var" / "library" / "movies").rglob("*.mkv")
    downloaded = cwd / "var" / "sandbox" / "qbittorrent" / "downloads" / spec.name / spec.files[0]
    assert os.stat(placed).st_ino == os.stat(downloaded).st_ino  # a hardlink, not a copy

    pids = qbittorrent_pids(cwd)
    assert len(pids) == 2  # jellybit's and the seeder
    process.send_signal(signal.SIGTERM)
    assert process.wait(STOP_WITHIN) == 0
    assert [pid for pid in pids if pid_alive(pid)] == []  # both stopped with it
    await _started_again_it_answers(cwd)


async def _started_again_it_answers(cwd: Path) -> None:
    """The same sandbox started again hears the first sample tapped: its Bot API server
    numbers updates on from the last run's (the inbox keeps those seven days)."""
    again = start_sandbox(cwd, "jellybit-again.log")
    try:
        url = wait_for_banner(again, cwd / "jellybit-again.log")
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            chat = await (await browser.new_context(viewport=PHONE)).new_page()
            await chat.goto(url)
            await chat.click('button[data-sample="0"]')
            answer = chat.locator(".msg.bot", has_text=SAMPLES[0].name).last
            await answer.wait_for(timeout=WAIT_MS)
            await browser.close()
    finally:
        stop_sandbox(again, cwd)


def qbittorrent_pids(cwd: Path) -> list[int]:
    return [
        int(path.read_text())
        for path in sorted((cwd / "var" / "sandbox").glob("*/qbittorrent-nox.pid"))
    ]


async def _open_link(chat: Page, message: Locator, button: str) -> Page:
    """Tap a link button of a chat message: it opens a new tab, as Telegram does."""
    async with chat.context.expect_page() as opened:
        await message.get_by_role("link", name=button).click()
    page = await opened.value
    await page.wait_for_load_state()
    return page


def test_a_restart_keeps_the_web_port_while_the_last_connections_wait() -> None:
    """The web port probe binds as the server does (SO_REUSEADDR): connections the
    last run closed, waiting in TIME_WAIT, do not push a restart onto another port."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as aiohttp listens
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert web_port(port) != port  # in use: another port
        with socket.create_connection(("127.0.0.1", port)) as client:
            served, _ = listener.accept()
            served.close()  # the server closes first: its end waits in TIME_WAIT
            assert client.recv(1) == b""
    with socket.socket() as plain, pytest.raises(OSError, match="in use"):
        plain.bind(("127.0.0.1", port))  # the TIME_WAIT is there: a plain bind fails
    assert web_port(port) == port


# --- the parts -----------------------------------------------------------------------------


def test_a_sample_torrent_is_the_v1_torrent_libtorrent_makes(tmp_path: Path) -> None:
    folder = make_content(tmp_path, "Show.S01", 700_000, names=["b/E02.mkv", "a/E01.mkv"])
    single = make_content(tmp_path, "Movie.2008.mkv", 600_000)
    for content, files in ((folder, ["a/E01.mkv", "b/E02.mkv"]), (single, [])):
        made = make_v1_torrent(content, piece_size=64 * 1024)
        parsed = parse_torrent_file(made.data)
        assert parsed.infohashes == (made.v1,)
        assert (parsed.name, parsed.file_count) == (content.name, len(files) or 1)
        # libtorrent, given the same files in the same (path) order, hashes the same info.
        paths = [content / name for name in files] or [content]
        entries = [
            lt.create_file_entry(str(p.relative_to(tmp_path)), p.stat().st_size) for p in paths
        ]
        creator = lt.create_torrent(entries, 64 * 1024, lt.create_torrent.v1_only)
        lt.set_piece_hashes(creator, str(tmp_path))
        reference = lt.torrent_info(lt.bencode(creator.generate()))
        assert reference.info_hashes().v1.to_bytes().hex() == made.v1


def test_a_qbittorrent_left_behind_is_stopped_on_the_next_start(tmp_path: Path) -> None:
    killed = new_qbittorrent(tmp_path / "qbt")
    killed.start()
    left_behind = killed.pid
    assert left_behind is not None
    killed.process = None  # as if jellybit was SIGKILLed: nobody stops it
    try:
        QbtInstance(tmp_path / "qbt", 0, 0).stop_stale()
        assert not pid_alive(left_behind)
    finally:
        if pid_alive(left_behind):
            os.kill(left_behind, signal.SIGKILL)


def test_a_recorded_pid_that_is_not_our_qbittorrent_is_left_alone(tmp_path: Path) -> None:
    instance = QbtInstance(tmp_path, 0, 0)
    instance.pid_path.write_text(f"{os.getpid()}\n")  # this very test process
    instance.stop_stale()
    assert pid_alive(os.getpid())
    assert not instance.pid_path.exists()


def test_a_message_renders_its_entities_as_safe_html() -> None:
    text = "🎬 Done: <Dune> & more\nOpen"
    entities = [
        {"type": "bold", "offset": 0, "length": 15},  # 🎬 counts two UTF-16 units
        {"type": "italic", "offset": 9, "length": 6},
        {"type": "text_link", "offset": 23, "length": 4, "url": "http://127.0.0.1:8090/x?a=1&b=2"},
        {"type": "text_link", "offset": 17, "length": 1, "url": "javascript:alert(1)"},
    ]
    assert message_html(text, entities) == (
        "<b>🎬 Done: <i>&lt;Dune&gt;</i></b> &amp; more\n"
        '<a href="http://127.0.0.1:8090/x?a=1&amp;b=2" target="_blank" '
        'rel="noopener noreferrer">Open</a>'
    )
