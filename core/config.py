"""Settings: the typed, validated shape of config.toml.

Pure: ``parse_settings`` takes what tomllib and the environment already gave and
returns frozen ``Settings``, or raises ``ConfigError`` listing every problem at
once, so a user fixes the whole file in one pass instead of one restart per typo.
Reading the file is ``jellybit/config_file.py``.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import date, time
from pathlib import Path, PurePosixPath
from typing import Literal, TypeGuard, TypeVar
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.numbers import ascii_int

Language = Literal["ru", "en"]
TelegramMode = Literal["polling", "webhook"]
AdoptPolicy = Literal["category", "all", "none"]
LinkMode = Literal["hardlink", "symlink", "copy"]
CrossDevice = Literal["fail", "copy"]
MetadataProvider = Literal["tmdb", "none"]

LANGUAGES: tuple[Language, ...] = ("ru", "en")
TELEGRAM_MODES: tuple[TelegramMode, ...] = ("polling", "webhook")
ADOPT_POLICIES: tuple[AdoptPolicy, ...] = ("category", "all", "none")
LINK_MODES: tuple[LinkMode, ...] = ("hardlink", "symlink", "copy")
CROSS_DEVICE_POLICIES: tuple[CrossDevice, ...] = ("fail", "copy")
# A second copy of a movie or an episode the library holds: laid out beside it as a
# version, in its place, or asked about (docs/library.md).
Duplicates = Literal["version", "replace", "review"]
DUPLICATES_POLICIES: tuple[Duplicates, ...] = ("version", "replace", "review")
METADATA_PROVIDERS: tuple[MetadataProvider, ...] = ("tmdb", "none")

# Every key can come from the environment as JELLYBIT_<SECTION>_<KEY> (``env_name``);
# a non-empty variable wins over the file. The older short name of the TMDB key
# is still read.
ENV_PREFIX = "JELLYBIT_"
_ENV_ALIASES: Mapping[str, str] = {"metadata.tmdb_api_key": "JELLYBIT_TMDB_API_KEY"}
FILE = "file"
# Never echoed in problems: error output ends up in logs and bug reports.
SECRET_KEYS = frozenset(
    {
        "telegram.token",
        "qbittorrent.password",
        "metadata.tmdb_api_key",
        "jellyfin.api_key",
        "web.secret",
        "web.api_token",
        "search.torznab",  # each endpoint's api_key
    }
)

_BOT_TOKEN = re.compile(r"[0-9]+:[A-Za-z0-9_-]+")
_LANGUAGE_TAG = re.compile(r"[a-z]{2}(-[A-Z]{2})?")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_TYPES: Mapping[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "float",
    list: "array",
    dict: "table",
}

T = TypeVar("T")


class ConfigError(Exception):
    """The configuration is unusable; ``problems`` holds one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class GeneralSettings:
    data_dir: Path = Path("var")
    timezone: str = "Europe/Moscow"
    language: Language = "ru"

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


@dataclass(frozen=True)
class TelegramSettings:
    token: str = field(default="", repr=False)
    allowed_users: tuple[int, ...] = ()
    api_base: str = ""
    mode: TelegramMode = "polling"


@dataclass(frozen=True)
class QbittorrentSettings:
    url: str = "http://127.0.0.1:8080"
    username: str = "admin"
    password: str = field(default="", repr=False)
    category: str = "jellybit"
    adopt: AdoptPolicy = "category"
    poll_interval: float = 5.0
    stuck_after: int = 21600
    # (qBittorrent path prefix, local path prefix), in file order.
    path_map: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class LibrarySettings:
    movies: Path = Path("/media/movies")
    shows: Path = Path("/media/shows")
    link_mode: LinkMode = "hardlink"
    cross_device: CrossDevice = "fail"
    duplicates: Duplicates = "version"


@dataclass(frozen=True)
class MetadataSettings:
    provider: MetadataProvider = "tmdb"
    tmdb_api_key: str = field(default="", repr=False)
    tmdb_base: str = "https://api.themoviedb.org/3"
    # Where TMDB's posters are: Telegram fetches them from here itself.
    tmdb_images: str = "https://image.tmdb.org/t/p"
    language: str = "ru-RU"
    auto_accept: float = 0.85


