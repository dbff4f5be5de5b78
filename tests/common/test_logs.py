import io
import json
import logging

import pytest

from common.logs import configure_logging, external_call, for_download, get_logger
from core.ids import new_id


def records(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


@pytest.fixture
def stream() -> io.StringIO:
    out = io.StringIO()  # not a TTY: JSON lines
    configure_logging(level="debug", stream=out)
    return out


def test_json_lines_carry_the_entity_id(stream: io.StringIO) -> None:
    download_id = new_id()
    for_download(download_id).info("download.accepted", name="Dune <2021> & more")
    (record,) = records(stream)
    assert record["event"] == "download.accepted"
    assert record["download_id"] == download_id
    assert record["level"] == "info"
    assert str(record["timestamp"]).endswith("Z")
    assert download_id in stream.getvalue()  # grep by the bare id finds it


async def test_external_call_logs_duration_and_outcome(stream: io.StringIO) -> None:
    log = get_logger(download_id=new_id())
    async with external_call(log, "qbittorrent", "torrents_add"):
        pass
    with pytest.raises(ConnectionError):
        async with external_call(log, "qbittorrent", "sync_maindata", rid=7):
            raise ConnectionError("refused")
    ok, failed = records(stream)
    assert (ok["outcome"], ok["system"], ok["operation"]) == ("ok", "qbittorrent", "torrents_add")
    assert isinstance(ok["duration_ms"], float)
    assert (failed["outcome"], failed["error"], failed["rid"]) == ("error", "ConnectionError", 7)
    assert failed["level"] == "warning"
    assert failed["detail"] == "refused"


def test_library_logs_go_through_structlog(stream: io.StringIO) -> None:
    logging.getLogger("aiogram.dispatcher").warning("polling failed: %s", "timeout")
    (record,) = records(stream)
    assert record["event"] == "polling failed: timeout"
    assert record["logger"] == "aiogram.dispatcher"


def test_console_output_on_request() -> None:
    out = io.StringIO()
    configure_logging(json=False, stream=out)
    get_logger().info("jellybit.started", port=8090)
    assert "jellybit.started" in out.getvalue()
    assert not out.getvalue().startswith("{")
