"""Incremental sync into the SQLite store: only changes are processed, deletions leave
no rows behind, bad files are skipped or indexed as far as they go, and a broken store
is rebuilt with a message."""

from __future__ import annotations

import os
import sqlite3
import time

import pytest
from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.config import Config
from code_intel.indexing.store import SCHEMA_VERSION, IndexStore, db_path
from code_intel.indexing.sync import index_buffer, sync_workspace

from tests.conftest import FIXTURES


def open_store(root):
    return IndexStore.for_workspace(root)


def row_counts(store: IndexStore, path: str) -> dict[str, int]:
    return {
        table: store.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE path=?", (path,)).fetchone()[0]
        for table in ("files", "chunks", "symbols", "refs", "imports")
    }


def test_cold_then_incremental_processes_exactly_the_changes(fixture_copy):
    root = fixture_copy("python_pkg")
    store = open_store(root)
    cold = sync_workspace(root, store, Config())
    assert len(cold.added) == 8 and not cold.modified and not cold.deleted

    again = sync_workspace(root, store, Config())
    assert again.processed == 0 and again.unchanged == 8

    service = root / "shop/orders/service.py"
    service.write_text(service.read_text() + "\n\ndef refund(order_id: int) -> None:\n    pass\n")
    (root / "manage.py").unlink()
    (root / "shop/orders/shipping.py").write_text("def ship(order):\n    return order\n")
    assert row_counts(store, "manage.py")["symbols"] > 0

    report = sync_workspace(root, store, Config())
    assert report.added == ["shop/orders/shipping.py"]
    assert report.modified == ["shop/orders/service.py"]
    assert report.deleted == ["manage.py"]
    assert report.unchanged == 6
    assert row_counts(store, "manage.py") == dict.fromkeys(row_counts(store, "manage.py"), 0)
    assert [s.path for s in store.find_definitions("refund")] == ["shop/orders/service.py"]
    assert [s.path for s in store.find_definitions("ship")] == ["shop/orders/shipping.py"]
    assert store.find_definitions("create_admin") == []


def test_touched_but_identical_file_is_hashed_not_reparsed(fixture_copy):
    root = fixture_copy("python_pkg")
    store = open_store(root)
    sync_workspace(root, store, Config())
    path = root / "shop/auth/login.py"
    later = time.time() + 10
    os.utime(path, (later, later))
    report = sync_workspace(root, store, Config())
    assert report.processed == 0 and report.touched == 1
    assert sync_workspace(root, store, Config()).touched == 0  # the new mtime was stored


def test_force_reprocesses_everything(fixture_copy):
    root = fixture_copy("python_pkg")
    store = open_store(root)
    sync_workspace(root, store, Config())
    assert len(sync_workspace(root, store, Config(), force=True).modified) == 8


def test_parallel_sync_matches_serial(fixture_copy, tmp_path):
    root = fixture_copy("python_pkg")
    for i in range(40):
        (root / f"shop/gen_{i}.py").write_text(f"def generated_{i}(x):\n    return x + {i}\n")
    serial = IndexStore(tmp_path / "serial.db")
    parallel = IndexStore(tmp_path / "parallel.db")
    r1 = sync_workspace(root, serial, Config(workers=1))
    r2 = sync_workspace(root, parallel, Config(workers=2))
    assert r2.workers == 2 and r1.workers == 1
    assert serial.stats() == parallel.stats()
    assert len(parallel.find_definitions("generated_39")) == 1


