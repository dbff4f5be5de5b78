"""`jellybit check` against a working setup and against each broken item.

The real CLI (``main``, in a thread: it runs its own event loop) with a config
file, the fake Telegram, TMDB and Jellyfin servers, real SQLite files and real file
systems (/dev/shm is tmpfs, /tmp is not). qBittorrent's own items run against a real
qbittorrent-nox, 4.5 and 5.x (``qbt_setup``); the others against the fake (``setup``).
"""

import asyncio
import contextlib
import shutil
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.config import toml_literal
from jellybit.check import Line, _guarded
from jellybit.cli import main
from store.migrate import latest_version, migrate
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.fixtures import fake_qbt, qbt
from tests.support.jellyfin import VERSION as JELLYFIN_VERSION
from tests.support.jellyfin import FakeJellyfin
from tests.support.qbittorrent import QbtInstance, free_port
from tests.support.telegram import FakeTelegram
from tests.support.tmdb import FakeTmdb
from tests.support.torznab import FakeTorznab
from worker.layout import filesystem_of

WEBHOOK = "https://jellybit.example/telegram/webhook"


__all__ = ["fake_qbt", "qbt"]  # the fake qBittorrent; the real one under test, 4.5 and 5.x


@dataclass
class Setup:
    root: Path
    qbt: QbtInstance | FakeQbittorrentServer
    tg: FakeTelegram
    tmdb: FakeTmdb
    jellyfin: FakeJellyfin
    torznab: FakeTorznab
    capsys: pytest.CaptureFixture[str]

    @property
    def database(self) -> Path:
        return self.root / "var" / "jellybit.db"

    def config(self, changes: Mapping[str, object]) -> Path:
        """A working config.toml, with ``{"section.key": value}`` changes."""
        values: dict[str, object] = {
            "general.data_dir": str(self.root / "var"),
            "general.language": "en",
            "telegram.token": self.tg.token,
            "telegram.allowed_users": [42],
            "telegram.api_base": self.tg.base_url,
            "telegram.mode": "polling",
            "qbittorrent.url": self.qbt.url,
            "qbittorrent.username": self.qbt.username,
            "qbittorrent.password": self.qbt.password,
            "library.movies": str(self.root / "movies"),
            "library.shows": str(self.root / "shows"),
            "metadata.tmdb_api_key": self.tmdb.api_key,
            "metadata.tmdb_base": self.tmdb.base_url,
            "jellyfin.url": self.jellyfin.url,
            "jellyfin.api_key": self.jellyfin.api_key,
            "web.public_url": "https://jellybit.example",
            "search.torznab": [
                {"name": "prowlarr", "url": self.torznab.url, "api_key": self.torznab.api_key}
            ],
            **changes,
        }
        sections: dict[str, list[str]] = {}
        for key, value in values.items():
            section, name = key.split(".")
            sections.setdefault(section, []).append(f"{name} = {toml_literal(value)}")
        path = self.root / "config.toml"
        path.write_text(
            "".join(f"[{s}]\n" + "\n".join(lines) + "\n" for s, lines in sections.items())
        )
        return path

    async def check(self, changes: Mapping[str, object] | None = None) -> tuple[int, list[str]]:
        """Exit code and stdout lines of ``jellybit check``."""
        args = ["check", "--config", str(self.config(changes or {})), "--log-level", "warning"]
        self.capsys.readouterr()  # not what the setup logged (migrations)
        code = await asyncio.to_thread(main, args)
        return code, self.capsys.readouterr().out.splitlines()


