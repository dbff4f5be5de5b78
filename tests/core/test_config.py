"""Configuration: config.toml + environment → Settings, or every problem at once."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from core.config import (
    ConfigError,
    Settings,
    TelegramSettings,
    env_name,
    key_paths,
    parse_settings,
    set_in_environment,
    set_values,
)
from jellybit.config_file import config_path_from, load_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"
TOKEN_MISSING = "telegram.token: missing — set it in the config file or JELLYBIT_TELEGRAM_TOKEN"
USERS_MISSING = "telegram.allowed_users: missing — the numeric Telegram ids allowed to use the bot"


def write_config(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str, env: Mapping[str, str] | None = None) -> Settings:
    return load_settings(write_config(tmp_path, text), env or {})


def problems_of(tmp_path: Path, text: str, env: Mapping[str, str] | None = None) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text, env)
    return caught.value.problems


def test_example_file_parses() -> None:
    settings = load_settings(EXAMPLE, {})
    assert settings.general.data_dir == EXAMPLE.parent / "var"
    assert settings.library.movies == EXAMPLE.parent / "var/library/movies"
    assert settings.metadata.provider == "tmdb"
    assert settings.missing_for_run() == [TOKEN_MISSING, USERS_MISSING]


def test_empty_file_gives_the_documented_defaults(tmp_path: Path) -> None:
    settings = load(tmp_path, "")
    assert settings.general.data_dir == tmp_path / "var"
    assert settings.database_path == tmp_path / "var" / "jellybit.db"
    assert settings.qbittorrent.poll_interval == 5.0
    assert settings.qbittorrent.stuck_after == 21600
    assert settings.library.movies == Path("/media/movies")
    assert (settings.web.host, settings.web.port) == ("127.0.0.1", 8090)
    assert settings.general.zone.key == "Europe/Moscow"


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ('[general]\ndata_dir = ""', 'general.data_dir: must be a non-empty path, got ""'),
        (
            '[general]\ndata_dir = "~/jb"',
            'general.data_dir: must not start with "~" (write the full path), got "~/jb"',
        ),
        (
            '[general]\ntimezone = "Mars/Base"',
            'general.timezone: unknown time zone, got "Mars/Base"',
        ),
        (
            '[general]\nlanguage = "de"',
            'general.language: must be one of "ru", "en", got "de"',
        ),
        (
            '[telegram]\ntoken = "abc"',
            "telegram.token: must look like 123456:ABC-DEF (the token from @BotFather),"
            " got a hidden string of 3 characters",
        ),
        (
            '[telegram]\nallowed_users = [111, "@me"]',
            'telegram.allowed_users: must be a list of numeric Telegram user ids, got [111, "@me"]',
        ),
        (
            "[telegram]\nallowed_users = 111",
            "telegram.allowed_users: must be a list of numeric Telegram user ids, got 111",
        ),
        (
            "[telegram]\nallowed_users = [true]",
            "telegram.allowed_users: must be a list of numeric Telegram user ids, got [true]",
        ),
        (
            '[telegram]\napi_base = "localhost:8081"',
            'telegram.api_base: must be empty or an http(s) URL, got "localhost:8081"',
        ),
        (
            '[telegram]\nmode = "push"',
            'telegram.mode: must be one of "polling", "webhook", got "push"',
        ),
        (
            '[qbittorrent]\nurl = "127.0.0.1:8080"',
            'qbittorrent.url: must be an http(s) URL, got "127.0.0.1:8080"',
        ),
        (
            '[qbittorrent]\nurl = "http://qbt:port"',
            'qbittorrent.url: must be an http(s) URL, got "http://qbt:port"',
        ),
        ("[qbittorrent]\nusername = 5", "qbittorrent.username: must be a string, got 5"),
        (
            "[qbittorrent]\npassword = 1234",
            "qbittorrent.password: must be a string, got a hidden integer",
        ),
        (
            '[qbittorrent]\ncategory = ""',
            'qbittorrent.category: must be a non-empty string, got ""',
        ),
        (
            '[qbittorrent]\nadopt = "some"',
            'qbittorrent.adopt: must be one of "category", "all", "none", got "some"',
        ),
        (
            '[qbittorrent]\npoll_interval = "fast"',
            'qbittorrent.poll_interval: must be a positive number, got "fast"',
        ),
        (
            "[qbittorrent]\npoll_interval = 0",
            "qbittorrent.poll_interval: must be a positive number, got 0",
        ),
        (
            "[qbittorrent]\npoll_interval = nan",
            "qbittorrent.poll_interval: must be a positive number, got nan",
        ),
        (
            "[qbittorrent]\nstuck_after = 1.5",
            "qbittorrent.stuck_after: must be a positive integer, got 1.5",
        ),
        (
            "[qbittorrent]\nstuck_after = -1",
            "qbittorrent.stuck_after: must be a positive integer, got -1",
        ),
        (
            '[qbittorrent]\npath_map = {"downloads" = "/srv/downloads"}',
            "qbittorrent.path_map: must map absolute qBittorrent paths to absolute local paths,"
            ' got {downloads = "/srv/downloads"}',
        ),
        (
            '[qbittorrent]\npath_map = {"/downloads" = "srv"}',
            "qbittorrent.path_map: must map absolute qBittorrent paths to absolute local paths,"
            ' got {"/downloads" = "srv"}',
        ),
        (
            '[library]\nmovies = ""',
            'library.movies: must be a non-empty path, got ""',
        ),
        (
            '[library]\nlink_mode = "move"',
            'library.link_mode: must be one of "hardlink", "symlink", "copy", got "move"',
        ),
        (
            '[library]\ncross_device = "ignore"',
            'library.cross_device: must be one of "fail", "copy", got "ignore"',
        ),
        (
            '[library]\nmovies = "/media/all"\nshows = "/media/all"',
            'library.shows: must differ from library.movies, got "/media/all"',
        ),
        (
            '[metadata]\nprovider = "omdb"',
            'metadata.provider: must be one of "tmdb", "none", got "omdb"',
        ),
        (
            '[metadata]\ntmdb_base = "api.themoviedb.org/3"',
            'metadata.tmdb_base: must be an http(s) URL, got "api.themoviedb.org/3"',
        ),
        (
            '[metadata]\nlanguage = "russian"',
            'metadata.language: must be a language tag like "ru-RU" or "en", got "russian"',
        ),
        (
            "[metadata]\nauto_accept = 1.5",
            "metadata.auto_accept: must be a number between 0 and 1, got 1.5",
        ),
        (
            '[jellyfin]\nurl = "jellyfin:8096"',
            'jellyfin.url: must be empty or an http(s) URL, got "jellyfin:8096"',
        ),
        (
            '[jellyfin]\nurl = "http://127.0.0.1:8096"',
            'jellyfin.api_key: must be set when jellyfin.url is set, got ""',
        ),
        ('[web]\nlisten = "8090"', 'web.listen: must be host:port, got "8090"'),
        ('[web]\nlisten = "::1:8090"', 'web.listen: must be host:port, got "::1:8090"'),
        (
            '[web]\nlisten = "127.0.0.1:99999"',
            'web.listen: must be host:port, got "127.0.0.1:99999"',
        ),
        ('[web]\npublic_url = ""', 'web.public_url: must be an http(s) URL, got ""'),
        (
            '[telegram]\nmode = "webhook"',
            'web.public_url: must be an https URL when telegram.mode is "webhook",'
            ' got "http://127.0.0.1:8090"',
        ),
    ],
)
def test_each_rule_reports_one_exact_line(tmp_path: Path, toml: str, problem: str) -> None:
    assert problems_of(tmp_path, toml) == [problem]


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ("[qbittorrent]\npoll_interval = true", "must be a positive number, got true"),
        ("[qbittorrent]\nstuck_after = true", "must be a positive integer, got true"),
        ("[metadata]\nauto_accept = true", "must be a number between 0 and 1, got true"),
    ],
)
def test_booleans_are_not_numbers(tmp_path: Path, toml: str, problem: str) -> None:
    [line] = problems_of(tmp_path, toml)
    assert line.endswith(problem)


def test_integers_are_accepted_where_floats_are_expected(tmp_path: Path) -> None:
    settings = load(tmp_path, "[qbittorrent]\npoll_interval = 2\n[metadata]\nauto_accept = 1")
    assert settings.qbittorrent.poll_interval == 2.0
    assert settings.metadata.auto_accept == 1.0


def test_valid_values_are_normalized(tmp_path: Path) -> None:
    settings = load(
        tmp_path,
        """
        [telegram]
        token = "123456:AA-b_c"
        allowed_users = [111, 222, 111]
        api_base = "http://127.0.0.1:8081/"
        mode = "webhook"
        [qbittorrent]
        path_map = {"/downloads/" = "/srv/downloads/"}
        [web]
        listen = "[::1]:8091"
        """,
    )
    assert settings.telegram.allowed_users == (111, 222)
    assert settings.telegram.api_base == "http://127.0.0.1:8081"
    assert settings.qbittorrent.path_map == (("/downloads", "/srv/downloads"),)
    assert (settings.web.host, settings.web.port) == ("::1", 8091)


def test_several_problems_are_reported_at_once(tmp_path: Path) -> None:
    problems = problems_of(
        tmp_path,
        '[qbittorrent]\npoll_interval = "fast"\n[telegram]\nmode = "push"\n[web]\nlisten = "8090"',
    )
    assert problems == [
        'telegram.mode: must be one of "polling", "webhook", got "push"',
        'qbittorrent.poll_interval: must be a positive number, got "fast"',
        'web.listen: must be host:port, got "8090"',
    ]


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        (
            "[qbittorrent]\npol_interval = 5",
            'qbittorrent.pol_interval: unknown key (did you mean "poll_interval"?)',
        ),
        ("[qbittorrent]\nspeed = 5", "qbittorrent.speed: unknown key"),
        ("[webb]\nlisten = 1", 'webb: unknown section (did you mean "web"?)'),
        ("[plex]\nurl = 1", "plex: unknown section"),
        ('web = "x"', 'web: must be a table (a [web] section), got "x"'),
        (
            'token = "1:a"',
            "token: key outside any section (it belongs under [telegram])",
        ),
        (
            'language = "en"',
            "language: key outside any section (it belongs under [general] or [metadata])",
        ),
    ],
)
def test_unknown_names_and_misplaced_keys(tmp_path: Path, toml: str, problem: str) -> None:
    assert problems_of(tmp_path, toml) == [problem]


@pytest.mark.parametrize(
    ("variable", "section", "key"),
    [
        ("JELLYBIT_TELEGRAM_TOKEN", "telegram", "token"),
        ("JELLYBIT_QBITTORRENT_PASSWORD", "qbittorrent", "password"),
        ("JELLYBIT_TMDB_API_KEY", "metadata", "tmdb_api_key"),
        ("JELLYBIT_METADATA_TMDB_API_KEY", "metadata", "tmdb_api_key"),
        ("JELLYBIT_JELLYFIN_API_KEY", "jellyfin", "api_key"),
        ("JELLYBIT_WEB_API_TOKEN", "web", "api_token"),
    ],
)
def test_non_empty_environment_wins_over_file(
    tmp_path: Path, variable: str, section: str, key: str
) -> None:
    toml = f'[{section}]\n{key} = "1:from-file"'
    from_env = load(tmp_path, toml, {variable: "2:from-env"})
    from_file = load(tmp_path, toml, {variable: ""})
    assert getattr(getattr(from_env, section), key) == "2:from-env"
    assert getattr(getattr(from_file, section), key) == "1:from-file"


def test_every_key_has_its_variable() -> None:
    """JELLYBIT_<SECTION>_<KEY> for each key; a string is taken as it is, anything
    else is read as a TOML value."""
    assert len(key_paths()) == len(set(map(env_name, key_paths())))  # no two keys share one
    env = {
        "JELLYBIT_QBITTORRENT_URL": "http://qbittorrent:8080",
        "JELLYBIT_LIBRARY_MOVIES": "/srv/media/movies",
        "JELLYBIT_WEB_PUBLIC_URL": "https://media.example.org",
        "JELLYBIT_TELEGRAM_ALLOWED_USERS": "[111, 222]",
        "JELLYBIT_QBITTORRENT_POLL_INTERVAL": "2.5",
        "JELLYBIT_QBITTORRENT_PATH_MAP": '{"/downloads" = "/srv/downloads"}',
        "JELLYBIT_METADATA_AUTO_ACCEPT": "0.9",
        "JELLYBIT_GENERAL_LANGUAGE": "en",
    }
    settings = parse_settings({"qbittorrent": {"url": "http://file:1"}}, env, Path("/etc/j"))
    assert settings.qbittorrent.url == "http://qbittorrent:8080"
    assert settings.library.movies == Path("/srv/media/movies")
    assert settings.web.public_url == "https://media.example.org"
    assert settings.telegram.allowed_users == (111, 222)
    assert settings.qbittorrent.poll_interval == 2.5
    assert settings.qbittorrent.path_map == (("/downloads", "/srv/downloads"),)
    assert settings.metadata.auto_accept == 0.9
    assert settings.general.language == "en"
    assert settings.sources["qbittorrent.url"] == "JELLYBIT_QBITTORRENT_URL"
    assert set_values(settings)[0] == ("general.language", '"en"', "JELLYBIT_GENERAL_LANGUAGE")


@pytest.mark.parametrize(
    ("variable", "text", "problem"),
    [
        (
            "JELLYBIT_QBITTORRENT_POLL_INTERVAL",
            "fast",
            "qbittorrent.poll_interval: must be a TOML value (a number, true/false, a [list]),"
            " got 'fast' (from JELLYBIT_QBITTORRENT_POLL_INTERVAL)",
        ),
        (
            "JELLYBIT_QBITTORRENT_POLL_INTERVAL",
            "-1",
            "qbittorrent.poll_interval: must be a positive number, got -1"
            " (from JELLYBIT_QBITTORRENT_POLL_INTERVAL)",
        ),
        (
            "JELLYBIT_TELEGRAM_ALLOWED_USERS",
            '5\nmode = "webhook"',
            "telegram.allowed_users: must be a TOML value (a number, true/false, a [list]),"
            " got '5\\nmode = \"webhook\"' (from JELLYBIT_TELEGRAM_ALLOWED_USERS)",
        ),
        (
            "JELLYBIT_QBITTORRENT_URL",
            "qbittorrent:8080",
            'qbittorrent.url: must be an http(s) URL, got "qbittorrent:8080"'
            " (from JELLYBIT_QBITTORRENT_URL)",
        ),
    ],
)
def test_a_bad_variable_is_named_in_its_problem(
    tmp_path: Path, variable: str, text: str, problem: str
) -> None:
    assert problems_of(tmp_path, "", {variable: text}) == [problem]


def test_values_equal_to_the_defaults_are_not_listed_as_set() -> None:
    settings = parse_settings(
        {"qbittorrent": {"category": "jellybit", "username": "bob"}}, {}, Path("/etc/j")
    )
    assert set_values(settings) == [("qbittorrent.username", '"bob"', "file")]


def test_bad_secret_from_environment_names_the_variable_and_hides_the_value(
    tmp_path: Path,
) -> None:
    problems = problems_of(tmp_path, "", {"JELLYBIT_TELEGRAM_TOKEN": "secret"})
    assert problems == [
        "telegram.token: must look like 123456:ABC-DEF (the token from @BotFather),"
        " got a hidden string of 6 characters (from JELLYBIT_TELEGRAM_TOKEN)"
    ]


def test_secrets_stay_out_of_repr() -> None:
    settings = parse_settings(
        {"telegram": {"token": "123:topsecret"}, "web": {"api_token": "hunter2"}},
        {},
        Path("/etc/jellybit"),
    )
    assert "topsecret" not in repr(settings)
    assert "hunter2" not in repr(settings)


def test_relative_paths_resolve_against_the_config_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_dir = tmp_path / "etc" / "jellybit"
    write_config(config_dir, '[general]\ndata_dir = "data"\n[library]\nmovies = "lib/movies"')
    monkeypatch.chdir(tmp_path)  # a relative --config must not make the data move with the cwd
    settings = load_settings(Path("etc/jellybit/config.toml"), {})
    assert settings.general.data_dir == config_dir / "data"
    assert settings.database_path == config_dir / "data" / "jellybit.db"
    assert settings.library.movies == config_dir / "lib" / "movies"
    assert settings.library.shows == Path("/media/shows")


def test_missing_file_lists_what_run_still_needs(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with pytest.raises(ConfigError) as caught:
        load_settings(path, {})
    assert caught.value.problems == [
        f"config file {path} not found — copy config.example.toml to it and fill in the keys below",
        TOKEN_MISSING,
        USERS_MISSING,
    ]


def test_missing_file_does_not_list_a_token_given_by_environment(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path / "config.toml", {"JELLYBIT_TELEGRAM_TOKEN": "1:a"})
    assert caught.value.problems[1:] == [USERS_MISSING]


def test_toml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = write_config(tmp_path, '[web]\nlisten = "127.0.0.1:8090\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path, {})
    [line] = caught.value.problems
    assert line.startswith(f"config file {path}: invalid TOML: ")
    assert "line 2" in line


def test_unreadable_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, {})  # a directory
    assert caught.value.problems == [f"config file {tmp_path} cannot be read: Is a directory"]


def test_non_utf8_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'[general]\ntimezone = "\xff"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path, {})
    [line] = caught.value.problems
    assert line.startswith(f"config file {path}: not UTF-8 text")


def test_error_message_is_the_problem_lines() -> None:
    assert str(ConfigError(["a: x", "b: y"])) == "a: x\nb: y"


def test_missing_for_run() -> None:
    assert Settings().missing_for_run() == [TOKEN_MISSING, USERS_MISSING]
    ready = Settings(telegram=TelegramSettings(token="1:a", allowed_users=(111,)))
    assert ready.missing_for_run() == []


@pytest.mark.parametrize(
    ("arg", "env", "expected"),
    [
        ("/etc/a.toml", {"JELLYBIT_CONFIG": "/etc/b.toml"}, Path("/etc/a.toml")),
        (None, {"JELLYBIT_CONFIG": "/etc/b.toml"}, Path("/etc/b.toml")),
        (None, {}, Path("config.toml")),
    ],
)
def test_config_path_from(arg: str | None, env: Mapping[str, str], expected: Path) -> None:
    assert config_path_from(arg, env) == expected


def test_set_values_show_what_the_file_would_say_without_credentials() -> None:
    settings = parse_settings(
        {
            "qbittorrent": {"url": "http://admin:hunter2@nas:8080", "path_map": {"/dl": "/srv/dl"}},
            "jellyfin": {"url": "https://me:pw@media.example.org", "api_key": "k" * 32},
        },
        {},
        Path("/etc/j"),
    )
    shown = {key: value for key, value, _ in set_values(settings)}
    assert shown["qbittorrent.url"] == '"http://nas:8080"'
    assert shown["qbittorrent.path_map"] == '{"/dl" = "/srv/dl"}'
    assert shown["jellyfin.url"] == '"https://media.example.org"'
    assert "hunter2" not in repr(shown)
    assert "pw@" not in repr(shown)
    table = parse_settings({}, {"JELLYBIT_QBITTORRENT_PATH_MAP": '{"/dl" = "/srv/dl"}'}, Path("/"))
    assert table.qbittorrent.path_map == (("/dl", "/srv/dl"),)


def test_only_the_full_names_make_a_configuration_of_the_environment() -> None:
    assert set_in_environment({"JELLYBIT_TMDB_API_KEY": "k", "JELLYBIT_CRASH_SEED": "1"}) == []
    assert set_in_environment({"JELLYBIT_WEB_METRICS": "true"}) == ["web.metrics"]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[qbittorrent]\nurl = "ftp://admin:hunter2@nas:8080"', "qbittorrent.url"),
        ('[qbittorrent]\nurl = "http//admin:hunter2@nas:8080"', "qbittorrent.url"),
        ('[qbittorrent]\nurl = "admin:hunter2@nas:8080"', "qbittorrent.url"),
        ('[jellyfin]\nurl = "tcp://me:hunter2@media"', "jellyfin.url"),
        (
            '[telegram]\nmode = "webhook"\n[web]\npublic_url = "http://me:hunter2@bot.example.org"',
            "web.public_url",
        ),
    ],
)
def test_a_problem_line_never_prints_a_urls_password(tmp_path: Path, text: str, key: str) -> None:
    problems = problems_of(tmp_path, text)
    line = next(p for p in problems if p.startswith(f"{key}:"))
    assert "hunter2" not in "\n".join(problems)
    assert "got" in line  # the value is still shown, without its credentials


def test_search_sources_are_read_from_the_file_and_the_environment(tmp_path: Path) -> None:
    toml = (
        "[search]\nqbittorrent = true\ntimeout = 8\ntorznab = [\n"
        '  { name = "prowlarr", url = "http://127.0.0.1:9696/1/api", api_key = "k1" },\n'
        '  { name = "jackett", '
        'url = "http://nas:9117/api/v2.0/indexers/all/results/torznab/api/" },\n'
        "]"
    )
    search = load(tmp_path, toml).search
    assert search.enabled
    assert (search.qbittorrent, search.timeout) == (True, 8.0)
    assert [(e.name, e.url, e.api_key) for e in search.torznab] == [
        ("prowlarr", "http://127.0.0.1:9696/1/api", "k1"),
        ("jackett", "http://nas:9117/api/v2.0/indexers/all/results/torznab/api", ""),
    ]
    assert "k1" not in repr(search)
    variable = '[{name = "p", url = "http://127.0.0.1:9696/2/api", api_key = "k2"}]'
    from_env = load(tmp_path, "", {"JELLYBIT_SEARCH_TORZNAB": variable}).search
    assert [(e.name, e.api_key) for e in from_env.torznab] == [("p", "k2")]
    assert not load(tmp_path, "").search.enabled


@pytest.mark.parametrize(
    "endpoints",
    [
        '"http://127.0.0.1:9696/1/api"',
        '[{ name = "p", url = "http://127.0.0.1:9696/1/api?t=search", api_key = "secret1" }]',
        '[{ name = "p", url = "ftp://127.0.0.1/api", api_key = "secret1" }]',
        '[{ url = "http://127.0.0.1:9696/1/api", api_key = "secret1" }]',
        '[{ name = "p", url = "http://a/api", api_key = "secret1", apikey = "x" }]',
        '[{ name = "p", url = "http://a/api" }, { name = "P", url = "http://b/api" }]',
    ],
)
def test_a_bad_torznab_list_is_one_line_without_its_keys(tmp_path: Path, endpoints: str) -> None:
    [line] = problems_of(tmp_path, f"[search]\ntorznab = {endpoints}")
    assert line.startswith("search.torznab: must be a list of { name = ")
    assert "secret1" not in line
