"""Library titles: one folder per title, seasons merged, versions and upgrades, and
layout failures that say what they are. Real SQLite, real files and hardlinks; the
importer lays out downloads whose recognition already chose a title."""

import os
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from core.config import Duplicates, LibrarySettings
from core.ids import Id, new_id
from core.models import Download
from core.reasons import Reason, reason
from core.states import State
from recognition.candidates import Evidence, Season
from recognition.identify import Status
from store import Store
from store.recognition import StoredCandidate, StoredFile
from tests.support.candidates import stored
from tests.support.house import application
from tests.support.mounts import tmpfs
from tests.web.conftest import new_download
from worker.engine import Engine

DUNE = "Dune (2021) [tmdbid-438631]"
SHOW = "Dark (2017) [tmdbid-70523]"


def movie(title: str = "Dune", provider_id: str = "438631") -> StoredCandidate:
    return stored(
        provider_id,
        title,
        2021,
        selected=True,
        original_title="Dune",
        overview="Paul.",
        poster_path="/dune.jpg",
        popularity=100.0,
        evidence=Evidence("exact", title, "exact"),
    )


def show(title: str = "Dark") -> StoredCandidate:
    seasons = (Season(1, 10, 2017), Season(2, 8, 2019), Season(3, 8, 2020))
    film = movie(title, "70523")
    record = replace(film.candidate, kind="series", year=2017, seasons=seasons)
    return replace(film, candidate=record)


class Library:
    """An importer over a real library folder; ``add`` makes a complete download of
    real files (its recognition already chose ``candidate``) and lays it out."""

    def __init__(self, store: Store, root: Path, engine: Engine) -> None:
        self.store, self.root, self.engine = store, root, engine
        self.movies, self.shows = root / "movies", root / "shows"

    async def add(
        self,
        name: str,
        candidate: StoredCandidate,
        files: Mapping[str, tuple[int | None, tuple[int, ...]]],
        *,
        size: int | None = None,
    ) -> Download:
        content = self.root / "downloads"  # every download's files side by side
        download = await new_download(self.store, name, state=State.IMPORTING)
        stored = []
        for path, (season, episodes) in files.items():
            source = self.root / "downloads" / path
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_bytes(os.urandom(size) if size else f"{name}/{path}".encode() * 100)
            stored.append(
                StoredFile(path, "video", source.stat().st_size, season, episodes, None, ())
            )
        async with self.store.db.write() as conn:
            await conn.execute(
                "UPDATE download SET save_path = :save, content_path = :content WHERE id = :id",
                {"save": str(self.root / "downloads"), "content": str(content), "id": download.id},
            )
        await self.store.recognitions.save(
            download.id, kind=candidate.candidate.kind, title=candidate.candidate.title,
            year=candidate.candidate.year,
            season=None, status=Status.AUTO, reason=Reason("picked"), files=stored,
            candidates=[replace(candidate, id=new_id())],
        )  # fmt: skip
        return await self.lay_out(download)

    async def lay_out(self, download: Download) -> Download:
        await self.engine.importer.process(await self.store.downloads.get_download(download.id))
        return await self.store.downloads.get_download(download.id)

    def tree(self) -> list[str]:
        return sorted(
            str(path.relative_to(self.root))
            for root in (self.movies, self.shows)
            for path in root.rglob("*")
            if path.is_file()
        )

    def inode(self, relative: str) -> int:
        return (self.root / relative).stat().st_ino

    async def title_of(self, download: Download) -> str | None:
        rows = await self.store.db.reader.execute_fetchall(
            "SELECT title_id FROM download WHERE id = :id", {"id": download.id}
        )
        return None if not rows else rows[0][0]


@pytest.fixture(params=["version"])
def duplicates(request: pytest.FixtureRequest) -> Duplicates:
    mode: Duplicates = request.param
    return mode


@pytest.fixture
async def library(store: Store, tmp_path: Path, duplicates: Duplicates) -> AsyncIterator[Library]:
    settings = LibrarySettings(
        movies=tmp_path / "movies", shows=tmp_path / "shows", duplicates=duplicates
    )
    async with application(tmp_path, library=settings) as app:
        yield Library(store, tmp_path, app.engine)


async def why(store: Store, download: Download) -> Reason:
    """The reason of the download's last move."""
    return (await store.downloads.list_transitions(download.id))[-1].reason


