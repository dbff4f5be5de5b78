"""The sandbox's sample torrents: small random files with release-like names that
recognition handles offline, seeded by a local qbittorrent-nox over loopback."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from sandbox.qbittorrent import QbtInstance
from sandbox.torrents import (
    MadeTorrent,
    magnet_for,
    make_content,
    make_v1_torrent,
    seed,
    seeder_peer,
)

MiB = 1024 * 1024


@dataclass(frozen=True)
class SampleSpec:
    label: str  # English source text of the page's button (translated there)
    name: str  # the torrent's folder
    files: tuple[str, ...]  # inside the folder
    size: int  # bytes in total


SAMPLES = (
    # A movie with a year: the local candidate is complete, so it is imported at once.
    SampleSpec(
        "Movie",
        "Big.Buck.Bunny.2008.1080p.BluRay.x264",
        ("Big.Buck.Bunny.2008.1080p.BluRay.x264.mkv",),
        4 * MiB,
    ),
    SampleSpec(
        "Series",
        "Caminandes.S01.720p.WEB-DL",
        tuple(f"Caminandes.S01E0{n}.720p.WEB-DL.mkv" for n in (1, 2, 3)),
        3 * MiB,
    ),
    # No year: the title is not sure enough, so it waits for one tap on the review page.
    SampleSpec(
        "Movie to review",
        "Sintel.1080p.WEB-DL",
        ("Sintel.1080p.WEB-DL.mkv",),
        2 * MiB,
    ),
)


@dataclass(frozen=True)
class Sample:
    spec: SampleSpec
    torrent: MadeTorrent
    magnet: str  # with the seeder as peer hint


def seed_samples(seeder: QbtInstance, directory: Path) -> list[Sample]:
    """Write the samples' content under ``directory`` (kept between runs: the bytes
    are deterministic), seed them from ``seeder`` and return their magnets. Blocking."""
    samples = []
    for spec in SAMPLES:
        content = directory / spec.name
        if not content.exists():
            # Written aside, then renamed: an interrupted run leaves no half sample.
            partial = directory / ".partial"
            shutil.rmtree(partial, ignore_errors=True)
            make_content(partial, spec.name, spec.size, names=spec.files)
            (partial / spec.name).rename(content)
            partial.rmdir()
        torrent = make_v1_torrent(content)
        seed(seeder, torrent)
        samples.append(Sample(spec, torrent, magnet_for(torrent, peer=seeder_peer(seeder))))
    return samples
