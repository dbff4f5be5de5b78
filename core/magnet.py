"""Magnet links as people send them: find them in a message, parse one, build one."""

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote

from core.errors import InvalidInputError
from core.infohash import base32_to_hex, normalize_infohashes
from core.reasons import reason

MAX_MAGNET_BYTES = 8 * 1024

_SCHEME = "magnet:?"
_BTIH = "urn:btih:"
_BTMH = "urn:btmh:"
# Multihash header of a v2 infohash: function 0x12 (sha2-256), digest length 0x20 (32 bytes).
_SHA256_MULTIHASH = "1220"

_HEX40 = re.compile(r"[0-9a-fA-F]{40}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_BASE32_32 = re.compile(r"[A-Za-z2-7]{32}")
# The spec allows numbered copies of a key (xt.1, xt.2, …) next to the plain one.
_KEY = re.compile(r"(xt|dn|tr|x\.pe)(?:\.[0-9]+)?")
_PEER = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+):([0-9]{1,5})")
# Control characters, with the whitespace around them: "Dune\n\n2021" becomes "Dune 2021".
_CONTROLS = re.compile(r"\s*[\x00-\x1f\x7f-\x9f]+\s*")

# A link runs until whitespace, a wrapper people put around links, or the next link
# glued to it without a space.
_MAGNET_CANDIDATE = re.compile(r"magnet:\?(?:(?!magnet:\?)[^\s<>\"«»“”])*", re.IGNORECASE)
_TRAILING_PUNCTUATION = frozenset(".,;:!?'…")
_OPENER_OF = {")": "(", "]": "[", "}": "{"}
# Tokens of only these characters are what a removed link leaves behind: wrappers
# and separators, of no use as a hint.
_SEPARATORS = frozenset("<>()[]{}\"'«»“”„‘’,;.:!?|-–—")

NOT_A_MAGNET_REASON = reason("magnet.not_a_link")
TOO_LONG_REASON = reason("magnet.too_long")
BTIH_REASON = reason("magnet.bad_btih")
BTMH_REASON = reason("magnet.bad_btmh")
NO_INFOHASH_REASON = reason("magnet.no_infohash")
# A magnet names one torrent: one v1 hash, one v2 hash, or one of each (a hybrid).
# More would make one download own hashes of torrents it is not.
SEVERAL_TORRENTS_REASON = reason("magnet.several")


@dataclass(frozen=True)
class Magnet:
    infohashes: tuple[str, ...]  # lowercase hex, v1 (40) first then v2 (64); at least one
    name: str  # from dn, may be ""
    trackers: tuple[str, ...]
    peers: tuple[str, ...]  # host:port hints from x.pe
    uri: str  # the link as received, stripped


def parse_magnet(text: str) -> Magnet:
    """One magnet link, checked; every refusal says why in words a person understands."""
    uri = text.strip()
    if uri[: len(_SCHEME)].lower() != _SCHEME:
        raise InvalidInputError(NOT_A_MAGNET_REASON)
    if len(uri.encode("utf-8", "surrogatepass")) > MAX_MAGNET_BYTES:
        raise InvalidInputError(TOO_LONG_REASON)
    params = _parameters(uri[len(_SCHEME) :])
    return Magnet(
        infohashes=_infohashes(params["xt"]),
        name=next((name for name in map(clean_name, params["dn"]) if name), ""),
        trackers=_unique(tracker.strip() for tracker in params["tr"]),
        peers=_unique(peer.strip() for peer in params["x.pe"] if is_peer(peer.strip())),
        uri=uri,
    )


def magnet_uri(infohashes: Sequence[str], name: str = "", peers: Sequence[str] = ()) -> str:
    """``magnet:?xt=urn:btih:<v1>&xt=urn:btmh:1220<v2>&dn=<name>&x.pe=<peer>``.

    The inverse of ``parse_magnet``: its result parses back to the same hashes,
    the cleaned name and the peers.
    """
    kinds = normalize_infohashes(infohashes)
    bad_peers = [peer for peer in peers if not is_peer(peer)]
    if bad_peers:
        raise InvalidInputError(f"peer must be host:port, got {bad_peers[0]!r}")
    params = [("xt", f"{_BTIH}{value}") for value, kind in kinds.items() if kind == "v1"]
    params += [
        ("xt", f"{_BTMH}{_SHA256_MULTIHASH}{value}")
        for value, kind in kinds.items()
        if kind == "v2"
    ]
    if name:
        params.append(("dn", name))
    params += [("x.pe", peer) for peer in peers]
    # quote(), not quote_plus(): "%20" means a space to every reader, "+" does not.
    return _SCHEME + "&".join(f"{key}={quote(value, safe=':[]')}" for key, value in params)


