"""Torznab answers read (core/torznab.py): what a page says, and what a hostile one cannot do."""

import time
from datetime import UTC, datetime

import pytest

from core.magnet import magnet_uri
from core.search import MAX_RESULTS, Found, Terms, deduplicated
from core.torznab import (
    MAX_BODY_BYTES,
    Caps,
    Mode,
    ResultsReader,
    parse_caps,
    parse_results,
    search_query,
)

HASH = "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c"
MAGNET = magnet_uri([HASH], name="Dune")
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
    'xmlns:torznab="http://torznab.com/schemas/2015/feed"><channel>'
)


def page(*items: str, head: str = HEAD) -> bytes:
    return (head + "".join(items) + "</channel></rss>").encode()


def item(title: str = "Dune.2021.1080p", link: str = "http://x.invalid/dl/1", **attrs: str) -> str:
    fields = "".join(f'<torznab:attr name="{k}" value="{v}" />' for k, v in attrs.items())
    return f"<item><title>{title}</title><link>{link}</link>{fields}</item>"


def one(body: bytes) -> Found:
    found = parse_results(body, "idx").found
    assert len(found) == 1
    return found[0]


# ---- errors, whatever the status ----------------------------------------------------------


@pytest.mark.parametrize("code", ["100", "101", "150", "199"])
def test_an_account_error_is_a_refused_key(code: str) -> None:
    body = f'<?xml version="1.0"?>\n<error code="{code}" description="Incorrect user credentials"/>'
    result = parse_results(body.encode(), "idx")
    assert result.problem is not None
    assert (result.problem.code, dict(result.problem.params)) == (
        "search.bad_api_key",
        {"source": "idx"},
    )


@pytest.mark.parametrize("code", ["200", "203", "300", "900", "99", "x"])
def test_another_error_is_said_with_its_words(code: str) -> None:
    body = f'<error code="{code}" description="Function Not Available:\x0b imdbid"/>'.encode()
    result = parse_results(body, "idx")
    assert result.problem is not None
    assert result.problem.code == "search.error"
    assert result.problem.params["detail"] == "Function Not Available: imdbid"
    assert result.found == ()


@pytest.mark.parametrize(
    "body",
    [
        b"<!DOCTYPE html><html><head><title>Just a moment...</title></head></html>",
        b"\xef\xbb\xbf  <html><body><form action='/login'></form></body></html>",
        b'<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
        b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html></html>',
        b"<HTML><BODY>403 Forbidden</BODY></HTML>",
    ],
)
def test_a_web_page_is_a_blocked_indexer(body: bytes) -> None:
    result = parse_results(body, "idx")
    assert result.problem is not None
    assert result.problem.code == "search.blocked"
    caps = parse_caps(body, "idx")
    assert not isinstance(caps, Caps)
    assert caps.code == "search.blocked"


@pytest.mark.parametrize(
    "body",
    [b"", b"not xml at all", b'{"error": "json"}', b"<feed><entry/></feed>", b"<rss><channel>"],
)
def test_anything_else_is_unreadable(body: bytes) -> None:
    result = parse_results(body, "idx")
    assert result.problem is not None
    assert result.problem.code == "search.unreadable"


# ---- hostile pages ------------------------------------------------------------------------


def test_entity_expansion_is_refused_at_once() -> None:
    lol = "".join(f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, 10))
    bomb = f'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY l0 "lol">{lol}]><rss>&l9;</rss>'
    started = time.process_time()
    result = parse_results(bomb.encode(), "idx")
    assert time.process_time() - started < 0.05
    assert result.problem is not None
    assert result.problem.code == "search.unreadable"


def test_an_external_entity_is_never_read() -> None:
    body = (
        '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        + HEAD.split("\n", 1)[1]
        + item(title="&x;")
        + "</channel></rss>"
    ).encode()
    result = parse_results(body, "idx")
    assert result.found == ()
    assert result.problem is not None
    assert result.problem.code == "search.unreadable"
    assert parse_caps(b'<!DOCTYPE caps [<!ENTITY a "b">]><caps/>', "idx") != Caps()


def test_a_page_of_ten_thousand_items_keeps_the_first_thousand() -> None:
    items = [item(f"Flood.{n}", f"http://x.invalid/{n}") for n in range(10_000)]
    started = time.process_time()
    result = parse_results(page(*items), "idx")
    assert time.process_time() - started < 1.0
    assert len(result.found) == MAX_RESULTS
    assert result.found[-1].name == f"Flood.{MAX_RESULTS - 1}"
    assert result.cut
    assert result.problem is None


def test_a_body_past_the_bound_is_read_up_to_it() -> None:
    reader = ResultsReader("idx", limit=10**6)
    filler = item("Filler", "http://x.invalid/f", description="x" * 2000)
    chunk = page(*[filler] * 100)[len(HEAD) :][: -len("</channel></rss>")]
    assert reader.feed_chunk(HEAD.encode())
    fed = len(HEAD)
    while reader.feed_chunk(chunk):
        fed += len(chunk)
    assert fed <= MAX_BODY_BYTES
    result = reader.page()
    assert result.cut
    assert result.problem is None
    assert 0 < len(result.found) < MAX_BODY_BYTES // 2000


