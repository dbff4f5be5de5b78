"""The sandbox's chat page as a real chat, in Chromium on a phone: it keeps the newest
message in view, shows a button's answer where the person looks, replies to a message
(a hint) and sends a ``.torrent`` file, as ``/start`` invites."""

import subprocess
import time
from pathlib import Path

import aiohttp
from playwright.async_api import Locator, Page, async_playwright

from sandbox.page import MAX_FILE
from sandbox.torrents import make_v1_torrent
from tests.sandbox.test_sandbox import SERIES, WAIT_MS, sandbox
from tests.web.test_browser import ARGS, ARTIFACTS, CHROMIUM, PHONE, shoot

__all__ = ["sandbox"]


async def test_the_chat_keeps_the_newest_in_view_and_takes_replies_and_files(
    sandbox: tuple[str, subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    """What /start invites, from the page: a .torrent file, a reply to the bot's message
    (a hint); the newest message stays in view, and a button's answer shows where the
    person is looking: above the text box, wherever the page is scrolled."""
    url, _, cwd = sandbox
    torrent = tmp_path / f"{SERIES.name}.torrent"  # the sample, made as the seeder made it
    torrent.write_bytes(make_v1_torrent(cwd / "var" / "sandbox" / "samples" / SERIES.name).data)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        chat = await (await browser.new_context(viewport=PHONE)).new_page()
        await chat.goto(url)

        await chat.fill("#send input[name=text]", "/start")
        await chat.press("#send input[name=text]", "Enter")
        welcome = chat.locator(".msg.bot", has_text="Reply to my message").last
        await welcome.wait_for(timeout=WAIT_MS)
        await _until_in_view(chat, welcome)  # the page followed it down

        await chat.set_input_files("#file", torrent)
        sent = chat.locator(".msg.me", has=chat.locator(".file", has_text=torrent.name))
        await sent.wait_for(timeout=WAIT_MS)
        accepted = chat.locator(".msg.bot", has=chat.locator(".quote", has_text=torrent.name))
        await accepted.wait_for(timeout=WAIT_MS)
        assert SERIES.name in await accepted.inner_text()
        await _until_in_view(chat, accepted)

        await accepted.locator("button[data-reply]").click()
        assert SERIES.name in await chat.inner_text("#replying")
        await chat.fill("#send input[name=text]", "Caminandes 2013")
        await chat.screenshot(path=str(ARTIFACTS / "sandbox-chat-replying.png"))
        await chat.press("#send input[name=text]", "Enter")
        hinted = chat.locator(".msg.bot", has_text="📝 Hint for").last
        await hinted.wait_for(timeout=WAIT_MS)
        assert "Caminandes 2013" in await hinted.inner_text()
        mine = chat.locator(".msg.me", has_text="Caminandes 2013")
        assert SERIES.name in await mine.locator(".quote").inner_text()  # it quotes the answer
        assert await chat.locator("#replying").is_hidden()
        await _until_in_view(chat, hinted)
        await shoot(chat, "sandbox-chat-file-and-hint")
        await chat.reload()  # opened again: at the newest message
        await _until_in_view(chat, chat.locator(".msg").last)

        # The accepted message's Cancel: its answer (answerCallbackQuery) shows in view.
        await accepted.get_by_role("button", name="Cancel", exact=True).click()
        notice = chat.locator("#notice")
        await notice.wait_for(timeout=WAIT_MS)
        assert "Cancelled" in await notice.inner_text()
        await _until_in_view(chat, notice)
        await chat.screenshot(path=str(ARTIFACTS / "sandbox-chat-notice.png"))
        assert await chat.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        await _bad_sends_are_refused_and_change_nothing(url)
        await browser.close()


async def _bad_sends_are_refused_and_change_nothing(url: str) -> None:
    octet = {"Content-Type": "application/octet-stream"}
    as_json = {"Content-Type": "application/json"}
    cases = [
        (f"{url}/file?name=a.torrent", b"", octet, 400, "That file is empty."),
        (f"{url}/file?name=a.torrent", b"x" * (MAX_FILE + 1), octet, 413, "too large"),
        (f"{url}/file?name=a.torrent&reply_to=99999", b"d1:ae", octet, 400, "message is gone"),
        (f"{url}/file?name=a.torrent", b"d1:ae", {"Content-Type": "text/plain"}, 415, None),
        (f"{url}/file?name=", b"d1:ae", octet, 400, None),
        (f"{url}/send", b'{"text": "hi", "reply_to": 99999}', as_json, 400, "message is gone"),
        (f"{url}/send", b'{"text": "hi", "reply_to": "first"}', as_json, 400, None),
    ]
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:

        async def messages() -> int:
            async with http.get(f"{url}/chat") as answer:
                return (await answer.text()).count('class="msg ')

        before = await messages()
        for where, data, headers, status, notice in cases:
            async with http.post(where, data=data, headers=headers) as answer:
                assert answer.status == status, (where, data[:40], await answer.text())
                if notice is not None:
                    assert notice in (await answer.json())["notice"]
        assert await messages() == before


async def _until_in_view(page: Page, element: Locator) -> None:
    """Within 5 s, ``element`` is wholly inside the phone's screen."""
    height = PHONE["height"]
    deadline = time.monotonic() + 5
    while True:
        box = await element.bounding_box()
        if box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"not in view: {box} (screen height {height})")
        await page.wait_for_timeout(100)
