"""The person's actions on a download, against the fake qBittorrent (what reaches
qBittorrent of a retry or a cancel is tests/integration/test_lifecycle.py's)."""

from pathlib import Path

import pytest

from core.errors import InfohashTakenError
from core.models import NewDownload
from core.reasons import reason
from core.states import State
from tests.support.house import Running, listed_hashes
from tests.support.torrents import magnet_for, make_content, make_torrent


async def test_retry_refused_when_another_active_download_owns_the_hash(
    running: Running, tmp_path: Path
) -> None:
    made = make_torrent(make_content(tmp_path, "Heat.1995.1080p.mkv", 64 * 1024, seed=95), "v1")
    hashes = [made.v1 or ""]
    new = NewDownload(name=made.name, origin="telegram", source_ref=magnet_for(made))
    first = (await running.store.downloads.create_download_if_no_active(new, hashes)).download
    await running.store.downloads.move(
        first.id, State.FAILED, reason=reason("qbt.refused", detail="Fails.")
    )
    new_owner = (await running.store.downloads.create_download_if_no_active(new, hashes)).download
    # The second one waits to be added (as if qBittorrent were down): nothing in qBittorrent.
    await running.store.tracking.record_add_attempt(
        new_owner.id, next_add_at="2999-01-01T00:00:00Z"
    )
    before = listed_hashes(running)

    with pytest.raises(InfohashTakenError) as refused:
        await running.engine.cases.actions.retry(first.id)

    assert refused.value.owner_id == new_owner.id
    assert listed_hashes(running) == before  # no qBittorrent call was made
    assert (await running.store.downloads.get_download(first.id)).state == State.FAILED
