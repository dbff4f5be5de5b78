"""A fake qBittorrent WebUI (API v2) for behaviour tests: what jellybit calls, answered
as qbittorrent-nox 4.5.2 or 5.3.0 answers (``version="4.5"`` or ``"5"``).

Its torrents are built from records of the real versions (``tests/data/qbittorrent/``:
every field of a torrent, its properties, its files, the server state), and
``tests/contract/test_qbittorrent.py`` runs the same cases against this fake and against
real qbittorrent-nox 4.5 and 5.x, so a difference in a shape or an answer fails there.

Served: ``auth/login`` / ``logout`` (a ``SID`` cookie; 4.5 answers ``Ok.``/``Fails.``,
5.x 204/401), ``app/version``, ``app/webapiVersion``, ``app/preferences``,
``torrents/categories``, ``sync/maindata`` (``rid``: a partial answer holds only what
changed since that answer, removals in ``torrents_removed``; 5.x leaves out empty
collections), ``torrents/info`` (``category``, ``hashes``), ``torrents/count`` (5.x),
``torrents/properties`` and ``files`` (404 for an unknown hash), ``torrents/add`` (magnets
in ``urls``, files in ``torrents``; 4.5 ``Ok.``/``Fails.``, 5.x JSON counts/409; a bad
file 415), ``delete``, ``pause``/``resume`` (4.5) or ``stop``/``start`` (5.x; the other
pair is a 404), ``recheck``, ``reannounce``; and the search: ``search/plugins``,
``enablePlugin``, ``start`` (409 past five running jobs or without Python), ``status``,
``results`` (``offset``/``limit``), ``stop``, ``delete`` (404 for an unknown id). 4.5 keeps
search jobs per WebUI session, 5.x one table for all.

The search plugin is the tests' own (``install_search_plugin(site)``): a job asks the
``SearchSite`` (``tests/support/search_site.py``) as ``search_plugin.py`` does, and its
rows go through what the version's novaprinter prints and its SearchHandler reads back
(4.5: no ``engineName``/``pubDate``, a ``|`` in a name becomes a space; 5.x: an empty
``desc_link`` reads as ``descrLink`` "-1").

The swarm: ``offer(made)`` makes a torrent downloadable. Added, it fetches its metadata
(``metaDL``) for ``metadata_s``, downloads for ``download_s`` and then seeds, with its
files copied into its save path, as a real download leaves them. A magnet nobody offers
stays in ``metaDL``. ``hold(t)`` keeps a torrent downloading until ``release(t)``.
The server state's ``free_space_on_disk`` is the free space of the downloads folder's disk,
as qBittorrent reports it for its default save path: 0 in the first answer (its disk checker
answers later), and a partial answer carries the server state's changed keys only. A
torrent whose files do not fit on the disk (``ENOSPC``) stops in ``error``, as libtorrent's
upload mode shows in 4.5 and 5.x; a start or a recheck tries again.
Faults (``tests/support/http_fake.py``): ``set_down``, ``set_delay``, ``fail_next``;
``restart()`` forgets the sessions (the next call is a 403, as after a real restart).
"""

from __future__ import annotations

import asyncio
import base64
import copy
import email.parser
import errno
import json
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Self, TypeVar
from urllib.parse import parse_qs, quote, unquote, urlsplit

import libtorrent as lt
import qbittorrentapi
from aiohttp import web

from tests.support.http_fake import Call, HttpFake
from tests.support.search_site import PLUGIN_NAME, SearchSite, plugin_error_row
from tests.support.torrents import MadeTorrent

Version = Literal["4.5", "5"]
RECORDS = Path(__file__).parent.parent / "data" / "qbittorrent"
_KEPT_ANSWERS = 64  # maindata answers a later rid may refer to
_CALL_TIMEOUT = 10.0
RECHECK_S = 0.3
MAX_SEARCHES = 5  # running search jobs at once (SearchController's MAX_CONCURRENT_SEARCHES)
NOVA_CATEGORIES = {
    "all",
    "anime",
    "books",
    "games",
    "movies",
    "music",
    "pictures",
    "software",
    "tv",
}
T = TypeVar("T")


def record(version: Version) -> dict[str, Any]:
    """What the real ``version`` answered (``tests/data/qbittorrent/<version>.json``)."""
    loaded: dict[str, Any] = json.loads((RECORDS / f"{version}.json").read_text())
    return loaded


@dataclass
class _Torrent:
    id: str
    v1: str | None
    v2: str | None
    name: str
    save_path: Path
    category: str
    tags: str
    magnet: str
    added_on: int
    made: MadeTorrent | None = None  # None: nobody offers it (stays in metaDL)
    has_metadata: bool = False
    started_download: float = 0.0  # monotonic time the metadata arrived
    stopped: bool = False
    held: bool = False
    done: bool = False
    checking_until: float = 0.0  # a recheck in progress, until this monotonic time
    disk_full: bool = False  # its files did not fit: "error" until started or rechecked

    @property
    def size(self) -> int:
        if self.made is None or not self.has_metadata:
            return 0
        content = self.made.content
        if content.is_file():
            return content.stat().st_size
        return sum(p.stat().st_size for p in content.rglob("*") if p.is_file())