async def test_a_second_copy_of_a_movie_becomes_a_version_beside_the_first(
    library: Library, store: Store
) -> None:
    first = await library.add(
        "Dune.2021.1080p.BluRay", movie(), {"Dune.2021.1080p.BluRay.mkv": (None, ())}
    )
    second = await library.add(
        "Dune.2021.2160p.WEB-DL", movie("Дюна"), {"Dune.2021.2160p.WEB-DL.mkv": (None, ())}
    )
    assert (first.state, second.state) == (State.DONE, State.DONE)
    assert library.tree() == [
        f"movies/{DUNE}/{DUNE} - 2160p WEB-DL.mkv",  # Jellyfin's versions: the folder's name
        f"movies/{DUNE}/{DUNE}.mkv",
    ]
    assert library.inode(f"movies/{DUNE}/{DUNE}.mkv") == library.inode(
        "downloads/Dune.2021.1080p.BluRay.mkv"
    )
    assert library.inode(f"movies/{DUNE}/{DUNE} - 2160p WEB-DL.mkv") == library.inode(
        "downloads/Dune.2021.2160p.WEB-DL.mkv"
    )
    assert await why(store, second) == reason("import.version", folder=DUNE, label="2160p WEB-DL")
    # TMDB's name changed ("Дюна" today): one title, one folder
    assert await library.title_of(first) == await library.title_of(second) is not None


@pytest.mark.parametrize("duplicates", ["replace"], indirect=True)
async def test_replace_takes_the_place_and_removes_only_jellybits_old_link(
    library: Library, store: Store
) -> None:
    first = await library.add("Dune.2021.1080p", movie(), {"Dune.2021.1080p.mkv": (None, ())})
    second = await library.add("Dune.2021.2160p", movie(), {"Dune.2021.2160p.mkv": (None, ())})
    assert library.tree() == [f"movies/{DUNE}/{DUNE}.mkv"]
    assert library.inode(f"movies/{DUNE}/{DUNE}.mkv") == library.inode(
        "downloads/Dune.2021.2160p.mkv"
    )
    assert (library.root / "downloads/Dune.2021.1080p.mkv").exists()  # the torrent's file stays
    assert await store.recognitions.links(first.id) == []
    assert await why(store, second) == reason("import.replaced", folder=DUNE)


@pytest.mark.parametrize("duplicates", ["review"], indirect=True)
async def test_review_asks_and_the_persons_choice_decides(library: Library, store: Store) -> None:
    await library.add("Dune.2021.1080p", movie(), {"Dune.2021.1080p.mkv": (None, ())})
    second = await library.add("Dune.2021.2160p", movie(), {"Dune.2021.2160p.mkv": (None, ())})
    assert second.state == State.REVIEW
    asked = await why(store, second)
    assert asked.code == "layout.in_library"
    assert asked.params["other"] == "Dune.2021.1080p"
    assert library.tree() == [f"movies/{DUNE}/{DUNE}.mkv"]  # nothing changed while asked

    kept = await library.engine.cases.actions.resolve_duplicate(second.id, "version")
    assert kept.state == State.IMPORTING
    assert (await library.lay_out(second)).state == State.DONE
    assert f"movies/{DUNE}/{DUNE} - 2160p.mkv" in library.tree()


@pytest.mark.parametrize("duplicates", ["review"], indirect=True)
async def test_skipping_a_copy_adds_nothing(library: Library, store: Store) -> None:
    await library.add("Dune.2021.1080p", movie(), {"Dune.2021.1080p.mkv": (None, ())})
    second = await library.add("Dune.2021.720p", movie(), {"Dune.2021.720p.mkv": (None, ())})
    await library.engine.cases.actions.resolve_duplicate(second.id, "skip")
    skipped = await library.lay_out(second)
    assert skipped.state == State.DONE
    assert await why(store, skipped) == reason("import.kept", folder=DUNE)
    assert library.tree() == [f"movies/{DUNE}/{DUNE}.mkv"]


async def test_seasons_merge_into_one_folder_and_an_episode_again_is_a_version(
    library: Library, store: Store
) -> None:
    one = await library.add(
        "Dark.S01.1080p", show(), {f"Dark.S01E0{n}.mkv": (1, (n,)) for n in (1, 2)}
    )
    two = await library.add(
        "Dark.S02.1080p", show("Тьма"), {f"Dark.S02E0{n}.mkv": (2, (n,)) for n in (1, 2)}
    )
    again = await library.add("Dark.S01E01.720p.WEB", show(), {"Dark.S01E01.720p.mkv": (1, (1,))})
    assert {one.state, two.state, again.state} == {State.DONE}
    assert await why(store, two) == reason("import.merged", what="S02", folder=SHOW)
    assert library.tree() == [
        f"shows/{SHOW}/Season 01/Dark S01E01 - 720p WEB.mkv",
        f"shows/{SHOW}/Season 01/Dark S01E01.mkv",
        f"shows/{SHOW}/Season 01/Dark S01E02.mkv",
        f"shows/{SHOW}/Season 02/Тьма S02E01.mkv",
        f"shows/{SHOW}/Season 02/Тьма S02E02.mkv",
    ]


