"""The library pages: /library (titles, search, paging) and /title/{id} (versions,
or a season/episode grid: present, missing, held twice), served from a real SQLite
file, also in Chromium on a phone."""

from dataclasses import replace

from playwright.async_api import Browser

from core.ids import Id, new_id
from core.reasons import Reason
from core.states import State
from recognition.candidates import Evidence, Season
from recognition.identify import Status
from store import Store
from store.recognition import StoredCandidate, StoredFile
from tests.support.candidates import stored
from tests.web.conftest import (
    USER,
    Client,
    MakeClient,
    csrf_for,
    new_download,
    settings_for,
    token,
)
from tests.web.test_browser import PHONE, browser, shoot  # noqa: F401 (the browser fixture)

DARK = stored(
    "70523",
    "Dark",
    2017,
    kind="series",
    selected=True,
    overview="A child goes missing.",
    poster_path="/dark.jpg",
    popularity=50.0,
    evidence=Evidence("exact", "Dark", "exact"),
    seasons=(Season(1, 4, 2017), Season(2, 3, 2019)),
)
DUNE = replace(DARK, candidate=replace(
    DARK.candidate, provider_id="438631", kind="movie", title="Dune", year=2021, seasons=None,
    overview="Paul.",
))  # fmt: skip


async def held(
    store: Store, name: str, chosen: StoredCandidate, folder: str, targets: dict[str, str]
) -> Id:
    """A done download laid out as ``chosen``: its title, recognition and links."""
    download = await new_download(store, name, state=State.DONE)
    files = [StoredFile(source, "video", 2_000_000_000, None, (), None, ()) for source in targets]
    record = chosen.candidate
    await store.recognitions.save(
        download.id, kind=record.kind, title=record.title, year=record.year, season=None,
        status=Status.AUTO, reason=Reason("picked"), files=files,
        candidates=[replace(chosen, id=new_id())],
    )  # fmt: skip
    title = await store.titles.adopt(download.id, record, folder)
    await store.recognitions.plan_batch(download.id, list(targets.items()))
    for row in await store.recognitions.links(download.id):
        await store.recognitions.mark_linked(row.id, method="hardlink", inode=1, device=1)
    return title.id


async def a_library(store: Store) -> tuple[Id, Id]:
    shows, movies = "/media/shows/Dark (2017) [tmdbid-70523]", "/media/movies/Dune (2021)"
    dark = await held(store, "Dark.S01", DARK, "Dark (2017) [tmdbid-70523]", {
        f"Dark.S01E0{n}.mkv": f"{shows}/Season 01/Dark S01E0{n}.mkv" for n in (1, 2, 4)
    })  # fmt: skip
    await held(store, "Dark.S01E01.720p", DARK, "ignored: the title has its folder", {
        "Dark.S01E01.720p.mkv": f"{shows}/Season 01/Dark S01E01 - 720p.mkv"
    })  # fmt: skip
    dune = await held(store, "Dune.1080p", DUNE, "Dune (2021)", {
        "Dune.1080p.mkv": f"{movies}/Dune (2021).mkv"
    })  # fmt: skip
    await held(store, "Dune.2160p", DUNE, "Dune (2021)", {
        "Dune.2160p.mkv": f"{movies}/Dune (2021) - 2160p BluRay.mkv"
    })  # fmt: skip
    return dark, dune


async def test_the_library_lists_titles_by_name_and_finds_them(
    store: Store, client: Client
) -> None:
    dark, dune = await a_library(store)
    text = await (await client.get("/library")).text()
    assert text.index(f'href="/title/{dark}"') < text.index(f'href="/title/{dune}"')
    assert "Dark (2017)" in text
    found = await (await client.get("/library?q=dun")).text()
    assert f'href="/title/{dune}"' in found
    assert f'href="/title/{dark}"' not in found
    nothing = await (await client.get("/library?q=%25")).text()  # % is a letter, not a wildcard
    assert "/title/" not in nothing


async def test_a_movies_page_shows_its_versions_and_a_shows_page_its_episodes(
    store: Store, client: Client
) -> None:
    dark, dune = await a_library(store)
    movie = await (await client.get(f"/title/{dune}")).text()
    assert "2160p BluRay" in movie
    assert "Dune (2021) - 2160p BluRay.mkv" in movie
    assert movie.count('href="/download/') >= 4  # each version's download, and the list
    show = await (await client.get(f"/title/{dark}")).text()
    assert show.count('class="episode present"') == 2  # E02, E04
    assert show.count('class="episode twice"') == 1  # E01 in two versions
    assert show.count('class="episode missing"') == 1 + 3  # S01E03, all of season 2
    assert (await client.get(f"/title/{new_id()}")).status == 404
    assert (await client.get("/title/not-an-id")).status == 404


async def test_the_library_pages_on_a_phone(
    browser: Browser,  # noqa: F811 (the fixture)
    make_client: MakeClient,
    store: Store,
) -> None:
    dark, _ = await a_library(store)
    client = await make_client(settings_for(USER))
    base = str(client.make_url("/")).rstrip("/")
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    await page.goto(f"{base}/library?t={token()}")
    assert await page.locator("ul.rows li").count() == 2
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    await shoot(page, "library")
    await page.click(f'a[href="/title/{dark}"]')
    assert await page.locator(".episode").count() == 7
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    await shoot(page, "title")
    await context.close()


async def test_the_title_page_removes_a_version_and_relinks_all(
    store: Store, client: Client
) -> None:
    _, dune = await a_library(store)
    page = await (await client.get(f"/title/{dune}")).text()
    removes = [line for line in page.splitlines() if f"/title/{dune}/remove/" in line]
    assert len(removes) == 2  # one per version
    target = removes[1].split('action="')[1].split('"')[0]
    csrf = csrf_for(client)
    removed = await client.post(target, data={"csrf": csrf}, allow_redirects=False)
    assert removed.status == 303
    assert removed.headers["Location"] == f"/title/{dune}?done=removed"
    inventory = await store.titles.inventory(dune)
    assert inventory is not None
    assert len(inventory.files) == 1
    again = await client.post(target, data={"csrf": csrf}, allow_redirects=False)
    assert again.status == 303  # nothing left to remove: still done, 0 links
    relinked = await client.post(
        f"/title/{dune}/relink", data={"csrf": csrf}, allow_redirects=False
    )
    assert relinked.headers["Location"] == f"/title/{dune}?done=relink"
    states = {d.state for d in await store.downloads.list_downloads()}
    assert State.IMPORTING in states  # the movie's downloads are laid out again
    refused = await client.post(f"/title/{dune}/relink", data={}, allow_redirects=False)
    assert refused.status == 403  # no CSRF token
