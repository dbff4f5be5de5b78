"""Reasons stored as English sentences become codes with parameters.

Every reason column (``state_transition.reason``, ``download.error``,
``recognition.reason``, and the ``reason`` of unsent outbox payloads) that holds
one of the sentences earlier versions wrote gets the code of ``core.reasons``;
anything else is kept word for word as ``{"code": "text", "text": …}``, which
reads as it did. Rows that already hold a code are left alone.
"""

import json
import re
import sqlite3
from collections.abc import Callable

Params = dict[str, str | int | float]

_EXACT: dict[str, str] = {
    "created from telegram": "created.telegram",
    "created from api": "created.api",
    "created from adopted": "created.adopted",
    "seen in qBittorrent": "qbt.seen",
    "the download is complete": "qbt.complete",
    "progress resumed": "qbt.resumed",
    "the torrent disappeared from qBittorrent before it completed": "qbt.vanished",
    "the torrent is back in qBittorrent": "qbt.back",
    "retry": "person.retry",
    "title chosen": "person.picked",
    "relink": "person.relink",
    "cancelled": "person.cancel",
    "overrides changed": "person.corrected",
    "nothing to put in the library: no video files": "review.no_video",
    "could not tell what this is from its name": "review.no_title",
    "several titles match; pick the right one": "review.ambiguous",
    "the match is not certain enough": "review.unsure",
}

_DURATION = re.compile(r"([0-9.]+) (h|min|s)")
_UNIT_SECONDS = {"h": 3600, "min": 60, "s": 1}
_COPIED = " (copied: the library is on another file system than the downloads)"
_FOLDER = re.compile(r".+ \(\d{4}\)( \[tmdbid-\d+\])?|.+ \[tmdbid-\d+\]")


def _seconds(match: re.Match[str]) -> Params | None:
    duration = _DURATION.fullmatch(match.group(1))
    if duration is None:
        return None
    return {"seconds": round(float(duration.group(1)) * _UNIT_SECONDS[duration.group(2)])}


_PATTERNS: list[tuple[re.Pattern[str], str, Callable[[re.Match[str]], Params | None]]] = [
    (re.compile(r"qBittorrent reports (\S+)"), "qbt.error", lambda m: {"qbt_state": m[1]}),
    (re.compile(r"no progress for (.+)"), "qbt.no_progress", _seconds),
    (re.compile(r"retry failed: (.*)", re.S), "person.retry_failed", lambda m: {"detail": m[1]}),
    (
        re.compile(r"qBittorrent refused to add the torrent \((.*)\)", re.S),
        "qbt.refused",
        lambda m: {"detail": m[1]},
    ),
    (
        re.compile(r"no match for '(.*)' in the metadata", re.S),
        "review.nothing",
        lambda m: {"title": m[1]},
    ),
]


def coded(text: str, *, done: bool = False) -> str:
    """The reason ``text`` as a code (JSON); ``done``: a move into ``done``, whose
    reason was the library folder."""
    try:
        stored = json.loads(text)
    except ValueError:
        stored = None
    if isinstance(stored, dict) and isinstance(stored.get("code"), str):
        return text
    code, params = _EXACT.get(text), {}
    for pattern, pattern_code, read in _PATTERNS if code is None else []:
        match = pattern.fullmatch(text)
        found = read(match) if match else None
        if found is not None:
            code, params = pattern_code, found
            break
    if code is None and done:
        folder = text.removesuffix(_COPIED)
        if _FOLDER.fullmatch(folder):
            code = "import.done_copied" if folder != text else "import.done"
            params = {"folder": folder}
    if code is None:
        code, params = "text", {"text": text}
    return json.dumps({"code": code, **params}, ensure_ascii=False, sort_keys=True)


def apply(conn: sqlite3.Connection) -> None:
    rows = conn.execute("SELECT id, to_state, reason FROM state_transition").fetchall()
    for row_id, to_state, reason in rows:
        new = coded(reason, done=to_state == "done")
        if new != reason:
            conn.execute("UPDATE state_transition SET reason = ? WHERE id = ?", (new, row_id))
    for table in ("download", "recognition"):
        column = "error" if table == "download" else "reason"
        found = conn.execute(f"SELECT id, {column} FROM {table} WHERE {column} IS NOT NULL")
        for row_id, text in found.fetchall():
            if (new := coded(text)) != text:
                conn.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", (new, row_id))
    unsent = conn.execute("SELECT id, kind, payload FROM outbox WHERE sent_at IS NULL")
    for row_id, kind, payload in unsent.fetchall():
        data = json.loads(payload)
        if isinstance(data, dict) and isinstance(data.get("reason"), str):
            new = coded(data["reason"], done=kind == "done")
            if new != data["reason"]:
                data["reason"] = new
                conn.execute(
                    "UPDATE outbox SET payload = ? WHERE id = ?",
                    (json.dumps(data, ensure_ascii=False), row_id),
                )
