"""The migration chain on a legacy (0001) database filled with realistic data."""

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from core import clock
from core.errors import InvalidInputError
from core.ids import Id, id_timestamp_ms, parse_id
from core.reasons import Reason, reason, text_reason
from recognition.candidates import Candidate, Evidence, Season
from store import Store
from store.migrate import (
    Migration,
    MigrationError,
    available_migrations,
    current_version,
    latest_version,
    migrate,
)

V1_UPPER = "C12FE1C06BBA254A9DC9F519B335AA7C1367A88A"
V1_BASE32 = "YEX6DQDLXISUVHOJ6UM3GNNKPQJWPKEK"  # the same hash as V1_UPPER, in base32
V1_LOWER = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
V2 = "b" * 64
UNPARSABLE = "yesterday-ish"

# (old id, infohash, idempotency_key, name, state, created_at)
DOWNLOADS = [
    (1, V1_LOWER, None, "Old.Movie.2019", "done", "2025-01-05 10:00:00"),
    (2, V1_UPPER, None, "Show.S01 first try", "failed", "2025-01-06 09:00:00"),
    (3, V2, V2, "Hybrid.v2.Only", "downloading", "2025-01-06 09:00:00"),
    (4, V1_LOWER, V1_LOWER, "Old.Movie.2019 again", "importing", "2025-01-04 08:00:00"),
    (5, V1_BASE32, V1_BASE32, "Show.S01 second try", "review", UNPARSABLE),
    (6, "d" * 40, None, "Removed.Thing", "removed", "2025-02-01 00:00:00"),
]
SAME_SECOND = "2025-01-07 12:00:00"