@dataclass
class _Search:
    """One search job: its plugins' rows as ``search/results`` lists them."""

    id: int
    pattern: str
    category: str
    plugins: list[str]
    results: list[dict[str, Any]] = field(default_factory=list)
    task: asyncio.Future[None] | None = None

    @property
    def active(self) -> bool:
        return self.task is not None and not self.task.done()

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()


@dataclass
class FakeQbittorrent(HttpFake):
    version: Version = "5"
    root: Path = field(default_factory=lambda: Path("/tmp"))
    username: str = "admin"
    password: str = field(default_factory=lambda: secrets.token_hex(8))
    metadata_s: float = 0.1
    download_s: float = 0.3
    torrents: dict[str, _Torrent] = field(default_factory=dict)
    _offered: dict[str, MadeTorrent] = field(default_factory=dict, repr=False)
    _held_offers: set[str] = field(default_factory=set, repr=False)
    _disk_checked: bool = False
    _sessions: set[str] = field(default_factory=set, repr=False)
    # What each maindata answer showed (torrents, category names, server state), for a
    # later rid.
    _answers: dict[int, tuple[dict[str, dict[str, Any]], set[str], dict[str, Any]]] = field(
        default_factory=dict, repr=False
    )
    _rid: int = 0
    _category_names: set[str] = field(default_factory=set, repr=False)  # kept, as qBittorrent does
    _tag_names: set[str] = field(default_factory=set, repr=False)
    # Search: the tests' plugin asks this site (``install_search_plugin``); without
    # ``python`` qBittorrent cannot run plugins (its 409 on a start).
    search_site: SearchSite | None = None
    python: bool = True
    _plugin_enabled: bool = True
    # The search jobs by session (4.5 keeps them per WebUI session; 5.x: one table, "").
    _searches: dict[str, dict[int, _Search]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._record = record(self.version)
        self._thawed = asyncio.Event()
        self._thawed.set()
        self.downloads_dir.mkdir(parents=True, exist_ok=True)

    # ---- what a test uses ---------------------------------------------------------------
    @property
    def url(self) -> str:
        return self._origin

    @property
    def downloads_dir(self) -> Path:
        return self.root / "downloads"

    def offer(self, made: MadeTorrent, *, held: bool = False) -> None:
        """Peers have ``made`` from now on: added, it downloads and completes (``held``:
        stops halfway until ``release``, as when its peers stop sending)."""
        for infohash in (made.v1, made.v2):
            if infohash is not None:
                self._offered[infohash] = made
                if held:
                    self._held_offers.add(infohash)
        for torrent in self.torrents.values():
            if torrent.made is None and _same(torrent, made):
                torrent.made = made

    def hold(self, made: MadeTorrent, held: bool = True) -> None:
        """Keep the torrent of ``made`` downloading (``False``: let it finish)."""
        self._find(made).held = held

    def release(self, made: MadeTorrent) -> None:
        self.hold(made, held=False)

    def torrent_of(self, made: MadeTorrent) -> dict[str, Any] | None:
        """The torrent's fields as ``torrents/info`` lists them, or None."""
        for torrent in self.torrents.values():
            if _same(torrent, made):
                return self._fields(torrent)
        return None

    def freeze(self, frozen: bool = True) -> None:
        """Frozen, requests wait unanswered until thawed, as with a SIGSTOPped process."""
        if frozen:
            self._thawed.clear()
        else:
            self._thawed.set()

    async def _begin(
        self, request: web.Request, *, auth: bool = True
    ) -> tuple[Call, web.StreamResponse | None]:
        await self._thawed.wait()
        return await super()._begin(request, auth=auth)

    def restart(self) -> None:
        """As a qbittorrent-nox restart: torrents kept, every session and search job gone."""
        self._sessions.clear()
        self._answers.clear()
        for jobs in self._searches.values():
            for job in jobs.values():
                job.cancel()
        self._searches.clear()

    def install_search_plugin(self, site: SearchSite) -> None:
        """The tests' search plugin (``tests/support/search_plugin.py``), asking ``site``:
        as ``search_site.install_plugin`` puts it into a real profile."""
        self.search_site = site
        self._plugin_enabled = True

    def search_jobs(self) -> list[dict[str, Any]]:
        """Every search job qBittorrent still has, of every session, as its status lists it."""
        return [self._job_status(job) for jobs in self._searches.values() for job in jobs.values()]

    # ---- the server ---------------------------------------------------------------------
    def _routes(self, app: web.Application) -> None:
        api = "/api/v2/"
        for path, handler in {
            "auth/login": self._login,
            "auth/logout": self._logout,
            "app/version": self._app_version,
            "app/webapiVersion": self._webapi_version,
            "app/preferences": self._preferences,
            "torrents/categories": self._categories,
            "sync/maindata": self._maindata,
            "torrents/info": self._info,
            "torrents/properties": self._properties,
            "torrents/files": self._files,
            "torrents/add": self._add,
            "torrents/delete": self._delete,
            "torrents/recheck": self._recheck,
            "torrents/reannounce": self._reannounce,
            "torrents/addPeers": self._reannounce,  # the tests' swarm needs no hint
            "search/plugins": self._search_plugins,
            "search/enablePlugin": self._search_enable_plugin,
            "search/start": self._search_start,
            "search/status": self._search_status,
            "search/results": self._search_results,
            "search/stop": self._search_stop,
            "search/delete": self._search_delete,
            **(
                {"torrents/stop": self._stop, "torrents/start": self._start,
                 "torrents/count": self._count}
                if self.version == "5"
                else {"torrents/pause": self._stop, "torrents/resume": self._start}
            ),
        }.items():  # fmt: skip
            app.router.add_route("*", api + path, handler)
        app.router.add_route("*", "/{tail:.*}", self._unknown)

    @property
    def _cookie(self) -> str:
        """4.5's session cookie is ``SID``; 5.x names it after its port."""
        return "SID" if self.version == "4.5" else f"QBT_SID_{self._port}"

    def _authorized(self, request: web.Request) -> bool:
        return request.cookies.get(self._cookie) in self._sessions

    def _unauthorized(self, call: Call) -> web.Response:
        return _text(call, "Forbidden", 403)

    async def _form(self, request: web.Request) -> dict[str, list[Any]]:
        """The query and the form (urlencoded or multipart: files as bytes)."""
        fields: dict[str, list[Any]] = {k: request.query.getall(k) for k in request.query}
        raw = await request.read()
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/form-data"):
            parsed = email.parser.BytesParser().parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + raw
            )
            for part in parsed.walk():
                if part.is_multipart():
                    continue
                name = part.get_param("name", header="content-disposition")
                payload: Any = part.get_payload(decode=True)
                if part.get_filename() is None:
                    payload = bytes(payload).decode()
                fields.setdefault(str(name), []).append(payload)
        elif raw:
            for key, values in parse_qs(raw.decode(), keep_blank_values=True).items():
                fields.setdefault(key, []).extend(values)
        return fields

    async def _login(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=False)
        if early is not None:
            return early
        form = await self._form(request)
        good = form.get("username") == [self.username] and form.get("password") == [self.password]
        if not good:
            return (
                _text(call, "Fails.") if self.version == "4.5" else _text(call, "Unauthorized", 401)
            )
        sid = secrets.token_urlsafe(24)
        self._sessions.add(sid)
        response = _text(call, "Ok.") if self.version == "4.5" else _empty(call, 204)
        response.set_cookie(self._cookie, sid, httponly=True, samesite="Strict", path="/")
        return response

    async def _logout(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        self._sessions.discard(request.cookies.get(self._cookie, ""))
        return _text(call, "")

    async def _app_version(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        return early or _text(call, self._record["version"])

    async def _webapi_version(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        return early or _text(call, self._record["webapi"])

    async def _preferences(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        save = str(self.downloads_dir)
        prefs = {"save_path": save, "temp_path": f"{save}/temp", "temp_path_enabled": False}
        return self._answer(call, prefs)

    def _category_map(self) -> dict[str, Any]:
        names = sorted(self._category_names)
        return {name: {**self._record["category"], "name": name, "savePath": ""} for name in names}

    async def _categories(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        return early or self._answer(call, self._category_map())

    async def _info(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        form = await self._form(request)
        category = form.get("category", [None])[0]
        hashes = set("|".join(form.get("hashes", [])).split("|")) - {""}
        listed = [
            {**self._fields(t), "hash": t.id}
            for t in self._advanced()
            if (category is None or t.category == category) and (not hashes or t.id in hashes)
        ]
        return self._answer(call, listed)

    async def _count(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        return early or _text(call, str(len(self.torrents)))

    async def _maindata(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        form = await self._form(request)
        rid = int(form.get("rid", ["0"])[0] or 0)
        extra = dict.fromkeys(self._record["maindata_torrent_only"], False)
        now = {t.id: self._fields(t) | extra for t in self._advanced()}
        categories = self._category_map()
        server = self._server_state()
        before, seen, was = self._answers.get(rid, (None, set(), {}))
        self._rid += 1
        self._answers[self._rid] = (copy.deepcopy(now), set(categories), server)
        for stale in [r for r in self._answers if r <= self._rid - _KEPT_ANSWERS]:
            del self._answers[stale]
        answer: dict[str, Any] = {"rid": self._rid}
        if before is None:
            answer |= {
                "full_update": True,
                "server_state": server,
                "categories": categories,
                "tags": sorted(self._tag_names),
                "torrents": now,
                "trackers": {},
            }
            if self.version == "5":  # 5.x leaves out what is empty
                answer = {k: v for k, v in answer.items() if v or k == "full_update"}
            return self._answer(call, answer)
        changed = {}
        for torrent_id, listed in now.items():
            old = before.get(torrent_id)
            delta = listed if old is None else {k: v for k, v in listed.items() if old.get(k) != v}
            if delta:
                changed[torrent_id] = delta
        if changed:
            answer["torrents"] = changed
        if server_changed := {k: v for k, v in server.items() if was.get(k) != v}:
            answer["server_state"] = server_changed
        if new := {k: v for k, v in categories.items() if k not in seen}:
            answer["categories"] = new
        removed = [torrent_id for torrent_id in before if torrent_id not in now]
        if removed:
            answer["torrents_removed"] = removed
        return self._answer(call, answer)

    async def _properties(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        torrent = self._by_hash((await self._form(request)).get("hash", [""])[0])
        if torrent is None:
            return _text(call, "Not Found", 404)
        fields = self._fields(torrent)
        props = {
            **self._record["properties"],
            "hash": torrent.id,
            "infohash_v1": torrent.v1 or "",
            "infohash_v2": torrent.v2 or "",
            "name": torrent.name,
            "save_path": str(torrent.save_path),
            "addition_date": torrent.added_on,
            "total_size": fields["total_size"],
            "pieces_have": 0,
        }
        if "has_metadata" in props:
            props["has_metadata"] = torrent.has_metadata
            props["progress"] = fields["progress"]
        return self._answer(call, props)

    async def _files(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        torrent = self._by_hash((await self._form(request)).get("hash", [""])[0])
        if torrent is None:
            return _text(call, "Not Found", 404)
        self._advance(torrent)
        if torrent.made is None or not torrent.has_metadata:
            return self._answer(call, [])
        content = torrent.made.content
        paths = (
            [content] if content.is_file() else sorted(p for p in content.rglob("*") if p.is_file())
        )
        progress = 1.0 if torrent.done else 0.0
        listed = [
            {
                **self._record["file"],
                "index": index,
                "name": str(path.relative_to(content.parent)),
                "size": path.stat().st_size,
                "progress": progress,
                "is_seed": torrent.done,
            }
            for index, path in enumerate(paths)
        ]
        return self._answer(call, listed)

    async def _add(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        form = await self._form(request)
        save_path = Path(form.get("savepath", [""])[0] or self.downloads_dir)
        category = form.get("category", [""])[0]
        tags = form.get("tags", [""])[0]
        self._category_names |= {category} - {""}
        self._tag_names |= set(tags.split(",")) - {""}
        found: list[tuple[str | None, str | None, str, str] | None] = []
        for urls in form.get("urls", []):
            found += [_magnet_hashes(url) for url in urls.split("\n") if url.strip()]
        # Every uploaded file, whatever its field's name ("torrents" in the docs;
        # qbittorrent-api names it after its key, jellybit's "upload.torrent").
        for data in (v for values in form.values() for v in values if isinstance(v, bytes)):
            read = _torrent_hashes(data)
            if read is None:
                return _text(call, "Error: 'upload.torrent' is not a valid torrent file.", 415)
            found.append(read)
        added: list[str] = []
        for item in found:
            if item is None or any(self._by_hash(h) for h in item[:2] if h):
                continue
            v1, v2, name, magnet = item
            torrent_id = v2[:40] if v2 else str(v1)
            self.torrents[torrent_id] = _Torrent(
                id=torrent_id, v1=v1, v2=v2, name=name or torrent_id, save_path=save_path,
                category=category, tags=tags, magnet=magnet, added_on=int(time.time()),
                made=self._offered.get(v1 or "") or self._offered.get(v2 or ""),
                stopped=form.get("stopped" if self.version == "5" else "paused") == ["true"],
            )  # fmt: skip
            self.torrents[torrent_id].started_download = time.monotonic()
            self.torrents[torrent_id].held = bool({v1, v2} & self._held_offers)
            added.append(torrent_id)
        if self.version == "4.5":
            return _text(call, "Ok." if added else "Fails.")
        if not added:
            return _text(call, "Conflict", 409)
        counts = {"added_torrent_ids": added, "failure_count": len(found) - len(added),
                  "pending_count": 0, "success_count": len(added)}  # fmt: skip
        return self._answer(call, counts)

    async def _delete(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        form = await self._form(request)
        delete_files = form.get("deleteFiles", ["false"])[0] == "true"
        for torrent in self._hashed(form):
            del self.torrents[torrent.id]
            if delete_files and torrent.made is not None:
                target = torrent.save_path / torrent.made.content.name
                if target.is_dir():
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    target.unlink(missing_ok=True)
        return _text(call, "")

    async def _stop(self, request: web.Request) -> web.StreamResponse:
        return await self._each(request, lambda t: setattr(t, "stopped", True))

    async def _start(self, request: web.Request) -> web.StreamResponse:
        def start(torrent: _Torrent) -> None:
            torrent.stopped = torrent.disk_full = False

        return await self._each(request, start)

    async def _recheck(self, request: web.Request) -> web.StreamResponse:
        """The data is checked again: ``checkingUP``/``checkingDL`` for a moment."""
        until = time.monotonic() + RECHECK_S

        def recheck(torrent: _Torrent) -> None:
            torrent.checking_until, torrent.disk_full = until, False

        return await self._each(request, recheck)

    async def _reannounce(self, request: web.Request) -> web.StreamResponse:
        return await self._each(request, lambda t: None)

    async def _each(self, request: web.Request, act: Any) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        for torrent in self._hashed(await self._form(request)):
            act(torrent)
        return _text(call, "")

    # ---- search: qBittorrent's search plugins (SearchController 4.5.2 / 5.3.0) ----------
    def _plugin(self) -> dict[str, Any] | None:
        if self.search_site is None:
            return None
        recorded: dict[str, Any] = self._record["search_plugin"]
        return {**recorded, "url": self.search_site.url, "enabled": self._plugin_enabled}

    def _jobs(self, request: web.Request) -> dict[int, _Search]:
        session = request.cookies.get(self._cookie, "") if self._per_session else ""
        return self._searches.setdefault(session, {})

    @property
    def _per_session(self) -> bool:
        return bool(self._record["search_jobs_per_session"])

    def _job(self, request: web.Request, form: dict[str, list[Any]]) -> _Search | None:
        try:
            search_id = int(form.get("id", ["0"])[0] or 0)
        except ValueError:
            search_id = 0
        return self._jobs(request).get(search_id)

    async def _search_plugins(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        plugin = self._plugin()
        return self._answer(call, [] if plugin is None else [plugin])

    async def _search_enable_plugin(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        form = await self._form(request)
        if "names" not in form or "enable" not in form:
            return self._missing(call, form, ("names", "enable"))
        if PLUGIN_NAME in form["names"][0].split("|"):
            self._plugin_enabled = form["enable"][0].strip().lower() in ("true", "1")
        return _text(call, "")

    async def _search_start(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        form = await self._form(request)
        if not all(key in form for key in ("pattern", "category", "plugins")):
            return self._missing(call, form, ("pattern", "category", "plugins"))
        if not self.python:
            return _text(call, "Python must be installed to use the Search Engine.", 409)
        jobs = self._jobs(request)
        if sum(1 for job in self._all_jobs(jobs) if job.active) >= MAX_SEARCHES:
            return _text(call, self._record["search_refusals"]["too_many"], 409)
        asked = form["plugins"][0].split("|")
        plugin = self._plugin()
        if len(asked) == 1 and asked[0].lower() == "all":
            names = [] if plugin is None else [PLUGIN_NAME]
        elif len(asked) == 1 and asked[0].lower() in ("enabled", "multi"):
            names = [PLUGIN_NAME] if plugin is not None and plugin["enabled"] else []
        else:
            names = asked
        search_id = secrets.randbelow(2**31 - 2) + 1
        job = _Search(search_id, form["pattern"][0].strip(), form["category"][0].strip(), names)
        job.task = asyncio.ensure_future(self._run_search(job))
        jobs[search_id] = job
        return self._answer(call, {"id": search_id})

    def _all_jobs(self, jobs: dict[int, _Search]) -> list[_Search]:
        """The jobs that count against the limit: 4.5 counts per session."""
        if self._per_session:
            return list(jobs.values())
        return [job for table in self._searches.values() for job in table.values()]

    async def _run_search(self, job: _Search) -> None:
        """nova2.py: each plugin asked that has the category, its printed rows read back."""
        site, plugin = self.search_site, self._plugin()
        if site is None or plugin is None or job.category not in NOVA_CATEGORIES:
            return  # an unknown category ends nova2.py at once, with no rows
        asked = PLUGIN_NAME in {name.strip().lower() for name in job.plugins}
        if not asked or job.category not in {c["id"] for c in plugin["supportedCategories"]}:
            return  # nova2.py skips a plugin without the category
        status, rows = await asyncio.to_thread(site.ask, job.pattern, job.category)
        if status != 200:
            rows = [plugin_error_row(site.url, status)]
        for row in rows:
            if (result := self._search_row(row, site.url)) is not None:
                job.results.append(result)

    def _search_row(self, row: dict[str, Any], engine_url: str) -> dict[str, Any] | None:
        """A plugin's row as the version's novaprinter prints it and its SearchHandler
        reads the line back (``parseSearchResult``)."""
        size = _size_bytes(row["size"], self.version)
        if self.version == "4.5":
            printed = [row["link"], row["name"].replace("|", " "), str(size), str(row["seeds"]),
                       str(row["leech"]), engine_url]  # fmt: skip
            if "desc_link" in row:
                printed.append(row["desc_link"])
            parts = [part.strip() for part in printed]
            if len(parts) < 6:
                return None
            return {
                "fileUrl": parts[0], "fileName": parts[1], "fileSize": _long(parts[2]) or 0,
                "nbSeeders": _seeds(parts[3]), "nbLeechers": _seeds(parts[4]),
                "siteUrl": parts[5], "descrLink": parts[6] if len(parts) == 7 else "",
            }  # fmt: skip
        printed = [row["link"], quote(row["name"]), str(size), str(row["seeds"]),
                   str(row["leech"]), engine_url, row.get("desc_link", ""),
                   str(row.get("pub_date", -1))]  # fmt: skip
        # 5.x splits the line skipping empty parts: an empty desc_link shifts the date in.
        parts = [part.strip() for part in "|".join(printed).split("|") if part]
        if len(parts) <= 5:
            return None
        plugin = self._plugin()
        published = _long(parts[7]) if len(parts) > 7 else None
        return {
            "fileUrl": parts[0], "fileName": unquote(parts[1]), "fileSize": _long(parts[2]) or 0,
            "nbSeeders": _seeds(parts[3]), "nbLeechers": _seeds(parts[4]), "siteUrl": parts[5],
            "engineName": PLUGIN_NAME if plugin is not None and plugin["url"] == parts[5] else "",
            "descrLink": parts[6] if len(parts) > 6 else "",
            "pubDate": published if published is not None and published > 0 else -1,
        }  # fmt: skip

    def _job_status(self, job: _Search) -> dict[str, Any]:
        status: dict[str, Any] = {"id": job.id, "status": "Running" if job.active else "Stopped",
                  "total": len(job.results)}  # fmt: skip
        if "pattern" in self._record["search_status"]:  # 5.x tells what the job is
            status |= {"pattern": job.pattern, "category": job.category, "plugins": job.plugins}
        return status

    async def _search_status(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        form = await self._form(request)
        if int(form.get("id", ["0"])[0] or 0) == 0:
            return self._answer(call, [self._job_status(j) for j in self._jobs(request).values()])
        job = self._job(request, form)
        if job is None:
            return _text(call, "Not Found", 404)
        return self._answer(call, [self._job_status(job)])

    async def _asked_job(
        self, request: web.Request
    ) -> tuple[Call, dict[str, list[Any]], _Search] | web.StreamResponse:
        """The job a request names by ``id``, or the answer to it: refused, no ``id``
        (400), or a job the session does not have (404)."""
        call, early = await self._begin(request)
        if early is not None:
            return early
        form = await self._form(request)
        if "id" not in form:
            return self._missing(call, form, ("id",))
        job = self._job(request, form)
        if job is None:
            return _text(call, "Not Found", 404)
        return call, form, job

    async def _search_results(self, request: web.Request) -> web.StreamResponse:
        asked = await self._asked_job(request)
        if isinstance(asked, web.StreamResponse):
            return asked
        call, form, job = asked
        offset = int(form.get("offset", ["0"])[0] or 0)
        limit = int(form.get("limit", ["0"])[0] or 0)
        size = len(job.results)
        if offset < 0:
            offset += size
        if offset > size or offset < 0:
            return _text(call, "Offset is out of range", 409)
        rows = job.results[offset : offset + limit] if limit > 0 else job.results[offset:]
        status = "Running" if job.active else "Stopped"
        return self._answer(call, {"results": rows, "status": status, "total": size})

    async def _search_stop(self, request: web.Request) -> web.StreamResponse:
        return await self._end_job(request, forget=False)

    async def _search_delete(self, request: web.Request) -> web.StreamResponse:
        return await self._end_job(request, forget=True)

    async def _end_job(self, request: web.Request, *, forget: bool) -> web.StreamResponse:
        """``search/stop`` (the job stays listed) and ``search/delete`` (it is gone):
        both answer 200 with an empty body, or 404 for a job the session does not have."""
        asked = await self._asked_job(request)
        if isinstance(asked, web.StreamResponse):
            return asked
        call, _, job = asked
        job.cancel()
        if forget:
            del self._jobs(request)[job.id]
        return _text(call, "")

    def _missing(
        self, call: Call, form: dict[str, list[Any]], required: tuple[str, ...]
    ) -> web.Response:
        """A required parameter missing: 4.5 says "Bad Request", 5.x names them."""
        if self.version == "4.5":
            return _text(call, "Bad Request", 400)
        missing = ", ".join(key for key in required if key not in form)
        return _text(call, f"Missing required parameters: {missing}", 400)

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=False)
        if early is not None:
            return early
        words = "Not Found" if self.version == "4.5" else "Endpoint does not exist"
        return _text(call, words, 404)

    # ---- the torrents -------------------------------------------------------------------
    def _hashed(self, form: dict[str, list[Any]]) -> list[_Torrent]:
        wanted = "|".join(form.get("hashes", [])).split("|")
        if "all" in wanted:
            return list(self.torrents.values())
        return [t for h in wanted if (t := self._by_hash(h)) is not None]

    def _by_hash(self, infohash: str) -> _Torrent | None:
        infohash = infohash.lower()
        for torrent in self.torrents.values():
            if infohash and infohash in (torrent.id, torrent.v1, torrent.v2):
                return torrent
        return None

    def _find(self, made: MadeTorrent) -> _Torrent:
        for torrent in self.torrents.values():
            if _same(torrent, made):
                return torrent
        raise KeyError(f"{made.name} was not added")

    def _advanced(self) -> list[_Torrent]:
        for torrent in list(self.torrents.values()):
            self._advance(torrent)
        return list(self.torrents.values())

    def _advance(self, torrent: _Torrent) -> None:
        """Metadata, then the download, by the time since the add."""
        made = torrent.made
        if made is None or torrent.done or torrent.stopped or torrent.disk_full:
            return
        now = time.monotonic()
        if not torrent.has_metadata and now - torrent.started_download >= self.metadata_s:
            torrent.has_metadata = True
            torrent.started_download = now
            torrent.name = made.name
            torrent.v1, torrent.v2 = made.v1, made.v2
            new_id = made.v2[:40] if made.v2 else str(made.v1)
            if new_id != torrent.id:  # a hybrid added by its v1 hash is listed anew
                del self.torrents[torrent.id]
                torrent.id = new_id
                self.torrents[new_id] = torrent
        downloaded = now - torrent.started_download >= self.download_s
        if torrent.has_metadata and not torrent.held and downloaded:
            target = torrent.save_path / made.content.name
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                if made.content.is_dir():
                    shutil.copytree(made.content, target, dirs_exist_ok=True)
                else:
                    shutil.copyfile(made.content, target)
            except OSError as error:
                if error.errno != errno.ENOSPC and not (
                    isinstance(error, shutil.Error) and "No space left" in str(error)
                ):
                    raise
                torrent.disk_full = True  # what was written stays, as libtorrent leaves it
                return
            torrent.done = True

    def _progress(self, torrent: _Torrent) -> float:
        if time.monotonic() < torrent.checking_until:
            return 0.0
        if torrent.done:
            return 1.0
        if not torrent.has_metadata or torrent.held or torrent.disk_full:
            return 0.0 if not torrent.has_metadata else 0.5
        elapsed = time.monotonic() - torrent.started_download
        return round(min(0.99, elapsed / max(self.download_s, 0.001)), 4)

    def _state(self, torrent: _Torrent) -> str:
        stopped = "stopped" if self.version == "5" else "paused"
        if torrent.has_metadata and time.monotonic() < torrent.checking_until:
            return "checkingUP" if torrent.done else "checkingDL"
        if not torrent.has_metadata:
            return f"{stopped}DL" if torrent.stopped else "metaDL"
        if torrent.disk_full:
            return "error"
        if torrent.done:
            return f"{stopped}UP" if torrent.stopped else "stalledUP"
        return f"{stopped}DL" if torrent.stopped else "downloading"

    def _fields(self, torrent: _Torrent) -> dict[str, Any]:
        """A torrent as the real version lists it (without ``hash``: maindata keys by it)."""
        fields = {k: v for k, v in self._record["torrent"].items() if k != "hash"}
        size = torrent.size
        progress = self._progress(torrent)
        content = (
            str(torrent.save_path / torrent.made.content.name)
            if torrent.made is not None and torrent.has_metadata
            else ""
        )
        fields |= {
            "name": torrent.name,
            "infohash_v1": torrent.v1 or "",
            "infohash_v2": torrent.v2 or "",
            "magnet_uri": torrent.magnet,
            "save_path": str(torrent.save_path),
            "content_path": content,
            "category": torrent.category,
            "tags": torrent.tags,
            "added_on": torrent.added_on,
            "state": self._state(torrent),
            "progress": progress,
            "size": size,
            "total_size": size if torrent.has_metadata else -1,
            "completed": int(size * progress),
            "amount_left": size - int(size * progress),
            "dlspeed": 0 if torrent.done or torrent.stopped or torrent.disk_full else 1 << 20,
            "eta": 8640000 if torrent.done else 1,
            "completion_on": torrent.added_on if torrent.done else fields["completion_on"],
        }
        if "has_metadata" in fields:
            fields["has_metadata"] = torrent.has_metadata
        return fields

    def _server_state(self) -> dict[str, Any]:
        state: dict[str, Any] = dict(self._record["server_state"])
        # qBittorrent asks its disk checker on the first request and answers 0 until
        # the checker's answer is in (SyncController, m_freeDiskSpace = 0).
        checked = self._disk_checked
        self._disk_checked = True
        state["free_space_on_disk"] = shutil.disk_usage(self.downloads_dir).free if checked else 0
        return state


def _size_bytes(size: object, version: Version) -> int:
    """novaprinter's ``anySizeToBytes`` for sizes in bytes: 4.5's reads text only (a
    number is -1 there), 5.x's also numbers; what it cannot read is -1."""
    if isinstance(size, int) and not isinstance(size, bool):
        return size if version == "5" else -1
    try:
        return round(float(str(size).strip()))
    except ValueError:
        return -1


def _long(text: str) -> int | None:
    """Qt's ``toLongLong``: the whole text as an integer, else None."""
    try:
        return int(text)
    except ValueError:
        return None


def _seeds(text: str) -> int:
    """Seeders and leechers: what is not a count of zero or more reads as -1."""
    count = _long(text)
    return count if count is not None and count >= 0 else -1


def _same(torrent: _Torrent, made: MadeTorrent) -> bool:
    return bool({torrent.v1, torrent.v2, torrent.id} & ({made.v1, made.v2} - {None}))


def _magnet_hashes(url: str) -> tuple[str | None, str | None, str, str] | None:
    """(v1, v2, name, link) of a magnet; None for what qBittorrent cannot read."""
    if not url.lower().startswith("magnet:?"):
        return None
    query = parse_qs(urlsplit(url.strip()).query)
    v1 = v2 = None
    for xt in query.get("xt", []):
        if xt.lower().startswith("urn:btih:") and len(xt) == 49:
            v1 = xt[9:].lower()
        elif xt.lower().startswith("urn:btih:") and len(xt) == 41:
            v1 = base64.b32decode(xt[9:].upper()).hex()
        elif xt.lower().startswith("urn:btmh:1220") and len(xt) == 77:
            v2 = xt[13:].lower()
    if v1 is None and v2 is None:
        return None
    return v1, v2, unquote(query.get("dn", [""])[0]), url.strip()


def _torrent_hashes(data: bytes) -> tuple[str | None, str | None, str, str] | None:
    """(v1, v2, name, magnet) of a .torrent as libtorrent reads it; None if it cannot."""
    try:
        info = lt.torrent_info(data)
    except RuntimeError:
        return None
    hashes = info.info_hashes()
    v1 = hashes.v1.to_bytes().hex() if hashes.has_v1() else None
    v2 = hashes.v2.to_bytes().hex() if hashes.has_v2() else None
    return v1, v2, info.name(), lt.make_magnet_uri(info)


def _text(call: Call, body: str, status: int = 200) -> web.Response:
    call.status = status
    return web.Response(text=body, status=status, content_type="text/plain", charset="UTF-8")


def _empty(call: Call, status: int) -> web.Response:
    call.status = status
    return web.Response(status=status)


class FakeQbittorrentServer:
    """The fake on an event loop of its own thread: blocking clients (qbittorrent-api in
    a test, the contract cases) and jellybit's own loop reach it as they reach a real
    qbittorrent-nox, and a test can inspect it with ``client()`` while jellybit runs.
    ``with`` starts and stops it."""

    def __init__(self, root: Path, version: Version = "5") -> None:
        self.fake = FakeQbittorrent(version=version, root=root)
        self.version = version
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        self._call(self.fake.start())
        return self

    def __exit__(self, *exc: object) -> None:
        self._call(self.fake.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_CALL_TIMEOUT)
        self._loop.close()

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(_CALL_TIMEOUT)

    def _do(self, act: Callable[[], T]) -> T:
        """``act`` on the fake's loop: never beside a request the fake is answering."""

        async def run() -> T:
            return act()

        return self._call(run())

    @property
    def url(self) -> str:
        return self.fake.url

    @property
    def username(self) -> str:
        return self.fake.username

    @property
    def password(self) -> str:
        return self.fake.password

    @property
    def downloads_dir(self) -> Path:
        return self.fake.downloads_dir

    def client(self) -> qbittorrentapi.Client:
        """A logged-in client, as for a real instance."""
        client = qbittorrentapi.Client(
            host=self.url, username=self.username, password=self.password,
            REQUESTS_ARGS={"timeout": _CALL_TIMEOUT},
        )  # fmt: skip
        client.auth_log_in()
        return client

    def offer(self, made: MadeTorrent, *, held: bool = False) -> None:
        self._do(lambda: self.fake.offer(made, held=held))

    def hold(self, made: MadeTorrent, held: bool = True) -> None:
        self._do(lambda: self.fake.hold(made, held))

    def torrent_of(self, made: MadeTorrent) -> dict[str, Any] | None:
        return self._do(lambda: self.fake.torrent_of(made))

    def requests_to(self, *paths: str) -> int:
        """How many requests reached these paths (``sync/maindata``, …) so far."""
        wanted = {f"/api/v2/{path}" for path in paths}
        return self._do(lambda: sum(1 for call in self.fake.calls if call.path in wanted))

    def set_down(self, down: bool = True) -> None:
        """Down: every connection is closed unanswered (qbittorrent-nox not running)."""
        self._do(lambda: self.fake.set_down(down))

    def freeze(self, frozen: bool = True) -> None:
        """Frozen: every request waits unanswered (a SIGSTOPped qbittorrent-nox)."""
        self._do(lambda: self.fake.freeze(frozen))

    def restart(self) -> None:
        self._do(self.fake.restart)

    def install_search_plugin(self, site: SearchSite) -> None:
        self._do(lambda: self.fake.install_search_plugin(site))

    def search_jobs(self) -> list[dict[str, Any]]:
        return self._do(self.fake.search_jobs)
