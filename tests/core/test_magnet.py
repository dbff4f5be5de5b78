"""Magnet links as people send them (core.magnet)."""

import base64
import contextlib

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from core.errors import InvalidInputError
from core.magnet import (
    BTIH_REASON,
    BTMH_REASON,
    NO_INFOHASH_REASON,
    SEVERAL_TORRENTS_REASON,
    clean_name,
    find_magnets,
    magnet_uri,
    parse_magnet,
    remaining_text,
)
from core.reasons import Reason
from tests.hashes import v1, v2


def base32_of(hex_hash: str) -> str:
    return base64.b32encode(bytes.fromhex(hex_hash)).decode()


# --- parse_magnet: what it accepts -------------------------------------------------


def test_a_v1_hex_magnet_gives_its_hash_name_trackers_and_peers() -> None:
    h = v1()
    magnet = parse_magnet(
        f"  magnet:?xt=urn:btih:{h.upper()}&dn=Dune+2021&tr=udp%3A%2F%2Ft.example%3A80"
        "&tr=http://t2.example/announce&x.pe=127.0.0.1:6881&x.pe=[::1]:51413&foo=bar \n"
    )
    assert magnet.infohashes == (h,)
    assert magnet.name == "Dune 2021"
    assert magnet.trackers == ("udp://t.example:80", "http://t2.example/announce")
    assert magnet.peers == ("127.0.0.1:6881", "[::1]:51413")
    assert magnet.uri.startswith("magnet:?xt=urn:btih:")
    assert magnet.uri.endswith("foo=bar")


@given(st.binary(min_size=20, max_size=20))
def test_a_base32_btih_becomes_lowercase_hex_in_any_case(raw: bytes) -> None:
    encoded = base64.b32encode(raw).decode()
    assert parse_magnet(f"magnet:?xt=urn:btih:{encoded}").infohashes == (raw.hex(),)
    assert parse_magnet(f"magnet:?xt=urn:btih:{encoded.lower()}").infohashes == (raw.hex(),)


def test_a_hybrid_magnet_gives_v1_then_v2_whatever_their_order() -> None:
    h1, h2 = v1(), v2()
    magnet = parse_magnet(f"magnet:?xt=urn:btmh:1220{h2.upper()}&xt=urn:btih:{base32_of(h1)}")
    assert magnet.infohashes == (h1, h2)


def test_a_btmh_only_magnet_gives_the_v2_hash() -> None:
    h2 = v2()
    assert parse_magnet(f"magnet:?xt=urn:btmh:1220{h2}&dn=x").infohashes == (h2,)


def test_numbered_xt_keys_count_like_plain_ones() -> None:
    h1, h2 = v1(), v2()
    magnet = parse_magnet(f"magnet:?xt.1=urn:btih:{h1}&xt.2=urn:btmh:1220{h2}&dn.1=Name")
    assert magnet.infohashes == (h1, h2)
    assert magnet.name == "Name"


def test_scheme_keys_and_urn_prefixes_are_case_insensitive() -> None:
    h = v1()
    assert parse_magnet(f"MAGNET:?XT=URN:BTIH:{h}").infohashes == (h,)


def test_repeated_hashes_trackers_and_peers_count_once() -> None:
    h = v1()
    magnet = parse_magnet(
        f"magnet:?xt=urn:btih:{h}&xt=urn:btih:{base32_of(h)}&tr=http://t/a&tr=http://t/a"
        "&x.pe=1.2.3.4:5&x.pe=1.2.3.4:5"
    )
    assert magnet.infohashes == (h,)
    assert magnet.trackers == ("http://t/a",)
    assert magnet.peers == ("1.2.3.4:5",)


def test_a_link_copied_from_html_with_amp_entities_still_parses() -> None:
    h = v1()
    magnet = parse_magnet(f"magnet:?xt=urn:btih:{h}&amp;dn=Dune&amp;x.pe=10.0.0.1:7000")
    assert (magnet.name, magnet.peers) == ("Dune", ("10.0.0.1:7000",))


def test_the_name_is_url_decoded_and_control_characters_are_gone() -> None:
    magnet = parse_magnet(
        f"magnet:?xt=urn:btih:{v1()}&dn=%D0%94%D1%8E%D0%BD%D0%B0%0A%0A2021%00+%2B+%26"
    )
    assert magnet.name == "Дюна 2021 + &"


def test_a_magnet_without_dn_has_an_empty_name() -> None:
    assert parse_magnet(f"magnet:?xt=urn:btih:{v1()}").name == ""


