"""The pages in a real browser: Playwright driving Debian's Chromium (installed
by make test) on a phone-sized viewport, against the real application and a
real SQLite file."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, ViewportSize, async_playwright

from core.reasons import reason
from core.states import State
from recognition.candidates import Candidate
from recognition.identify import Status
from store import Store
from store.recognition import StoredCandidate, StoredFile
from tests.hashes import v1, v2
from tests.web.conftest import USER, MakeClient, new_download, settings_for, token

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        await launched.close()


async def test_a_bot_link_opens_the_card_of_a_hybrid_download_on_a_phone(
    browser: Browser, make_client: MakeClient, store: Store
) -> None:
    h1, h2 = v1(), v2()
    download = await new_download(
        store, "Dune.Part.Two.2024.2160p.<script>x</script>", hashes=(h1, h2)
    )
    client = await make_client(settings_for(USER))
    base = str(client.make_url("/")).rstrip("/")
    context = await browser.new_context(viewport=PHONE)
    await context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    page = await context.new_page()

    await page.goto(f"{base}/download/{download.id.upper()}?t={token()}")

    assert page.url == f"{base}/download/{download.id.upper()}"  # the token is gone from the URL
    text = await page.inner_text("body")
    assert h1 in text
    assert h2 in text
    assert "<script>x</script>" in text  # shown as text, not run
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    await page.click(f'button.copy[data-copy="{h2}"]')
    assert await page.evaluate("navigator.clipboard.readText()") == h2
    await shoot(page, "card")

    await page.goto(f"{base}/?q={h2[:10]}")
    rows = await page.locator("ul.rows li").count()
    assert rows == 1
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    await shoot(page, "list")
    await context.close()


async def test_the_review_page_leads_with_the_best_candidate(
    browser: Browser, make_client: MakeClient, store: Store
) -> None:
    download = await new_download(store, "Dune.1080p.WEB-DL")
    await store.recognitions.save(
        download.id, kind="movie", title="Dune", year=None, season=None, status=Status.NEEDS_REVIEW,
        reason=reason("review.ambiguous", count=2),
        files=[StoredFile("Dune.1080p.WEB-DL.mkv", "video", 1, None, (), None, ())],
        candidates=[
            StoredCandidate.of(Candidate("tmdb", "438631", "movie", "Dune", "Dune", 2021,
                               "Paul Atreides leads nomadic tribes…", None, 90.0, score=0.82),
                               selected=False),
            StoredCandidate.of(Candidate("tmdb", "841", "movie", "Dune", "Dune", 1984,
                               "In the year 10,191…", None, 30.0, score=0.80), selected=False),
        ],
    )  # fmt: skip
    client = await make_client(settings_for(USER))
    base = str(client.make_url("/")).rstrip("/")
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    await page.goto(f"{base}/review/{download.id}?t={token()}")
    text = await page.inner_text("body")
    assert text.index("2021") < text.index("1984")  # the best one first
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    await shoot(page, "review")
    await context.close()


async def shoot(page: Page, name: str) -> None:
    """Screenshots are kept as test artifacts (test-artifacts/screenshots)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


async def test_the_card_and_the_list_follow_a_download_as_it_runs(
    browser: Browser, make_client: MakeClient, store: Store
) -> None:
    download = await new_download(store, "Arrival.2016.1080p", state=State.DOWNLOADING)
    client = await make_client(settings_for(USER))
    base = str(client.make_url("/")).rstrip("/")
    page = await (await browser.new_context(viewport=PHONE)).new_page()
    await page.goto(f"{base}/download/{download.id}?t={token()}")
    assert await page.get_attribute("[data-live-progress]", "value") == "0"
    await _progress(store, download.id, 0.62)
    await until(lambda: page.get_attribute("[data-live-progress]", "value"), "62")
    assert "62%" in await page.inner_text("[data-live-numbers]")
    await shoot(page, "card-live")
    await page.goto(f"{base}/")
    await _progress(store, download.id, 0.9)
    await until(lambda: page.inner_text("[data-live-percent]"), "90%")
    async with store.db.write() as conn:  # done: the page shows it and stops asking
        await conn.execute(
            "UPDATE download SET state = 'done', progress = 1 WHERE id = :id", {"id": download.id}
        )
    await until(lambda: page.get_attribute("[data-live]", "data-active"), None)


async def _progress(store: Store, download_id: str, progress: float) -> None:
    async with store.db.write() as conn:
        await conn.execute(
            "UPDATE download SET progress = :p WHERE id = :id", {"p": progress, "id": download_id}
        )


async def until(probe: Callable[[], Awaitable[str | None]], expected: str | None) -> None:
    """Poll the page (the Content-Security-Policy forbids evaluated scripts) until
    ``probe`` gives ``expected``; fail after 10 s."""
    last: str | None = None
    for _ in range(100):
        last = await probe()
        if last == expected:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"still {last!r}, not {expected!r}")
