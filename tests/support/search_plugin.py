# VERSION: 1.00
"""The tests' qBittorrent search plugin, in nova3's format (qBittorrent's
``src/searchengine/nova3``): a class named as its file, with ``url``, ``name``,
``supported_categories`` and ``search(what, cat)``, which prints each row through
``novaprinter.prettyPrinter``.

It asks the tests' tracker site (``tests/support/search_site.py``, on 127.0.0.1) and
prints what that answers; when the site fails it prints one row with size -1 that
says so, as published plugins do (Jackett's). Standard library only: qBittorrent runs
it with the Python it finds (the host's for 4.5, the 5.x chroot's own).
``search_site.install_plugin`` writes this file into a profile with ``SITE`` set.
This module is never imported by the tests: qBittorrent's ``nova2.py`` imports it.
"""

import json
import urllib.error
import urllib.parse
import urllib.request

from novaprinter import prettyPrinter  # type: ignore[import-not-found]  # nova3's own

SITE = "http://127.0.0.1:1"  # the site's address, written in at install time
TIMEOUT = 30  # seconds; qBittorrent ends a search after 3 minutes


class jellybit:  # nova2.py finds the class by the file's name
    url = SITE
    name = "Jellybit test tracker"
    supported_categories = {"all": "0", "movies": "1", "tv": "2"}  # noqa: RUF012 - nova3's shape

    def search(self, what: str, cat: str = "all") -> None:
        # nova2.py hands over the words URL-quoted ("Dune%202021").
        query = urllib.parse.urlencode({"q": urllib.parse.unquote(what), "cat": cat})
        # No proxy: the site is on this machine whatever the environment says.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(f"{SITE}/search?{query}", timeout=TIMEOUT) as answer:
                rows = json.load(answer)
        except (urllib.error.URLError, OSError, ValueError) as error:
            prettyPrinter(
                {
                    "link": self.url,
                    "name": f"Jellybit test tracker: {error}",
                    "size": "-1",
                    "seeds": -1,
                    "leech": -1,
                    "engine_url": self.url,
                    "desc_link": self.url,
                }
            )
            return
        for row in rows:
            prettyPrinter({**row, "engine_url": self.url})
