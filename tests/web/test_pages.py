"""The pages the bot links to, through HTTP: access, ids, actions, review.

A real migrated store and a real engine; qBittorrent is unreachable, which
the pages must report, not hide."""

import logging
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote
from zoneinfo import ZoneInfo

import jinja2
import pytest
from aiohttp.test_utils import TestClient, TestServer
from babel.messages.pofile import read_po
from structlog.testing import capture_logs

from common.i18n import I18n
from core import clock
from core.config import Settings
from core.ids import new_id
from core.links import DAY, verify_user_token
from core.models import Download
from core.reasons import Reason, reason
from core.states import State
from jellybit.app import Application
from recognition.candidates import Evidence
from recognition.identify import Status
from store import Store
from store.recognition import StoredCandidate, StoredFile
from tests.hashes import v1, v2
from tests.support.candidates import stored
from tests.support.tmdb import FakeTmdb
from tests.web.conftest import (
    SECRET,
    USER,
    Client,
    MakeClient,
    card,
    csrf_for,
    csrf_of,
    metadata_for,
    new_download,
    now,
    session_cookie,
    settings_for,
    sign_in,
    token,
)
from web import auth, pages, rendering

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "web" / "templates"
CATALOG = ROOT / "common" / "locales" / "ru" / "LC_MESSAGES" / "jellybit.po"
TEMPLATE_TEXT = re.compile(r"""_\(\s*"([^"]+)"\s*\)""")


async def statements_during(store: Store, client: Client, method: str, path: str) -> list[str]:
    """Every SQL statement the store runs while ``client`` sends one request."""
    seen: list[str] = []
    csrf = csrf_for(client) if method == "POST" else ""
    await store.db.set_trace_callback(seen.append)
    try:
        response = await client.request(
            method, path, data={"csrf": csrf, "candidate_id": "not-an-id"}
        )
        assert response.status == 404
    finally:
        await store.db.set_trace_callback(None)
    return seen


async def candidates_for(store: Store, download: Download) -> list[StoredCandidate]:
    """A recognition in review with two TMDB candidates, the better one first."""
    made = [
        stored(
            "438631",
            "Dune",
            2021,
            overview="Paul Atreides travels to Arrakis.",
            poster_path="/d5NXSklXo0qyIYkgV94XAgMIckC.jpg",
            popularity=120.5,
            score=0.8,
            evidence=Evidence("exact", "Dune", "none", ratio=3.4),
        ),
        stored(
            "841",
            "Dune",
            1984,
            original_title=None,
            overview="The spice must flow.",
            popularity=35.2,
            score=0.7,
            evidence=Evidence("exact", "Дюна", "far", seasons="misfit", misfit="S02"),
        ),
    ]
    await store.recognitions.save(
        download.id,
        kind="movie",
        title="Dune",
        year=None,
        season=None,
        status=Status.NEEDS_REVIEW,
        reason=Reason("review.ambiguous", {"count": 2}),
        files=[StoredFile("Dune/Dune.mkv", "video", 4_000_000_000, None, (), None, ())],
        candidates=made,
    )
    return made


# --- access ---------------------------------------------------------------------


async def test_a_bot_link_becomes_a_session_and_a_clean_url(
    store: Store, anonymous: Client
) -> None:
    download = await new_download(store)
    response = await anonymous.get(f"{card(download.id)}?t={token()}&keep=1", allow_redirects=False)
    assert response.status == 303
    assert response.headers["Location"] == f"{card(download.id)}?keep=1"
    cookie = response.cookies[auth.SESSION_COOKIE]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"
    assert cookie["path"] == "/"
    assert cookie["secure"] == ""  # public_url is http
    assert int(cookie["max-age"]) == 30 * DAY
    page = await anonymous.get(card(download.id))
    assert page.status == 200
    assert download.name in await page.text()


async def test_a_session_and_a_link_token_are_not_interchangeable(
    store: Store, client: Client, anonymous: Client
) -> None:
    session = session_cookie(client)
    assert verify_user_token(SECRET, session, now()) is None
    client.session.cookie_jar.clear()
    client.session.cookie_jar.update_cookies({auth.SESSION_COOKIE: token()})
    assert (await client.get("/")).status == 401
    refused = await client.get(f"/?t={session}", allow_redirects=False)
    assert refused.status == 401


