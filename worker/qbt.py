"""The qBittorrent adapter: the one boundary between jellybit and qbittorrent-api.

qbittorrent-api is synchronous: every call runs in one worker thread with a
timeout, is logged with its duration and outcome, and its exceptions become
ours — ``UnreachableError`` (retry later), ``AuthFailedError`` (fix the
config), ``RejectedError`` (qBittorrent said no).

The answers of 4.x and 5.x differ and are told apart here only: an add is
``Ok.``/``Fails.`` (HTTP 200 both) in 4.x, JSON counts
(``{"success_count": 1, "failure_count": 0, …}``) or HTTP 409 in 5.x; a good
login is ``Ok.`` in 4.x and an empty 204 in 5.x (qbittorrent-api takes both);
``pausedUP``/``pausedDL`` became ``stoppedUP``/``stoppedDL`` (``core.live``).
Search jobs (``search_*``, used by ``worker/qbt_search.py``) belong to the WebUI
session in 4.x and are shared in 5.x; 5.x's rows add ``engineName`` and ``pubDate``.
"""

import asyncio
import functools
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, TypeVar

import aiohttp
import qbittorrentapi

from common.logs import Logger, external_call, get_logger
from core.config import QbittorrentSettings
from core.errors import AuthFailedError, RejectedError, UnreachableError

SYSTEM = "qbittorrent"
TAG = "jellybit"
PROBE_TIMEOUT = aiohttp.ClientTimeout(total=2)
T = TypeVar("T")


@dataclass(frozen=True)
class Server:
    """Which qBittorrent answers: ``version`` as it says it (``v5.3.0``), its WebAPI."""

    version: str
    web_api: str

    @property
    def major(self) -> int:
        digits = self.version.lstrip("vV").split(".")[0]
        return int(digits) if digits.isdigit() else 0

    @property
    def maindata_crashes_on_id_change(self) -> bool:
        """5.x dies (SIGSEGV) serving ``sync/maindata`` after a torrent changed its id
        (a hybrid added by its v1 hash, once its metadata arrives; qBittorrent issue
        24714): ``SyncController`` keeps the old id and serializes a null torrent.
        docs/qbittorrent.md has the details and how the poller keeps clear of it."""
        return self.major >= 5


