"""A first build's worker writes its rows file through SQLite's C API (native/rowwriter.c).

Binding the rows through Python's `sqlite3` cost more than SQLite's inserts themselves
(an adapter looked up for every None and bytes value, every string copied twice); the
compiled writer binds each tuple's values where they are. It calls the very SQLite
library Python's `_sqlite3` loaded (never a second copy in the process), and where the
extension, that module or one of SQLite's functions is missing, `open_writer` gives
None and the caller writes the same rows through `sqlite3`.
"""

from __future__ import annotations

import logging
import sqlite3  # noqa: F401  (loads `_sqlite3` and its SQLite before the writer looks)
from collections.abc import Callable, Sequence

log = logging.getLogger(__name__)

try:
    import _sqlite3

    from . import _rowwriter  # type: ignore[attr-defined]
except ImportError:  # not built (no compiler, not POSIX): the `sqlite3` path
    _rowwriter = None

#: Appends one transaction: for each of the writer's statements, a list of lists of rows.
WriteFn = Callable[[tuple[Sequence[Sequence[tuple]], ...]], None]


def open_writer(path: str, setup_sql: str, inserts: tuple[str, ...]) -> WriteFn | None:
    """Open (create) the rows file at `path`, run `setup_sql` on it and prepare `inserts`;
    None where the compiled writer cannot run here (nothing is created then)."""
    library = getattr(_sqlite3, "__file__", None) if _rowwriter is not None else None
    if library is None:  # no extension, or `_sqlite3` built into the interpreter
        return None
    try:
        writer = _rowwriter.open(library, path, setup_sql, inserts)
    except OSError as exc:  # SQLite not reachable through `_sqlite3` (statically linked)
        log.debug("rows through sqlite3: %s", exc)
        return None
    write = _rowwriter.write
    return lambda tables: write(writer, tables)
