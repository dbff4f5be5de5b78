"""A library folder that refuses writes, for any reason, ends the download ``failed`` with
that reason in the person's words and the Retry button, never ``review``; Retry once the
cause is gone lands it. Real file systems where root can meet the refusal (a full tmpfs, a
read-only one, a folder locked with ``chattr +i``); ``EACCES`` and ``EDQUOT``, which root
never meets on a local file system, are raised at ``os.link``, where the layout writes."""

import errno
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from common.explain import reason_text
from common.i18n import I18n
from core.config import Language, LibrarySettings
from core.ids import Id
from core.states import State
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.house import Running, eventually, history, library_in, start_house
from tests.support.mounts import resize, tmpfs
from tests.support.telegram import FakeTelegram
from tests.support.torrents import magnet_for
from tests.worker.test_import import torrent_of

ALICE = 111_111_111


@dataclass
class Refusal:
    library: LibrarySettings
    fix: Callable[[], None]  # what the person does before pressing Retry


def _chattr(flag: str, path: Path) -> None:
    subprocess.run(["chattr", flag, str(path)], check=True)


def _failing_link(monkeypatch: pytest.MonkeyPatch, root: Path, code: int) -> Callable[[], None]:
    """``os.link`` into ``root`` fails with ``code``, as the file system would answer."""
    real = os.link

    def link(source: object, target: object, *args: object, **kwargs: object) -> None:
        if Path(str(target)).is_relative_to(root):
            raise OSError(code, os.strerror(code), str(target))
        real(source, target, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", link)
    return lambda: monkeypatch.setattr(os, "link", real)


@contextmanager
def refusing(cause: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Refusal]:
    if cause == "full":  # ENOSPC: a 1 MiB disk for a 3 MiB film
        with tmpfs(tmp_path / "small", size="1m") as small:
            yield Refusal(library_in(small, link_mode="copy"), lambda: resize(small, "64m"))
    elif cause == "read_only":  # EROFS
        with tmpfs(tmp_path / "ro", size="64m", read_only=True) as ro:
            yield Refusal(library_in(ro, link_mode="copy"), lambda: resize(ro, "64m"))
    elif cause == "locked":  # EPERM: an immutable folder, hardlinks on the same disk
        library = library_in(tmp_path)
        library.movies.mkdir(parents=True)
        _chattr("+i", library.movies)
        try:
            yield Refusal(library, lambda: _chattr("-i", library.movies))
        finally:
            _chattr("-i", library.movies)
    else:  # EACCES (no access: an NFS or FUSE mount), EDQUOT (a quota)
        library = library_in(tmp_path)
        code = errno.EACCES if cause == "no_access" else errno.EDQUOT
        yield Refusal(library, _failing_link(monkeypatch, tmp_path / "library", code))


CAUSES: dict[str, tuple[str, Language]] = {
    "full": ("layout.library_full", "ru"),
    "read_only": ("layout.read_only", "en"),
    "locked": ("layout.locked", "ru"),
    "no_access": ("layout.not_writable", "en"),
    "quota": ("layout.quota", "ru"),
}
RETRY = {"ru": "Повторить", "en": "Retry"}
LANGUAGES: tuple[Language, ...] = ("ru", "en")


async def _done(running: Running, download_id: Id) -> bool:
    return (await running.store.downloads.get_download(download_id)).state == State.DONE


@pytest.mark.parametrize("cause", list(CAUSES))
async def test_a_library_folder_that_refuses_writes_fails_with_its_reason_and_retry_lands_it(
    cause: str,
    qbt: FakeQbittorrentServer,
    seeder: FakeQbittorrentServer,
    tg: FakeTelegram,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, language = CAUSES[cause]
    retry = RETRY[language]
    made = torrent_of(tmp_path, seeder, f"Arrival.2016.{cause}", ["Arrival.2016.1080p.mkv"])
    alice = tg.user(ALICE, language_code=language)
    with refusing(cause, tmp_path, monkeypatch) as refusal:
        running = await start_house(qbt, tg, tmp_path, library=refusal.library)
        try:
            sent = await alice.send_text(magnet_for(made) + "\nArrival 2016")
            failed = await alice.wait_for(
                lambda m: m.from_bot and retry in m.button_texts, timeout=40
            )
            (download,) = await running.store.downloads.list_downloads()
            assert download.state == State.FAILED, await history(running.store, download.id)
            assert download.error is not None
            assert download.error.code == code
            words = {
                lang: reason_text(I18n(lang).texts(lang), download.error) for lang in LANGUAGES
            }
            assert words[language] in failed.text  # in the person's words
            assert words["ru"] != words["en"]  # translated
            for sentence in words.values():  # the folder named, nothing left unfilled
                assert str(refusal.library.movies) in sentence
                assert "{" not in sentence
            assert list(tmp_path.glob("**/library/**/*.mkv")) == []  # nothing half-applied
            assert sent.message_id < failed.message_id

            refusal.fix()
            answer = await alice.press(failed, retry)
            assert answer is not None
            await eventually(lambda: _done(running, download.id), within=40, what="done")
            await alice.wait_for(lambda m: m.from_bot and "Arrival (2016)" in m.text)
            (video,) = refusal.library.movies.rglob("*.mkv")
            assert video.name == "Arrival (2016).mkv"
            assert (await history(running.store, download.id))[-4:] == [
                "failed",
                "accepted",
                "importing",
                "done",
            ]
        finally:
            await running.house.halt()
