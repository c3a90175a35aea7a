"""A first build in a process of one thread (`code-intel index`) writes a side file
without WAL's second copy of every page and renames it over `index.db` at the end:
other processes see the store as it was until then, a killed build leaves only a side
file that the next open discards (the index is built again, nothing half-written is
kept), an interrupted one keeps what it committed, and a store another process holds
open gets the rows copied in instead of a file renamed under it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from code_intel.indexing import sync
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.config import Config
from code_intel.indexing.store import (
    _LATE_INDEXES,
    LOCK_SUFFIX,
    SIDE_SUFFIX,
    IndexStore,
    RowsFile,
    _runs,
)
from code_intel.indexing.sync import sync_workspace

FILES = 30


def tree(root: Path, files: int = FILES) -> Path:
    root.mkdir(exist_ok=True)
    for i in range(files):
        (root / f"mod_{i}.py").write_text(
            f"class Thing{i}:\n    def helper_{i}(self, x):\n        return x + {i}\n\n\n"
            f"def caller_{i}():\n    return Thing{i}().helper_{i}(1)\n"
        )
    return root


def side_files(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.glob(f"{db.name}{SIDE_SUFFIX}*"))


def indexed_files(db: Path) -> int:
    """What another process sees: its own connection to `index.db`."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT COUNT(*) FROM files WHERE skip_reason IS NULL").fetchone()[0]
    finally:
        conn.close()


def tables(store: IndexStore) -> dict[str, list[tuple]]:
    out = {name: store.conn.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()
           for name in ("chunks", "symbols", "refs", "imports")}
    out["files"] = store.conn.execute(
        "SELECT path, language, fingerprint, size, mtime_ns, skip_reason FROM files ORDER BY path").fetchall()
    return out


def clean_build(tmp_path: Path, root: Path) -> dict[str, list[tuple]]:
    store = IndexStore(tmp_path / "clean" / "index.db")
    sync_workspace(root, store, Config(workers=1))
    return tables(store)


def one_thread(monkeypatch) -> None:
    monkeypatch.setattr(sync, "single_threaded", lambda: True)  # `code-intel index`
    monkeypatch.setattr(sync, "BATCH_FILES", 5)  # several commits before the end