async def test_the_cookie_is_secure_behind_https(make_client: MakeClient) -> None:
    settings = settings_for(USER)
    client = await make_client(replace(settings, web=replace(settings.web, public_url="https://x")))
    response = await client.get(f"/?t={token()}", allow_redirects=False)
    assert response.cookies[auth.SESSION_COOKIE]["secure"] is True


@pytest.mark.parametrize("path", ["/", "/download/{id}", "/review/{id}"])
async def test_without_a_session_a_page_is_401(store: Store, anonymous: Client, path: str) -> None:
    download = await new_download(store)
    response = await anonymous.get(path.format(id=download.id))
    assert response.status == 401
    assert "Open the link from the bot again" in await response.text()
    assert download.name not in await response.text()


async def test_a_post_without_a_session_is_401(store: Store, anonymous: Client) -> None:
    download = await new_download(store)
    response = await anonymous.post(f"{card(download.id)}/cancel", data={"csrf": "x"})
    assert response.status == 401
    assert (await store.downloads.get_download(download.id)).state == State.ACCEPTED


# Routes anyone may reach: the styles, the health and metrics probes, the API (its
# own bearer token) and Telegram's webhook (its own secret header).
OPEN_ROUTES = ("/static", "/healthz", "/metrics", "/api", "/telegram/")


async def test_every_page_and_form_needs_a_session(application: Application) -> None:
    """Each route the pages have, asked without a session, is the 401 page: a new page
    (``/search``) is guarded the day it is added."""
    client: Client = TestClient(TestServer(application.web))
    await client.start_server()
    try:
        checked = []
        for route in application.web.router.routes():
            info = route.resource.get_info() if route.resource else {}
            path = info.get("path") or info.get("formatter") or info.get("prefix") or ""
            if route.method not in ("GET", "POST") or path.startswith(OPEN_ROUTES):
                continue
            # Every placeholder as an id (a ``{choice:a|b}`` as its first choice).
            concrete = re.sub(r"\{[a-z]+:([a-z]+)[^}]*\}", r"\1", path)
            concrete = re.sub(r"\{[a-z]+\}", "01arz3ndektsv4rrffq69g5fav", concrete)
            response = await client.request(route.method, concrete, allow_redirects=False)
            checked.append((route.method, path, response.status))
        assert checked
        assert [entry for entry in checked if entry[2] != 401] == []
        assert ("GET", "/search", 401) in checked
    finally:
        await client.close()


def _tampered() -> str:
    good = token()
    return good[:-1] + ("A" if good[-1] != "A" else "B")


@pytest.mark.parametrize(
    "bad_token",
    [
        pytest.param(_tampered, id="tampered"),
        pytest.param(lambda: token(at=now() - 9 * DAY), id="expired"),
        pytest.param(lambda: token(secret=b"another installation"), id="foreign"),
        pytest.param(lambda: token(user=222), id="not-allowed-user"),
        pytest.param(lambda: "111.99999999999.x", id="forged"),
        pytest.param(lambda: "", id="empty"),
    ],
)
async def test_a_bad_link_token_is_401(anonymous: Client, bad_token: object) -> None:
    assert callable(bad_token)
    response = await anonymous.get(f"/?t={bad_token()}", allow_redirects=False)
    assert response.status == 401
    assert auth.SESSION_COOKIE not in response.cookies
    assert "Open the link from the bot again" in await response.text()


HOSTILE_TOKENS = [
    pytest.param("\u00b2.1.x", id="superscript-digit"),
    pytest.param("\u0663.99999999999.x", id="arabic-indic-digit"),
    pytest.param("9" * 5000 + ".99999999999.x", id="5000-digit-user"),
    pytest.param("111." + "9" * 5000 + ".x", id="5000-digit-expiry"),
    pytest.param("111.99999999999.\u00e9\u00e9", id="non-ascii-mac"),
    pytest.param("111.99999999999." + "x" * 4000, id="long-mac"),
    pytest.param("1.2.3.4", id="four-parts"),
]


