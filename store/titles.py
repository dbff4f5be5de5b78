"""Library titles (``title``): what the library holds, one folder each."""

import sqlite3
from dataclasses import dataclass

from core import clock
from core.ids import Id, new_id
from store.db import Database


@dataclass(frozen=True)
class LibraryTitle:
    id: Id
    kind: str  # movie | series
    provider: str  # tmdb | local
    provider_id: str
    name: str
    year: int | None
    folder: str  # one component under library.movies / library.shows, fixed once chosen
    poster_path: str | None
    overview: str | None


@dataclass(frozen=True)
class TitleOf:
    """What a chosen candidate says of its title (``Titles.adopt``)."""

    kind: str
    provider: str
    provider_id: str | None
    name: str
    year: int | None
    poster_path: str | None
    overview: str | None


class Titles:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def adopt(self, download_id: Id, chosen: TitleOf, folder: str) -> LibraryTitle:
        """The title of ``chosen`` (created with ``folder`` when the library has no
        such title yet; an existing title keeps its folder, its name and poster are
        refreshed), made the download's title, in one transaction."""
        key = chosen.provider_id if chosen.provider == "tmdb" and chosen.provider_id else folder
        now = clock.now()
        async with self._db.write() as conn:
            await conn.execute(
                """INSERT INTO title (id, kind, provider, provider_id, name, year, folder,
                    poster_path, overview, created_at, updated_at)
                VALUES (:id, :kind, :provider, :key, :name, :year, :folder, :poster,
                    :overview, :now, :now)
                ON CONFLICT (provider, kind, provider_id) DO UPDATE SET
                    name = excluded.name, year = excluded.year,
                    poster_path = coalesce(excluded.poster_path, title.poster_path),
                    overview = coalesce(excluded.overview, title.overview),
                    updated_at = excluded.updated_at""",
                {
                    "id": new_id(),
                    "kind": chosen.kind,
                    "provider": chosen.provider,
                    "key": key,
                    "name": chosen.name,
                    "year": chosen.year,
                    "folder": folder,
                    "poster": chosen.poster_path,
                    "overview": chosen.overview,
                    "now": now,
                },
            )
            cursor = await conn.execute(
                "SELECT * FROM title WHERE provider = :provider AND kind = :kind"
                " AND provider_id = :key",
                {"provider": chosen.provider, "kind": chosen.kind, "key": key},
            )
            row = await cursor.fetchone()
            assert row is not None  # just written
            await conn.execute(
                "UPDATE download SET title_id = :title WHERE id = :id",
                {"title": row["id"], "id": download_id},
            )
        return title_of(row)

    async def get(self, title_id: Id) -> LibraryTitle | None:
        return await self._db.read(lambda conn: read_title(conn, title_id))


def read_title(conn: sqlite3.Connection, title_id: Id) -> LibraryTitle | None:
    row = conn.execute("SELECT * FROM title WHERE id = :id", {"id": title_id}).fetchone()
    return None if row is None else title_of(row)


def title_of(row: sqlite3.Row) -> LibraryTitle:
    return LibraryTitle(
        id=Id(row["id"]),
        kind=row["kind"],
        provider=row["provider"],
        provider_id=row["provider_id"],
        name=row["name"],
        year=row["year"],
        folder=row["folder"],
        poster_path=row["poster_path"],
        overview=row["overview"],
    )
