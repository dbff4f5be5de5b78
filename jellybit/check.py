"""``jellybit check``: one line per item of the setup, ✓/✗ and the fix for each ✗.

Every check is independent and never raises: an expected failure is a ✗ with
the fix a person acts on, an unexpected exception a ✗ with its message. The
network checks run concurrently, each call with a timeout; the lines come out
in a fixed order. docs/check.md lists the items and their fix texts.
"""

import asyncio
import errno
import os
import re
import sqlite3
import tempfile
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import aiohttp

from common.explain import reason_text
from common.i18n import I18n, Texts
from core.config import FILE, Settings, set_values
from core.errors import AuthFailedError, ExternalError, RejectedError, UnreachableError
from core.paths import map_remote_path
from store.migrate import available_migrations, current_version
from worker.jellyfin import JellyfinClient
from worker.layout import CrossDeviceError, filesystem_of
from worker.qbt import QbtClient
from worker.tmdb import TmdbClient
from worker.torznab import SourceProblem, TorznabSource

Status = Literal["ok", "warning", "failed", "skipped", "info"]
TIMEOUT = 10.0  # seconds, per external call
PROBE_PREFIX = ".jellybit-check-"  # a dot file: Jellyfin skips it should one ever stay
_OS_REASON = re.compile(r"\[Errno -?\d+\] ([^'\"()\]]+)")
_MARKS: dict[Status, str] = {
    "ok": "✓",
    "warning": "!",
    "failed": "✗",
    "skipped": "–",
    "info": "·",
}


@dataclass(frozen=True)
class Line:
    status: Status
    what: str
    fix: str = ""

    def __str__(self) -> str:
        return f"{_MARKS[self.status]} {self.what}" + (f" — {self.fix}" if self.fix else "")


async def run_checks(settings: Settings) -> list[Line]:
    """Every item, in the order docs/check.md gives."""
    checks = _Checks(settings, I18n(settings.general.language).texts(None))
    tx = checks.tx
    groups = await asyncio.gather(
        _guarded(tx.plain("keys for `jellybit run`"), checks.run_keys()),
        _guarded(tx.plain("database"), checks.database()),
        _guarded(tx.plain("qBittorrent and the library"), checks.storage()),
        _guarded(tx.plain("Telegram"), checks.telegram()),
        _guarded(tx.plain("TMDB"), checks.tmdb()),
        _guarded(tx.plain("Jellyfin"), checks.jellyfin()),
        _guarded(tx.plain("search"), checks.search()),
    )
    config = Line("ok", tx.plain("the configuration is valid"))
    return [config, *_sources(tx, settings), *(line for group in groups for line in group)]


def _sources(tx: Texts, settings: Settings) -> list[Line]:
    """Each key set to something other than its default, and where it came from."""
    lines = []
    for key, value, source in set_values(settings):
        origin = tx.plain("config file") if source == FILE else source
        lines.append(
            Line("info", f"{key} = {value}", tx.plain("from {origin}").format(origin=origin))
        )
    return lines


async def _guarded(what: str, check: Awaitable[list[Line]]) -> list[Line]:
    """A check that raised unexpectedly is a ✗ with the exception's message."""
    try:
        return await check
    except Exception as error:
        return [Line("failed", what, f"unexpected error: {type(error).__name__}: {error}"[:500])]


