"""A first build's workers write their rows files through SQLite's C API
(native/rowwriter.c); the store copies those rows in as they are, so the compiled writer
must store exactly what Python's `sqlite3` stores: every value, with its type."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from code_intel.indexing import store as store_module
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.config import Config
from code_intel.indexing.discovery import discover
from code_intel.indexing.rowwriter import ROWS_PER_INSERT, many_rows, open_writer
from code_intel.indexing.store import _ROW_TABLES, FileRows, IndexedFile, RowsFile
from code_intel.indexing.sync import analyze_bytes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def fixture_files(limit: int = 60) -> list[IndexedFile]:
    """Real analyses of the fixture corpus (every language's rows) as a sync writes them."""
    found = sorted(discover(FIXTURES, Config()).files.items())[:limit]
    return [analyze_bytes(rel, Path(c.abs_path).read_bytes(), ChunkSettings(), c.size, c.mtime_ns)
            for rel, c in found]


def odd_file() -> IndexedFile:
    """Values at the edges of what a row can hold."""
    rows = FileRows(
        language="python", syntax_errors=3, notes="ü\0after a NUL",
        chunks=[("id#2", "odd.py", "python", "Größe", "class", 1, 2**40, "🎉 text\0x", "f" * 64, "{}", None)],
        symbols=[("odd.py", "python", "", "class", "", None, -1, 0, 2**62, 5, 0, 0, 0, 0, None, "doc 🎉")],
        refs=[("odd.py", "x", 2, b"\x00\x01\xff" * 10), ("odd.py", "y", 0, b"")],
        ref_containers="a\x1fb🎉",
        imports=[("odd.py", "alias", "pkg.mod")],
    )
    return IndexedFile("odd.py", "0" * 64, -1, 2**63 - 1, rows)


def rows_file_tables(path: str) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in _ROW_TABLES} | {
            "types": conn.execute("SELECT typeof(positions), typeof(ref_containers) FROM refs, files").fetchall(),
            "columns": conn.execute("SELECT typeof(sl), typeof(container) FROM symbols").fetchall(),
        }
    finally:
        conn.close()


def write_both(tmp_path: Path, monkeypatch, batches: list[list[IndexedFile]]):
    compiled = RowsFile(str(tmp_path / "compiled"))
    assert compiled._native is not None
    monkeypatch.setattr(store_module, "open_writer", lambda *args: None)
    python = RowsFile(str(tmp_path / "python"))
    assert python._native is None
    spans = [(compiled.write(batch), python.write(batch)) for batch in batches]
    for ours, theirs in spans:
        assert [(s.path, s.first, s.count) for s in ours] == [(s.path, s.first, s.count) for s in theirs]
    return rows_file_tables(compiled.path), rows_file_tables(python.path)


def test_the_compiled_writer_runs_here():
    """It reaches SQLite through Python's own `_sqlite3`: where that works (any Linux or
    macOS CPython whose `_sqlite3` links SQLite), the workers bind in C."""
    assert open_writer(":memory:", "CREATE TABLE t(a);", ("INSERT INTO t VALUES (?)",)) is not None


def test_many_row_inserts_have_the_one_row_insert_s_columns():
    one, many, per = many_rows("INSERT INTO refs VALUES (?,?,?,?,?)")
    assert one == "INSERT INTO refs VALUES (?,?,?,?,?)"
    assert many.count("?") == 5 * per and many.count("(?,?,?,?,?)") == per == ROWS_PER_INSERT
    assert many_rows("INSERT INTO t VALUES (" + ",".join("?" * 100) + ")")[2] == 9


def test_rows_files_hold_the_same_rows_whichever_writer_wrote_them(tmp_path, monkeypatch):
    files = fixture_files() + [odd_file()]
    # rows enough for many-row INSERTs, ending with a few one-row ones, in every table
    assert min(sum(len(getattr(f.rows, t)) for f in files[10:]) for t in ("chunks", "symbols", "refs")) \
        > ROWS_PER_INSERT
    assert sum(len(f.rows.refs) for f in files) > 100
    compiled, python = write_both(tmp_path, monkeypatch, [files[:10], files[10:], [odd_file()]])
    # indexed_at is the time of each write: the same per batch within a file, not across files
    for t in (compiled, python):
        t["files"] = [row[:5] + row[6:] for row in t["files"]]
    assert compiled == python
    assert ("blob", "text") in compiled["types"]
    assert len(compiled["chunks"]) > 100


def test_a_value_sqlite_cannot_hold_fails_the_write_and_keeps_the_file_usable(tmp_path):
    rows_file = RowsFile(str(tmp_path / "rows"))
    good = odd_file()
    bad = IndexedFile("bad.py", "0" * 64, 1, 1, FileRows(
        language="python", syntax_errors=0, notes=None, chunks=[], symbols=[],
        refs=[("bad.py", "\ud800", 1, b"")], ref_containers="", imports=[]))
    with pytest.raises(UnicodeEncodeError):
        rows_file.write([good, bad])
    too_big = IndexedFile("big.py", "0" * 64, 2**64, 1, good.rows)
    with pytest.raises(OverflowError):
        rows_file.write([too_big])
    many = [("bad.py", f"n{i}", 1, b"") for i in range(3 * ROWS_PER_INSERT)]
    many[2 * ROWS_PER_INSERT + 1] = ("bad.py", "\udfff", 1, b"")  # in a many-row INSERT
    with pytest.raises(UnicodeEncodeError):
        rows_file.write([replace(bad, rows=replace(bad.rows, refs=many))])
    spans = rows_file.write([good])
    assert spans[0].first == (1, 1, 1, 1, 1)  # the failed writes left nothing behind
    tables = rows_file_tables(rows_file.path)
    assert [row[0] for row in tables["files"]] == ["odd.py"]
    assert tables["refs"] == good.rows.refs