@pytest.mark.parametrize("hostile", HOSTILE_TOKENS)
async def test_a_hostile_token_or_cookie_is_401_without_an_error(
    anonymous: Client, hostile: str, caplog: pytest.LogCaptureFixture
) -> None:
    with capture_logs() as logs:
        by_link = await anonymous.get("/", params={"t": hostile}, allow_redirects=False)
        anonymous.session.cookie_jar.update_cookies({auth.SESSION_COOKIE: quote(hostile)})
        by_cookie = await anonymous.get("/", allow_redirects=False)
        by_header = await anonymous.get(
            "/",
            headers={"Cookie": f"{auth.SESSION_COOKIE}={hostile}"},
            allow_redirects=False,
        )
    assert [by_link.status, by_cookie.status, by_header.status] == [401, 401, 401]
    assert auth.SESSION_COOKIE not in by_link.cookies
    assert not [entry for entry in logs if entry["log_level"] in ("error", "critical")]
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


async def test_an_old_link_opens_for_someone_signed_in(client: Client) -> None:
    old = token(at=now() - 30 * DAY)
    response = await client.get(f"/?q=x&t={old}", allow_redirects=False)
    assert response.status == 303
    assert response.headers["Location"] == "/?q=x"


async def test_a_user_removed_from_allowed_users_loses_access(
    store: Store, client: Client, make_client: MakeClient
) -> None:
    download = await new_download(store)
    cookie = {"Cookie": f"{auth.SESSION_COOKIE}={session_cookie(client)}"}
    assert (await client.get(card(download.id))).status == 200
    restarted = await make_client(settings_for(222))  # the config no longer lists 111
    response = await restarted.get(card(download.id), headers=cookie)
    assert response.status == 401
    assert download.name not in await response.text()


async def test_a_post_without_a_valid_csrf_token_is_403(
    store: Store, client: Client, make_client: MakeClient
) -> None:
    download = await new_download(store, state=State.FAILED)
    other = await make_client(settings_for(USER, 333))
    await sign_in(other, 333)
    foreign = await csrf_of(other, card(download.id))  # valid, for another session
    assert foreign == csrf_for(other) != csrf_for(client)
    for data in ({}, {"csrf": ""}, {"csrf": "0" * 64}, {"csrf": foreign}):
        response = await client.post(f"{card(download.id)}/retry", data=data)
        assert response.status == 403, data
    assert (await store.downloads.get_download(download.id)).state == State.FAILED


async def test_security_headers_on_every_response(store: Store, client: Client) -> None:
    download = await new_download(store)
    paths = ["/", card(download.id), "/download/nope", "/static/app.js", "/healthz"]
    client.session.cookie_jar.clear()
    paths.append("/review/" + download.id)  # a 401 now
    for path in paths:
        response = await client.get(path)
        assert response.headers["Content-Security-Policy"] == auth.CSP, path
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"] == "no-referrer"


async def test_static_files_need_no_session(anonymous: Client) -> None:
    for name in ("app.js", "style.css"):
        response = await anonymous.get(f"/static/{name}")
        assert response.status == 200, name


# --- ids ------------------------------------------------------------------------


async def test_the_card_shows_both_hashes_of_a_hybrid(store: Store, client: Client) -> None:
    first, second = v1(), v2()
    download = await new_download(store, hashes=[first, second])
    text = await (await client.get(card(download.id))).text()
    for value in (first, second):
        assert f"<code>{value}</code>" in text
        assert f'data-copy="{value}"' in text
    assert '<span class="badge">v1</span>' in text
    assert '<span class="badge">v2</span>' in text


async def test_an_upper_case_id_opens_the_same_download(store: Store, client: Client) -> None:
    download = await new_download(store)
    for path in (card(download.id.upper()), f"/review/{download.id.upper()}"):
        response = await client.get(path)
        assert response.status == 200, path
        assert download.name in await response.text()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/download/garbage"),
        ("GET", "/download/" + "8" * 26),  # past the 48-bit time range
        ("GET", "/download/01jzzzzzzzzzzzzzzzzzzzzzzi"),  # not Crockford
        ("GET", "/review/%20"),
        ("POST", "/download/1/cancel"),
        ("POST", "/review/garbage"),
        ("POST", "/review/garbage/overrides"),
        ("POST", "/review/{id}"),  # a valid download, candidate_id "not-an-id"
    ],
)
async def test_a_garbage_id_is_404_without_a_query(
    store: Store, client: Client, method: str, path: str
) -> None:
    download = await new_download(store)
    await client.get(card(download.id))  # the person's language is known by now
    assert await statements_during(store, client, method, path.format(id=download.id)) == []


