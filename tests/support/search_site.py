"""The tests' tracker site for qBittorrent's search plugins, and the plugin's install.

``SearchSite`` is a tiny HTTP server on 127.0.0.1 (a thread of its own, so a real
qbittorrent-nox's plugin process and the fake reach it alike; the 5.x chroot shares
the host's network, so its plugin reaches it too). ``GET /search?q=WORDS&cat=CAT``
answers the rows a test gave for ``WORDS`` as JSON (none: ``[]``), a 503 for words the
test made fail, and holds the answer for held words until they are released.

``install_plugin`` writes ``tests/support/search_plugin.py`` into a profile's
``qBittorrent/data/nova3/engines/`` (the same path in 4.5 and 5.x; the 5.x chroot sees
the host's /tmp, where the tests' profiles are) with the site's address in it, before
qbittorrent-nox starts: qBittorrent lists its plugins when it starts.
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

PLUGIN_NAME = "jellybit"  # the file's and the class's name: qBittorrent's name of the plugin
PLUGIN_FULL_NAME = "Jellybit test tracker"
PLUGIN_CATEGORIES = ("all", "movies", "tv")
_PLUGIN_SOURCE = Path(__file__).with_name("search_plugin.py")
_SITE_LINE = 'SITE = "http://127.0.0.1:1"'
HOLD_S = 60.0  # a held answer is given at the latest after this long


def site_row(
    name: str,
    link: str,
    *,
    size: int = 1 << 30,
    seeds: int = 10,
    leech: int = 2,
    desc_link: str = "",
    pub_date: int | None = None,
) -> dict[str, Any]:
    """One row as a plugin hands it to ``prettyPrinter`` (a size as text: 4.5's
    ``anySizeToBytes`` reads text only)."""
    row: dict[str, Any] = {
        "link": link,
        "name": name,
        "size": str(size),
        "seeds": seeds,
        "leech": leech,
        "desc_link": desc_link,
    }
    if pub_date is not None:
        row["pub_date"] = pub_date
    return row


def plugin_error_row(site_url: str, status: int) -> dict[str, Any]:
    """The row ``search_plugin.py`` prints when the site answers ``status`` (its words are
    urllib's), as the fake qBittorrent's plugin prints it too."""
    return {
        "link": site_url,
        "name": f"{PLUGIN_FULL_NAME}: HTTP Error {status}: {HTTPStatus(status).phrase}",
        "size": "-1",
        "seeds": -1,
        "leech": -1,
        "desc_link": site_url,
    }


def install_plugin(profile_dir: Path, site_url: str) -> Path:
    """The plugin, asking ``site_url``, in the profile's engines folder."""
    source = _PLUGIN_SOURCE.read_text()
    assert _SITE_LINE in source
    engines = profile_dir / "qBittorrent" / "data" / "nova3" / "engines"
    engines.mkdir(parents=True, exist_ok=True)
    target = engines / f"{PLUGIN_NAME}.py"
    target.write_text(source.replace(_SITE_LINE, f"SITE = {site_url!r}"))
    return target


class SearchSite:
    """``with`` starts and stops it; ``answer``, ``fail`` and ``hold`` say what it answers."""

    def __init__(self) -> None:
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self._failing: set[str] = set()
        self._held: dict[str, threading.Event] = {}  # set: released
        self._lock = threading.Lock()
        self.queries: list[tuple[str, str]] = []  # (words, category) as asked
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, words: str, rows: list[dict[str, Any]]) -> None:
        with self._lock:
            self._rows[words] = rows

    def fail(self, words: str) -> None:
        """Asked for ``words``, the site answers 503 (the plugin prints its error row)."""
        with self._lock:
            self._failing.add(words)

    def hold(self, words: str) -> None:
        """Asked for ``words``, the site answers only after ``release(words)``."""
        with self._lock:
            self._held[words] = threading.Event()

    def release(self, words: str | None = None) -> None:
        """Answer what waits for ``words`` (None: for any words)."""
        with self._lock:
            held = list(self._held.values()) if words is None else [self._held[words]]
        for event in held:
            event.set()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def ask(self, words: str, category: str) -> tuple[int, list[dict[str, Any]]]:
        """What the site answers for ``words``: its HTTP status and rows (blocks while held).
        The fake qBittorrent's plugin asks it here, the real plugin over HTTP."""
        with self._lock:
            self.queries.append((words, category))
            held, failing = self._held.get(words), words in self._failing
            rows = list(self._rows.get(words, []))
        if held is not None:
            held.wait(HOLD_S)
        return (503, []) if failing else (200, rows)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = parse_qs(parts.query)
                if parts.path != "/search":
                    status, body = 404, b"Not Found"
                else:
                    status, rows = site.ask(query.get("q", [""])[0], query.get("cat", ["all"])[0])
                    body = json.dumps(rows).encode() if status == 200 else b"Service Unavailable"
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the tests read ``queries``

        return Handler