async def test_relink_of_a_merged_season_keeps_the_titles_folder(
    library: Library, store: Store
) -> None:
    await library.add("Dark.S01", show(), {"Dark.S01E01.mkv": (1, (1,))})
    two = await library.add("Dark.S02", show("Тьма"), {"Dark.S02E01.mkv": (2, (1,))})
    relinked = await library.engine.cases.actions.relink(two.id)
    assert (await library.lay_out(relinked)).state == State.DONE
    assert library.tree() == [
        f"shows/{SHOW}/Season 01/Dark S01E01.mkv",
        f"shows/{SHOW}/Season 02/Тьма S02E01.mkv",
    ]


async def test_a_persons_own_file_in_the_place_is_left_alone_and_shown(
    library: Library, store: Store
) -> None:
    mine = library.movies / DUNE / f"{DUNE}.mkv"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(b"my own rip")
    asked = await library.add("Dune.2021.1080p", movie(), {"Dune.2021.1080p.mkv": (None, ())})
    assert asked.state == State.REVIEW
    assert await why(store, asked) == reason("layout.conflict", target=str(mine))
    assert mine.read_bytes() == b"my own rip"


async def test_two_editions_in_one_torrent_are_versions_not_parts(library: Library) -> None:
    files = {
        "Blade Runner/Blade.Runner.1982.Theatrical.Cut.mkv": (None, ()),
        "Blade Runner/Blade.Runner.1982.Final.Cut.mkv": (None, ()),
    }
    done = await library.add("Blade Runner", movie("Blade Runner", "78"), files)
    assert done.state == State.DONE
    folder = "Blade Runner (2021) [tmdbid-78]"
    assert library.tree() == [
        f"movies/{folder}/{folder} - Final Cut.mkv",
        f"movies/{folder}/{folder} - Theatrical Cut.mkv",
    ]


@pytest.fixture(params=["full", "read-only"])
def closed_library(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Path, str]]:
    """A library on a 64 KiB tmpfs (full for a 256 KiB file), or on a read-only one."""
    read_only = request.param == "read-only"
    with tmpfs(tmp_path / "small", size="64k", read_only=read_only) as point:
        yield point, "layout.read_only" if read_only else "layout.library_full"


async def test_a_full_or_closed_library_fails_with_its_reason_and_keeps_the_title(
    store: Store, tmp_path: Path, closed_library: tuple[Path, str]
) -> None:
    small, code = closed_library
    settings = LibrarySettings(movies=small / "movies", shows=small / "shows", link_mode="copy")
    async with application(tmp_path, library=settings) as app:
        library = Library(store, tmp_path, app.engine)
        big = {"Dune.2021.2160p.mkv": (None, ())}
        failed = await library.add("Dune.2021.2160p", movie(), big, size=256 * 1024)  # 4× the disk
    assert failed.state == State.FAILED
    assert failed.error is not None
    assert failed.error.code == code
    assert str(failed.error.params["folder"]).startswith(str(small / "movies"))
    assert list(small.rglob("*.mkv")) == []  # nothing half-applied
    recognition = await store.recognitions.current(failed.id)
    assert recognition is not None
    chosen = recognition.chosen()
    assert chosen is not None
    assert (
        chosen.candidate.provider_id == "438631"
    )  # Retry lays out the title chosen, not a new pick


async def test_a_version_is_removed_from_the_library_and_relink_all_brings_it_back(
    library: Library, store: Store
) -> None:
    first = await library.add("Dune.2021.1080p", movie(), {"Dune.2021.1080p.mkv": (None, ())})
    second = await library.add("Dune.2021.2160p", movie(), {"Dune.2021.2160p.mkv": (None, ())})
    actions = library.engine.cases.actions
    assert await actions.remove_from_library(second.id) == 1
    assert library.tree() == [f"movies/{DUNE}/{DUNE}.mkv"]
    assert (library.root / "downloads/Dune.2021.2160p.mkv").exists()  # the torrent's file
    assert (await store.downloads.get_download(second.id)).state == State.DONE
    title = await library.title_of(first)
    assert title is not None
    relinked = await actions.relink_title(Id(title))
    assert sorted(d.id for d in relinked) == sorted([first.id, second.id])
    for download in relinked:
        assert (await library.lay_out(download)).state == State.DONE
    assert library.tree() == [f"movies/{DUNE}/{DUNE} - 2160p.mkv", f"movies/{DUNE}/{DUNE}.mkv"]
