"""/find end to end against real qbittorrent-nox 4.5 and 5.x: the titles, a title's
releases from qBittorrent's own search (the tests' plugin asking a site on 127.0.0.1)
and from a Torznab indexer (the fake) beside one that hangs and one that refuses its
key; a tapped release downloaded by the real qBittorrent from a real seeder and laid
out in the library as the title picked, with nobody asked."""

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.models import Download
from core.states import State
from tests.support.fixtures import qbittorrent_command, versions
from tests.support.house import House, eventually, house_settings, library_in, settings_for
from tests.support.qbittorrent import QbtInstance, new_qbittorrent
from tests.support.search_site import SearchSite, install_plugin, site_row
from tests.support.telegram import FakeTelegram, Message
from tests.support.tmdb import FakeTmdb
from tests.support.torrents import make_content, make_torrent, seed
from tests.support.torznab import FakeRelease, good_refusing_hanging

ALICE = 111_111_111
TIMEOUT = 4.0
MiB = 1024 * 1024


@pytest.fixture(scope="module")
def site() -> Iterator[SearchSite]:
    with SearchSite() as running:
        yield running


@pytest.fixture(scope="module", params=versions(), ids=lambda v: f"qbt{v}")
def qbt(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, site: SearchSite
) -> Iterator[QbtInstance]:
    """jellybit's qBittorrent, with the tests' search plugin (it lists plugins as it starts)."""
    instance = new_qbittorrent(
        tmp_path_factory.mktemp("qbt"), command=qbittorrent_command(request.param)
    )
    install_plugin(instance.profile_dir, site.url)
    with instance:
        yield instance


async def test_find_tap_and_it_is_in_the_library_as_the_title_picked(
    qbt: QbtInstance, seeder: QbtInstance, site: SearchSite, tg: FakeTelegram, tmp_path: Path
) -> None:
    name = f"Dune.2021.1080p.BluRay.x264-{secrets.token_hex(3).upper()}"
    content = make_content(tmp_path / "src", f"{name}.mkv", 2 * MiB, seed=len(name))
    made = make_torrent(content, "v1")
    seed(seeder, made)
    assert made.v1 is not None
    magnet = f"magnet:?xt=urn:btih:{made.v1}&dn={name}"
    site.answer("Dune 2021", [site_row(name, magnet, size=2 * MiB, seeds=40)])
    async with (
        FakeTmdb() as tmdb,
        good_refusing_hanging() as indexers,
    ):
        indexers.good.releases.append(
            FakeRelease(title="Dune 2021 2160p WEB-DL", tmdb_id=438631, imdb_id="tt1160419")
        )
        settings = house_settings(
            tmp_path,
            qbittorrent=settings_for(qbt),
            telegram_api=tg.base_url,
            token=tg.token,
            language="en",
            library=library_in(tmp_path),
            metadata=tmdb.metadata(),
            search=indexers.settings(TIMEOUT, qbittorrent=True),
        )
        house = await House(settings).start()
        try:
            alice = tg.user(ALICE, language_code="en")
            sent = await alice.send_text("/find Dune 2021")
            first = await alice.wait_for(
                lambda m: m.from_bot and m.reply_to_message_id == sent.message_id, 2.0
            )

            async def shows(text: str) -> Message | None:
                now = alice.chat.messages.get(first.message_id)
                return now if now is not None and text in now.text else None

            titles = await eventually(lambda: shows("which one?"), what="the titles")
            await alice.press(titles, "🎬 Dune (2021)")
            releases = await eventually(
                lambda: shows("⚠️ slow did not answer"), within=TIMEOUT + 15, what="releases"
            )
            assert "2 of 4 sources answered" in releases.text, releases.text
            assert name in releases.text  # qBittorrent's plugin found it
            assert "Dune 2021 2160p WEB-DL" in releases.text  # and the indexer
            button = next(b for b in releases.button_texts if "1080p BluRay" in b)
            await alice.press(releases, button)

            async def done() -> list[Download] | None:
                found = await house.store.downloads.list_downloads()
                return found if found and found[0].state == State.DONE else None

            # a real download under the full suite's load: as the other download tests wait
            (download,) = await eventually(done, within=90, what="done")
            moves = await house.store.downloads.list_transitions(download.id)
            # Never in review: the tap said which title it is.
            assert [t.to_state for t in moves] == ["accepted", "downloading", "importing", "done"]
            movie = tmp_path / "library" / "movies" / "Dune (2021) [tmdbid-438631]"
            linked = list(movie.rglob("*.mkv"))
            assert len(linked) == 1
            assert linked[0].stat().st_nlink == 2  # a hardlink of qBittorrent's file
            # qBittorrent's search job was stopped and deleted.
            assert qbt.client().search_status() == []
        finally:
            await house.halt()