@dataclass(frozen=True)
class JellyfinSettings:
    url: str = ""
    api_key: str = field(default="", repr=False)


@dataclass(frozen=True)
class WebSettings:
    listen: str = "127.0.0.1:8090"
    public_url: str = "http://127.0.0.1:8090"
    secret: str = field(default="", repr=False)
    api_token: str = field(default="", repr=False)
    metrics: bool = False  # GET /metrics (Prometheus), behind api_token when it is set

    @property
    def host(self) -> str:
        return split_host_port(self.listen)[0]

    @property
    def port(self) -> int:
        return split_host_port(self.listen)[1]


@dataclass(frozen=True)
class TorznabEndpoint:
    """One Torznab API (Prowlarr's ``http://host:9696/{id}/api``, Jackett's
    ``…/api/v2.0/indexers/{id|all}/results/torznab/api``); jellybit appends the query."""

    name: str
    url: str
    api_key: str = field(default="", repr=False)


@dataclass(frozen=True)
class SearchSettings:
    torznab: tuple[TorznabEndpoint, ...] = ()
    qbittorrent: bool = False  # also search with qBittorrent's search plugins
    timeout: float = 15.0  # seconds one source may take

    @property
    def enabled(self) -> bool:
        return bool(self.torznab) or self.qbittorrent


@dataclass(frozen=True)
class Settings:
    # Where each key that was set came from: "file", or the environment variable's
    # name (``jellybit check`` shows it).
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    general: GeneralSettings = field(default_factory=GeneralSettings)
    telegram: TelegramSettings = field(default_factory=TelegramSettings)
    qbittorrent: QbittorrentSettings = field(default_factory=QbittorrentSettings)
    library: LibrarySettings = field(default_factory=LibrarySettings)
    metadata: MetadataSettings = field(default_factory=MetadataSettings)
    jellyfin: JellyfinSettings = field(default_factory=JellyfinSettings)
    web: WebSettings = field(default_factory=WebSettings)
    search: SearchSettings = field(default_factory=SearchSettings)

    @property
    def database_path(self) -> Path:
        return self.general.data_dir / "jellybit.db"

    def missing_for_run(self) -> list[str]:
        """Keys that may be empty for ``check``/``migrate`` but not for ``run``."""
        missing = []
        if not self.telegram.token:
            missing.append(
                "telegram.token: missing — set it in the config file or JELLYBIT_TELEGRAM_TOKEN"
            )
        if not self.telegram.allowed_users:
            missing.append(
                "telegram.allowed_users: missing — the numeric Telegram ids allowed to use the bot"
            )
        return missing


_SECTIONS: Mapping[str, type] = {
    "general": GeneralSettings,
    "telegram": TelegramSettings,
    "qbittorrent": QbittorrentSettings,
    "library": LibrarySettings,
    "metadata": MetadataSettings,
    "jellyfin": JellyfinSettings,
    "web": WebSettings,
    "search": SearchSettings,
}


def parse_settings(raw: Mapping[str, object], env: Mapping[str, str], base_dir: Path) -> Settings:
    """Validate a parsed TOML document plus secret overrides from ``env``.

    Relative paths resolve against ``base_dir`` (the config file's directory), not
    the working directory: a systemd unit's working directory must not move the data.
    """
    problems = _top_level_problems(raw)
    sources: dict[str, str] = {}

    def section(name: str) -> _Section:
        return _Section(name, _table(raw, name, problems), env, problems, sources)

    settings = Settings(
        sources=sources,
        general=_general(section("general"), base_dir),
        telegram=_telegram(section("telegram")),
        qbittorrent=_qbittorrent(section("qbittorrent")),
        library=_library(section("library"), base_dir),
        metadata=_metadata(section("metadata")),
        jellyfin=_jellyfin(section("jellyfin")),
        web=_web(section("web")),
        search=_search(section("search")),
    )
    problems += _cross_key_problems(settings, problems)
    if problems:
        raise ConfigError(problems)
    return settings


