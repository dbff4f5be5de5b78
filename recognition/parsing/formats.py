"""What a release's name says of its format: since when releases of that kind are
made, and the picture's height (pure, regular expressions only).

A film older than its release's format was re-released in it (a Blu-ray of a 1982
film, a UHD master of a 1990s one); obscure films rarely are. So the format tells a
famous film from an obscure one of the same name only when the obscure one is older
than the format ("Parasite.2160p.UHD.BluRay": the 2019 film, not the 1982 one), and
not at all when both are of its time ("Joker.1080p.BluRay": 2012 or 2019).

A TV capture (HDTV, PDTV) is recorded off the air: of a show a broadcaster aired, not
of one only a streaming service released.
"""

import re
from dataclasses import dataclass

_SEP = r"(?<![^\W_])"  # a tag starts after a separator or at the start
_END = r"(?![^\W_])"
# (the first year releases of the kind were made, the tag): the latest of them counts.
# A short tag counts in capitals only: "Charlottes.Web.2006" and "The.Dvd.Guy" name
# no format.
_SINCE = (
    (2014, re.compile(rf"{_SEP}(?:2160p|(?i:4k)|UHD|HDR(?:10)?(?:\+|Plus)?|DV|DoVi){_END}")),
    (2014, re.compile(rf"(?i){_SEP}dolby[\s._-]?vision{_END}")),
    (2008, re.compile(rf"{_SEP}(?:(?i:web[\s._-]?(?:dl|rip))|WEB|AMZN|NF|DSNP|HMAX|ATVP){_END}")),
    (2006, re.compile(rf"{_SEP}(?:(?i:blu[\s._-]?ray|bd(?:rip|remux)|br[\s._-]?rip)|BD){_END}")),
    (2004, re.compile(rf"{_SEP}(?:HDTV|(?i:720p|1080[pi])){_END}")),
    (1997, re.compile(rf"{_SEP}(?:(?i:dvd[\s._-]?(?:rip|5|9|r))|DVD){_END}")),
)
# A recording off the air: "HDTV", "PDTV", "DSR", "HDTVRip", "SATRip".
_CAPTURE = re.compile(
    rf"(?i){_SEP}(?:hdtv(?:[\s._-]?rip)?|pdtv|sdtv|dsr(?:ip)?|tv[\s._-]?rip|sat[\s._-]?rip|dvb(?:[\s._-]?rip)?){_END}"
)
_HEIGHT = re.compile(rf"(?i){_SEP}(2160|1080|720|576|480)[pi]{_END}|{_SEP}(4k|uhd){_END}")


@dataclass(frozen=True)
class Format:
    since: int | None = None  # the first year releases of this kind were made
    height: int | None = None  # 2160, 1080, 720, 576, 480
    capture: bool = False  # recorded off the air (HDTV, PDTV)


def release_format(name: str) -> Format:
    """The format ``name`` names: ``Format()`` when it names none ("Joker.avi")."""
    since = max((year for year, tag in _SINCE if tag.search(name)), default=None)
    found = _HEIGHT.search(name)
    height = None
    if found is not None:
        height = 2160 if found.group(2) else int(found.group(1))
    return Format(since, height, _CAPTURE.search(name) is not None)
