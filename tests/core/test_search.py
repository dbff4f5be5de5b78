"""A release name read for the picker (core/search.py): quality and part of a show,
the same torrent from two sources once, and the order a person picks from."""

import pytest

from core.search import Found, SortBy, Traits, arranged, deduplicated, traits_of


@pytest.mark.parametrize(
    ("name", "traits"),
    [
        ("Dune.Part.Two.2024.2160p.WEB-DL.DDP5.1.Atmos.DV.HDR.H.265-FLUX",
         Traits(2160, "WEB-DL")),
        ("Oppenheimer (2023) UHD BDRemux 2160p", Traits(2160, "Remux")),
        ("Severance.S02.1080p.ATVP.WEB-DL.DDP5.1.H.264-NTb", Traits(1080, "WEB-DL", 2, None, True)),
        ("Severance.S02E03.720p.HDTV.x264", Traits(720, "HDTV", 2, 3)),
        ("Шерлок / Sherlock [S01-04] (2010-2017) BDRip 1080p", Traits(1080, "BluRay", pack=True)),
        ("Ольга. Сезон 2 (2017) WEBRip", Traits(None, "WEBRip", 2, None, True)),
        ("Dark.Staffel.3.German.DL.1080p.WEB.h264", Traits(1080, "WEB-DL", 3, None, True)),
        ("The.Office.US.Complete.Series.DVDRip.XviD", Traits(None, "DVD", pack=True)),
        ("Some.Movie.2023.HDCAM.x264", Traits(None, "CAM")),
        ("[SubsPlease] Frieren - 12 (1080p) [ABCD1234].mkv", Traits(1080, None)),
    ],
)  # fmt: skip
def test_a_name_says_its_quality_and_part(name: str, traits: Traits) -> None:
    assert traits_of(name) == traits


def found(name: str, *, seeders: int = 10, size: int = 1 << 30, infohash: str | None = None,
          source: str = "a") -> Found:  # fmt: skip
    return Found(name=name, link="magnet:?xt=urn:btih:" + "a" * 40, source=source,
                 size=size, seeders=seeders, infohash=infohash)  # fmt: skip


def test_one_torrent_from_two_sources_is_one_row_with_the_most_seeders() -> None:
    rows = [
        found("Dune.2021.1080p", infohash="a" * 40, seeders=5, source="prowlarr"),
        found("Dune 2021 1080p", infohash="a" * 40, seeders=50, source="qbittorrent"),
        found("Dune.2021.720p", seeders=3),
        found("dune 2021 720p", seeders=1),  # the same name and size, no hash
        found("dune 2021 720p", seeders=1, size=2 << 30),  # another size: another torrent
    ]
    kept = deduplicated(rows)
    assert [(row.name, row.source, row.seeders) for row in kept] == [
        ("Dune 2021 1080p", "qbittorrent", 50),
        ("Dune.2021.720p", "a", 3),
        ("dune 2021 720p", "a", 1),
    ]


def test_the_order_follows_the_sort_and_seedless_rows_only_when_nothing_else() -> None:
    rows = [
        found("A.720p.WEB-DL", seeders=900, size=2 << 30),
        found("B.2160p.WEB-DL", seeders=4, size=20 << 30),
        found("C.1080p.BluRay", seeders=40, size=9 << 30),
        found("D.1080p.WEB-DL", seeders=80, size=5 << 30),
        found("E.2160p.Remux", seeders=0, size=60 << 30),
    ]

    def names(sort: SortBy) -> list[str]:
        return [row.name[0] for row in arranged(rows, sort)]

    assert names("quality") == ["B", "C", "D", "A"]
    assert names("size") == ["B", "C", "D", "A"]
    assert names("seeders") == ["A", "D", "C", "B"]
    dead = [found("E.2160p.Remux", seeders=0), found("F.720p", seeders=0)]
    assert [row.name[0] for row in arranged(dead, "quality")] == ["E", "F"]


def test_a_show_lists_whole_seasons_before_single_episodes() -> None:
    rows = [
        found("Show.S01E02.1080p.WEB-DL", seeders=500),
        found("Show.S02.1080p.WEB-DL", seeders=20),
        found("Show.S01.720p.HDTV", seeders=30),
        found("Show.S01.1080p.BluRay", seeders=10),
        found("Show.Complete.Series.1080p", seeders=5),
        found("Show.S01E01.1080p.WEB-DL", seeders=100),
    ]
    order = [row.name for row in arranged(rows, "quality", show=True)]
    assert order == [
        "Show.Complete.Series.1080p",
        "Show.S01.1080p.BluRay",
        "Show.S01.720p.HDTV",
        "Show.S02.1080p.WEB-DL",
        "Show.S01E01.1080p.WEB-DL",
        "Show.S01E02.1080p.WEB-DL",
    ]
