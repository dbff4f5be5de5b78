"""The ``jellybit`` command: run, check, migrate. Every command takes --config."""

import argparse
import asyncio
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from core.config import ConfigError, Settings
from jellybit.config_file import load_settings
from jellybit.logs import configure_logging
from store.migrate import MigrationError, available_migrations, current_version, migrate

EXIT_OK, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = load_settings(args.config, os.environ)
        if args.command == "run":
            _require_run_keys(settings)
        configure_logging(level=args.log_level)
        return int(args.handler(settings, args))
    except ConfigError as error:
        _print_problems(f"jellybit {args.command}: the configuration has problems:", error.problems)
        return EXIT_CONFIG
    except MigrationError as error:
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


def _cmd_check(settings: Settings, _args: argparse.Namespace) -> int:
    results = [
        (True, "configuration is valid", ""),
        _check_run_keys(settings),
        _check_database(settings.database_path),
    ]
    for ok, what, fix in results:
        print(f"{'✓' if ok else '✗'} {what}" + ("" if ok else f" — {fix}"))
    return EXIT_OK if all(ok for ok, _, _ in results) else EXIT_FAILED


def _check_run_keys(settings: Settings) -> tuple[bool, str, str]:
    missing = settings.missing_for_run()
    if missing:
        return False, "keys for `jellybit run` are missing", "; ".join(missing)
    return True, "keys for `jellybit run` are set", ""


def _check_database(path: Path) -> tuple[bool, str, str]:
    latest = len(available_migrations())
    if not path.exists():
        return False, f"database {path} does not exist", "run `jellybit migrate`"
    version = _version_of(path)
    if version == latest:
        return True, f"database {path} is at the latest version ({latest})", ""
    if version > latest:
        return False, f"database {path} is at {version}, newer than this jellybit", "upgrade"
    return False, f"database {path} is at version {version} of {latest}", "run `jellybit migrate`"


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