async def test_an_unknown_id_is_404(client: Client) -> None:
    for path in (card(new_id()), f"/review/{new_id()}"):
        response = await client.get(path)
        assert response.status == 404
        assert "No download with this id." in await response.text()


async def test_a_hostile_name_is_escaped(store: Store, client: Client) -> None:
    download = await new_download(store, "<script>alert(1)</script>")
    for path in (card(download.id), "/", f"/review/{download.id}"):
        text = await (await client.get(path)).text()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text, path
        assert "<script>alert" not in text


async def test_bidi_controls_in_a_name_are_dropped_where_it_is_shown(
    store: Store, client: Client
) -> None:
    download = await new_download(store, "Movie.\u202egnp.exe\u202c.2021")
    for path in (card(download.id), "/", f"/review/{download.id}"):
        text = await (await client.get(path)).text()
        assert "Movie.gnp.exe.2021" in text, path
        assert not {"\u202e", "\u202c"} & set(text), path


async def test_no_inline_script_or_style(store: Store, client: Client) -> None:
    download = await new_download(store, state=State.REVIEW)
    await candidates_for(store, download)
    for path in ("/", card(download.id), f"/review/{download.id}"):
        text = await (await client.get(path)).text()
        assert re.findall(r"<script(?![^>]*\bsrc=)", text) == [], path
        assert " style=" not in text, path
        assert "<style" not in text, path


# --- the list -------------------------------------------------------------------


async def test_search_by_a_v2_prefix_name_or_id(store: Store, client: Client) -> None:
    hybrid_v2 = v2()
    wanted = await new_download(store, "Wanted.Show.S01", hashes=[v1(), hybrid_v2])
    other = await new_download(store, "Other.Movie.2020")
    for query in (hybrid_v2[:10], hybrid_v2[:10].upper(), "wanted.show", wanted.id.upper()):
        text = await (await client.get("/", params={"q": query})).text()
        assert card(wanted.id) in text, query
        assert card(other.id) not in text, query


async def test_the_list_pages_newest_first(store: Store, client: Client) -> None:
    made = [await new_download(store, f"Item.{n:03d}") for n in range(pages.PAGE_SIZE + 5)]
    first = await (await client.get("/")).text()
    shown = re.findall(r'href="/download/([0-9a-z]{26})"', first)
    assert shown == [d.id for d in reversed(made)][: pages.PAGE_SIZE]
    older = re.search(r'href="(/\?before=[0-9a-z]{26})"', first)
    assert older is not None
    second = await (await client.get(older.group(1))).text()
    rest = re.findall(r'href="/download/([0-9a-z]{26})"', second)
    assert rest == [d.id for d in reversed(made[:5])]
    assert 'href="/"' in second  # back to the newest


async def test_the_state_filter(store: Store, client: Client) -> None:
    failed = await new_download(store, "Broken.One", state=State.FAILED)
    active = await new_download(store, "Going.One")
    text = await (await client.get("/", params={"state": "failed"})).text()
    assert card(failed.id) in text
    assert card(active.id) not in text
    text = await (await client.get("/", params={"state": "active"})).text()
    assert card(active.id) in text
    assert card(failed.id) not in text
    text = await (await client.get("/", params={"state": "bogus"})).text()
    assert card(active.id) in text
    assert card(failed.id) in text


# --- actions on the card --------------------------------------------------------


async def test_cancel_with_qbittorrent_unreachable_says_so(store: Store, client: Client) -> None:
    download = await new_download(store)
    csrf = await csrf_of(client, card(download.id))
    response = await client.post(
        f"{card(download.id)}/cancel", data={"csrf": csrf}, allow_redirects=False
    )
    assert response.status == 303
    assert response.headers["Location"] == f"{card(download.id)}?error=unreachable"
    text = await (await client.get(response.headers["Location"])).text()
    assert "qBittorrent is not answering; nothing changed." in text
    assert (await store.downloads.get_download(download.id)).state == State.ACCEPTED