def find_magnets(text: str) -> list[str]:
    """Every magnet link in a message, in order, each once."""
    return list(dict.fromkeys(text[start:end] for start, end in _magnet_spans(text)))


def remaining_text(text: str) -> str:
    """The message without its magnet links, whitespace collapsed: a recognition hint."""
    pieces: list[str] = []
    position = 0
    for start, end in _magnet_spans(text):
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    words = " ".join(pieces).split()
    return " ".join(word for word in words if not set(word) <= _SEPARATORS)


def clean_name(text: str) -> str:
    """A name fit to show: control characters become a single space, ends stripped."""
    return _CONTROLS.sub(" ", text).strip()


def is_peer(text: str) -> bool:
    """``host:port`` (an IPv6 host in brackets) with a port in 1..65535."""
    match = _PEER.fullmatch(text)
    return match is not None and 1 <= int(match.group(1)) <= 65535


def _parameters(query: str) -> defaultdict[str, list[str]]:
    """Values of the keys we use, numbered keys folded into their base key."""
    params: defaultdict[str, list[str]] = defaultdict(list)
    for raw_key, value in parse_qsl(query, keep_blank_values=True, errors="replace"):
        # Links copied out of HTML often keep "&amp;" as the separator.
        key = raw_key.strip().lower().removeprefix("amp;")
        match = _KEY.fullmatch(key)
        if match:
            params[match.group(1)].append(value)
    return params


def _infohashes(xt_values: Iterable[str]) -> tuple[str, ...]:
    v1: list[str] = []
    v2: list[str] = []
    for value in xt_values:
        urn = value.strip()
        lowered = urn.lower()
        if lowered.startswith(_BTIH):
            v1.append(_v1_from_btih(urn[len(_BTIH) :]))
        elif lowered.startswith(_BTMH):
            v2.append(_v2_from_btmh(lowered[len(_BTMH) :]))
        # Other urns (ed2k, sha1, …) name the content for other networks: not ours.
    if not v1 and not v2:
        raise InvalidInputError(NO_INFOHASH_REASON)
    if len(set(v1)) > 1 or len(set(v2)) > 1:
        raise InvalidInputError(SEVERAL_TORRENTS_REASON)
    return _unique(v1 + v2)


def _v1_from_btih(value: str) -> str:
    if _HEX40.fullmatch(value):
        return value.lower()
    # Matching the alphabet first keeps base32_to_hex from seeing text it cannot decode.
    if _BASE32_32.fullmatch(value):
        return base32_to_hex(value)
    raise InvalidInputError(BTIH_REASON)


def _v2_from_btmh(value: str) -> str:
    digest = value[len(_SHA256_MULTIHASH) :]
    if not value.startswith(_SHA256_MULTIHASH) or not _HEX64.fullmatch(digest):
        raise InvalidInputError(BTMH_REASON)
    return digest


def _magnet_spans(text: str) -> list[tuple[int, int]]:
    return [
        (match.start(), match.start() + len(_without_tail(match.group())))
        for match in _MAGNET_CANDIDATE.finditer(text)
    ]


def _without_tail(candidate: str) -> str:
    """Drop what the sentence put after the link: trailing punctuation, and closing
    brackets with no opening one inside the link ("(magnet:?…)" but "dn=Dune+(2021)")."""
    while len(candidate) > len(_SCHEME):
        last = candidate[-1]
        opener = _OPENER_OF.get(last)
        unbalanced = opener is not None and candidate.count(last) > candidate.count(opener)
        if last not in _TRAILING_PUNCTUATION and not unbalanced:
            break
        candidate = candidate[:-1]
    return candidate


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    """Non-empty values in first-seen order, each once."""
    return tuple(dict.fromkeys(value for value in values if value))
