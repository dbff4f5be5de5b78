"""Structured logs: JSON lines when not on a TTY, readable console otherwise.

Records about an entity carry ``<entity>_id`` (``download_id``, ``batch_id``…);
ULIDs are unique across entities, so grepping a bare id finds every stage of it.
"""

import logging
import sys
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import Any, TextIO

import structlog

from common.metrics import EXTERNAL_CALL_ERRORS, EXTERNAL_CALL_SECONDS
from core import clock
from core.ids import Id

Logger = structlog.typing.FilteringBoundLogger


def configure_logging(
    *, level: str = "info", json: bool | None = None, stream: TextIO | None = None
) -> None:
    """Set up structlog once, at start; ``json=None`` decides by the stream being a TTY."""
    out = sys.stderr if stream is None else stream
    as_json = not out.isatty() if json is None else json
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        _add_timestamp,
    ]
    if as_json:
        processors += [
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(ensure_ascii=False),
        ]
    else:
        processors.append(structlog.dev.ConsoleRenderer(colors=out.isatty()))
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
    # Libraries (aiogram, aiohttp, qbittorrent-api) log through the standard module.
    root = logging.getLogger()
    root.handlers = [_ToStructlog()]
    root.setLevel(logging.WARNING if level.lower() in {"info", "debug"} else level.upper())
    # qbittorrent-api's HTTP pool warns on every refused retry; our own
    # external.call record already says that qBittorrent is unreachable.
    logging.getLogger("urllib3").setLevel(logging.ERROR)


def get_logger(**ids: str) -> Logger:
    """A logger bound to entity ids, e.g. ``get_logger(download_id=d.id)``."""
    logger: Logger = structlog.get_logger()
    return logger.bind(**ids) if ids else logger


def for_download(download_id: Id) -> Logger:
    return get_logger(download_id=download_id)


@asynccontextmanager
async def external_call(
    log: Logger, system: str, operation: str, **fields: Any
) -> AsyncIterator[None]:
    """Log one call to qBittorrent, Telegram, TMDB or Jellyfin: duration and outcome.

    Success is logged at debug (the poller calls every few seconds), a failure
    at warning with the error's type; the error itself propagates.
    """
    started = clock.monotonic()

    def elapsed_ms() -> float:
        return round((clock.monotonic() - started) * 1000, 1)

    try:
        yield
    except Exception as error:
        EXTERNAL_CALL_SECONDS.labels(system, "error").observe(clock.monotonic() - started)
        EXTERNAL_CALL_ERRORS.labels(system, type(error).__name__).inc()
        log.warning(
            "external.call",
            system=system,
            operation=operation,
            outcome="error",
            error=type(error).__name__,
            detail=str(error)[:300],
            duration_ms=elapsed_ms(),
            **fields,
        )
        raise
    EXTERNAL_CALL_SECONDS.labels(system, "ok").observe(clock.monotonic() - started)
    log.debug(
        "external.call",
        system=system,
        operation=operation,
        outcome="ok",
        duration_ms=elapsed_ms(),
        **fields,
    )


def _add_timestamp(
    _logger: object, _name: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    event["timestamp"] = clock.log_timestamp()
    return event


class _ToStructlog(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        structlog.get_logger().log(
            record.levelno, record.getMessage(), logger=record.name, exc_info=record.exc_info
        )
