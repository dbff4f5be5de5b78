"""The ``jellybit`` command: run, check, migrate, backup. Every command takes --config."""

import argparse
import asyncio
import os
import sqlite3
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from common.logs import configure_logging
from core.config import ConfigError, Settings
from jellybit import version
from jellybit.config_file import environment_only, load_settings, no_config_file
from store.backup import BackupError, backup
from store.migrate import MigrationError, available_migrations, current_version, migrate

EXIT_OK, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run" and _sandbox(args.config, os.environ):
            configure_logging(level=args.log_level)
            return _run_sandbox()
        settings = load_settings(args.config, os.environ)
        if args.command == "run":
            _require_run_keys(settings)
        configure_logging(level=args.log_level)
        return int(args.handler(settings, args))
    except ConfigError as error:
        _print_problems(f"jellybit {args.command}: the configuration has problems:", error.problems)
        return EXIT_CONFIG
    except (MigrationError, BackupError) as error:
        print(f"jellybit {args.command}: {error}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_FAILED


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="PATH",
        help="the TOML config file (default: $JELLYBIT_CONFIG, else ./config.toml)",
    )
    common.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])
    parser = argparse.ArgumentParser(
        prog="jellybit", description="Telegram-first media downloader for Jellyfin."
    )
    parser.add_argument("--version", action="version", version=f"jellybit {version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser(
        "run", parents=[common], help="run the bot, the web app and the worker"
    )
    run.set_defaults(handler=_cmd_run)
    check = commands.add_parser(
        "check", parents=[common], help="check the setup, one line per item"
    )
    check.set_defaults(handler=_cmd_check)
    migrate_cmd = commands.add_parser(
        "migrate", parents=[common], help="apply pending database migrations"
    )
    migrate_cmd.add_argument(
        "--status", action="store_true", help="print the current and latest version only"
    )
    migrate_cmd.set_defaults(handler=_cmd_migrate)
    backup_cmd = commands.add_parser(
        "backup", parents=[common], help="copy the database, safe while jellybit runs"
    )
    backup_cmd.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=None,
        metavar="PATH",
        help="a new file, or a directory (default: data_dir/backups/, keeping the last 5)",
    )
    backup_cmd.set_defaults(handler=_cmd_backup)
    return parser


def _require_run_keys(settings: Settings) -> None:
    missing = settings.missing_for_run()
    if missing:
        missing.append("see config.example.toml: every key with a comment")
        raise ConfigError(missing)


def _cmd_run(settings: Settings, _args: argparse.Namespace) -> int:
    from jellybit.app import run_application  # the full stack only when it runs

    migrate(settings.database_path)
    return asyncio.run(run_application(settings))


def _sandbox(arg: Path | None, env: Mapping[str, str]) -> bool:
    """No config file and no key in the environment: ``run`` starts the sandbox.
    (A config path that is named but missing stays an error.)"""
    return no_config_file(arg, env) and not environment_only(arg, env)


def _run_sandbox() -> int:
    from sandbox.run import run_sandbox  # qbittorrent-nox and the samples only here

    return asyncio.run(run_sandbox(Path("var").absolute()))


def _cmd_migrate(settings: Settings, args: argparse.Namespace) -> int:
    path = settings.database_path
    latest = len(available_migrations())
    if args.status:
        print(_status_line(path, latest))
        return EXIT_OK
    applied = migrate(path)
    if applied:
        print(f"database {path}: migrated to version {latest} (applied {_names(applied)})")
    else:
        print(f"database {path}: already at version {latest}")
    return EXIT_OK


def _cmd_backup(settings: Settings, args: argparse.Namespace) -> int:
    written = backup(settings.database_path, args.path)
    print(f"database {settings.database_path}: backed up to {written}")
    return EXIT_OK


def _cmd_check(settings: Settings, _args: argparse.Namespace) -> int:
    from jellybit.check import run_checks  # the clients are loaded only to check

    lines = asyncio.run(run_checks(settings))
    for line in lines:
        print(line)
    return EXIT_FAILED if any(line.status == "failed" for line in lines) else EXIT_OK


def _status_line(path: Path, latest: int) -> str:
    if not path.exists():
        return f"database {path}: does not exist yet; latest version {latest}"
    version = _version_of(path)
    pending = [m.version for m in available_migrations()[version:]]
    line = f"database {path}: version {version}, latest {latest}"
    if version > latest:
        return line + " — the database is newer than this jellybit: upgrade jellybit"
    return line + (f", pending {_names(pending)}" if pending else ", up to date")


def _version_of(path: Path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return current_version(conn)
    finally:
        conn.close()


def _names(versions: Sequence[int]) -> str:
    by_version = {m.version: f"{m.version:04d}_{m.name}" for m in available_migrations()}
    return ", ".join(by_version[v] for v in versions)


def _print_problems(head: str, problems: Sequence[str]) -> None:
    print(head, file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