def test_a_first_build_writes_no_wal_and_replaces_the_store_when_done(tmp_path, monkeypatch):
    one_thread(monkeypatch)
    root = tree(tmp_path / "ws")
    db = tmp_path / "store" / "index.db"
    store = IndexStore(db)
    wal = Path(f"{db}-wal")
    seen = []

    def progress(done: int, total: int, path: str) -> None:
        seen.append((wal.stat().st_size if wal.exists() else 0, side_files(db), indexed_files(db)))

    sync_workspace(root, store, Config(workers=1), progress=progress)
    sides = [f"index.db{SIDE_SUFFIX}{os.getpid()}"]
    # during the build: no page through the WAL, the rows in the side file, and
    # another process sees the store as it was (no indexed file yet)
    assert max(size for size, _, _ in seen) <= seen[0][0]
    assert all(s == sides for _, s, _ in seen)
    assert {n for _, _, n in seen} == {0}
    # after: one store in WAL mode with every file, its name indexes, nothing beside it
    assert side_files(db) == []
    assert indexed_files(db) == FILES
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = {n for (n,) in store.conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert set(_LATE_INDEXES) <= names
    assert stat.S_IMODE(db.stat().st_mode) & 0o077 == 0
    assert tables(store) == clean_build(tmp_path, root)
    assert [s.path for s in store.find_definitions("helper_7")] == ["mod_7.py"]
    assert store.get_meta("sync_count") == "1"


_KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
from code_intel.indexing import sync
from code_intel.indexing.config import Config
from code_intel.indexing.store import IndexStore
sync.BATCH_FILES = 5

def progress(done, total, path):
    if done == 20:  # three batches committed
        os.kill(os.getpid(), signal.SIGKILL)

sync.sync_workspace(Path(sys.argv[1]), IndexStore(Path(sys.argv[2])), Config(workers=int(sys.argv[3])),
                   progress=progress)
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_a_killed_first_build_is_discarded_on_the_next_open_and_built_again(tmp_path, workers):
    """With workers, their rows files go too (said once, with the side file)."""
    root = tree(tmp_path / "ws")
    db = tmp_path / "store" / "index.db"
    killed = subprocess.run([sys.executable, "-c", _KILLED_BUILD, str(root), str(db), str(workers)],
                            check=False, capture_output=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    left = side_files(db)  # what the kill left
    rows_files = [name for name in left if "-rows-" in name and name[-4:] not in ("-wal", "-shm")]
    assert len(rows_files) in ((0,) if workers == 1 else (1, 2))

    store = IndexStore(db)
    assert side_files(db) == []
    assert [m for m in store.messages if "did not finish" in m and "indexes the workspace again" in m
            and f"left index.db{SIDE_SUFFIX}" in m] == store.messages
    assert len(store.messages) == 1
    assert store.stats()["files"] == 0  # nothing half-built is taken for an index
    assert store.get_meta("sync_count") is None  # the language server waits for a build

    report = sync_workspace(root, store, Config(workers=1))
    assert len(report.added) == FILES
    assert tables(store) == clean_build(tmp_path, root)


def test_an_interrupted_first_build_keeps_what_it_committed(tmp_path, monkeypatch):
    one_thread(monkeypatch)
    root = tree(tmp_path / "ws")
    db = tmp_path / "store" / "index.db"
    store = IndexStore(db)

    def interrupt(done: int, total: int, path: str) -> None:
        if done == 12:
            raise KeyboardInterrupt

    try:
        sync_workspace(root, store, Config(workers=1), progress=interrupt)
    except KeyboardInterrupt:
        pass
    assert side_files(db) == []
    assert indexed_files(db) == 10  # two batches of 5 were committed
    again = sync_workspace(root, store, Config(workers=1))
    assert len(again.added) == FILES - 10 and again.unchanged == 10
    assert tables(store) == clean_build(tmp_path, root)


def test_a_store_another_process_holds_open_gets_the_rows_copied_in(tmp_path, monkeypatch):
    """Renaming a file under an open connection would leave that connection on the old
    one (and its WAL next to the new one): the rows are copied instead."""
    one_thread(monkeypatch)
    root = tree(tmp_path / "ws")
    db = tmp_path / "store" / "index.db"
    store = IndexStore(db)
    other = sqlite3.connect(db)  # a reader that keeps the store open throughout
    assert other.execute("SELECT COUNT(*) FROM files").fetchone() == (0,)
    inode = db.stat().st_ino

    sync_workspace(root, store, Config(workers=1))
    assert db.stat().st_ino == inode
    assert other.execute("SELECT COUNT(*) FROM files WHERE skip_reason IS NULL").fetchone() == (FILES,)
    assert side_files(db) == []
    assert tables(store) == clean_build(tmp_path, root)
    # the copy and every write after it are synced as usual (the rename's attempt to
    # leave WAL does it without syncs, and must not leave the store so)
    assert store.conn.execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL
    other.close()


def test_only_side_files_of_finished_processes_are_discarded(tmp_path):
    db = tmp_path / "store" / "index.db"
    IndexStore(db).close()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          check=True, capture_output=True, text=True).stdout.strip()
    running = db.with_name(f"{db.name}{SIDE_SUFFIX}{os.getpid()}")  # a build in progress
    finished = db.with_name(f"{db.name}{SIDE_SUFFIX}{dead}")
    running.write_bytes(b"")
    finished.write_bytes(b"")
    store = IndexStore(db)
    assert side_files(db) == [running.name]
    assert len(store.messages) == 1 and dead in store.messages[0]


def test_a_store_opened_during_the_rename_waits_for_it(tmp_path):
    """Opening the store between the rename's check (no one holds the old file) and the
    rename itself would leave that connection on the old file, its WAL then named like
    the new file's: opening waits while the rename holds the lock."""
    import fcntl
    import threading

    db = tmp_path / "store" / "index.db"
    IndexStore(db).close()
    lock = os.open(f"{db}{LOCK_SUFFIX}", os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)  # what `_rename_over` holds
    opened = threading.Event()
    opener = threading.Thread(target=lambda: (IndexStore(db).close(), opened.set()))
    opener.start()
    try:
        assert not opened.wait(0.5)
    finally:
        os.close(lock)
    assert opened.wait(10)
    opener.join()


def test_a_language_servers_first_build_writes_the_store_itself(tmp_path, monkeypatch):
    """A process with threads (the language server) answers from the store while it
    builds, other processes too: its files appear batch by batch, no side file."""
    monkeypatch.setattr(sync, "single_threaded", lambda: False)
    monkeypatch.setattr(sync, "BATCH_FILES", 5)
    root = tree(tmp_path / "ws")
    db = tmp_path / "store" / "index.db"
    store = IndexStore(db)
    seen = []
    sync_workspace(root, store, Config(workers=1),
                   progress=lambda done, total, path: seen.append((side_files(db), indexed_files(db))))
    assert all(s == [] for s, _ in seen)
    assert [n for _, n in seen][19] >= 15  # written as the build goes
    assert indexed_files(db) == FILES


_FORKED_BUILD = """
import json, sys
from pathlib import Path
from code_intel.indexing import store as S, sync
from code_intel.indexing.config import Config
sync.BATCH_FILES = 5
got = {"written": 0, "spans": 0, "rows_files": set()}
write_files, copy_rows = S.IndexStore.write_files, S.IndexStore.copy_rows

def count_written(self, files):
    files = list(files)
    got["written"] += len(files)
    write_files(self, files)

def count_spans(self, spans):
    got["spans"] += len(spans)
    got["rows_files"].update(span.source for span in spans)
    copy_rows(self, spans)

S.IndexStore.write_files, S.IndexStore.copy_rows = count_written, count_spans
db = Path(sys.argv[2])
leftover = lambda: sorted(p.name for p in db.parent.glob("*rows*"))
during = set()
store = S.IndexStore(db)
sync.sync_workspace(Path(sys.argv[1]), store, Config(workers=2),
                    progress=lambda done, total, path: during.update(
                        n for n in leftover() if not n.endswith(("-wal", "-shm", "-journal"))))
print(json.dumps({"written": got["written"], "spans": got["spans"], "rows_files": len(got["rows_files"]),
                  "during": len(during), "after": leftover(),
                  "integrity": store.conn.execute("PRAGMA integrity_check").fetchone()[0]}))
"""


def test_a_forked_first_builds_workers_write_the_rows_the_parent_only_copies_them(tmp_path):
    """`code-intel index` on a new store: each worker writes its files' rows into its own
    rows file and sends the parent where they are; the parent copies them into the side
    file in SQLite, in the files' order, so the store is the one a serial build writes
    (rowids included), and the rows files are gone when the build is."""
    files = 70  # tasks of 8 files, then one file per task from the 38th on
    root = tree(tmp_path / "ws", files)
    db = tmp_path / "store" / "index.db"
    run = subprocess.run([sys.executable, "-c", _FORKED_BUILD, str(root), str(db)],
                         check=False, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["written"] == 0  # no file's rows went through the parent's Python
    # one rows file per worker that got a task (both, unless one was starved of CPU)
    assert got["spans"] == files and got["rows_files"] == got["during"] in (1, 2)
    assert got["after"] == [] and got["integrity"] == "ok"
    store = IndexStore(db)
    assert store.stats()["files"] == files
    assert tables(store) == clean_build(tmp_path, root)


def test_copied_rows_keep_the_files_order_across_rows_files_and_the_attach_limit(tmp_path):
    """Rows of one file never split, runs of one rows file merged, and more rows files
    than SQLite attaches at once copied in turns: the same tables as writing the files."""
    files = [sync.analyze_bytes(f"m{i}.py", f"def f{i}(x):\n    return g{i % 3}(x)\n".encode(),
                                ChunkSettings()) for i in range(12)]
    clean = IndexStore(tmp_path / "clean" / "index.db")
    clean.write_files(files)
    rows = [RowsFile(str(tmp_path / f"rows-{k}")) for k in range(3)]
    owner = [0, 0, 1, 2, 2, 0, 1, 1, 2, 0, 0, 0]  # which worker analysed each file
    spans = [rows[k].write([f])[0] for k, f in zip(owner, files, strict=True)]
    assert len(_runs(spans)) == 7  # consecutive spans of one rows file merged
    store = IndexStore(tmp_path / "store" / "index.db")
    with store.bulk_load():
        store.conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 2)
        store.copy_rows(spans[:7])
        store.copy_rows(spans[7:])
    assert tables(store) == tables(clean)