async def test_retry_of_a_failed_download_is_queued(store: Store, client: Client) -> None:
    download = await new_download(store, state=State.FAILED)
    csrf = await csrf_of(client, card(download.id))
    page = await client.post(f"{card(download.id)}/retry", data={"csrf": csrf})
    assert page.status == 200
    assert page.url.query.get("done") == "retry_queued"
    assert "I will add it as soon as it is back." in await page.text()
    assert (await store.downloads.get_download(download.id)).state == State.ACCEPTED


async def test_an_action_that_no_longer_fits_is_explained(store: Store, client: Client) -> None:
    download = await new_download(store)
    csrf = await csrf_of(client, card(download.id))
    page = await client.post(f"{card(download.id)}/relink", data={"csrf": csrf})
    assert page.url.query.get("error") == "invalid_transition"
    assert "This button is outdated" in await page.text()
    assert (await store.downloads.get_download(download.id)).state == State.ACCEPTED


async def test_a_refused_retry_links_the_other_download(store: Store, client: Client) -> None:
    shared = v1()
    old = await new_download(store, "Old", hashes=[shared], state=State.FAILED)
    new = await new_download(store, "New", hashes=[shared])
    csrf = await csrf_of(client, card(old.id))
    page = await client.post(f"{card(old.id)}/retry", data={"csrf": csrf})
    text = await page.text()
    assert "another active download has the same torrent" in text
    assert f'href="{card(new.id)}"' in text


async def test_the_actions_fit_the_state(store: Store, client: Client) -> None:
    expected = {
        State.FAILED: {"retry"},
        State.STUCK: {"retry", "cancel"},
        State.DOWNLOADING: {"cancel"},
        State.REVIEW: {"cancel", "review"},
        State.DONE: {"relink", "review"},
    }
    for state, actions in expected.items():
        download = await new_download(store, hashes=[v1()], state=state)
        text = await (await client.get(card(download.id))).text()
        found = set(re.findall(rf'action="/download/{download.id}/(\w+)"', text))
        found |= {"review"} if f'href="/review/{download.id}"' in text else set()
        assert found == actions, state


# --- review ---------------------------------------------------------------------


async def test_the_review_page_lists_the_candidates(store: Store, client: Client) -> None:
    download = await new_download(store, "Dune.1080p", state=State.REVIEW)
    best, other = await candidates_for(store, download)
    text = await (await client.get(f"/review/{download.id}")).text()
    assert text.index(best.id) < text.index("This is it") < text.index(other.id)
    assert "https://image.tmdb.org/t/p/w185/d5NXSklXo0qyIYkgV94XAgMIckC.jpg" in text
    assert "https://www.themoviedb.org/movie/438631" in text
    assert "Dune (2021)" in text
    assert "Dune (1984)" in text
    assert "Search is off" in text
    assert "Several titles match equally well: pick the right one." in text
    assert "✓ same title · 3.4× as popular" in text
    assert "✓ same title (Дюна) · ✗ another year · ✗ has no S02" in text


async def test_why_it_asks_and_the_evidence_read_in_russian(store: Store, client: Client) -> None:
    await store.telegram.set_chat_language(USER, "ru")
    download = await new_download(store, "Dune.1080p", state=State.REVIEW)
    await candidates_for(store, download)
    text = await (await client.get(f"/review/{download.id}")).text()
    assert "Одинаково хорошо подходят несколько названий: выберите нужное." in text
    assert "✓ то же название · популярность ×3,4" in text
    assert "✗ другой год · ✗ нет S02" in text
    assert "same title" not in text


