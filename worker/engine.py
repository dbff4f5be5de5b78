"""The worker's parts built together: the use cases the bot, the pages and the
API call (``UseCases``), and what ``jellybit run`` runs in the background."""

from dataclasses import dataclass
from typing import Self

from core.config import JellyfinSettings, LibrarySettings, MetadataSettings, QbittorrentSettings
from core.notifications import OUTAGE_NOTICE
from store import Store
from worker.actions import Actions, TitleSearch
from worker.adder import TorrentAdder
from worker.cpu import CpuPool
from worker.importer import Importer
from worker.ingest import Ingest
from worker.jellyfin import JellyfinClient
from worker.pacing import Loop
from worker.poller import FULL_RESYNC_EVERY, Poller
from worker.qbt import QbtClient
from worker.recognizer import Recognizer
from worker.supervisor import Part
from worker.tmdb import TmdbClient


@dataclass(frozen=True)
class UseCases:
    """All a front door may do: take a magnet or a .torrent, act on a download,
    search a title. The front doors get this, never the ``Engine``."""

    ingest: Ingest
    actions: Actions
    titles: TitleSearch


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

    @classmethod
    def build(
        cls,
        store: Store,
        settings: QbittorrentSettings,
        *,
        library: LibrarySettings | None = None,
        metadata: MetadataSettings | None = None,
        jellyfin: JellyfinSettings | None = None,
        full_resync_every: float = FULL_RESYNC_EVERY,
        outage_notice: float = OUTAGE_NOTICE,
    ) -> Self:
        metadata = metadata or MetadataSettings(provider="none")
        qbt = QbtClient(settings)
        adder = TorrentAdder(store, qbt)
        poller = Poller(
            store,
            qbt,
            adder,
            settings,
            full_resync_every=full_resync_every,
            outage_notice=outage_notice,
        )
        # No key: the parsed name is the only candidate (as with provider "none").
        use_tmdb = metadata.provider == "tmdb" and bool(metadata.tmdb_api_key)
        tmdb = TmdbClient(metadata) if use_tmdb else None
        jellyfin_client = JellyfinClient(jellyfin or JellyfinSettings())
        cpu = CpuPool()
        recognizer = Recognizer(store, qbt, poller, metadata, tmdb, cpu)
        importer = Importer(store, recognizer, library or LibrarySettings(), jellyfin_client)
        poller.on_complete = importer.wake.set
        adder.present = poller.knows
        adder.follow_present = poller.follow_all
        return cls(
            qbt=qbt,
            adder=adder,
            poller=poller,
            cases=UseCases(
                ingest=Ingest(store, adder.wake.set, cpu),
                actions=Actions(
                    store, qbt, adder, poller, importer.wake.set, tmdb, importer.remove_links
                ),
                titles=TitleSearch(tmdb),
            ),
            importer=importer,
            tmdb=tmdb,
            jellyfin=jellyfin_client,
            cpu=cpu,
        )

    @property
    def loops(self) -> tuple[Loop, ...]:
        return (self.poller.loop, self.importer.loop, self.adder.loop)

    def parts(self) -> list[Part]:
        """What runs in the background, for the supervisor."""
        return [
            Part("poller", self.poller.run),
            Part("importer", self.importer.run),
            Part("adder", self.adder.run),
            Part("cpu", self.cpu.run),
        ]

    async def close(self) -> None:
        await self.qbt.close()
        if self.tmdb is not None:
            await self.tmdb.close()
        await self.jellyfin.close()
        await self.cpu.close()
