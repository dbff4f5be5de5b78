"""The composition root (``app.py``) and the command line (``cli.py``)."""

from importlib import metadata


def version() -> str:
    """The installed version: pyproject.toml's, through the package metadata."""
    return metadata.version("jellybit")
