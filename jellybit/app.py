"""The composition root: builds every part from the settings and runs them on one loop."""

import asyncio
import signal

from core.config import Settings
from jellybit.logs import get_logger
from store import Store
from worker.engine import Engine


async def run_application(settings: Settings) -> int:
    """Run until SIGINT or SIGTERM; the database is already migrated."""
    log = get_logger()
    store = await Store.open(settings.database_path)
    engine = Engine.build(store, settings.qbittorrent)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    log.info("jellybit.started", database=str(settings.database_path))
    try:
        await engine.run(stop)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        await store.close()
        log.info("jellybit.stopped")
    return 0