def env_name(key_path: str) -> str:
    """``qbittorrent.url`` → ``JELLYBIT_QBITTORRENT_URL``."""
    return ENV_PREFIX + key_path.replace(".", "_").upper()


def set_in_environment(env: Mapping[str, str]) -> list[str]:
    """The keys that a non-empty JELLYBIT_<SECTION>_<KEY> sets (the older alias
    is read, but a stray one in a shell does not make a configuration)."""
    return [key_path for key_path in key_paths() if env.get(env_name(key_path))]


def key_paths() -> list[str]:
    """Every key, in the order of the sections and their fields."""
    return [f"{name}.{key}" for name, cls in _SECTIONS.items() for key in _field_names(cls)]


def set_values(settings: Settings) -> list[tuple[str, str, str]]:
    """(key, value as TOML with secrets hidden, source) of every key that was set to
    something other than its default."""
    found = []
    for key_path in key_paths():
        source = settings.sources.get(key_path)
        section, key = key_path.split(".")
        value = getattr(getattr(settings, section), key)
        if source is None or value == getattr(_SECTIONS[section](), key):
            continue
        found.append((key_path, _shown(key_path, _as_toml(value)), source))
    return found


def _as_toml(value: object) -> object:
    """A setting as the file writes it; a URL without a user and password in it."""
    if isinstance(value, Path):
        return str(value)
    if (
        isinstance(value, tuple)
        and value
        and all(isinstance(pair, tuple) and len(pair) == 2 for pair in value)
    ):
        return {str(source): str(target) for source, target in value}  # path_map: a table
    if isinstance(value, tuple):
        return [_as_toml(item) for item in value]
    return value


def split_host_port(text: str) -> tuple[str, int]:
    """``"127.0.0.1:8090"`` or ``"[::1]:8090"`` → (host, port); ValueError otherwise."""
    host, colon, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"an IPv6 host needs brackets: {text!r}")
    if not colon or not host or any(c.isspace() for c in host):
        raise ValueError(f"not host:port: {text!r}")
    number = ascii_int(port, 5)
    if number is None or not 0 < number < 65536:
        raise ValueError(f"not a TCP port: {text!r}")
    return host, number


