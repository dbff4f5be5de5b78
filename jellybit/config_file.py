"""Reading config.toml: the I/O half of the configuration (``core/config.py`` validates)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.config import ConfigError, Settings, parse_settings, set_in_environment

CONFIG_ENV = "JELLYBIT_CONFIG"
DEFAULT_CONFIG_NAME = "config.toml"


def config_path_from(arg: str | None, env: Mapping[str, str]) -> Path:
    """The ``--config`` argument, else ``$JELLYBIT_CONFIG``, else ./config.toml."""
    if arg:
        return Path(arg)
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV])
    return Path(DEFAULT_CONFIG_NAME)


def no_config_file(path: Path | None, env: Mapping[str, str]) -> bool:
    """No --config, no $JELLYBIT_CONFIG and no ./config.toml."""
    return path is None and not env.get(CONFIG_ENV) and not Path(DEFAULT_CONFIG_NAME).exists()


def environment_only(path: Path | None, env: Mapping[str, str]) -> bool:
    """No config file, and the environment sets at least one key."""
    return no_config_file(path, env) and bool(set_in_environment(env))


def load_settings(path: Path | None, env: Mapping[str, str]) -> Settings:
    """Read and validate the config file; ``None`` means ``config_path_from(None, env)``.
    With no file named and no ./config.toml, keys set in the environment are the
    whole configuration (a container's), relative paths against the working directory.

    Raises ConfigError with one line per problem, including a missing or
    unreadable file and TOML syntax errors.
    """
    if environment_only(path, env):
        return parse_settings({}, env, Path.cwd())
    # Absolute so that problem lines name the file unambiguously and relative
    # paths inside it resolve against its directory.
    config_path = (path if path is not None else config_path_from(None, env)).absolute()
    raw = _read_toml(config_path, env)
    return parse_settings(raw, env, config_path.parent)


def _read_toml(path: Path, env: Mapping[str, str]) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except FileNotFoundError:
        raise ConfigError(_not_found_problems(path, env)) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError([f"config file {path}: invalid TOML: {error}"]) from None
    except UnicodeDecodeError as error:
        line = f"config file {path}: not UTF-8 text (byte {error.start}: {error.reason})"
        raise ConfigError([line]) from None
    except OSError as error:
        reason = error.strerror or str(error)
        raise ConfigError([f"config file {path} cannot be read: {reason}"]) from None


def _not_found_problems(path: Path, env: Mapping[str, str]) -> list[str]:
    """The "not found" line, then what ``run`` would still miss: the user's to-do list."""
    head = (
        f"config file {path} not found — copy config.example.toml to it and fill in the keys below"
    )
    try:
        missing = parse_settings({}, env, path.parent).missing_for_run()
    except ConfigError as error:  # e.g. a malformed token in the environment
        missing = error.problems
    return [head, *missing]