class QbtClient:
    def __init__(self, settings: QbittorrentSettings, *, timeout: float = 15.0) -> None:
        self.category = settings.category
        self._timeout = timeout
        self._client = qbittorrentapi.Client(
            host=settings.url,
            username=settings.username,
            password=settings.password,
            REQUESTS_ARGS={"timeout": (5, timeout)},
            SIMPLE_RESPONSES=True,  # plain dicts: cheaper per torrent per tick
            DISABLE_LOGGING_DEBUG_OUTPUT=True,
        )
        # ONE thread: qbittorrent-api's re-login after a 403 replaces the HTTP
        # session, which breaks a request in flight on another thread (seen as a
        # second 403). Calls are short; the poller's sync and an add just queue.
        self._threads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qbittorrent")
        self._log = get_logger()
        self._probe_url = settings.url.rstrip("/") + "/api/v2/app/version"

    async def close(self) -> None:
        await asyncio.to_thread(self._threads.shutdown, wait=True, cancel_futures=True)

    async def server(self) -> Server:
        """qBittorrent's version and its WebAPI version."""
        app = await self._call("app_version", self._client.app_version)
        api = await self._call("app_web_api_version", self._client.app_web_api_version)
        return Server(str(app), str(api))

    async def answers(self) -> bool:
        """Whether the WebUI answers HTTP at all within ``PROBE_TIMEOUT`` (any status):
        a cheap probe while qBittorrent is down, off the adapter's one thread, which
        may still wait for a hung call."""
        try:
            async with (
                aiohttp.ClientSession(timeout=PROBE_TIMEOUT) as session,
                session.get(self._probe_url) as response,
            ):
                return response.status > 0
        except (aiohttp.ClientError, TimeoutError, OSError):
            return False

    async def has_torrent(self, infohash: str) -> bool:
        """Whether qBittorrent finds a torrent by this hash (its own lookup, which
        also knows a hybrid by its v1 hash when its id is the truncated v2)."""
        try:
            await self._call(
                "torrents_properties", self._client.torrents_properties, torrent_hash=infohash
            )
        except RejectedError:  # 404: no such torrent
            return False
        return True

    async def count(self) -> int:
        """How many torrents qBittorrent has (``torrents/count``, 5.x): cheap."""
        return int(await self._call("torrents_count", self._client.torrents_count))

    async def new_session(self) -> None:
        """Log out and in again: qBittorrent keeps its ``sync/maindata`` state per
        WebUI session, and a new session starts with none."""
        await self._call("auth_log_out", self._client.auth_log_out)
        await self._call("auth_log_in", self._client.auth_log_in)

    async def save_paths(self) -> list[str]:
        """Where qBittorrent puts jellybit's torrents, most specific first.

        With automatic torrent management (or category paths in manual mode) a
        torrent of the category goes to the category's path (relative ones and
        an empty one, the category's name, are under the default save path),
        a folder qBittorrent makes at the first download; else to the default.
        """
        prefs: dict[str, Any] = dict(
            await self._call("app_preferences", self._client.app_preferences)
        )
        default = str(prefs.get("save_path", ""))
        if not (prefs.get("auto_tmm_enabled") or prefs.get("use_category_paths_in_manual_mode")):
            return [default]
        categories: dict[str, Any] = dict(
            await self._call("torrents_categories", self._client.torrents_categories)
        )
        category = categories.get(self.category) or {}
        path = str(category.get("savePath") or self.category)
        return [str(PurePosixPath(default) / path), default]

    async def sync(self, rid: int) -> dict[str, Any]:
        """``sync/maindata`` since ``rid`` (0 = everything)."""
        answer = await self._call("sync_maindata", self._client.sync_maindata, rid=rid)
        return dict(answer)

    async def list_torrents(self) -> list[dict[str, Any]]:
        """Every torrent with all its fields (costly: for rare checks, not polling)."""
        return list(await self._call("torrents_info", self._client.torrents_info))

    async def torrent_files(self, torrent_id: str) -> list[dict[str, Any]]:
        """The torrent's files: ``name`` (relative to its save path, with the top
        folder) and ``size``."""
        return list(
            await self._call("torrents_files", self._client.torrents_files, torrent_hash=torrent_id)
        )

    async def add(
        self,
        *,
        magnet: str | None = None,
        torrent_file: bytes | None = None,
        log: Logger | None = None,
    ) -> None:
        """Add a magnet or a .torrent with jellybit's category and tag.

        A refusal — 4.x ``Fails.`` (HTTP 200) or 5.x ``failure_count`` / HTTP 409
        for duplicates, invalid magnets and more — raises ``RejectedError``.
        """
        if (magnet is None) == (torrent_file is None):
            raise ValueError("add needs exactly one of magnet and torrent_file")
        source: dict[str, Any] = (
            {"urls": magnet}
            if magnet is not None
            else {"torrent_files": {"upload.torrent": torrent_file}}
        )
        answer = await self._call(
            "torrents_add",
            self._client.torrents_add,
            category=self.category,
            tags=TAG,
            log=log,
            **source,
        )
        if not add_accepted(answer):
            raise RejectedError(SYSTEM, f"qBittorrent refused to add the torrent ({answer})")

    async def delete(
        self, torrent_id: str, *, delete_files: bool, log: Logger | None = None
    ) -> None:
        await self._call(
            "torrents_delete",
            self._client.torrents_delete,
            torrent_hashes=torrent_id,
            delete_files=delete_files,
            log=log,
        )

    async def start(self, torrent_id: str, log: Logger | None = None) -> None:
        """Resume (4.x) / start (5.x) a paused or stopped torrent."""
        await self._call(
            "torrents_start", self._client.torrents_start, torrent_hashes=torrent_id, log=log
        )

    async def reannounce(self, torrent_id: str, log: Logger | None = None) -> None:
        await self._call(
            "torrents_reannounce",
            self._client.torrents_reannounce,
            torrent_hashes=torrent_id,
            log=log,
        )

    async def recheck(self, torrent_id: str, log: Logger | None = None) -> None:
        await self._call(
            "torrents_recheck", self._client.torrents_recheck, torrent_hashes=torrent_id, log=log
        )

    # ---- search: qBittorrent's own search plugins (worker/qbt_search.py) -------------------
    async def search_plugins(self) -> list[dict[str, Any]]:
        """Every installed search plugin: ``name``, ``fullName``, ``enabled``,
        ``supportedCategories`` (``[{"id": "all", "name": …}, …]``), ``url``, ``version``."""
        return list(await self._call("search_plugins", self._client.search_plugins))

    async def search_start(self, pattern: str, plugins: list[str], category: str) -> int:
        """Start a search job; its id. qBittorrent's 409 (no Python for the plugins, or
        five searches running already) raises ``SearchBusyError``."""
        try:
            answer = await self._call(
                "search_start",
                self._client.search_start,
                pattern=pattern,
                plugins=plugins,
                category=category,
            )
        except RejectedError as error:
            if isinstance(error.__cause__, qbittorrentapi.Conflict409Error):
                raise SearchBusyError(SYSTEM, error.detail) from error
            raise
        started: dict[str, Any] = dict(answer)
        return int(started["id"])

    async def search_status(self, search_id: int) -> dict[str, Any]:
        """The job's ``status`` (``Running``/``Stopped``) and ``total``; a job qBittorrent
        does not know (deleted; 4.x keeps jobs per WebUI session) is a ``RejectedError``."""
        listed = list(
            await self._call("search_status", self._client.search_status, search_id=search_id)
        )
        if not listed:
            raise RejectedError(SYSTEM, f"no status for search {search_id}")
        return dict(listed[0])

    async def search_results(self, search_id: int, *, offset: int, limit: int) -> dict[str, Any]:
        """Up to ``limit`` rows from ``offset``: ``{"results": […], "status": …, "total": n}``."""
        answer = await self._call(
            "search_results",
            self._client.search_results,
            search_id=search_id,
            offset=offset,
            limit=limit,
        )
        return dict(answer)

    async def search_stop(self, search_id: int) -> None:
        await self._call("search_stop", self._client.search_stop, search_id=search_id)

    async def search_delete(self, search_id: int) -> None:
        await self._call("search_delete", self._client.search_delete, search_id=search_id)

    async def _call(
        self,
        operation: str,
        function: Callable[..., T],
        *,
        log: Logger | None = None,
        **kwargs: Any,
    ) -> T:
        loop = asyncio.get_running_loop()
        async with external_call(log or self._log, SYSTEM, operation):
            try:
                # The thread's own HTTP timeout ends it; this one frees the caller.
                async with asyncio.timeout(self._timeout + 5):
                    return await loop.run_in_executor(
                        self._threads, functools.partial(function, **kwargs)
                    )
            except TimeoutError:
                raise UnreachableError(SYSTEM, f"no answer in {self._timeout:.0f} s") from None
            except qbittorrentapi.APIError as error:
                raise _mapped(error) from error


class SearchBusyError(RejectedError):
    """``search/start`` refused with 409: qBittorrent finds no Python for its search
    plugins, or five of its searches already run (its ``MAX_CONCURRENT_SEARCHES``)."""


def add_accepted(answer: object) -> bool:
    """4.x: ``Ok.``; 5.x: counts, where a pending one (a URL being fetched) counts."""
    if isinstance(answer, Mapping):
        accepted = int(answer.get("success_count") or 0) + int(answer.get("pending_count") or 0)
        return accepted > 0 and not answer.get("failure_count")
    return str(answer).strip() == "Ok."


def _mapped(error: qbittorrentapi.APIError) -> Exception:
    detail = str(error).strip() or type(error).__name__
    if isinstance(error, (qbittorrentapi.LoginFailed, qbittorrentapi.HTTP401Error)):
        return AuthFailedError(SYSTEM, "the username or password was refused")
    if isinstance(error, qbittorrentapi.HTTP403Error):
        return AuthFailedError(SYSTEM, f"access denied ({detail})")
    if isinstance(error, qbittorrentapi.HTTP4XXError):
        return RejectedError(SYSTEM, detail)
    return UnreachableError(SYSTEM, detail)
