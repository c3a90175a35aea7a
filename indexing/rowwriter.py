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
#: Rows one INSERT writes while that many are left: SQLite's work per statement (its
#: program's start, `sqlite3VdbeHalt`) is paid once for them. callgrind on sympy/core +
#: printing: the workers' writing 0.356 -> 0.300 G instructions (8.5 % -> 7.1 % of
#: their parse). At most `_MAX_PARAMETERS` values a statement (SQLite before 3.32).
ROWS_PER_INSERT = 64
_MAX_PARAMETERS = 999


def many_rows(insert: str) -> tuple[str, str, int]:
    """(`insert`, the same INSERT of `per` rows, `per`) for a one-row
    `INSERT ... VALUES (?,...)`."""
    if not insert.rstrip().endswith(")"):
        raise ValueError(f"not an INSERT ... VALUES (...): {insert}")
    params = insert.count("?")
    per = max(1, min(ROWS_PER_INSERT, _MAX_PARAMETERS // params))
    row = "(" + ",".join("?" * params) + ")"
    return insert, insert.rstrip() + ("," + row) * (per - 1), per


def open_writer(path: str, setup_sql: str, inserts: tuple[str, ...]) -> WriteFn | None:
    """Open (create) the rows file at `path`, run `setup_sql` on it and prepare `inserts`
    (one-row `INSERT ... VALUES (?,...)`, one per table) and their many-row forms; None
    where the compiled writer cannot run here (nothing is created then)."""
    library = getattr(_sqlite3, "__file__", None) if _rowwriter is not None else None
    if library is None:  # no extension, or `_sqlite3` built into the interpreter
        return None
    try:
        writer = _rowwriter.open(library, path, setup_sql, tuple(map(many_rows, inserts)))
    except OSError as exc:  # SQLite not reachable through `_sqlite3` (statically linked)
        log.debug("rows through sqlite3: %s", exc)
        return None
    write = _rowwriter.write
    return lambda tables: write(writer, tables)
