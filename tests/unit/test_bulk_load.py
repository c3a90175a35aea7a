"""A first build loads the rows and then indexes their names (one sort per index
instead of a random-order update per row); lookups answer during the build, and the
indexes are back after it, whether it finished, failed or was killed."""

from __future__ import annotations

import sqlite3

import pytest
from code_intel.indexing import sync
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.config import Config
from code_intel.indexing.store import _LATE_INDEXES, IndexStore
from code_intel.indexing.sync import analyze_bytes, sync_workspace


def name_indexes(store: IndexStore) -> set[str]:
    rows = store.conn.execute("SELECT name FROM sqlite_master WHERE type='index'").fetchall()
    return {name for (name,) in rows} & set(_LATE_INDEXES)


def tree(root, files=30):
    root.mkdir(exist_ok=True)
    for i in range(files):
        (root / f"mod_{i}.py").write_text(
            f"def helper_{i}(x):\n    return x + {i}\n\n\ndef caller_{i}():\n    return helper_{i}(1)\n"
        )
    return root


def table(store: IndexStore, name: str) -> list[tuple]:
    return store.conn.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()


def test_first_build_answers_lookups_while_loading_and_indexes_names_after(tmp_path, monkeypatch):
    monkeypatch.setattr(sync, "BATCH_FILES", 5)
    monkeypatch.setattr(sync, "single_threaded", lambda: True)  # `code-intel index`
    root = tree(tmp_path / "ws")
    store = IndexStore(tmp_path / "index.db")
    seen = []

    def progress(done: int, total: int, path: str) -> None:
        if done == total - 4:  # rows of earlier batches are in, names not yet indexed
            seen.append((name_indexes(store), len(store.find_definitions("helper_0"))))

    sync_workspace(root, store, Config(workers=1), progress=progress)
    assert seen == [(set(), 1)]
    assert name_indexes(store) == set(_LATE_INDEXES)
    plan = " ".join(str(r) for r in store.conn.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM symbols WHERE name = 'helper_3'").fetchall())
    assert "symbols_name_exact" in plan


def test_a_batch_written_at_once_equals_the_files_written_one_by_one(tmp_path):
    root = tree(tmp_path / "ws")
    files = [analyze_bytes(p.name, p.read_bytes(), ChunkSettings()) for p in sorted(root.glob("*.py"))]
    batch, one_by_one = IndexStore(tmp_path / "batch.db"), IndexStore(tmp_path / "one.db")
    with batch.bulk_load():
        batch.write_files(files)
    for f in files:
        one_by_one.write_files([f])
    for name in ("chunks", "symbols", "refs", "imports"):
        assert table(batch, name) == table(one_by_one, name), name
    drop_time = "SELECT path, language, fingerprint, size, mtime_ns, skip_reason FROM files ORDER BY path"
    assert batch.conn.execute(drop_time).fetchall() == one_by_one.conn.execute(drop_time).fetchall()


def test_a_path_given_twice_in_a_batch_keeps_its_last_version(tmp_path):
    old = analyze_bytes("a.py", b"def old():\n    pass\n", ChunkSettings())
    new = analyze_bytes("a.py", b"def new():\n    pass\n", ChunkSettings())
    store = IndexStore(tmp_path / "index.db")
    store.write_files([old, new])
    assert [r[3] for r in table(store, "symbols")] == ["new"]


def test_a_failed_first_build_leaves_the_name_indexes_in_place(tmp_path):
    root = tree(tmp_path / "ws")
    store = IndexStore(tmp_path / "index.db")

    def fail(done: int, total: int, path: str) -> None:
        if done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sync_workspace(root, store, Config(workers=1), progress=fail)
    assert name_indexes(store) == set(_LATE_INDEXES)


def test_a_killed_first_build_gets_its_indexes_back_on_the_next_open(tmp_path):
    store = IndexStore(tmp_path / "index.db")
    with store.transaction() as conn:  # what a kill -9 inside bulk_load leaves
        for name in _LATE_INDEXES:
            conn.execute(f"DROP INDEX {name}")
    store.close()
    assert name_indexes(IndexStore(tmp_path / "index.db")) == set(_LATE_INDEXES)


def test_a_store_with_files_keeps_its_indexes_during_a_sync(tmp_path):
    root = tree(tmp_path / "ws")
    store = IndexStore(tmp_path / "index.db")
    sync_workspace(root, store, Config(workers=1))
    tree(root, files=60)  # 30 more files: a pool-sized sync, but not a first build
    seen = []
    sync_workspace(root, store, Config(workers=1),
                   progress=lambda done, total, path: seen.append(name_indexes(store)))
    assert seen and all(s == set(_LATE_INDEXES) for s in seen)


def test_a_process_with_threads_keeps_its_name_indexes_during_a_first_build(tmp_path, monkeypatch):
    """A language server answers lookups while it builds: they must not scan."""
    monkeypatch.setattr(sync, "single_threaded", lambda: False)
    root = tree(tmp_path / "ws")
    store = IndexStore(tmp_path / "index.db")
    seen = []
    sync_workspace(root, store, Config(workers=1),
                   progress=lambda done, total, path: seen.append(name_indexes(store)))
    assert seen and all(s == set(_LATE_INDEXES) for s in seen)


def test_a_first_build_indexes_names_while_its_last_tenth_is_still_parsed(tmp_path, monkeypatch):
    """The sorts run beside the workers' last files, not after them: what is written once
    the last result is in is then only the last batch."""
    monkeypatch.setattr(sync, "single_threaded", lambda: True)  # `code-intel index`
    root = tree(tmp_path / "ws", files=40)
    store = IndexStore(tmp_path / "index.db")
    seen = {}
    sync_workspace(root, store, Config(workers=1),
                   progress=lambda done, total, path: seen.setdefault(done, name_indexes(store)))
    assert [done for done, names in sorted(seen.items()) if names] == list(range(36, 41))
    assert all(seen[done] == set(_LATE_INDEXES) for done in range(36, 41))
    assert len(store.find_definitions("helper_39")) == 1  # rows after the sorts are indexed too
    plan = " ".join(str(r) for r in store.conn.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM symbols WHERE name = 'helper_39'").fetchall())
    assert "symbols_name_exact" in plan
    # the chunk ids' key too: a vector hit's chunk is found by its id, not by a scan
    last = store.chunks_in_file("mod_39.py")[0]
    chunk_id = store.conn.execute("SELECT id FROM chunks WHERE path = 'mod_39.py' AND start_line = ?",
                                  (last.start_line,)).fetchone()[0]
    assert store.chunks_by_id([chunk_id])[chunk_id].content == last.content
    plan = " ".join(str(r) for r in store.conn.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM chunks WHERE id = ?", (chunk_id,)).fetchall())
    assert "chunks_id" in plan
    with pytest.raises(sqlite3.IntegrityError):  # and it is still a unique key
        store.conn.execute("INSERT INTO chunks SELECT * FROM chunks WHERE id = ?", (chunk_id,))