class _Checks:
    def __init__(self, settings: Settings, tx: Texts) -> None:
        self.settings = settings
        self.tx = tx

    # --- local -------------------------------------------------------------------

    async def run_keys(self) -> list[Line]:
        missing = self.settings.missing_for_run()
        if missing:
            return [
                Line(
                    "failed",
                    self.tx.plain("keys for `jellybit run` are missing"),
                    "; ".join(missing),
                )
            ]
        return [Line("ok", self.tx.plain("keys for `jellybit run` are set"))]

    async def database(self) -> list[Line]:
        return [await asyncio.to_thread(self._database)]

    def _database(self) -> Line:
        tx, path = self.tx, self.settings.database_path
        latest = len(available_migrations())
        migrate = tx.plain("run `jellybit migrate`")
        if not path.exists():
            return Line(
                "failed", tx.plain("database {path} does not exist").format(path=path), migrate
            )
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=TIMEOUT)
            try:
                version = current_version(conn)
            finally:
                conn.close()
        except sqlite3.Error as error:
            return Line(
                "failed",
                tx.plain("database {path} cannot be read: {error}").format(path=path, error=error),
                tx.plain("check the file and general.data_dir"),
            )
        if version == latest:
            what = tx.plain("database {path} is at the latest version ({latest})")
            return Line("ok", what.format(path=path, latest=latest))
        if version > latest:
            what = tx.plain("database {path} is at version {version}, newer than this jellybit")
            return Line(
                "failed", what.format(path=path, version=version), tx.plain("upgrade jellybit")
            )
        what = tx.plain("database {path} is at version {version} of {latest}")
        return Line("failed", what.format(path=path, version=version, latest=latest), migrate)

    # --- qBittorrent, library roots, hardlinks -------------------------------------

    async def storage(self) -> list[Line]:
        """qBittorrent first: the hardlink test starts from its save path."""
        lines, save = await self._qbittorrent()
        library = self.settings.library
        roots = {"movies": library.movies, "shows": library.shows}
        usable: set[str] = set()
        for key, root in roots.items():
            line = await asyncio.to_thread(self._library_root, key, root)
            lines.append(line)
            if line.status == "ok":
                usable.add(key)
        for key, root in roots.items():
            lines.append(await asyncio.to_thread(self._hardlink, save, key, root, key in usable))
        return lines

    async def _qbittorrent(self) -> tuple[list[Line], Path | None]:
        tx, settings = self.tx, self.settings.qbittorrent
        client = QbtClient(settings, timeout=TIMEOUT)
        try:
            try:
                server = await client.server()
            except AuthFailedError as error:
                what = tx.plain("qBittorrent at {url}: {detail}")
                fix = tx.plain(
                    "set qbittorrent.username and qbittorrent.password "
                    "(or JELLYBIT_QBITTORRENT_PASSWORD) to the Web UI's login"
                )
                return [
                    Line("failed", what.format(url=settings.url, detail=error.detail), fix),
                    self._no_save_path(),
                ], None
            except ExternalError as error:
                what = tx.plain("qBittorrent is unreachable at {url}: {detail}")
                detail = _short(error.detail)
                fix = tx.plain(
                    "start qBittorrent with its Web UI on (Options → Web UI), "
                    "and check qbittorrent.url"
                )
                return [
                    Line("failed", what.format(url=settings.url, detail=detail), fix),
                    self._no_save_path(),
                ], None
            what = tx.plain("qBittorrent {version} (WebAPI {web_api}) at {url}: login accepted")
            version, web_api = server.version, server.web_api
            lines = [Line("ok", what.format(version=version, web_api=web_api, url=settings.url))]
            if server.maindata_crashes_on_id_change:
                lines.append(self._known_crash(version))
            try:
                remote = await client.save_paths()
            except ExternalError as error:
                what = tx.plain("qBittorrent's save path: {detail}")
                fix = tx.plain("check that qBittorrent is healthy, then run the check again")
                return [*lines, Line("failed", what.format(detail=_short(error.detail)), fix)], None
        finally:
            await client.close()
        line, save = await asyncio.to_thread(self._save_path, remote)
        return [*lines, line], save

    def _known_crash(self, version: str) -> Line:
        tx = self.tx
        what = tx.plain(
            "qBittorrent {version} crashes when a WebUI client asks for sync/maindata "
            "after a hybrid torrent added by its v1 hash changed its id "
            "(qBittorrent issue 24714); jellybit polls around it"
        )
        fix = tx.plain(
            "nothing to do for jellybit; let qBittorrent restart on failure "
            "(systemd Restart=on-failure) for other WebUI clients, and upgrade once a "
            "fixed release is out"
        )
        return Line("warning", what.format(version=version), fix)

    def _no_save_path(self) -> Line:
        return Line(
            "skipped", self.tx.plain("qBittorrent's save path: not known without qBittorrent")
        )

    def _save_path(self, remote: list[str]) -> tuple[Line, Path | None]:
        """The first of qBittorrent's candidate save paths that exists here."""
        tx, path_map = self.tx, self.settings.qbittorrent.path_map
        remote = [path for path in remote if path]
        if not remote:
            what = tx.plain("qBittorrent did not say where it saves")
            return Line("failed", what, tx.plain("set a default save path in qBittorrent")), None
        for candidate in remote:
            local = Path(map_remote_path(candidate, path_map))
            if local.is_dir():
                if str(local) == candidate:
                    what = tx.plain("qBittorrent saves into {path}").format(path=local)
                else:
                    what = tx.plain("qBittorrent saves into {remote}, here {path}")
                    what = what.format(remote=candidate, path=local)
                return Line("ok", what), local
        first = remote[0]
        what = tx.plain("qBittorrent saves into {remote}, here {path}, which does not exist")
        fix = tx.plain(
            "when qBittorrent sees other paths (a container, another machine), map them "
            'in qbittorrent.path_map, e.g. {{"/downloads" = "/srv/downloads"}}'
        )
        return Line(
            "failed", what.format(remote=first, path=map_remote_path(first, path_map)), fix
        ), None

    def _library_root(self, key: str, root: Path) -> Line:
        tx = self.tx
        if not root.is_dir():
            if root.exists():
                what = tx.plain("library.{key} {root} is not a folder")
                return Line(
                    "failed",
                    what.format(key=key, root=root),
                    tx.plain("point library.{key} at a folder").format(key=key),
                )
            what = tx.plain("library.{key} {root} does not exist")
            fix = tx.plain("create it (mkdir -p {root}) or correct library.{key}")
            return Line("failed", what.format(key=key, root=root), fix.format(key=key, root=root))
        try:
            descriptor, name = tempfile.mkstemp(prefix=PROBE_PREFIX, dir=root)
        except OSError as error:
            what = tx.plain("library.{key} {root} is not writable: {error}")
            fix = tx.plain("let the user jellybit runs as create folders and files in it")
            return Line("failed", what.format(key=key, root=root, error=error.strerror), fix)
        os.close(descriptor)
        os.unlink(name)
        return Line(
            "ok", tx.plain("library.{key} {root} exists and is writable").format(key=key, root=root)
        )

    def _hardlink(self, save: Path | None, key: str, root: Path, usable: bool) -> Line:
        """Link a new file from the save path into the root, compare inodes, remove both."""
        tx, library = self.tx, self.settings.library
        if library.link_mode != "hardlink":
            what = tx.plain("hardlink into library.{key}: not needed (library.link_mode = {mode})")
            return Line("skipped", what.format(key=key, mode=library.link_mode))
        if save is None or not usable:
            what = tx.plain("hardlink into library.{key}: not tested (see above)")
            return Line("skipped", what.format(key=key))
        try:
            descriptor, name = tempfile.mkstemp(prefix=PROBE_PREFIX, dir=save)
        except OSError as error:
            what = tx.plain("hardlink test: cannot create a file in {save}: {error}")
            fix = tx.plain("run `jellybit check` as a user who may write there")
            return Line("failed", what.format(save=save, error=error.strerror), fix)
        os.close(descriptor)
        source = Path(name)
        target = root / source.name
        try:
            os.link(source, target)
        except OSError as error:
            return self._link_failed(error, save, key, root)
        else:
            try:
                a, b = source.stat(), target.stat()
            finally:
                target.unlink()
            if (a.st_ino, a.st_dev) != (b.st_ino, b.st_dev):
                what = tx.plain("hardlink from {save} into {root} made a different file")
                return Line(
                    "failed",
                    what.format(save=save, root=root),
                    tx.plain('set library.link_mode = "copy"'),
                )
            what = tx.plain("hardlink from {save} into library.{key} {root} works")
            return Line("ok", what.format(save=save, key=key, root=root))
        finally:
            source.unlink()

    def _link_failed(self, error: OSError, save: Path, key: str, root: Path) -> Line:
        tx = self.tx
        if error.errno == errno.EXDEV:
            reason = str(CrossDeviceError(save, root, filesystem_of(save), filesystem_of(root)))
            if self.settings.library.cross_device == "copy":
                what = tx.plain(
                    "no hardlink from {save} into library.{key} {root}: "
                    'another file system, files are copied (library.cross_device = "copy")'
                )
                return Line("ok", what.format(save=save, key=key, root=root))
            what = tx.plain(
                "no hardlink from {save} into library.{key} {root}: another file system"
            )
            return Line("failed", what.format(save=save, key=key, root=root), reason)
        what = tx.plain("no hardlink from {save} into library.{key} {root}: {error}")
        fix = tx.plain('if this file system has no hard links, set library.link_mode = "copy"')
        return Line("failed", what.format(save=save, key=key, root=root, error=error.strerror), fix)

    # --- Telegram ------------------------------------------------------------------

    async def telegram(self) -> list[Line]:
        tx, settings = self.tx, self.settings.telegram
        if not settings.token:
            return [Line("skipped", tx.plain("Telegram: no token to check (see above)"))]
        # Here, not at the top: aiogram builds its models on import (seconds of CPU), and
        # a check without a token has no use for them.
        from aiogram.exceptions import (
            TelegramAPIError,
            TelegramNetworkError,
            TelegramNotFound,
            TelegramUnauthorizedError,
        )

        from bot.app import make_bot

        server = settings.api_base or "https://api.telegram.org"
        bot = make_bot(settings)
        try:
            try:
                async with asyncio.timeout(TIMEOUT):
                    me = await bot.get_me()
                    info = await bot.get_webhook_info()
            except (TelegramUnauthorizedError, TelegramNotFound):
                what = tx.plain("Telegram refused the bot token")
                fix = tx.plain(
                    "copy the token from @BotFather (/mybots → API Token) into telegram.token "
                    "or JELLYBIT_TELEGRAM_TOKEN"
                )
                return [Line("failed", what, fix), self._no_webhook()]
            except (TelegramNetworkError, TimeoutError, aiohttp.ClientError) as error:
                what = tx.plain("Telegram is unreachable at {server}: {detail}")
                fix = tx.plain("check the network, and telegram.api_base when it is set")
                detail = str(error) or type(error).__name__
                return [
                    Line("failed", what.format(server=server, detail=detail), fix),
                    self._no_webhook(),
                ]
            except TelegramAPIError as error:
                what = tx.plain("Telegram answered: {detail}").format(detail=error.message)
                return [
                    Line("failed", what, tx.plain("check telegram.token and telegram.api_base")),
                    self._no_webhook(),
                ]
        finally:
            await bot.session.close()
        what = tx.plain("the Telegram bot token is valid: @{username}")
        return [Line("ok", what.format(username=me.username)), self._webhook(info.url)]

    def _no_webhook(self) -> Line:
        return Line("skipped", self.tx.plain("Telegram webhook: not checked without a valid token"))

    def _webhook(self, url: str) -> Line:
        tx, mode = self.tx, self.settings.telegram.mode
        other_bot = tx.plain(
            "if another program uses this bot token, give jellybit a bot of its own"
        )
        if mode == "polling":
            if not url:
                return Line(
                    "ok", tx.plain('no Telegram webhook is set (telegram.mode = "polling")')
                )
            what = tx.plain('a Telegram webhook is set to {url}, but telegram.mode = "polling"')
            fix = tx.plain("`jellybit run` removes it at start")
            return Line("failed", what.format(url=url), f"{fix}; {other_bot}")
        from bot.app import WEBHOOK_PATH  # with aiogram: see telegram()

        expected = self.settings.web.public_url.rstrip("/") + WEBHOOK_PATH
        if url == expected:
            return Line("ok", tx.plain("the Telegram webhook is {url}").format(url=url))
        fix = tx.plain(
            "`jellybit run` sets it to {expected} at start; when it runs and still "
            "does not, its log says why (telegram.refused_start)"
        ).format(expected=expected)
        if not url:
            what = tx.plain('no Telegram webhook is set, but telegram.mode = "webhook"')
            return Line("failed", what, fix)
        what = tx.plain("the Telegram webhook is {url}, not {expected}")
        return Line("failed", what.format(url=url, expected=expected), f"{fix}; {other_bot}")

    # --- TMDB and Jellyfin ------------------------------------------------------------

    async def tmdb(self) -> list[Line]:
        tx, settings = self.tx, self.settings.metadata
        if settings.provider != "tmdb":
            return [Line("skipped", tx.plain('TMDB: off (metadata.provider = "none")'))]
        if not settings.tmdb_api_key:
            return [Line("skipped", tx.plain("TMDB: no key, titles come from file names only"))]
        client = TmdbClient(settings, timeout=TIMEOUT, max_tries=1)
        try:
            await client.search("movie", "Jellyfish", None)  # any answer proves the key
        except AuthFailedError:
            fix = tx.plain(
                "set metadata.tmdb_api_key (or JELLYBIT_METADATA_TMDB_API_KEY) to an API key or "
                "a read access token from themoviedb.org (Settings → API)"
            )
            return [Line("failed", tx.plain("TMDB refused the API key"), fix)]
        except UnreachableError as error:
            what = tx.plain("TMDB is unreachable at {url}: {detail}")
            fix = tx.plain("check the network and metadata.tmdb_base")
            return [Line("failed", what.format(url=settings.tmdb_base, detail=error.detail), fix)]
        except RejectedError as error:
            what = tx.plain("TMDB at {url} refused the request: {detail}")
            fix = tx.plain("check metadata.tmdb_base and metadata.language")
            return [Line("failed", what.format(url=settings.tmdb_base, detail=error.detail), fix)]
        finally:
            await client.close()
        return [
            Line("ok", tx.plain("TMDB at {url}: API key accepted").format(url=settings.tmdb_base))
        ]

    async def jellyfin(self) -> list[Line]:
        tx, settings = self.tx, self.settings.jellyfin
        if not settings.url:
            return [Line("skipped", tx.plain("Jellyfin: not configured, no library refresh"))]
        client = JellyfinClient(settings, timeout=TIMEOUT)
        try:
            version = await client.version()
        except AuthFailedError:
            what = tx.plain("Jellyfin at {url} refused the API key").format(url=settings.url)
            fix = tx.plain(
                "create a key in Jellyfin (Dashboard → API Keys) and set jellyfin.api_key"
            )
            return [Line("failed", what, fix)]
        except UnreachableError as error:
            what = tx.plain("Jellyfin is unreachable at {url}: {detail}")
            fix = tx.plain("start Jellyfin, or correct jellyfin.url")
            return [Line("failed", what.format(url=settings.url, detail=error.detail), fix)]
        except RejectedError as error:
            what = tx.plain("Jellyfin at {url} answered {detail}")
            fix = tx.plain("jellyfin.url must be Jellyfin's address, e.g. http://127.0.0.1:8096")
            return [Line("failed", what.format(url=settings.url, detail=error.detail), fix)]
        finally:
            await client.close()
        what = tx.plain("Jellyfin {version} at {url}: API key accepted")
        return [Line("ok", what.format(version=version, url=settings.url))]

    # --- search -------------------------------------------------------------------------

    async def search(self) -> list[Line]:
        """Each source: a Torznab endpoint's caps, qBittorrent's enabled plugins."""
        tx, settings = self.tx, self.settings.search
        if not settings.enabled:
            return [Line("skipped", tx.plain("search: no source is set ([search]): /find is off"))]
        async with aiohttp.ClientSession() as session:
            sources = [TorznabSource(e, session, timeout=TIMEOUT) for e in settings.torznab]
            lines = list(await asyncio.gather(*(self._torznab(source) for source in sources)))
        if settings.qbittorrent:
            lines.append(await self._search_plugins())
        return lines

    async def _torznab(self, source: TorznabSource) -> Line:
        tx = self.tx
        try:
            caps = await source.caps()
        except SourceProblem as problem:
            fix = tx.plain("check its url and api_key in [search] torznab")
            return Line("failed", reason_text(tx, problem.problem), fix)
        modes = [name for name, mode in caps.modes.items() if mode.available]
        ids = sorted({param for name in modes for param in caps.mode(name).params} - {"q"})
        what = tx.plain("{source}: answers ({modes}; by {ids})").format(
            source=source.name, modes=", ".join(modes), ids=", ".join(ids) or "q"
        )
        return Line("ok", what)

    async def _search_plugins(self) -> Line:
        tx = self.tx
        client = QbtClient(self.settings.qbittorrent, timeout=TIMEOUT)
        try:
            plugins = await client.search_plugins()
        except (UnreachableError, AuthFailedError, RejectedError) as error:
            what = tx.plain("qBittorrent's search plugins could not be listed: {detail}")
            return Line("failed", what.format(detail=_short(error.detail)))
        finally:
            await client.close()
        enabled = [str(plugin.get("name")) for plugin in plugins if plugin.get("enabled")]
        if not enabled:
            fix = tx.plain(
                "install or enable one in qBittorrent (Search tab → Search plugins…), "
                "with Python installed"
            )
            return Line("failed", tx.plain("qBittorrent has no search plugin enabled"), fix)
        what = tx.plain("qBittorrent's search plugins: {names}").format(names=", ".join(enabled))
        return Line("ok", what)


def _short(detail: str) -> str:
    """The OS reason in qbittorrent-api's nested connection errors ("Connection
    refused"), not three layers of wrapped reprs."""
    found = _OS_REASON.search(detail)
    return found.group(1) if found else detail[:200]
