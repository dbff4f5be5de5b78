"""Imported by the parser processes' fork server (``worker/cpu.py`` ``PRELOAD``): the
parsers imported and guessit's rules built once, for every worker it forks."""

from core.parsing.guess import build_rules
from core.torrent_file import parse_torrent_file
from worker.identify import parse_source

__all__ = ["parse_source", "parse_torrent_file"]

build_rules()