async def test_the_review_page_says_which_words_the_title_does_not_explain(
    store: Store, client: Client
) -> None:
    download = await new_download(store, "Avatar - The Last Airbender", state=State.REVIEW)
    film = stored(
        "19995",
        "Avatar",
        2009,
        popularity=200,
        score=0.6,
        evidence=Evidence("partial", "Avatar", "none", unexplained="last airbender"),
    )
    await store.recognitions.save(
        download.id, kind="series", title="Avatar - The Last Airbender", year=None, season=None,
        status=Status.NEEDS_REVIEW, reason=Reason("review.unsure", {"confidence": 0.6}),
        files=[StoredFile("A/A.S01E01.mkv", "video", 10**9, 1, (1,), None, ())], candidates=[film],
    )  # fmt: skip
    text = await (await client.get(f"/review/{download.id}")).text()
    assert "✗ not explained: last airbender" in text
    await store.telegram.set_chat_language(USER, "ru")
    text = await (await client.get(f"/review/{download.id}")).text()
    assert "✗ не объяснено: last airbender" in text


async def test_picking_a_candidate_moves_the_download_to_importing(
    store: Store, client: Client
) -> None:
    download = await new_download(store, "Dune.1080p", state=State.REVIEW)
    _, other = await candidates_for(store, download)
    csrf = await csrf_of(client, f"/review/{download.id}")
    response = await client.post(
        f"/review/{download.id.upper()}",
        data={"csrf": csrf, "candidate_id": other.id.upper()},
        allow_redirects=False,
    )
    assert response.headers["Location"] == f"{card(download.id)}?done=decide"
    assert (await store.downloads.get_download(download.id)).state == State.IMPORTING
    recognition = await store.recognitions.current(download.id)
    assert recognition is not None
    chosen = recognition.chosen()
    assert chosen is not None
    assert chosen.id == other.id


async def test_an_unknown_candidate_changes_nothing(store: Store, client: Client) -> None:
    download = await new_download(store, state=State.REVIEW)
    await candidates_for(store, download)
    csrf = await csrf_of(client, f"/review/{download.id}")
    page = await client.post(
        f"/review/{download.id}", data={"csrf": csrf, "candidate_id": new_id()}
    )
    assert page.url.path == f"/review/{download.id}"
    assert "no longer offered" in await page.text()
    assert (await store.downloads.get_download(download.id)).state == State.REVIEW


async def test_overrides_recognize_again(store: Store, client: Client) -> None:
    download = await new_download(store, state=State.REVIEW)
    await candidates_for(store, download)
    csrf = await csrf_of(client, f"/review/{download.id}")
    fields = {"kind": "movie", "title": "Dune", "year": "2021", "season": "", "episode_offset": ""}
    page = await client.post(f"/review/{download.id}/overrides", data={"csrf": csrf, **fields})
    assert page.url.query.get("done") == "overrides"
    assert await store.recognitions.overrides(download.id) == {
        "kind": "movie",
        "title": "Dune",
        "year": "2021",
    }
    recognition = await store.recognitions.current(download.id)
    assert recognition is not None
    assert recognition.status == "waiting"
    assert (await store.downloads.get_download(download.id)).state == State.IMPORTING


@pytest.mark.parametrize(
    "bad", [{"year": "20x1"}, {"season": "-1"}, {"kind": "opera"}, {"episode_offset": "1.5"}]
)
async def test_bad_overrides_change_nothing(
    store: Store, client: Client, bad: dict[str, str]
) -> None:
    download = await new_download(store, state=State.REVIEW)
    csrf = await csrf_of(client, f"/review/{download.id}")
    page = await client.post(f"/review/{download.id}/overrides", data={"csrf": csrf, **bad})
    assert page.url.query.get("error") == "invalid_input"
    assert await store.recognitions.overrides(download.id) == {}
    assert (await store.downloads.get_download(download.id)).state == State.REVIEW


@pytest.fixture
async def tmdb_settings() -> AsyncIterator[Settings]:
    """The page tests' settings with the fake TMDB as the metadata provider."""
    async with FakeTmdb() as fake:
        yield replace(settings_for(USER), metadata=metadata_for(fake.base_url, fake.api_key))


