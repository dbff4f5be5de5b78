"""Search benchmark: a Torznab page of 1 000 releases read, deduplicated and grouped.

The page is Jackett's (``tests/data/torznab/jackett_results.xml``'s items: .torrent links
and magnets, ~25 attributes each, a tenth of them the same release twice). Jellybit's
reader (expat with its refusals, every item checked, magnets parsed) and then what is
done with the rows (``after_reading``: deduplicated, grouped under eight titles and
sorted, as the page and the API show them) against a baseline in the
same process: ``xml.etree.ElementTree.fromstring`` of the same bytes and one pass over
every item's children. Prints CPU milliseconds (median of the rounds) and the ratio.

Run: ``make bench`` (or ``python -m bench.search_bench``).
"""

import statistics
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from core.ids import Id
from core.magnet import magnet_uri
from core.search import Found, deduplicated
from core.torznab import parse_results
from recognition.candidates import Candidate, MediaKind
from store.search import Search
from worker.search import grouped

RELEASES = 1000
ROUNDS = 15
TORZNAB = "{http://torznab.com/schemas/2015/feed}attr"


def jackett_page(count: int) -> bytes:
    """``count`` items as Jackett's ResultPage writes them."""
    start = datetime(2024, 3, 16, 10, 4, 11, tzinfo=UTC)
    items = []
    for n in range(count):
        infohash = f"{n // 10 * 10 if n % 10 == 9 else n:040x}"  # every tenth a duplicate
        title = f"Dune.Part.Two.2024.{('2160p', '1080p', '720p')[n % 3]}.WEB-DL.DDP5.1-GRP{n}"
        published = (start - timedelta(hours=n)).strftime("%a, %d %b %Y %H:%M:%S %z")
        magnet = n % 2 == 0
        link = (
            magnet_uri([infohash], name=title).replace("&", "&amp;")
            if magnet
            else f"http://127.0.0.1:9117/dl/tracker{n % 7}/?jackett_apikey=k&amp;path=p{n}"
            f"&amp;file={title}"
        )
        size = 2_000_000_000 + n * 1_000_003
        attrs = [
            ("category", "2000"),
            ("category", "100001"),
            ("imdb", "15239678"),
            ("imdbid", "tt15239678"),
            ("tmdbid", "693134"),
            ("seeders", str(n % 500)),
            ("peers", str(n % 500 + 17)),
            ("infohash", infohash),
            *([("magneturl", link)] if magnet else []),
            ("downloadvolumefactor", "0" if n % 5 == 0 else "1"),
            ("uploadvolumefactor", "1"),
        ]
        items.append(
            "    <item>\n"
            f"      <title>{title}</title>\n"
            f"      <guid>https://tracker{n % 7}.example/torrent/{n}/</guid>\n"
            f'      <jackettindexer id="tracker{n % 7}">Tracker {n % 7}</jackettindexer>\n'
            "      <type>public</type>\n"
            f"      <comments>https://tracker{n % 7}.example/torrent/{n}/</comments>\n"
            f"      <pubDate>{published}</pubDate>\n"
            f"      <size>{size}</size>\n"
            "      <description />\n"
            f"      <link>{link}</link>\n"
            "      <category>2000</category>\n"
            f'      <enclosure url="{link}" length="{size}" type="application/x-bittorrent" />\n'
            + "".join(f'      <torznab:attr name="{k}" value="{v}" />\n' for k, v in attrs)
            + "    </item>"
        )
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
        'xmlns:atom="http://www.w3.org/2005/Atom" '
        'xmlns:torznab="http://torznab.com/schemas/2015/feed">\n  <channel>\n'
        '    <atom:link href="http://127.0.0.1:9117/" rel="self" type="application/rss+xml" />\n'
        "    <title>AggregateSearch</title>\n"
    )
    return (head + "\n".join(items) + "\n  </channel>\n</rss>\n").encode()


TITLES: tuple[tuple[str, int, MediaKind], ...] = (
    ("Dune: Part Two", 2024, "movie"), ("Dune", 2021, "movie"), ("Dune", 1984, "movie"),
    ("Dune", 2000, "series"), ("Dune: Prophecy", 2024, "series"),
    ("Children of Dune", 2003, "series"), ("Jodorowsky's Dune", 2013, "movie"),
    ("Dune World", 2023, "movie"),
)  # fmt: skip


def after_reading(rows: list[Found]) -> int:
    """What is done with a page's rows once read: each release once, then the page's
    grouping under the titles TMDB found (``worker.search.grouped``), sorted."""
    titles = [
        (Id(f"{n:026d}"), Candidate("tmdb", str(n), kind, title, title, year, None, None, 1.0))
        for n, (title, year, kind) in enumerate(TITLES)
    ]
    releases = [(Id(f"r{n:025d}"), row) for n, row in enumerate(deduplicated(rows))]
    search = Search(
        id=Id("0" * 26), chat_id=None, message_id=None, words="dune", phase="releases",
        title=None, sort="quality", page=0, sources={}, running=False, problem=None,
        download_id=None, shown=None, updated_at="", titles=titles, releases=releases,
    )  # fmt: skip
    return sum(len(listed) for _, listed in grouped(search, "quality"))


def jellybit(body: bytes) -> int:
    page = parse_results(body, "jackett")
    return after_reading(list(page.found))


def baseline(body: bytes) -> int:
    """The floor: the C tree builder and one pass over every item's children."""
    count = 0
    for item in ET.fromstring(body).iter("item"):
        for child in item:
            if child.tag == TORZNAB:
                count += len(child.get("value", ""))
            else:
                count += len(child.text or "")
    return count


def cpu_ms(work: Callable[[bytes], int], body: bytes) -> float:
    spent = []
    for _ in range(ROUNDS):
        started = time.process_time()
        work(body)
        spent.append((time.process_time() - started) * 1000)
    return statistics.median(spent)


def main() -> None:
    body = jackett_page(RELEASES)
    kept = jellybit(body)
    ours = cpu_ms(jellybit, body)
    floor = cpu_ms(baseline, body)
    print(f"Torznab page: {RELEASES} items, {len(body) / 1024:.0f} KB, {kept} listed")
    print(f"  read, dedupe, group, sort:   {ours:7.1f} ms CPU (median of {ROUNDS})")
    print(f"  ElementTree + one pass:      {floor:7.1f} ms CPU")
    print(f"  ratio:                       {ours / floor:7.2f}x")


if __name__ == "__main__":
    main()
