"""Numbered schema migrations: ``NNNN_name.sql`` or ``NNNN_name.py``.

A ``.py`` migration defines ``apply(conn: sqlite3.Connection) -> None``; it runs
inside the runner's transaction and must not commit. ``store/migrate.py`` runs them.
"""