def test_other_urns_and_invalid_peers_are_ignored() -> None:
    h = v1()
    magnet = parse_magnet(
        f"magnet:?xt=urn:ed2k:31D6CFE0D16AE931B73C59D7E0C089C0&xt=urn:btih:{h}"
        "&x.pe=nohost&x.pe=1.2.3.4:0&x.pe=1.2.3.4:70000&x.pe=:80"
    )
    assert magnet.infohashes == (h,)
    assert magnet.peers == ()


def test_a_magnet_of_exactly_8_kib_is_accepted() -> None:
    head = f"magnet:?xt=urn:btih:{v1()}&dn="
    assert parse_magnet(head + "a" * (8 * 1024 - len(head))).name


# --- parse_magnet: what it refuses, and why ------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "This is not a magnet link."),
        ("https://example.org/x.torrent", "This is not a magnet link."),
        ("magnet:xt=urn:btih:" + "a" * 40, "This is not a magnet link."),
        ("это Дюна", "This is not a magnet link."),
        ("magnet:?xt=urn:btih:" + "a" * 39, BTIH_REASON),
        ("magnet:?xt=urn:btih:" + "a" * 41, BTIH_REASON),
        ("magnet:?xt=urn:btih:" + "g" * 40, BTIH_REASON),
        ("magnet:?xt=urn:btih:" + "1" * 32, BTIH_REASON),  # 1 is not base32
        ("magnet:?xt=urn:btih:" + "é" * 32, BTIH_REASON),
        ("magnet:?xt=urn:btih:", BTIH_REASON),
        ("magnet:?xt=urn:btmh:" + "b" * 64, BTMH_REASON),
        ("magnet:?xt=urn:btmh:1114" + "b" * 64, BTMH_REASON),
        ("magnet:?xt=urn:btmh:1220" + "b" * 63, BTMH_REASON),
        ("magnet:?xt=urn:btmh:1220" + "z" * 64, BTMH_REASON),
        ("magnet:?xt=urn:btih:" + "a" * 40 + "&xt=urn:btmh:12", BTMH_REASON),
        ("magnet:?", NO_INFOHASH_REASON),
        ("magnet:?dn=Dune&tr=http://t/a", NO_INFOHASH_REASON),
        ("magnet:?xt=urn:ed2k:31D6CFE0D16AE931B73C59D7E0C089C0", NO_INFOHASH_REASON),
        (
            "magnet:?xt=urn:btih:" + "a" * 40 + "&dn=" + "a" * 8200,
            "This link is too long to be a magnet link (over 8 KB).",
        ),
        ("magnet:?xt=urn:btih:" + "a" * 40 + "&xt=urn:btih:" + "b" * 40, SEVERAL_TORRENTS_REASON),
        (
            "magnet:?xt=urn:btmh:1220" + "a" * 64 + "&xt.2=urn:btmh:1220" + "b" * 64,
            SEVERAL_TORRENTS_REASON,
        ),
        (
            "magnet:?" + "&".join(f"xt=urn:btih:{n:040x}" for n in range(150)),
            SEVERAL_TORRENTS_REASON,
        ),
    ],
)
def test_a_bad_magnet_is_refused_with_a_reason(text: str, reason: "str | Reason") -> None:
    with pytest.raises(InvalidInputError) as refusal:
        parse_magnet(text)
    assert str(refusal.value) == (reason if isinstance(reason, str) else reason.english())


_magnet_pieces = st.sampled_from(
    ["xt=urn:btih:", "xt=urn:btmh:1220", "xt.1=", "dn=", "tr=", "x.pe=", "&", "%", "+", "=", ":"]
)


@given(st.text())
def test_parse_magnet_refuses_any_text_only_with_invalid_input(text: str) -> None:
    for candidate in (text, "magnet:?" + text):
        with contextlib.suppress(InvalidInputError):
            parse_magnet(candidate)


@given(st.lists(st.one_of(_magnet_pieces, st.text(max_size=70))).map("".join))
def test_parse_magnet_refuses_near_magnets_only_with_invalid_input(query: str) -> None:
    try:
        magnet = parse_magnet("magnet:?" + query)
    except InvalidInputError:
        return
    assert magnet.infohashes
    assert all(len(h) in (40, 64) and h == h.lower() for h in magnet.infohashes)


# --- magnet_uri ----------------------------------------------------------------