async def test_search_by_hand_and_pick_a_result(
    store: Store, make_client: MakeClient, tmdb_settings: Settings
) -> None:
    client = await make_client(tmdb_settings)
    await sign_in(client)
    download = await new_download(store, "Dune.1080p", state=State.REVIEW)
    await candidates_for(store, download)
    review = f"/review/{download.id}"
    text = await (
        await client.get(review, params={"search": "Blade Runner", "kind": "movie"})
    ).text()
    assert "Бегущий по лезвию 2049" in text
    assert 'name="tmdb_id" value="335984"' in text
    csrf = await csrf_of(client, review)
    form = {"csrf": csrf, "kind": "movie", "tmdb_id": "335984"}
    page = await client.post(f"{review}/search-pick", data=form)
    assert page.url.query.get("done") == "decide"
    assert (await store.downloads.get_download(download.id)).state == State.IMPORTING
    recognition = await store.recognitions.current(download.id)
    assert recognition is not None
    chosen = recognition.chosen()
    assert chosen is not None
    assert (chosen.candidate.provider_id, chosen.candidate.year) == ("335984", 2017)
    assert len(recognition.candidates) == 3  # the two found before are kept
    assert recognition.files[0].path == "Dune/Dune.mkv"


async def test_hostile_numbers_in_the_search_forms_change_nothing(
    store: Store, make_client: MakeClient, tmdb_settings: Settings
) -> None:
    client = await make_client(tmdb_settings)
    await sign_in(client)
    download = await new_download(store, "Dune.1080p", state=State.REVIEW)
    review = f"/review/{download.id}"
    for year in ("\u00b2\u00b2\u00b2\u00b2", "9" * 5000, "20x1"):
        page = await client.get(review, params={"search": "Dune", "kind": "movie", "year": year})
        assert page.status == 200
    csrf = await csrf_of(client, review)
    for tmdb_id in ("\u00b2", "12abc", "9" * 5000, "0", "-1"):
        form = {"csrf": csrf, "kind": "movie", "tmdb_id": tmdb_id}
        page = await client.post(f"{review}/search-pick", data=form)
        assert page.url.query.get("error") == "invalid_input", tmdb_id
    assert (await store.downloads.get_download(download.id)).state == State.REVIEW


async def test_a_pick_by_hand_needs_search_on(store: Store, client: Client) -> None:
    download = await new_download(store, state=State.REVIEW)
    csrf = await csrf_of(client, f"/review/{download.id}")
    form = {"csrf": csrf, "kind": "movie", "tmdb_id": "335984"}
    page = await client.post(f"/review/{download.id}/search-pick", data=form)
    assert page.url.query.get("error") == "search_off"
    assert (await store.downloads.get_download(download.id)).state == State.REVIEW


# --- language and time ----------------------------------------------------------


async def test_the_page_speaks_the_chat_language(store: Store, client: Client) -> None:
    download = await new_download(store)
    await store.telegram.set_chat_language(USER, "ru")
    text = await (await client.get(card(download.id))).text()
    assert '<html lang="ru">' in text
    assert "принято" in text  # the state label
    await store.telegram.set_chat_language(USER, "en")
    text = await (await client.get(card(download.id))).text()
    assert '<html lang="en">' in text


def test_times_read_relative_in_the_configured_zone() -> None:
    at = clock.parse_time("2024-05-01T10:00:00Z")
    fmt = pages.Formats(I18n("en").texts("en"), ZoneInfo("Europe/Moscow"), at)
    cases = {
        timedelta(seconds=20): "just now",
        timedelta(minutes=5): "5 minutes ago",
        timedelta(hours=3): "3 hours ago",
        timedelta(days=2): "2 days ago",
        timedelta(days=30): "2024-04-01",
    }
    for age, expected in cases.items():
        moment = fmt.when(clock.format_time(at - age))
        assert moment is not None
        assert moment.relative == expected, age
    russian = pages.Formats(I18n("en").texts("ru"), ZoneInfo("Europe/Moscow"), at)
    three_hours = russian.when(clock.format_time(at - timedelta(hours=3)))
    assert three_hours is not None
    assert three_hours.relative == "3 часа назад"
    assert russian.size(1.2 * 2**30) == "1,2 ГБ"  # a decimal comma
    moment = fmt.when("2024-05-01T10:00:00Z")
    assert moment is not None
    assert moment.absolute == "2024-05-01 13:00"
    assert fmt.when("not a time") is None