@contextlib.asynccontextmanager
async def working_setup(
    root: Path, qbt: QbtInstance | FakeQbittorrentServer, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[Setup]:
    (root / "movies").mkdir()
    (root / "shows").mkdir()
    migrate(root / "var" / "jellybit.db")
    async with (
        FakeTelegram() as tg,
        FakeTmdb() as tmdb,
        FakeJellyfin() as jellyfin,
        FakeTorznab() as torznab,
    ):
        yield Setup(root, qbt, tg, tmdb, jellyfin, torznab, capsys)


@pytest.fixture
async def setup(
    tmp_path: Path, fake_qbt: FakeQbittorrentServer, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[Setup]:
    """A working setup on the fake qBittorrent, for the items that are not qBittorrent's."""
    async with working_setup(tmp_path, fake_qbt, capsys) as made:
        yield made


@pytest.fixture
async def qbt_setup(
    tmp_path: Path, qbt: QbtInstance, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[Setup]:
    """A working setup on the real qbittorrent-nox (4.5 and 5.x), for qBittorrent's items."""
    async with working_setup(tmp_path, qbt, capsys) as made:
        yield made


async def test_check_names_where_each_set_value_came_from(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JELLYBIT_WEB_PUBLIC_URL", "https://media.example.org/jellybit")
    monkeypatch.setenv("JELLYBIT_QBITTORRENT_POLL_INTERVAL", "2.5")
    code, lines = await setup.check()
    assert code == 0, lines
    told = [line for line in lines if line.startswith("· ")]
    assert (
        '· web.public_url = "https://media.example.org/jellybit" — from JELLYBIT_WEB_PUBLIC_URL'
        in told
    )
    assert "· qbittorrent.poll_interval = 2.5 — from JELLYBIT_QBITTORRENT_POLL_INTERVAL" in told
    assert f'· qbittorrent.url = "{setup.qbt.url}" — from config file' in told
    secrets = [line for line in told if line.startswith(("· jellyfin.api_key", "· telegram.token"))]
    assert len(secrets) == 2
    assert all("a hidden string of" in line for line in secrets), secrets
    assert setup.tg.token not in "\n".join(lines)


def failures(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("✗")]


def the_failure(code: int, lines: list[str]) -> str:
    """The one ✗ line of a setup with one broken item."""
    assert code == 1, lines
    [line] = failures(lines)
    return line


def no_probe_files(*folders: Path) -> bool:
    return not any(
        path.name.startswith(".jellybit-check-") for f in folders for path in f.iterdir()
    )


async def test_a_working_setup_is_all_ticks(qbt_setup: Setup) -> None:
    code, lines = await qbt_setup.check()
    assert code == 0, lines
    version = qbt_setup.qbt.client().app_version()
    known_crash = [
        f"! qBittorrent {version} crashes when a WebUI client asks for sync/maindata after a "
        "hybrid torrent added by its v1 hash changed its id (qBittorrent issue 24714); "
        "jellybit polls around it — nothing to do for jellybit; let qBittorrent restart on "
        "failure (systemd Restart=on-failure) for other WebUI clients, and upgrade once a "
        "fixed release is out"
    ]
    downloads, root = qbt_setup.qbt.downloads_dir, qbt_setup.root
    assert [line for line in lines if not line.startswith("· ")] == [
        "✓ the configuration is valid",
        "✓ keys for `jellybit run` are set",
        f"✓ database {qbt_setup.database} is at the latest version ({latest_version()})",
        f"✓ qBittorrent {version} (WebAPI {qbt_setup.qbt.client().app_web_api_version()}) "
        f"at {qbt_setup.qbt.url}: login accepted",
        *(known_crash if version.startswith("v5") else []),
        f"✓ qBittorrent saves into {downloads}",
        f"✓ library.movies {root / 'movies'} exists and is writable",
        f"✓ library.shows {root / 'shows'} exists and is writable",
        f"✓ hardlink from {downloads} into library.movies {root / 'movies'} works",
        f"✓ hardlink from {downloads} into library.shows {root / 'shows'} works",
        "✓ the Telegram bot token is valid: @jellybit_test_bot",
        '✓ no Telegram webhook is set (telegram.mode = "polling")',
        f"✓ TMDB at {qbt_setup.tmdb.base_url}: API key accepted",
        f"✓ Jellyfin {JELLYFIN_VERSION} at {qbt_setup.jellyfin.url}: API key accepted",
        "✓ prowlarr: answers (search, tv-search, movie-search; by ep, imdbid, season, tmdbid,"
        " tvdbid)",
    ]
    assert no_probe_files(downloads, root / "movies", root / "shows")


async def test_database_missing_outdated_or_newer(setup: Setup) -> None:
    latest = latest_version()
    conn = sqlite3.connect(setup.database)
    conn.execute(f"PRAGMA user_version = {latest - 1}")
    conn.close()
    line = the_failure(*await setup.check())
    assert line == (
        f"✗ database {setup.database} is at version {latest - 1} of {latest}"
        " — run `jellybit migrate`"
    )

    conn = sqlite3.connect(setup.database)
    conn.execute(f"PRAGMA user_version = {latest + 1}")
    conn.close()
    line = the_failure(*await setup.check())
    assert "newer than this jellybit — upgrade jellybit" in line

    setup.database.unlink()
    line = the_failure(*await setup.check())
    assert line == f"✗ database {setup.database} does not exist — run `jellybit migrate`"


async def test_the_checklist_speaks_the_configured_language(setup: Setup) -> None:
    setup.database.unlink()
    code, lines = await setup.check({"general.language": "ru"})
    assert code == 1
    assert lines[0] == "✓ конфигурация в порядке"
    assert the_failure(code, lines) == (
        f"✗ базы данных {setup.database} нет — выполните `jellybit migrate`"
    )


async def test_qbittorrent_down(setup: Setup) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    code, lines = await setup.check({"qbittorrent.url": url})
    assert the_failure(code, lines) == (
        f"✗ qBittorrent is unreachable at {url}: Connection refused — start qBittorrent "
        "with its Web UI on (Options → Web UI), and check qbittorrent.url"
    )
    assert "– hardlink into library.movies: not tested (see above)" in lines


async def test_qbittorrent_refuses_a_wrong_password(qbt_setup: Setup) -> None:
    line = the_failure(*await qbt_setup.check({"qbittorrent.password": "wrong"}))
    assert line == (
        f"✗ qBittorrent at {qbt_setup.qbt.url}: the username or password was refused — set "
        "qbittorrent.username and qbittorrent.password (or JELLYBIT_QBITTORRENT_PASSWORD) "
        "to the Web UI's login"
    )


async def test_qbittorrent_save_path_goes_through_path_map(qbt_setup: Setup) -> None:
    downloads = str(qbt_setup.qbt.downloads_dir)
    here = qbt_setup.root / "downloads-here"
    line = the_failure(*await qbt_setup.check({"qbittorrent.path_map": {downloads: str(here)}}))
    assert line.startswith(f"✗ qBittorrent saves into {downloads}, here {here}, which does not")
    assert "qbittorrent.path_map" in line

    here.mkdir()
    code, lines = await qbt_setup.check({"qbittorrent.path_map": {downloads: str(here)}})
    assert code == 0, lines
    assert f"✓ qBittorrent saves into {downloads}, here {here}" in lines
    movies = qbt_setup.root / "movies"
    assert f"✓ hardlink from {here} into library.movies {movies} works" in lines


async def test_with_automatic_management_the_category_path_is_tested(qbt_setup: Setup) -> None:
    client = qbt_setup.qbt.client()
    category = {"qbittorrent.category": "check-tmm"}
    client.app_set_preferences({"auto_tmm_enabled": True})
    try:
        # The category's folder appears with its first download: until then, the default.
        code, lines = await qbt_setup.check(category)
        assert f"✓ qBittorrent saves into {qbt_setup.qbt.downloads_dir}" in lines, lines
        elsewhere = qbt_setup.root / "category-path"
        elsewhere.mkdir()
        client.torrents_create_category("check-tmm", save_path=str(elsewhere))
        code, lines = await qbt_setup.check(category)
        assert code == 0, lines
        assert f"✓ qBittorrent saves into {elsewhere}" in lines
        assert (
            f"✓ hardlink from {elsewhere} into library.shows {qbt_setup.root / 'shows'} works"
            in lines
        )
    finally:
        client.torrents_remove_categories("check-tmm")
        client.app_set_preferences({"auto_tmm_enabled": False})


async def test_a_bad_telegram_token(setup: Setup) -> None:
    code, lines = await setup.check({"telegram.token": "999:wrong-token"})
    assert the_failure(code, lines) == (
        "✗ Telegram refused the bot token — copy the token from @BotFather "
        "(/mybots → API Token) into telegram.token or JELLYBIT_TELEGRAM_TOKEN"
    )
    assert "– Telegram webhook: not checked without a valid token" in lines


async def test_the_webhook_must_match_telegram_mode(setup: Setup) -> None:
    setup.tg.webhook_url = "https://elsewhere.example/hook"
    line = the_failure(*await setup.check())
    assert line.startswith(
        "✗ a Telegram webhook is set to https://elsewhere.example/hook, "
        'but telegram.mode = "polling" — `jellybit run` removes it at start'
    )

    webhook_mode = {"telegram.mode": "webhook"}
    line = the_failure(*await setup.check(webhook_mode))
    assert line.startswith(
        f"✗ the Telegram webhook is https://elsewhere.example/hook, not {WEBHOOK}"
    )

    setup.tg.webhook_url = None
    line = the_failure(*await setup.check(webhook_mode))
    assert line == (
        '✗ no Telegram webhook is set, but telegram.mode = "webhook" — `jellybit run` sets it '
        f"to {WEBHOOK} at start; when it runs and still does not, its log says why "
        "(telegram.refused_start)"
    )

    setup.tg.webhook_url = WEBHOOK
    code, lines = await setup.check(webhook_mode)
    assert code == 0, lines
    assert f"✓ the Telegram webhook is {WEBHOOK}" in lines


async def test_tmdb_refuses_the_key(setup: Setup) -> None:
    line = the_failure(*await setup.check({"metadata.tmdb_api_key": "0" * 32}))
    assert line.startswith("✗ TMDB refused the API key — set metadata.tmdb_api_key")
    code, lines = await setup.check({"metadata.tmdb_api_key": ""})
    assert code == 0
    assert "– TMDB: no key, titles come from file names only" in lines


async def test_jellyfin_down_or_refusing_the_key(setup: Setup) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    line = the_failure(*await setup.check({"jellyfin.url": url}))
    assert line.startswith(f"✗ Jellyfin is unreachable at {url}: ")
    assert line.endswith(" — start Jellyfin, or correct jellyfin.url")

    line = the_failure(*await setup.check({"jellyfin.api_key": "wrong"}))
    assert line == (
        f"✗ Jellyfin at {setup.jellyfin.url} refused the API key — create a key in Jellyfin "
        "(Dashboard → API Keys) and set jellyfin.api_key"
    )


async def test_library_roots_missing_or_not_writable(setup: Setup) -> None:
    # Tests run as root: a folder under a regular file cannot exist, and
    # sysfs refuses new files even to root.
    (setup.root / "a-file").write_text("")
    missing = setup.root / "a-file" / "movies"
    code, lines = await setup.check({"library.movies": str(missing), "library.shows": "/sys"})
    assert code == 1
    assert failures(lines) == [
        f"✗ library.movies {missing} does not exist — create it (mkdir -p {missing}) "
        "or correct library.movies",
        "✗ library.shows /sys is not writable: Permission denied — let the user jellybit "
        "runs as create folders and files in it",
    ]
    assert "– hardlink into library.shows: not tested (see above)" in lines


@pytest.fixture
def shm_root() -> Iterator[Path]:
    """A library root on /dev/shm (tmpfs), another file system than /tmp."""
    root = Path(tempfile.mkdtemp(prefix="jellybit-check-", dir="/dev/shm"))
    yield root
    shutil.rmtree(root)


async def test_a_hardlink_across_file_systems_names_both(setup: Setup, shm_root: Path) -> None:
    downloads = setup.qbt.downloads_dir
    assert filesystem_of(downloads).device != filesystem_of(shm_root).device
    line = the_failure(*await setup.check({"library.movies": str(shm_root)}))
    assert line == (
        f"✗ no hardlink from {downloads} into library.movies {shm_root}: another file system"
        f" — Cannot hardlink across file systems: the download {downloads} is on "
        f"{filesystem_of(downloads)}; the library path {shm_root} is on "
        f'{filesystem_of(shm_root)}. Set library.cross_device = "copy" to copy such files, '
        "or put the library on the same file system as the downloads."
    )
    assert "(tmpfs) mounted at /dev/shm" in line

    code, lines = await setup.check(
        {"library.movies": str(shm_root), "library.cross_device": "copy"}
    )
    assert code == 0, lines
    assert (
        f"✓ no hardlink from {downloads} into library.movies {shm_root}: another file system, "
        'files are copied (library.cross_device = "copy")'
    ) in lines
    assert no_probe_files(downloads, shm_root)


async def test_an_unexpected_exception_is_a_cross_with_its_message() -> None:
    async def broken() -> list[Line]:
        raise KeyError("surprise")

    [line] = await _guarded("Jellyfin", broken())
    assert str(line) == "✗ Jellyfin — unexpected error: KeyError: 'surprise'"


async def test_each_search_source_is_checked(setup: Setup, tmp_path: Path) -> None:
    """A refused key, a web page instead of Torznab, qBittorrent without a plugin; no
    source at all is a dash."""
    assert isinstance(setup.qbt, FakeQbittorrentServer)
    jackett = FakeTorznab(flavour="jackett")
    async with jackett:
        sources = [
            {"name": "prowlarr", "url": setup.torznab.url, "api_key": "wrong"},
            {"name": "jackett", "url": jackett.url, "api_key": jackett.api_key},
        ]
        jackett.serve_html(200)
        code, lines = await setup.check({"search.torznab": sources, "search.qbittorrent": True})
    assert code == 1
    assert failures(lines) == [
        "✗ prowlarr: the API key was refused. — check its url and api_key in [search] torznab",
        "✗ jackett answered with a web page instead of results: the indexer is blocked or asks"
        " for a login. — check its url and api_key in [search] torznab",
        "✗ qBittorrent has no search plugin enabled — install or enable one in qBittorrent"
        " (Search tab → Search plugins…), with Python installed",
    ]
    assert setup.torznab.api_key not in "\n".join(lines)
    code, lines = await setup.check({"search.torznab": []})
    assert code == 0
    assert "– search: no source is set ([search]): /find is off" in lines