def toml_literal(value: object) -> str:
    """How ``value`` would be written in TOML, for "got …" in problem lines."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_literal(item) for item in value) + "]"
    if isinstance(value, Mapping):
        pairs = (f"{_toml_key(str(k))} = {toml_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, date | time):
        return value.isoformat()
    return repr(value)


# The user:password@ of anything written like a URL, valid or not ("http//u:p@h"), and
# of host:port written without a scheme ("admin:pw@nas:8080").
_CREDENTIALS = re.compile(r"(//|:/*)[^/?#\s@]*@")
_BARE_CREDENTIALS = re.compile(r"^\s*[^/?#\s@:]+:[^/?#\s@]*@")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _shown(key_path: str, value: object) -> str:
    """A value fit for a problem or check line: secrets hidden, and no URL's user and
    password (``http://admin:pw@nas:8080`` shows as ``http://nas:8080``)."""
    if isinstance(value, str):
        value = _CREDENTIALS.sub(r"\1", _BARE_CREDENTIALS.sub("", value))
    if key_path not in SECRET_KEYS or value == "":
        return toml_literal(value)
    if isinstance(value, str):
        return f"a hidden string of {len(value)} characters"
    return f"a hidden {_TOML_TYPES.get(type(value), 'value')}"


def _problem(key_path: str, rule: str, value: object) -> str:
    return f"{key_path}: {rule}, got {_shown(key_path, value)}"


def _did_you_mean(name: str, known: list[str]) -> str:
    matches = difflib.get_close_matches(name, known, n=1)
    return f' (did you mean "{matches[0]}"?)' if matches else ""


def _top_level_problems(raw: Mapping[str, object]) -> list[str]:
    problems = []
    for name, value in raw.items():
        if name in _SECTIONS:
            continue
        homes = [s for s, cls in _SECTIONS.items() if name in _field_names(cls)]
        if homes and not isinstance(value, Mapping):
            # The classic mistake: a key written above the first [section] header.
            where = " or ".join(f"[{s}]" for s in homes)
            problems.append(f"{name}: key outside any section (it belongs under {where})")
        else:
            problems.append(f"{name}: unknown section{_did_you_mean(name, list(_SECTIONS))}")
    return problems


def _table(raw: Mapping[str, object], name: str, problems: list[str]) -> Mapping[str, object]:
    value = raw.get(name, {})
    if isinstance(value, Mapping):
        return value
    problems.append(f"{name}: must be a table (a [{name}] section), got {toml_literal(value)}")
    return {}


def _field_names(cls: type) -> list[str]:
    return [f.name for f in fields(cls)]


class _Invalid(Exception):
    """A value broke a rule; the message states the rule ("must be …")."""


class _Section:
    """Reads one [section], recording problems instead of raising on the first one."""

    def __init__(
        self,
        name: str,
        table: Mapping[str, object],
        env: Mapping[str, str],
        problems: list[str],
        sources: dict[str, str],
    ) -> None:
        self.name = name
        self._table = table
        self._env = env
        self._problems = problems
        self._sources = sources
        known = _field_names(_SECTIONS[name])
        for key in table:
            if key not in known:
                problems.append(f"{name}.{key}: unknown key{_did_you_mean(key, known)}")

    def get(self, key: str, default: T, convert: Callable[[object], T]) -> T:
        key_path = f"{self.name}.{key}"
        names = (env_name(key_path), _ENV_ALIASES.get(key_path, ""))
        variable = next((name for name in names if self._env.get(name)), None)
        value: object
        if variable is not None:
            value = self._env[variable]
            if not isinstance(default, str | Path):  # numbers, booleans, lists: TOML
                try:
                    value = _toml_value(self._env[variable])
                except _Invalid as broken:
                    self._problems.append(f"{key_path}: {broken} (from {variable})")
                    return default
        elif key in self._table:
            value = self._table[key]
        else:
            return default
        self._sources[key_path] = variable or FILE
        try:
            return convert(value)
        except _Invalid as broken:
            source = f" (from {variable})" if variable else ""
            self._problems.append(_problem(key_path, str(broken), value) + source)
            return default


def _toml_value(text: str) -> object:
    """An environment variable's text as a TOML value: ``5``, ``true``, ``[1, 2]``,
    ``{"/downloads" = "/srv/downloads"}``."""
    try:
        parsed = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        parsed = {}
    if list(parsed) != ["value"]:  # not a value, or a newline that smuggles in a key
        raise _Invalid(f"must be a TOML value (a number, true/false, a [list]), got {text!r}")
    return parsed["value"]


# Converters: take a raw TOML value, return the typed one or raise _Invalid(rule).


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)  # TOML true is not 1


def _is_number(value: object) -> TypeGuard[int | float]:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _string(value: object) -> str:
    if isinstance(value, str):
        return value
    raise _Invalid("must be a string")


def _non_empty_string(value: object) -> str:
    if isinstance(value, str) and value.strip():
        return value
    raise _Invalid("must be a non-empty string")


def _choice(options: tuple[T, ...]) -> Callable[[object], T]:
    def convert(value: object) -> T:
        for option in options:
            if value == option:
                return option
        raise _Invalid("must be one of " + ", ".join(toml_literal(o) for o in options))

    return convert