_hex20 = st.binary(min_size=20, max_size=20).map(bytes.hex)
_hex32 = st.binary(min_size=32, max_size=32).map(bytes.hex)
_peer = st.builds(
    "{}.{}.{}.{}:{}".format, *[st.integers(0, 255)] * 4, st.integers(1, 65535)
) | st.builds("[::{:x}]:{}".format, st.integers(0, 0xFFFF), st.integers(1, 65535))


@given(
    st.lists(_hex20, max_size=1),  # a magnet names one torrent: v1, v2 or both
    st.lists(_hex32, max_size=1),
    st.text(max_size=200),
    st.lists(_peer, max_size=3, unique=True),
)
def test_magnet_uri_round_trips_through_parse_magnet(
    v1s: list[str], v2s: list[str], name: str, peers: list[str]
) -> None:
    assume(v1s or v2s)
    hashes = v2s + [h.upper() for h in v1s]
    magnet = parse_magnet(magnet_uri(hashes, name, peers))
    assert magnet.infohashes == tuple(dict.fromkeys(v1s + v2s))
    assert magnet.name == clean_name(name)
    assert magnet.peers == tuple(peers)
    assert magnet.trackers == ()


def test_magnet_uri_reads_like_the_documented_form() -> None:
    h1, h2 = v1(), v2()
    assert magnet_uri([h2, h1], "Дюна 2021", ["127.0.0.1:6881"]) == (
        f"magnet:?xt=urn:btih:{h1}&xt=urn:btmh:1220{h2}"
        "&dn=%D0%94%D1%8E%D0%BD%D0%B0%202021&x.pe=127.0.0.1:6881"
    )
    assert magnet_uri([h1]) == f"magnet:?xt=urn:btih:{h1}"


@pytest.mark.parametrize(("hashes", "peers"), [([], []), (["abc"], []), ([v1()], ["not a peer"])])
def test_magnet_uri_refuses_what_it_cannot_build(hashes: list[str], peers: list[str]) -> None:
    with pytest.raises(InvalidInputError):
        magnet_uri(hashes, "x", peers)


# --- find_magnets and remaining_text --------------------------------------------


def test_several_magnets_in_a_russian_message_and_the_hint_around_them() -> None:
    h1, h2, h3 = v1(), v2(), v1()
    first = f"magnet:?xt=urn:btih:{h1}&dn=Dune+(2021)"
    second = f"magnet:?xt=urn:btmh:1220{h2}"
    third = f"MAGNET:?xt=urn:btih:{base32_of(h3)}&tr=http://t/a"
    message = (
        f"это Дюна 2021, вот ссылки:\n<{first}>,\n({second}).\n"
        f"«{third}» и ещё раз [{first}]; спасибо!"
    )
    assert find_magnets(message) == [first, second, third]
    assert remaining_text(message) == "это Дюна 2021, вот ссылки: и ещё раз спасибо!"
    assert [parse_magnet(m).infohashes for m in find_magnets(message)] == [(h1,), (h2,), (h3,)]


def test_links_glued_together_are_two_links() -> None:
    a, b = f"magnet:?xt=urn:btih:{v1()}", f"magnet:?xt=urn:btih:{v1()}"
    assert find_magnets(a + b) == [a, b]
    assert find_magnets(f"\"{a}\"\t'{b}'") == [a, b]


@pytest.mark.parametrize(
    ("message", "found"),
    [
        ("magnet:?xt=urn:btih:abc.", ["magnet:?xt=urn:btih:abc"]),
        ("(magnet:?xt=urn:btih:abc&dn=A+(B))", ["magnet:?xt=urn:btih:abc&dn=A+(B)"]),
        ("see magnet:?dn=Ocean's+Eleven!", ["magnet:?dn=Ocean's+Eleven"]),
        ("magnet:?", ["magnet:?"]),
        ("magnet:?...", ["magnet:?"]),
        ("no links here", []),
        ("", []),
    ],
)
def test_find_magnets_cuts_what_the_sentence_added(message: str, found: list[str]) -> None:
    assert find_magnets(message) == found


def test_remaining_text_of_a_message_without_links_is_the_message_collapsed() -> None:
    assert remaining_text("  Дюна\n\t 2021  ") == "Дюна 2021"
    assert remaining_text(f"magnet:?xt=urn:btih:{v1()}") == ""


@given(st.text())
def test_find_magnets_and_remaining_text_take_any_text(text: str) -> None:
    found = find_magnets(text)
    assert len(found) == len(set(found))
    assert all(m.lower().startswith("magnet:?") and m in text for m in found)
    assert "magnet:?" not in remaining_text(text).lower()
    for magnet in found:
        with contextlib.suppress(InvalidInputError):
            parse_magnet(magnet)