def test_a_hostile_title_is_kept_as_text_without_control_characters() -> None:
    escaped = one(page(item("&lt;b&gt;Dune&lt;/b&gt;\x1b[31m 2021\x07")))
    assert escaped.name == "<b>Dune</b>[31m 2021"
    nested = one(page(item("<b>Dune</b>\n\t 2021")))
    assert nested.name == "Dune 2021"


def test_bad_items_are_skipped_and_counted_and_the_rest_kept() -> None:
    good = item("Good.Release", "http://x.invalid/good", size="100")
    result = parse_results(
        page(
            good,
            item("", "http://x.invalid/1"),  # no title
            "<item><link>http://x.invalid/2</link></item>",  # no title at all
            item("No.Link", ""),
            item("Script.Link", "javascript:alert(1)"),
            item("Bad.Magnet", "magnet:?xt=urn:btih:123"),
            item("Bad.Magnet.Attr", "", magneturl="magnet:?xt=urn:btih:zz"),
            item("Negative", "http://x.invalid/3", size="-5"),
            item("Absurd", "http://x.invalid/4", size=str(2**60)),
            item("T" * 1001),
            good.replace("Good.Release", "Good.Too"),
        ),
        "idx",
    )
    assert [row.name for row in result.found] == ["Good.Release", "Good.Too"]
    assert result.skipped == {
        "no_title": 2,
        "no_link": 1,
        "bad_link": 1,
        "bad_magnet": 2,
        "bad_size": 2,
        "bad_title": 1,
    }
    assert result.problem is None


def test_a_bad_magnet_attribute_falls_back_to_the_download_link() -> None:
    row = one(page(item("Dune", "http://x.invalid/dl", magneturl="magnet:?xt=urn:btih:1")))
    assert row.link == "http://x.invalid/dl"


# ---- what an item says --------------------------------------------------------------------


def test_the_size_is_the_attribute_then_the_element_then_the_enclosure() -> None:
    enclosure = '<enclosure url="http://x.invalid/e" length="300" type="application/x-bittorrent"/>'
    base = "<item><title>A</title>{}</item>"
    assert one(page(base.format(enclosure + '<torznab:attr name="size" value="100"/>'))).size == 100
    assert one(page(base.format(enclosure + "<size>200</size>"))).size == 200
    assert one(page(base.format(enclosure + "<size />"))).size == 300
    assert one(page(base.format(enclosure.replace("300", "0")))).size is None


def test_the_link_is_the_magnet_then_the_enclosure_then_the_link() -> None:
    enclosure = '<enclosure url="http://x.invalid/e" type="application/x-bittorrent"/>'
    base = "<item><title>A</title><link>http://x.invalid/page</link>{}</item>"
    magnet = f'<torznab:attr name="magneturl" value="{MAGNET.replace("&", "&amp;")}"/>'
    row = one(page(base.format(enclosure + magnet)))
    assert (row.link, row.infohash) == (MAGNET, HASH)
    assert one(page(base.format(enclosure))).link == "http://x.invalid/e"
    assert one(page(base.format(""))).link == "http://x.invalid/page"


def test_peers_count_the_seeders_too() -> None:
    assert one(page(item(seeders="10", peers="15"))).leechers == 5
    assert one(page(item(seeders="10", peers="15", leechers="7"))).leechers == 7
    assert one(page(item(peers="15", leechers="5"))).seeders == 10
    assert one(page(item(seeders="-3", peers="abc"))).seeders is None


def test_the_infohash_is_the_magnets_else_the_attribute() -> None:
    other = "f" * 40
    assert one(page(item(link=MAGNET.replace("&", "&amp;"), infohash=other))).infohash == HASH
    assert one(page(item(infohash=other.upper()))).infohash == other
    assert one(page(item(infohash="(removed)"))).infohash is None


def test_ids_dates_and_flags() -> None:
    row = one(
        page(
            "<item><title>Dune</title><link>http://x.invalid/1</link>"
            "<pubDate>Sat, 14 Mar 2015 17:10:42 -0400</pubDate>"
            '<prowlarrindexer id="5" type="public">Rutracker&#x85;\x00.org</prowlarrindexer>'
            '<torznab:attr name="imdb" value="1160419"/>'
            '<torznab:attr name="tmdbid" value="438631"/>'
            '<torznab:attr name="tvdbid" value="0"/>'
            '<torznab:attr name="downloadvolumefactor" value="0.0"/></item>'
        )
    )
    assert row.published == datetime(2015, 3, 14, 21, 10, 42, tzinfo=UTC)
    assert (row.imdb_id, row.tmdb_id, row.tvdb_id) == ("tt1160419", 438631, None)
    assert row.indexer == "Rutracker .org"
    assert row.freeleech
    assert one(page(item(imdbid="tt0039689"))).imdb_id == "tt0039689"
    assert one(page(item(imdb="39689"))).imdb_id == "tt0039689"
    jackett = '<item><title>A</title><link>http://x.invalid/1</link><jackettindexer id="x">'
    assert one(page(jackett + "1337x</jackettindexer></item>")).indexer == "1337x"
    assert (
        one(page(item().replace("</item>", "<pubDate>yesterday</pubDate></item>"))).published
        is None
    )


