"""The web secret: from config, else generated once into data_dir."""

import secrets
from pathlib import Path

from core.config import Settings

SECRET_FILE = "web-secret"


def web_secret(settings: Settings) -> bytes:
    """``web.secret``, or the one generated into ``data_dir`` on the first run
    (so that signed links and sessions survive restarts)."""
    if settings.web.secret:
        return settings.web.secret.encode()
    path: Path = settings.general.data_dir / SECRET_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(32))
    return path.read_text().strip().encode()