def test_every_template_text_has_a_russian_translation() -> None:
    """Templates translate with ``_()``, which the catalog test does not extract."""
    with CATALOG.open("rb") as source:
        russian = {str(m.id): str(m.string) for m in read_po(source) if m.id}
    texts = {
        text
        for path in TEMPLATES.glob("*.html")
        for text in TEMPLATE_TEXT.findall(path.read_text())
    }
    assert texts
    assert sorted(text for text in texts if not russian.get(text)) == []


def test_template_labels_are_translated_and_escaped_when_compiled() -> None:
    env = jinja2.Environment(autoescape=True, extensions=[rendering.TranslatedLiterals])
    env.extend(translate={"Copy": "Копировать", "A & B": "А & Б"}.get)
    template = env.from_string('{{ _("Copy") }}<b title="{{ _("A & B") }}">{{ _(name) }}</b>')
    assert template.render(_=str.upper, name="dynamic") == (
        'Копировать<b title="А &amp; Б">DYNAMIC</b>'  # a non-literal stays a call
    )


async def test_the_card_says_why_a_title_was_taken(store: Store, client: Client) -> None:
    download = await new_download(store, "Dune.2021.1080p", state=State.DONE)
    chosen = stored(
        "438631",
        "Dune",
        2021,
        selected=True,
        popularity=120.5,
        score=0.98,
        evidence=Evidence("exact", "Dune", "exact", ratio=3.4),
    )
    await store.recognitions.save(
        download.id, kind="movie", title="Dune", year=2021, season=None, status=Status.AUTO,
        reason=Reason("auto.year", {"confidence": 0.98}),
        files=[StoredFile("Dune/Dune.mkv", "video", 4_000_000_000, None, (), None, ())],
        candidates=[chosen],
    )  # fmt: skip
    text = await (await client.get(card(download.id))).text()
    assert "Picked on its own: the year in the name matches." in text
    assert "✓ same title · ✓ same year · 3.4× as popular" in text


async def test_the_card_asks_what_to_do_with_a_copy_the_library_has(
    store: Store, client: Client
) -> None:
    download = await new_download(store, "Dune.2021.2160p", state=State.IMPORTING)
    asked = reason("layout.in_library", target="/media/movies/Dune/Dune.mkv", other="Dune.1080p")
    await store.downloads.move(download.id, State.REVIEW, reason=asked)
    text = await (await client.get(card(download.id))).text()
    assert "The library already has /media/movies/Dune/Dune.mkv (from “Dune.1080p”)." in text
    for choice in ("version", "replace", "skip"):
        assert f'action="/download/{download.id}/duplicate/{choice}"' in text
    assert f'href="/review/{download.id}"' not in text  # the title is right: no new pick
    response = await client.post(
        f"{card(download.id)}/duplicate/replace",
        data={"csrf": csrf_for(client)},
        allow_redirects=False,
    )
    assert response.status == 303
    assert (await store.downloads.get_download(download.id)).state == State.IMPORTING
    assert await store.recognitions.overrides(download.id) == {"duplicates": "replace"}
    again = await client.post(
        f"{card(download.id)}/duplicate/replace",
        data={"csrf": csrf_for(client)},
        allow_redirects=False,
    )
    assert again.status == 303  # outdated: back to the card, nothing changed
    assert "error=invalid_transition" in again.headers["Location"]


async def test_live_answers_the_state_and_progress_of_the_ids_asked(
    store: Store, client: Client, make_client: MakeClient
) -> None:
    moving = await new_download(store, "Arrival.2016", state=State.DOWNLOADING)
    failed = await new_download(store, "Dune.2021", state=State.FAILED)
    response = await client.get(f"/live?ids={moving.id},{failed.id},not-an-id,{new_id()}")
    assert response.headers["Cache-Control"] == "no-store"
    body = await response.json()
    assert set(body) == {moving.id, failed.id}
    assert body[moving.id]["active"] is True
    assert body[moving.id]["percent"] == 0
    assert (body[failed.id]["state"], body[failed.id]["active"]) == ("failed", False)
    stranger = await make_client(settings_for(USER))
    assert (await stranger.get(f"/live?ids={moving.id}")).status == 401  # a page: the session
