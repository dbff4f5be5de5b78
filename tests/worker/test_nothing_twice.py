"""Nothing twice in the library (#33): a torrent sent again whose files are all in
the library is "already in the library" — nothing created, nothing asked of
qBittorrent, the library unchanged — whatever form the link takes, and after a
restart; a file the title already has (the same inode, or the same size and bytes)
is never a version, whatever brought it to the layout; a download whose files are
gone is fetched anew by Download again. The fake qBittorrent (its files real), real
SQLite, real hardlinks."""

import base64
import os
import secrets
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from core.config import LibrarySettings
from core.errors import InfohashTakenError
from core.models import Download, NewDownload
from core.reasons import reason
from core.states import State
from store import Store
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.house import Running, eventually, history, listed_hashes
from tests.support.house import application as built_application
from tests.support.torrents import MadeTorrent, magnet_for
from tests.worker.test_import import SEASON_FILES, download_and_wait, torrent_of
from tests.worker.test_library import DUNE, Library, duplicates, library, movie, why
from worker.engine import Engine
from worker.ingest import Created, Duplicate, IngestResult, InLibrary, Rejected

__all__ = ["duplicates", "library"]  # fixtures of test_library, used here


def library_files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file of the library: its path, and (device, inode)."""
    found = {}
    for path in sorted((root / "library").rglob("*")):
        if path.is_file():
            info = path.stat()
            found[str(path.relative_to(root / "library"))] = (info.st_dev, info.st_ino)
    return found


def forms_of(made: MadeTorrent) -> dict[str, str]:
    """Every way a person may send the link of ``made`` (a hybrid or a v1 one)."""
    forms = {"the same magnet": magnet_for(made)}
    if made.v1 is not None:
        raw = bytes.fromhex(made.v1)
        forms["v1, hex"] = f"magnet:?xt=urn:btih:{made.v1}&dn=another+name"
        forms["v1, HEX"] = f"magnet:?xt=urn:btih:{made.v1.upper()}"
        forms["v1, base32"] = "magnet:?xt=urn:btih:" + base64.b32encode(raw).decode()
    if made.v2 is not None:
        forms["v2"] = f"magnet:?xt=urn:btmh:1220{made.v2}"
    return forms


async def sent_again(engine: Engine, made: MadeTorrent) -> list[tuple[str, IngestResult]]:
    ingest = engine.cases.ingest
    results = [
        (form, await ingest.magnet(uri, origin="telegram")) for form, uri in forms_of(made).items()
    ]
    results.append((".torrent", await ingest.torrent_file(made.data, origin="api")))
    return results


async def test_a_done_movie_sent_again_in_any_form_is_in_the_library_and_nothing_changes(
    running: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = torrent_of(
        tmp_path, seeder, "Dune.2021.1080p.BluRay", ["Dune.2021.1080p.BluRay.mkv"], kind="hybrid"
    )
    done = await download_and_wait(running, made, seeder, State.DONE)
    files, torrents = library_files(tmp_path), listed_hashes(running)
    assert list(files) == ["movies/Dune (2021)/Dune (2021).mkv"]

    for restarted in (False, True):
        if restarted:  # the chat starts empty: only the store remembers
            await running.house.halt()
            await running.house.start()
        for form, result in await sent_again(running.house.engine, made):
            assert isinstance(result, InLibrary), (form, restarted, result)
            assert result.download.id == done.id
            assert (result.title.name, result.title.year) == ("Dune", 2021)
        store = running.house.store
        assert [d.id for d in await store.downloads.list_downloads()] == [done.id]
        assert library_files(tmp_path) == files  # the same files, the same inodes
        assert listed_hashes(running) == torrents  # qBittorrent was not asked


async def test_a_done_season_sent_again_after_a_restart_changes_nothing(
    running: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = torrent_of(tmp_path, seeder, "Show.Name.S01.1080p.WEB", SEASON_FILES, kind="hybrid")
    done = await download_and_wait(running, made, seeder, State.DONE)
    files, torrents = library_files(tmp_path), listed_hashes(running)
    assert len(files) == 3

    await running.house.halt()
    await running.house.start()
    for form, result in await sent_again(running.house.engine, made):
        assert isinstance(result, InLibrary), (form, result)
        assert result.download.id == done.id
    assert len(await running.house.store.downloads.list_downloads()) == 1
    assert library_files(tmp_path) == files
    assert listed_hashes(running) == torrents


async def test_files_deleted_from_the_library_are_downloaded_again_into_their_places(
    running: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    """The identity spec: a hash whose download is terminal is accepted again, as a
    new download; its files take the places the deleted ones had, not versions."""
    made = torrent_of(
        tmp_path, seeder, "Arrival.2016.1080p.BluRay", ["Arrival.2016.1080p.BluRay.mkv"]
    )
    done = await download_and_wait(running, made, seeder, State.DONE)
    (place,) = (tmp_path / "library").rglob("*.mkv")
    place.unlink()  # the person deleted it; qBittorrent still seeds the torrent

    again = await running.engine.cases.ingest.magnet(magnet_for(made), origin="telegram")
    assert isinstance(again, Created)
    assert again.download.id != done.id
    await eventually(lambda: _done(running.store, again.download.id), within=40, what="done")
    assert list(library_files(tmp_path)) == ["movies/Arrival (2016)/Arrival (2016).mkv"]
    assert await running.store.recognitions.links(done.id) == []  # its gone link released


async def test_a_magnet_whose_v1_and_v2_are_two_known_torrents_is_refused(
    running: Running,
) -> None:
    ingest, store = running.engine.cases.ingest, running.store
    a1, b1, a2, b2 = (secrets.token_hex(n) for n in (20, 32, 20, 32))
    first = await ingest.magnet(f"magnet:?xt=urn:btih:{a1}&xt=urn:btmh:1220{b1}", origin="api")
    second = await ingest.magnet(f"magnet:?xt=urn:btih:{a2}&xt=urn:btmh:1220{b2}", origin="api")
    assert isinstance(first, Created)
    assert isinstance(second, Created)
    known = await _ids_and_hashes(store)

    for v1, v2 in ((a1, b2), (a2, b1), (a1, secrets.token_hex(32))):
        refused = await ingest.magnet(
            f"magnet:?xt=urn:btih:{v1}&xt=urn:btmh:1220{v2}", origin="api"
        )
        assert refused == Rejected(reason("magnet.mismatched")), (v1, v2)
    assert await _ids_and_hashes(store) == known  # neither owns a hash more

    same = await ingest.magnet(f"magnet:?xt=urn:btmh:1220{b1}&xt=urn:btih:{a1}", origin="api")
    assert isinstance(same, Duplicate)  # the two hashes of one torrent: not a refusal
    assert same.download.id == first.download.id


async def _ids_and_hashes(store: Store) -> list[tuple[str, tuple[str, ...]]]:
    """What a refusal must leave as it was (the adder may meanwhile try the adds)."""
    return [(d.id, d.hash_values()) for d in await store.downloads.list_downloads()]


async def _done(store: Store, download_id: str) -> Download | None:
    return await _in(store, download_id, State.DONE)


# --- the layout: a file the title has is never a version ------------------------------


async def test_the_same_file_again_is_never_a_version_and_a_second_release_is(
    library: Library, store: Store
) -> None:
    files = {"Dune.2021.1080p.BluRay.mkv": (None, ())}
    first = await library.add("Dune.2021.1080p.BluRay", movie(), files)
    tree = {path: library.inode(path) for path in library.tree()}
    assert list(tree) == [f"movies/{DUNE}/{DUNE}.mkv"]

    same = await library.add("Dune.2021.1080p.BluRay", movie(), files)  # the same inode
    assert same.state == State.DONE
    assert await why(store, same) == reason("import.kept", folder=DUNE)
    assert {p: library.inode(p) for p in library.tree()} == tree

    source = library.root / "downloads" / "Dune.2021.1080p.BluRay.mkv"
    data = source.read_bytes()
    source.unlink()
    source.write_bytes(data)  # downloaded again: the same bytes, another inode
    assert (
        library.inode("downloads/Dune.2021.1080p.BluRay.mkv") != tree[f"movies/{DUNE}/{DUNE}.mkv"]
    )
    copy = await library.add("Dune.2021.1080p.BluRay", movie(), files)
    assert await why(store, copy) == reason("import.kept", folder=DUNE)
    assert {p: library.inode(p) for p in library.tree()} == tree
    assert await store.recognitions.links(same.id) == await store.recognitions.links(copy.id) == []

    other = await library.add(
        "Dune.2021.2160p.WEB-DL", movie(), {"Dune.2021.2160p.WEB-DL.mkv": (None, ())}
    )
    assert await why(store, other) == reason("import.version", folder=DUNE, label="2160p WEB-DL")
    assert library.tree() == [
        f"movies/{DUNE}/{DUNE} - 2160p WEB-DL.mkv",
        f"movies/{DUNE}/{DUNE}.mkv",
    ]
    assert first.state == State.DONE


async def test_a_copy_in_a_copying_library_is_recognized_by_its_bytes(
    store: Store, tmp_path: Path
) -> None:
    settings = LibrarySettings(
        movies=tmp_path / "movies", shows=tmp_path / "shows", link_mode="copy"
    )
    async with built_application(tmp_path, library=settings) as app:
        library = Library(store, tmp_path, app.engine)
        files = {"Dune.2021.1080p.mkv": (None, ())}
        await library.add("Dune.2021.1080p", movie(), files)
        tree = {path: library.inode(path) for path in library.tree()}
        assert tree[f"movies/{DUNE}/{DUNE}.mkv"] != library.inode("downloads/Dune.2021.1080p.mkv")
        again = await library.add("Dune.2021.1080p", movie(), files)
    assert await why(store, again) == reason("import.kept", folder=DUNE)
    assert {p: library.inode(p) for p in library.tree()} == tree


async def test_relink_of_a_season_linked_twice_leaves_one_copy(
    library: Library, store: Store
) -> None:
    """A library as older jellybit left it: the same three episodes twice, the second
    time as versions (the same inodes). Relink puts each file in once."""
    files = {f"Dark.S01E0{n}.mkv": (1, (n,)) for n in (1, 2, 3)}
    show_title = movie("Dark", "70523")
    show_title = replace(
        show_title, candidate=replace(show_title.candidate, kind="series", year=2017)
    )
    first = await library.add("Dark.S01", show_title, files)
    folder = library.shows / "Dark (2017) [tmdbid-70523]" / "Season 01"
    second = await library.add("Dark.S01", show_title, files)
    assert await why(store, second) == reason("import.kept", folder="Dark (2017) [tmdbid-70523]")
    # Older jellybit's versions, made by hand: the same inodes under a label.
    batch = await store.recognitions.plan_batch(
        second.id,
        [
            (name, str(folder / f"Dark S01E0{n} - 1080p.mkv"))
            for n, name in enumerate(files, start=1)
        ],
    )
    for row in await store.recognitions.links(second.id):
        assert row.batch_id == batch
        target = Path(row.target_path)
        os.link(library.root / "downloads" / row.source_path, target)
        info = target.stat()
        await store.recognitions.mark_linked(
            row.id, method="hardlink", inode=info.st_ino, device=info.st_dev
        )
    assert len(library.tree()) == 6

    relinked = await library.engine.cases.actions.relink(second.id)
    assert (await library.lay_out(relinked)).state == State.DONE
    assert library.tree() == [
        f"shows/Dark (2017) [tmdbid-70523]/Season 01/Dark S01E0{n}.mkv" for n in (1, 2, 3)
    ]
    assert await store.recognitions.links(second.id) == []
    assert len(await store.recognitions.links(first.id)) == 3


# --- files gone: Download again ---------------------------------------------------------


async def test_a_relink_that_cannot_find_the_files_fails_and_download_again_fetches_them(
    running: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = torrent_of(tmp_path, seeder, "Heat.1995.1080p.BluRay", ["Heat.1995.1080p.BluRay.mkv"])
    done = await download_and_wait(running, made, seeder, State.DONE)
    (place,) = (tmp_path / "library").rglob("*.mkv")
    place.unlink()
    shutil.rmtree(running.qbt.downloads_dir / made.name)  # qBittorrent's copy too
    actions = running.engine.cases.actions

    await actions.relink(done.id)
    failed = await eventually(lambda: _in(running.store, done.id, State.FAILED), what="failed")
    assert failed.error is not None
    assert failed.error.code == "layout.missing"
    assert failed.files_gone()

    again = await actions.download_again(done.id)
    assert again.download.state == State.ACCEPTED
    await eventually(lambda: _done(running.store, done.id), within=40, what="done again")
    assert list(library_files(tmp_path)) == ["movies/Heat (1995)/Heat (1995).mkv"]
    steps = await history(running.store, done.id)
    assert steps[steps.index("failed") :][:2] == ["failed", "accepted"]
    assert steps[-2:] == ["importing", "done"]
    assert [h for h in listed_hashes(running) if made.v1 in h] == [(made.v1,)]


async def test_download_again_is_refused_by_the_guard_before_qbittorrent_is_asked(
    running: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = torrent_of(tmp_path, seeder, "Ronin.1998.1080p.BluRay", ["Ronin.1998.1080p.BluRay.mkv"])
    done = await download_and_wait(running, made, seeder, State.DONE)
    next((tmp_path / "library").rglob("*.mkv")).unlink()
    shutil.rmtree(running.qbt.downloads_dir / made.name)
    actions, store = running.engine.cases.actions, running.store
    await actions.relink(done.id)
    await eventually(lambda: _in(store, done.id, State.FAILED), what="failed")
    assert made.v1 is not None
    owner = await store.downloads.create_download_if_no_active(
        NewDownload(name="Ronin", origin="api", source_ref=""), [made.v1]
    )
    torrents = listed_hashes(running)

    with pytest.raises(InfohashTakenError) as refused:
        await actions.download_again(done.id)
    assert refused.value.owner_id == owner.download.id
    assert (await store.downloads.get_download(done.id)).state == State.FAILED
    assert listed_hashes(running) == torrents


async def _in(store: Store, download_id: str, state: State) -> Download | None:
    download = await store.downloads.get_download(download_id)  # type: ignore[arg-type]
    return download if download.state == state else None