def _boolean(value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise _Invalid("must be true or false")


def _positive_number(value: object) -> float:
    if _is_number(value) and value > 0:
        return float(value)
    raise _Invalid("must be a positive number")


def _positive_integer(value: object) -> int:
    if _is_int(value) and value > 0:
        return value
    raise _Invalid("must be a positive integer")


def _fraction(value: object) -> float:
    if _is_number(value) and 0 <= value <= 1:
        return float(value)
    raise _Invalid("must be a number between 0 and 1")


def _is_http_url(value: object) -> TypeGuard[str]:
    if not isinstance(value, str) or any(c.isspace() for c in value):
        return False
    try:
        parts = urlsplit(value)
        _ = parts.port  # raises on a port that is not a number
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _http_url(value: object) -> str:
    if _is_http_url(value):
        return value.rstrip("/")  # callers append "/path"
    raise _Invalid("must be an http(s) URL")


def _empty_or_http_url(value: object) -> str:
    if value == "":
        return ""
    if _is_http_url(value):
        return value.rstrip("/")
    raise _Invalid("must be empty or an http(s) URL")


def _bot_token(value: object) -> str:
    if isinstance(value, str) and (value == "" or _BOT_TOKEN.fullmatch(value)):
        return value
    raise _Invalid("must look like 123456:ABC-DEF (the token from @BotFather)")


def _user_ids(value: object) -> tuple[int, ...]:
    if isinstance(value, list):
        ids = [item for item in value if _is_int(item) and item > 0]
        if len(ids) == len(value):
            return tuple(dict.fromkeys(ids))
    raise _Invalid("must be a list of numeric Telegram user ids")


def _time_zone(value: object) -> str:
    if not isinstance(value, str):
        raise _Invalid('must be a time zone name like "Europe/Moscow"')
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise _Invalid("unknown time zone") from None
    return value


def _language_tag(value: object) -> str:
    if isinstance(value, str) and _LANGUAGE_TAG.fullmatch(value):
        return value
    raise _Invalid('must be a language tag like "ru-RU" or "en"')


def _path(value: object) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise _Invalid("must be a non-empty path")
    if value.startswith("~"):
        # Nobody expands it: it would become a directory literally named "~".
        raise _Invalid('must not start with "~" (write the full path)')
    return Path(value)


def _listen_address(value: object) -> str:
    try:
        split_host_port(_string(value))
    except (ValueError, _Invalid):
        raise _Invalid("must be host:port") from None
    return str(value)


def _path_map(value: object) -> tuple[tuple[str, str], ...]:
    if isinstance(value, Mapping):
        pairs = [
            (str(PurePosixPath(remote)), str(Path(local)))
            for remote, local in value.items()
            if PurePosixPath(remote).is_absolute()
            and isinstance(local, str)
            and Path(local).is_absolute()
        ]
        if len(pairs) == len(value):
            return tuple(pairs)
    raise _Invalid("must map absolute qBittorrent paths to absolute local paths")


# One builder per section: defaults come from the dataclass itself.


def _general(s: _Section, base_dir: Path) -> GeneralSettings:
    d = GeneralSettings()
    return GeneralSettings(
        data_dir=base_dir / s.get("data_dir", d.data_dir, _path),
        timezone=s.get("timezone", d.timezone, _time_zone),
        language=s.get("language", d.language, _choice(LANGUAGES)),
    )


def _telegram(s: _Section) -> TelegramSettings:
    d = TelegramSettings()
    return TelegramSettings(
        token=s.get("token", d.token, _bot_token),
        allowed_users=s.get("allowed_users", d.allowed_users, _user_ids),
        api_base=s.get("api_base", d.api_base, _empty_or_http_url),
        mode=s.get("mode", d.mode, _choice(TELEGRAM_MODES)),
    )


def _qbittorrent(s: _Section) -> QbittorrentSettings:
    d = QbittorrentSettings()
    return QbittorrentSettings(
        url=s.get("url", d.url, _http_url),
        username=s.get("username", d.username, _string),
        password=s.get("password", d.password, _string),
        category=s.get("category", d.category, _non_empty_string),
        adopt=s.get("adopt", d.adopt, _choice(ADOPT_POLICIES)),
        poll_interval=s.get("poll_interval", d.poll_interval, _positive_number),
        stuck_after=s.get("stuck_after", d.stuck_after, _positive_integer),
        path_map=s.get("path_map", d.path_map, _path_map),
    )


def _library(s: _Section, base_dir: Path) -> LibrarySettings:
    d = LibrarySettings()
    return LibrarySettings(
        movies=base_dir / s.get("movies", d.movies, _path),
        shows=base_dir / s.get("shows", d.shows, _path),
        link_mode=s.get("link_mode", d.link_mode, _choice(LINK_MODES)),
        cross_device=s.get("cross_device", d.cross_device, _choice(CROSS_DEVICE_POLICIES)),
        duplicates=s.get("duplicates", d.duplicates, _choice(DUPLICATES_POLICIES)),
    )


def _metadata(s: _Section) -> MetadataSettings:
    d = MetadataSettings()
    return MetadataSettings(
        provider=s.get("provider", d.provider, _choice(METADATA_PROVIDERS)),
        tmdb_api_key=s.get("tmdb_api_key", d.tmdb_api_key, _string),
        tmdb_base=s.get("tmdb_base", d.tmdb_base, _http_url),
        tmdb_images=s.get("tmdb_images", d.tmdb_images, _http_url),
        language=s.get("language", d.language, _language_tag),
        auto_accept=s.get("auto_accept", d.auto_accept, _fraction),
    )


def _jellyfin(s: _Section) -> JellyfinSettings:
    d = JellyfinSettings()
    return JellyfinSettings(
        url=s.get("url", d.url, _empty_or_http_url),
        api_key=s.get("api_key", d.api_key, _string),
    )


def _web(s: _Section) -> WebSettings:
    d = WebSettings()
    return WebSettings(
        listen=s.get("listen", d.listen, _listen_address),
        public_url=s.get("public_url", d.public_url, _http_url),
        secret=s.get("secret", d.secret, _string),
        api_token=s.get("api_token", d.api_token, _string),
        metrics=s.get("metrics", d.metrics, _boolean),
    )


def _search(s: _Section) -> SearchSettings:
    d = SearchSettings()
    return SearchSettings(
        torznab=s.get("torznab", d.torznab, _torznab_endpoints),
        qbittorrent=s.get("qbittorrent", d.qbittorrent, _boolean),
        timeout=s.get("timeout", d.timeout, _positive_number),
    )


_ENDPOINT_KEYS = frozenset({"name", "url", "api_key"})


def _torznab_endpoints(value: object) -> tuple[TorznabEndpoint, ...]:
    rule = (
        'must be a list of { name = "…", url = "http://…", api_key = "…" }, each with its own name'
    )
    if not isinstance(value, list):
        raise _Invalid(rule)
    endpoints = []
    for item in value:
        if not isinstance(item, Mapping) or not set(item) <= _ENDPOINT_KEYS:
            raise _Invalid(rule)
        name, url, key = item.get("name"), item.get("url"), item.get("api_key", "")
        if not isinstance(name, str) or not name.strip() or not isinstance(key, str):
            raise _Invalid(rule)
        if not _is_http_url(url) or urlsplit(url).query:
            raise _Invalid(rule + " (a url without ?…: jellybit adds the query)")
        endpoints.append(TorznabEndpoint(name=name.strip(), url=url, api_key=key))
    if len({e.name.casefold() for e in endpoints}) != len(endpoints):
        raise _Invalid(rule)
    return tuple(endpoints)


def _cross_key_problems(settings: Settings, reported: list[str]) -> list[str]:
    """Rules that tie two keys together, reported on the key to change.

    A key that already has a problem holds its default now: judging it again
    would only add a confusing second line.
    """
    found: list[tuple[str, str, object]] = []
    if settings.jellyfin.url and not settings.jellyfin.api_key:
        found.append(("jellyfin.api_key", "must be set when jellyfin.url is set", ""))
    webhook = settings.telegram.mode == "webhook" and not settings.telegram.api_base
    if webhook and not settings.web.public_url.startswith("https://"):
        # The public Bot API only calls https webhooks; a local Bot API server takes http.
        rule = 'must be an https URL when telegram.mode is "webhook"'
        found.append(("web.public_url", rule, settings.web.public_url))
    if settings.library.movies == settings.library.shows:
        found.append(
            ("library.shows", "must differ from library.movies", str(settings.library.shows))
        )
    return [
        _problem(key, rule, value)
        for key, rule, value in found
        if not any(line.startswith(f"{key}:") for line in reported)
    ]