def fill_legacy(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    for row in DOWNLOADS:
        conn.execute(
            "INSERT INTO download (id, infohash, idempotency_key, name, state, source_ref,"
            " chat_id, created_at, updated_at, completed_at)"
            " VALUES (?, ?, ?, ?, ?, 'magnet:?xt=…', 42, ?, ?, ?)",
            (*row, row[5], "2025-01-08 00:00:00" if row[4] == "done" else None),
        )
    recognitions = [(1, 1, "2025-01-05 11:00:00"), (2, 4, "2025-01-05 11:00:00"), (3, 5, "bad")]
    for rid, did, at in recognitions:
        conn.execute(
            "INSERT INTO recognition (id, download_id, kind, title, status, created_at)"
            " VALUES (?, ?, 'movie', ?, 'auto', ?)",
            (rid, did, f"title of {did}", at),
        )
    for cid, rid in [(1, 1), (2, 1), (3, 2), (4, 3)]:
        conn.execute(
            "INSERT INTO metadata_candidate (id, recognition_id, provider, kind, title,"
            " created_at) VALUES (?, ?, 'tmdb', 'movie', ?, '2025-01-05 11:00:01')",
            (cid, rid, f"candidate {cid}"),
        )
    conn.execute(
        "INSERT INTO hint (id, download_id, text, created_at) VALUES"
        " (1, 2, 'это сериал', '2025-01-06 09:00:01'), (2, 5, 'Show 2019', '2025-01-06 09:00:02')"
    )
    conn.execute(
        "INSERT INTO override (id, download_id, field, value, created_at) VALUES"
        " (1, 4, 'year', '2019', '2025-01-05 12:00:00'),"
        " (2, 4, 'title', 'Old Movie', '2025-01-05 12:00:00')"
    )
    for fid in range(1, 8):  # one batch of 4 and one of 3, all in the same second
        batch, download = ("batch-a", 1) if fid <= 4 else ("batch-b", 4)
        conn.execute(
            "INSERT INTO file_link (id, download_id, apply_batch_id, source_path, target_path,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (fid, download, batch, f"/dl/{fid}.mkv", f"/media/{fid}.mkv", SAME_SECOND),
        )
    conn.commit()
    conn.close()


@pytest.fixture
def legacy_db(tmp_path: Path) -> Path:
    path = tmp_path / "legacy.db"
    migrate(path, available_migrations()[:1])
    fill_legacy(path)
    return path


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [*conn.iterdump(), f"user_version={current_version(conn)}"]
    finally:
        conn.close()


def query(path: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def chronological(rows: list[tuple[int, str]]) -> list[int]:
    """Old ids in creation order: created_at, then old id; unparsable = now (last)."""

    def key(row: tuple[int, str]) -> tuple[float, int]:
        moment = clock.parse_legacy_time(row[1])
        return (float("inf") if moment is None else moment.timestamp(), row[0])

    return [old_id for old_id, _ in sorted(rows, key=key)]


def test_chain_keeps_links_order_and_hashes(legacy_db: Path) -> None:
    migrate(legacy_db)

    assert query(legacy_db, "PRAGMA user_version") == [(latest_version(),)]
    assert query(legacy_db, "PRAGMA foreign_key_check") == []
    # links of the legacy system were applied: not an unfinished batch
    assert query(legacy_db, "SELECT count(*) FROM file_link WHERE linked_at IS NULL") == [(0,)]
    columns = {row[1] for row in query(legacy_db, "PRAGMA table_info(download)")}
    assert "infohash" not in columns
    assert "idempotency_key" not in columns

    # Order by new id = old chronological order, per table.
    names = [r[0] for r in query(legacy_db, "SELECT name FROM download ORDER BY id")]
    old_order = chronological([(r[0], r[5]) for r in DOWNLOADS])
    assert names == [DOWNLOADS[i - 1][3] for i in old_order]
    links = [r[0] for r in query(legacy_db, "SELECT source_path FROM file_link ORDER BY id")]
    assert links == [f"/dl/{i}.mkv" for i in range(1, 8)]  # same second: old id order

    # Every foreign key points to the same logical row.
    assert sorted(
        query(
            legacy_db,
            "SELECT r.title, d.name FROM recognition r JOIN download d ON d.id = r.download_id",
        )
    ) == [
        ("title of 1", "Old.Movie.2019"),
        ("title of 4", "Old.Movie.2019 again"),
        ("title of 5", "Show.S01 second try"),
    ]
    assert sorted(
        query(
            legacy_db,
            "SELECT c.title, r.title FROM metadata_candidate c"
            " JOIN recognition r ON r.id = c.recognition_id",
        )
    ) == [
        ("candidate 1", "title of 1"),
        ("candidate 2", "title of 1"),
        ("candidate 3", "title of 4"),
        ("candidate 4", "title of 5"),
    ]
    for table, column in [("hint", "text"), ("override", "value"), ("file_link", "target_path")]:
        pairs = query(
            legacy_db,
            f"SELECT t.{column}, d.name FROM {table} t JOIN download d ON d.id = t.download_id",
        )
        assert len(pairs) == {"hint": 2, "override": 2, "file_link": 7}[table]
    assert sorted(
        query(
            legacy_db,
            "SELECT d.name, count(*), count(DISTINCT f.apply_batch_id) FROM file_link f"
            " JOIN download d ON d.id = f.download_id GROUP BY d.name",
        )
    ) == [("Old.Movie.2019", 4, 1), ("Old.Movie.2019 again", 3, 1)]

    # Every old infohash is a row of download_infohash, lowercase, with its kind.
    hashes = sorted(
        query(
            legacy_db,
            "SELECT d.name, h.infohash, h.kind FROM download_infohash h"
            " JOIN download d ON d.id = h.download_id",
        )
    )
    assert hashes == sorted(
        [
            ("Old.Movie.2019", V1_LOWER, "v1"),
            ("Show.S01 first try", V1_UPPER.lower(), "v1"),
            ("Hybrid.v2.Only", V2, "v2"),
            ("Old.Movie.2019 again", V1_LOWER, "v1"),
            ("Show.S01 second try", V1_UPPER.lower(), "v1"),
            ("Removed.Thing", "d" * 40, "v1"),
        ]
    )


def test_ids_are_ulids_dated_by_created_at(legacy_db: Path) -> None:
    before_ms = clock.now_ms()
    migrate(legacy_db)
    every_id: list[str] = []
    for table in ("download", "recognition", "metadata_candidate", "hint", "override"):
        every_id += [r[0] for r in query(legacy_db, f"SELECT id FROM {table}")]
    every_id += [r[0] for r in query(legacy_db, "SELECT id FROM file_link")]
    batches = {r[0] for r in query(legacy_db, "SELECT apply_batch_id FROM file_link")}
    assert all(parse_id(i) == i for i in [*every_id, *batches])
    assert len(set(every_id) | batches) == len(every_id) + len(batches)  # unique across entities

    rows = query(legacy_db, "SELECT id, name, created_at FROM download")
    for download_id, name, created_at in rows:
        ms = id_timestamp_ms(parse_id(download_id))  # type: ignore[arg-type]
        if name == "Show.S01 second try":  # unparsable created_at -> migration time
            assert ms >= before_ms
        else:
            assert ms == clock.to_ms(clock.parse_time(created_at))
        assert clock.parse_time(created_at)  # RFC 3339 after 0003
    done = query(legacy_db, "SELECT completed_at FROM download WHERE state = 'done'")
    assert done == [("2025-01-08T00:00:00Z",)]


async def test_migrated_database_serves_the_store(legacy_db: Path) -> None:
    migrate(legacy_db)
    store = await Store.open(legacy_db)
    try:
        active = await store.downloads.find_active_by_infohash([V1_LOWER])
        assert active is not None
        assert active.name == "Old.Movie.2019 again"
        assert await store.downloads.find_active_by_infohash(["d" * 40]) is None
        history = await store.downloads.list_transitions(active.id)
        assert [(t.from_state, t.to_state) for t in history] == [(None, "importing")]
    finally:
        await store.close()


def test_a_migration_failing_midway_changes_nothing(legacy_db: Path) -> None:
    conn = sqlite3.connect(legacy_db)
    conn.execute(
        "INSERT INTO download (id, infohash, state, created_at)"
        " VALUES (99, 'zz', 'done', '2025-03-01 00:00:00')"
    )
    conn.commit()
    conn.close()
    before = dump(legacy_db)
    with pytest.raises(InvalidInputError, match="download 99: cannot migrate infohash 'zz'"):
        migrate(legacy_db)
    assert dump(legacy_db) == before


def test_a_failing_migration_leaves_user_version_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    migrate(path)
    before = dump(path)

    def half_done(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half (id TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM download")
        raise RuntimeError("power cut")

    chain = [*available_migrations(), Migration(latest_version() + 1, "half", half_done)]
    with pytest.raises(RuntimeError, match="power cut"):
        migrate(path, chain)
    assert dump(path) == before


def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    migrate(path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {latest_version() + 3}")
    conn.close()
    with pytest.raises(MigrationError, match="newer than this jellybit"):
        migrate(path)


def test_migrate_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "twice.db"
    assert migrate(path) == list(range(1, latest_version() + 1))
    assert migrate(path) == []


REFUSED = "qBittorrent refused to add the torrent (Fails.)"


def test_english_reasons_become_codes(tmp_path: Path) -> None:
    """0009: the sentences earlier versions stored read in the reader's language."""
    path = tmp_path / "v8.db"
    migrate(path, available_migrations()[:8])
    conn = sqlite3.connect(path)
    now = "2025-01-01T00:00:00Z"
    conn.execute(
        "INSERT INTO download (id, name, state, source, source_ref, created_at, updated_at,"
        " error) VALUES ('d1', 'Dune', 'stuck', 'telegram', '', ?, ?, 'no progress for 6 h')",
        (now, now),
    )
    history = [
        ("t1", None, "accepted", "created from telegram"),
        ("t2", "accepted", "downloading", "seen in qBittorrent"),
        ("t3", "downloading", "stuck", "qBittorrent reports stalledDL"),
        ("t4", "importing", "done", "Dune (2021) [tmdbid-438631]"),
        ("t5", "accepted", "failed", "retry failed: " + REFUSED),
        ("t6", "stuck", "failed", "something nobody foresaw"),
    ]  # fmt: skip
    conn.executemany(
        "INSERT INTO state_transition (id, download_id, from_state, to_state, reason, created_at)"
        " VALUES (?, 'd1', ?, ?, ?, ?)",
        [(*row, now) for row in history],
    )
    conn.commit()
    conn.close()
    migrate(path)
    reasons = dict(query(path, "SELECT id, reason FROM state_transition"))
    assert [Reason.loads(reasons[key]) for key in ("t1", "t2", "t3", "t4", "t5", "t6")] == [
        reason("created.telegram"),
        reason("qbt.seen"),
        reason("qbt.error", qbt_state="stalledDL"),
        reason("import.done", folder="Dune (2021) [tmdbid-438631]"),
        reason("person.retry_failed", detail=REFUSED),
        text_reason("something nobody foresaw"),
    ]
    assert query(path, "SELECT error FROM download") == [
        (reason("qbt.no_progress", seconds=21600).dumps(),)
    ]


def test_titles_are_backfilled_from_chosen_candidates_and_the_folders_in_use(
    tmp_path: Path,
) -> None:
    """0011: a database of done downloads upgrades in place: one title per provider
    id, its folder the one the links already use, every link kept."""
    path = tmp_path / "v10.db"
    migrate(path, available_migrations()[:10])
    conn = sqlite3.connect(path)
    now = "2025-03-01T10:00:00Z"
    shows = "/media/shows/Тьма (2017) [tmdbid-70523]"
    rows = [  # download, name, candidate kind, title (as TMDB named it then), target
        ("d1", "Dune.2021", "movie", "Дюна", "/media/movies/Дюна (2021) [tmdbid-438631]/D.mkv"),
        ("d2", "Dark.S01", "series", "Тьма", f"{shows}/Season 01/Тьма S01E01.mkv"),
        ("d3", "Dark.S02", "series", "Dark", f"{shows}/Season 02/Dark S02E01.mkv"),
        ("d4", "Dune.2021.2160p", "movie", "Dune", None),  # chosen, never laid out
    ]
    for download, name, kind, title, target in rows:
        tmdb = "438631" if kind == "movie" else "70523"
        conn.execute(
            "INSERT INTO download (id, name, state, source, source_ref, created_at, updated_at)"
            " VALUES (?, ?, 'done', 'telegram', '', ?, ?)",
            (download, name, now, now),
        )
        conn.execute(
            "INSERT INTO recognition (id, download_id, kind, title, status, created_at)"
            " VALUES (?, ?, ?, ?, 'auto', ?)",
            (f"r{download}", download, kind, title, now),
        )
        conn.execute(
            "INSERT INTO metadata_candidate (id, recognition_id, provider, provider_id, kind,"
            " title, year, score, selected, created_at)"
            " VALUES (?, ?, 'tmdb', ?, ?, ?, ?, 1.0, 1, ?)",
            (
                f"c{download}",
                f"r{download}",
                tmdb,
                kind,
                title,
                2021 if kind == "movie" else 2017,
                now,
            ),
        )
        if target is not None:
            conn.execute(
                "INSERT INTO file_link (id, download_id, apply_batch_id, source_path, target_path,"
                " created_at, linked_at) VALUES (?, ?, 'b', '/dl/x.mkv', ?, ?, ?)",
                (f"l{download}", download, target, now, now),
            )
    conn.commit()
    conn.close()
    migrate(path)
    titles = query(path, "SELECT kind, provider_id, folder FROM title ORDER BY kind")
    assert titles == [
        ("movie", "438631", "Дюна (2021) [tmdbid-438631]"),
        ("series", "70523", "Тьма (2017) [tmdbid-70523]"),  # the folder in use, not "Dark …"
    ]
    by_download = dict(
        query(path, "SELECT d.id, t.provider_id FROM download d JOIN title t ON t.id = d.title_id")
    )
    assert by_download == {"d1": "438631", "d2": "70523", "d3": "70523", "d4": "438631"}
    assert query(path, "SELECT count(*) FROM file_link WHERE removed_at IS NULL") == [(3,)]


async def test_candidates_and_titles_get_their_whole_record(tmp_path: Path) -> None:
    """0014: a candidate and a title stored before it read as the same record from
    their columns; a local title's record has no provider id."""
    path = tmp_path / "v13.db"
    migrate(path, available_migrations()[:13])
    conn = sqlite3.connect(path)
    now = "2025-03-01T10:00:00Z"
    conn.execute(
        "INSERT INTO download (id, name, state, source, source_ref, created_at, updated_at)"
        " VALUES ('d1', 'Dark.S01', 'done', 'telegram', '', ?, ?)",
        (now, now),
    )
    conn.execute(
        "INSERT INTO recognition (id, download_id, kind, title, status, created_at)"
        " VALUES ('r1', 'd1', 'series', 'Dark', 'auto', ?)",
        (now,),
    )
    evidence = '{"title": "exact", "matched": "Dark", "year": "exact", "seasons": "fit"}'
    conn.execute(
        "INSERT INTO metadata_candidate (id, recognition_id, provider, provider_id, kind, title,"
        " original_title, year, score, selected, overview, poster_path, popularity, evidence,"
        " seasons, created_at) VALUES ('c1', 'r1', 'tmdb', '70523', 'series', 'Тьма', 'Dark',"
        " 2017, 0.98, 1, 'A child goes missing.', '/dark.jpg', NULL, ?, '[[1, 10, 2017]]', ?)",
        (evidence, now),
    )
    for key, provider, title_id in (("70523", "tmdb", "t1"), ("Home Video (2019)", "local", "t2")):
        conn.execute(
            "INSERT INTO title (id, kind, provider, provider_id, name, year, folder, poster_path,"
            " overview, created_at, updated_at) VALUES (?, 'series', ?, ?, 'Тьма', 2017, ?,"
            " '/dark.jpg', NULL, ?, ?)",
            (title_id, provider, key, f"folder {title_id}", now, now),
        )
    conn.execute("UPDATE download SET title_id = 't1' WHERE id = 'd1'")
    conn.commit()
    conn.close()
    migrate(path)
    store = await Store.open(path)
    try:
        current = await store.recognitions.current(Id("d1"))
        assert current is not None
        stored = current.candidates[0]
        assert stored.selected
        assert stored.candidate == Candidate(
            "tmdb", "70523", "series", "Тьма", "Dark", 2017, "A child goes missing.",
            "/dark.jpg", 0.0, seasons=(Season(1, 10, 2017),), score=0.98,
            evidence=Evidence("exact", "Dark", "exact", seasons="fit"),
        )  # fmt: skip
        tmdb_title, local_title = await store.titles.get(Id("t1")), await store.titles.get(Id("t2"))
        assert tmdb_title is not None
        assert local_title is not None
        assert tmdb_title.candidate == Candidate(
            "tmdb", "70523", "series", "Тьма", None, 2017, None, "/dark.jpg", 0.0
        )
        assert (local_title.candidate.provider, local_title.candidate.provider_id) == (
            "local",
            None,
        )
        assert (local_title.name, local_title.folder) == ("Тьма", "folder t2")
    finally:
        await store.close()
