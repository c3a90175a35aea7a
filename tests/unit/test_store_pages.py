"""A new store is written in 16 KB pages (its rows average 1-1.5 KB: with 4 KB pages a
first build went through four times the WAL frames and write calls); a store made
with another page size is opened and updated as it is, not rebuilt."""

from __future__ import annotations

import sqlite3

from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.store import PAGE_SIZE, SCHEMA_VERSION, IndexStore
from code_intel.indexing.sync import analyze_bytes


def page_size(store: IndexStore) -> int:
    return store.conn.execute("PRAGMA page_size").fetchone()[0]


def test_a_new_store_uses_16k_pages(tmp_path):
    store = IndexStore(tmp_path / "index.db")
    store.write_files([analyze_bytes("a.py", b"def f():\n    return 1\n", ChunkSettings())])
    assert PAGE_SIZE == 16384 and page_size(store) == 16384
    assert [s.symbol.name for s in store.find_definitions("f")] == ["f"]


def test_an_existing_4k_store_keeps_its_pages_and_its_rows(tmp_path):
    path = tmp_path / "index.db"
    conn = sqlite3.connect(path)  # a store written before the change: 4 KB pages, WAL
    conn.execute("PRAGMA page_size=4096")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    conn.commit()
    conn.close()
    first = IndexStore(path)
    first.write_files([analyze_bytes("a.py", b"def f():\n    return 1\n", ChunkSettings())])
    first.close()
    again = IndexStore(path)
    assert again.messages == []  # not moved aside and rebuilt
    assert page_size(again) == 4096
    again.write_files([analyze_bytes("b.py", b"def g():\n    return f()\n", ChunkSettings())])
    assert [s.symbol.name for s in again.find_definitions("f")] == ["f"]
    assert [r.path for r in again.find_references("f")] == ["b.py"]
