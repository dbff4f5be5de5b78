"""Imported by the parser processes' fork server (``worker/cpu.py`` ``PRELOAD``): the
parsers imported and guessit's rules built once, for every worker it forks."""

from core.torrent_file import parse_torrent_file
from recognition.identify import parse_release_of
from recognition.parsing.guess import build_rules

__all__ = ["parse_release_of", "parse_torrent_file"]

build_rules()
