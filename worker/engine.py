"""The worker's parts built together: the use cases the bot, the pages and the
API call (``UseCases``), and what ``jellybit run`` runs in the background."""

import asyncio
from dataclasses import dataclass
from typing import Self

from core.config import Settings
from store import Store
from worker.actions import Actions, CatalogueSearch
from worker.adder import AdderWake, TorrentAdder
from worker.cpu import CpuPool
from worker.importer import Importer
from worker.ingest import Ingest
from worker.jellyfin import JellyfinClient
from worker.pacing import Loop
from worker.poller import Poller
from worker.qbt import QbtClient
from worker.recognizer import Recognizer
from worker.search import Finder
from worker.supervisor import Part
from worker.tmdb import TmdbClient


@dataclass(frozen=True)
class UseCases:
    """All a front door may do: take a magnet or a .torrent, act on a download,
    search a title. The front doors get this, never the ``Engine``."""

    ingest: Ingest
    actions: Actions
    catalogue: CatalogueSearch
    finder: Finder


@dataclass
class Engine:
    qbt: QbtClient
    adder: TorrentAdder
    poller: Poller
    cases: UseCases
    importer: Importer
    tmdb: TmdbClient | None
    jellyfin: JellyfinClient
    cpu: CpuPool
    finder: Finder

    @classmethod
    def build(
        cls, store: Store, settings: Settings, *, full_resync_every: float, outage_notice: float
    ) -> Self:
        """``full_resync_every`` and ``outage_notice``: the poller's (``Tuning``'s)."""
        metadata = settings.metadata
        qbt = QbtClient(settings.qbittorrent)
        # The wake-ups first: the poller rings both, and is built before the adder and
        # the importer, which ask it about torrents.
        import_due, add_due = asyncio.Event(), AdderWake()
        poller = Poller(
            store,
            qbt,
            settings.qbittorrent,
            on_complete=import_due.set,
            on_back=add_due.qbittorrent_back,
            full_resync_every=full_resync_every,
            outage_notice=outage_notice,
        )
        adder = TorrentAdder(store, qbt, poller, add_due)
        # No key: the parsed name is the only candidate (as with provider "none").
        use_tmdb = metadata.provider == "tmdb" and bool(metadata.tmdb_api_key)
        tmdb = TmdbClient(metadata) if use_tmdb else None
        jellyfin = JellyfinClient(settings.jellyfin)
        cpu = CpuPool()
        recognizer = Recognizer(store, qbt, poller, metadata, tmdb, cpu)
        importer = Importer(store, recognizer, settings.library, jellyfin, import_due)
        actions = Actions(
            store=store,
            qbittorrent=qbt,
            adder=adder,
            poller=poller,
            wake_importer=import_due.set,
            tmdb=tmdb,
            remove_links=importer.remove_links,
        )
        ingest = Ingest(store, add_due.due, cpu)
        finder = Finder(store, settings.search, qbt, tmdb, ingest)
        return cls(
            qbt=qbt,
            adder=adder,
            poller=poller,
            cases=UseCases(
                ingest=ingest,
                actions=actions,
                catalogue=CatalogueSearch(tmdb),
                finder=finder,
            ),
            importer=importer,
            tmdb=tmdb,
            jellyfin=jellyfin,
            cpu=cpu,
            finder=finder,
        )

    @property
    def loops(self) -> tuple[Loop, ...]:
        return (self.poller.loop, self.importer.loop, self.adder.loop, self.finder.loop)

    def parts(self) -> list[Part]:
        """What runs in the background, for the supervisor."""
        return [
            Part("poller", self.poller.run),
            Part("importer", self.importer.run),
            Part("adder", self.adder.run),
            Part("cpu", self.cpu.run),
            Part("search", self.finder.run),
        ]

    async def close(self) -> None:
        await self.qbt.close()
        if self.tmdb is not None:
            await self.tmdb.close()
        await self.jellyfin.close()
        await self.cpu.close()
        await self.finder.close()
