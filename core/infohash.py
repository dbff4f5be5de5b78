"""Infohashes as stored: lowercase hex, kind decided by length."""

import base64
import re
from collections.abc import Iterable
from typing import Literal

from core.errors import InvalidInputError

Kind = Literal["v1", "v2"]

_HEX = re.compile(r"[0-9a-f]+")
_KIND_BY_LENGTH: dict[int, Kind] = {40: "v1", 64: "v2"}


def normalize_infohash(text: str) -> tuple[str, Kind]:
    """Lowercase a hex infohash and tell its kind: 40 hex is v1, 64 hex is v2."""
    value = text.strip().lower()
    kind = _KIND_BY_LENGTH.get(len(value))
    if kind is None or not _HEX.fullmatch(value):
        raise InvalidInputError(f"infohash must be 40 or 64 hex characters, got {text!r}")
    return value, kind


def normalize_infohashes(texts: Iterable[str]) -> dict[str, Kind]:
    """Normalized, de-duplicated hashes in input order; at least one."""
    result: dict[str, Kind] = {}
    for text in texts:
        value, kind = normalize_infohash(text)
        result[value] = kind
    if not result:
        raise InvalidInputError("a download needs at least one infohash")
    return result


def base32_to_hex(text: str) -> str:
    """A 32-character base32 btih (RFC 4648 alphabet, any case) as 40 lowercase hex."""
    if len(text) != 32:
        raise InvalidInputError(f"base32 infohash must be 32 characters, got {len(text)}")
    try:
        raw = base64.b32decode(text.upper())
    except ValueError as error:  # binascii.Error, and ValueError for non-ASCII
        raise InvalidInputError(f"not a base32 infohash: {text!r}") from error
    return raw.hex()