def test_the_torznab_namespace_is_the_declared_one() -> None:
    other = HEAD.replace("http://torznab.com/schemas/2015/feed", "http://example.invalid/x")
    assert one(page(item(size="100"), head=other)).size is None
    renamed = HEAD.replace("xmlns:torznab", "xmlns:tz")
    row = one(page(item(size="100").replace("torznab:attr", "tz:attr"), head=renamed))
    assert row.size == 100


# ---- caps ---------------------------------------------------------------------------------


def test_caps_modes_limits_and_categories() -> None:
    caps = parse_caps(
        b"<caps><limits max='500' default='50'/><searching>"
        b"<search available='yes' supportedParams='q'/>"
        b"<tv-search available='yes' supportedParams='q, season,TVDBID'/>"
        b"<movie-search available='no' supportedParams='q,imdbid'/></searching>"
        b"<categories><category id='2000' name='Movies'><subcat id='2040' name='HD'/>"
        b"</category><category id='x' name='bad'/></categories></caps>",
        "idx",
    )
    assert isinstance(caps, Caps)
    assert caps.lists("tv-search", "tvdbid")
    assert caps.lists("tv-search", "season")
    assert not caps.lists("movie-search", "imdbid")  # listed, but the mode is off
    assert (caps.limit_max, caps.limit_default, caps.categories) == (
        500,
        50,
        frozenset({2000, 2040}),
    )
    error = parse_caps(b'<error code="100" description="Invalid API Key"/>', "idx")
    assert not isinstance(error, Caps)
    assert error.code == "search.bad_api_key"


# ---- queries ------------------------------------------------------------------------------

FULL = Caps(
    modes={
        "search": Mode(True, frozenset({"q"})),
        "movie-search": Mode(True, frozenset({"q", "imdbid", "tmdbid"})),
        "tv-search": Mode(True, frozenset({"q", "season", "tvdbid"})),
    },
    limit_max=5000,
    categories=frozenset({2000, 5000}),
)
DUNE = Terms(
    "Dune 2021", kind="movie", title="Dune", year=2021, tmdb_id=438631, imdb_id="tt1160419"
)
SHOW = Terms("Severance", kind="tv", title="Severance", season=2, tvdb_id=371980, tmdb_id=95396)


def test_a_query_by_the_ids_the_caps_list() -> None:
    movie = search_query(DUNE, FULL)
    assert movie.params == (
        ("t", "movie"),
        ("imdbid", "tt1160419"),
        ("tmdbid", "438631"),
        ("cat", "2000"),
        ("limit", str(MAX_RESULTS)),
    )
    assert movie.ids_used == ("imdbid", "tmdbid")
    show = search_query(SHOW, FULL)
    assert show.params[:3] == (("t", "tvsearch"), ("tvdbid", "371980"), ("season", "2"))
    assert show.ids_used == ("tvdbid",)  # tmdbid is not listed for tv


def test_a_query_by_words_where_no_id_is_listed() -> None:
    words = Caps(
        modes={
            "search": Mode(True, frozenset({"q"})),
            "tv-search": Mode(True, frozenset({"q", "season"})),
        },
        limit_max=100,
        categories=frozenset({2000}),
    )
    assert search_query(DUNE, words).params == (
        ("t", "search"),
        ("q", "Dune 2021"),
        ("cat", "2000"),
        ("limit", "100"),
    )
    assert search_query(SHOW, words).params == (
        ("t", "tvsearch"),
        ("q", "Severance"),
        ("season", "2"),
        ("limit", "100"),  # no 5000 in these caps
    )
    assert search_query(SHOW, Caps()).params == (("t", "search"), ("q", "Severance"))
    assert search_query(Terms("anything"), FULL).params == (
        ("t", "search"),
        ("q", "anything"),
        ("limit", str(MAX_RESULTS)),
    )


# ---- the page -----------------------------------------------------------------------------


def test_dedupe_by_infohash_else_by_name_and_size() -> None:
    def row(name: str, seeders: int, infohash: str | None = None, size: int = 10) -> Found:
        return Found(name, "http://x.invalid", "idx", size=size, seeders=seeders, infohash=infohash)

    rows = [
        row("Dune.2021", 5, HASH),
        row("Dune (2021)", 9, HASH),
        row("Dune 2021 1080p", 1),
        row("dune.2021.1080p", 3),
        row("Dune.2021.1080p", 3, size=11),
    ]
    kept = deduplicated(rows)
    assert [(r.name, r.seeders) for r in kept] == [
        ("Dune (2021)", 9),
        ("dune.2021.1080p", 3),
        ("Dune.2021.1080p", 3),
    ]
