"""The worker's parts built together: what the bot and the web app call, and
what ``jellybit run`` runs in the background."""

import asyncio
from dataclasses import dataclass
from typing import Self

from core.config import QbittorrentSettings
from store import Store
from worker.actions import Actions
from worker.adder import TorrentAdder
from worker.ingest import Ingest
from worker.poller import FULL_RESYNC_EVERY, Poller
from worker.qbt import QbtClient


@dataclass
class Engine:
    qbt: QbtClient
    poller: Poller
    ingest: Ingest
    actions: Actions

    @classmethod
    def build(
        cls,
        store: Store,
        settings: QbittorrentSettings,
        *,
        full_resync_every: float = FULL_RESYNC_EVERY,
    ) -> Self:
        qbt = QbtClient(settings)
        adder = TorrentAdder(store, qbt)
        poller = Poller(store, qbt, adder, settings, full_resync_every=full_resync_every)
        return cls(
            qbt=qbt,
            poller=poller,
            ingest=Ingest(store, adder, poller.wake.set),
            actions=Actions(store, qbt, adder, poller),
        )

    async def run(self, stop: asyncio.Event) -> None:
        try:
            await self.poller.run(stop)
        finally:
            await self.qbt.close()