def test_bad_files(tmp_path):
    root = tmp_path
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(100))
    (root / "latin1.py").write_bytes("def caf\xe9():\n    return 'd\xe9j\xe0'\n".encode("latin-1"))
    (root / "huge.py").write_bytes(b"x = 1\n" * (5 * 1024 * 1024 // 6 + 1))
    (root / "empty.py").write_bytes(b"")
    (root / "broken.py").write_text("def ok():\n    pass\n\ndef bad(:\n\nclass Fine:\n    pass\n")
    os.symlink(root, root / "loop")
    store = open_store(root)
    report = sync_workspace(root, store, Config())
    assert report.skipped["image.png"] == "binary"
    assert "max_file_bytes" in report.skipped["huge.py"]
    assert report.skipped["loop"].startswith("symlinked directory")
    assert sorted(report.added) == ["broken.py", "empty.py", "latin1.py"]
    assert {s.symbol.name for s in store.symbols_in_file("broken.py")} >= {"ok", "Fine"}
    assert store.file_state("empty.py").fingerprint is not None
    notes = store.conn.execute("SELECT notes FROM files WHERE path='latin1.py'").fetchone()[0]
    assert "invalid UTF-8" in notes
    # still indexed; U+FFFD is not an identifier character, so the name stops there
    assert [s.symbol.name for s in store.symbols_in_file("latin1.py")] == ["caf"]
    stats = store.stats()
    assert stats["skipped"]["binary"] == 1
    assert stats["syntax_error_files"] == 2  # broken.py, and latin1.py's stray byte
    # skipped files are remembered, not re-read, on the next sync
    assert sync_workspace(root, store, Config()).skipped == {}


def test_corrupt_store_is_rebuilt_with_a_message(tmp_path):
    (tmp_path / "a.py").write_text("def a():\n    pass\n")
    path = db_path(tmp_path)
    path.parent.mkdir()
    path.write_bytes(b"this is not a database" * 100)
    store = open_store(tmp_path)
    assert store.messages and "corrupt" in store.messages[0]
    assert list(path.parent.glob("index.db.broken-*"))
    sync_workspace(tmp_path, store, Config())
    assert store.find_definitions("a")


def test_other_schema_version_is_rebuilt(tmp_path):
    path = db_path(tmp_path)
    path.parent.mkdir()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '0')")
    conn.commit()
    conn.close()
    store = open_store(tmp_path)
    assert "schema version 0" in store.messages[0]
    assert store.get_meta("schema_version") == str(SCHEMA_VERSION)


def test_buffer_text_replaces_the_disk_version_until_resynced(fixture_copy):
    root = fixture_copy("python_pkg")
    store = open_store(root)
    sync_workspace(root, store, Config())
    text = (root / "shop/auth/login.py").read_text().replace("def logout", "def sign_out")
    index_buffer(store, "shop/auth/login.py", text.encode(), ChunkSettings())
    assert store.find_definitions("sign_out") and not store.find_definitions("logout")
    report = sync_workspace(root, store, Config())  # the buffer was closed: disk wins
    assert report.modified == ["shop/auth/login.py"]
    assert store.find_definitions("logout") and not store.find_definitions("sign_out")


def _every_fixture_file() -> list[str]:
    return sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*") if p.is_file())


@pytest.mark.parametrize("rel", _every_fixture_file())
def test_an_open_buffers_lazy_analysis_is_the_full_analysis(rel):
    """Editors' buffers leave references and chunks until someone asks for them; what
    they then see must be exactly what a sync of the saved file would store, in
    whichever order they are asked for."""
    path, data = rel.split("/", 1)[1], (FIXTURES / rel).read_bytes()
    full = analyze_source(path, data)
    for refs_first in (True, False):
        lazy = analyze_source(path, data, lazy=True)
        assert not lazy.notes or lazy.notes == full.notes
        assert (lazy.symbols, lazy.imports, lazy.syntax_errors) == (
            full.symbols, full.imports, full.syntax_errors)
        if refs_first:
            assert lazy.complete_references() == full.references
            assert lazy.complete_chunks() == full.chunks
        else:
            assert lazy.complete_chunks() == full.chunks
            assert lazy.complete_references() == full.references


def test_index_counts_follow_syncs_from_another_thread(fixture_copy):
    """Status displays ask for counts often and get a cached answer; a sync on the
    worker thread (its own connection) must still show up in the next answer."""
    import threading

    root = fixture_copy("python_pkg")
    store = open_store(root)
    sync_workspace(root, store, Config())
    before = store.stats()
    assert store.stats() == before
    (root / "shop/extra.py").write_text("def extra():\n    return 1\n")
    worker = threading.Thread(target=sync_workspace, args=(root, store, Config()))
    worker.start()
    worker.join()
    after = store.stats()
    assert after["files"] == before["files"] + 1
    assert after["symbols"] == before["symbols"] + 1
    store.delete_files(["shop/extra.py"])  # a write on this thread's connection
    assert store.stats() == before
