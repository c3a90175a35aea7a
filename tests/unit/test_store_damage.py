"""Garbage pages in a store are found when it opens and the store is rebuilt, instead
of a `database disk image is malformed` traceback in the middle of a request."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest
from code_intel.indexing import private
from code_intel.indexing.lexical import LexicalIndex
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace
from code_intel.indexing.workspace import Workspace


def _garble(path: Path, pages: int = 3) -> None:
    """Overwrite random pages past the header with noise, as a damaged disk would."""
    size = path.stat().st_size
    assert size >= 4 * 4096, f"{path} is too small to damage meaningfully"
    rng = random.Random(7)
    with path.open("r+b") as f:
        for page in rng.sample(range(1, size // 4096), pages):
            f.seek(page * 4096)
            f.write(rng.randbytes(4096))


def _indexed(fixture_copy) -> Workspace:
    root = fixture_copy("python_pkg")
    for i in range(40):  # enough rows for a store of many pages
        (root / f"gen_{i}.py").write_text("".join(f"def f{i}_{j}(x):\n    return x + {j}\n" for j in range(60)))
    ws = Workspace.open(root)
    sync_workspace(ws.root, ws.store, ws.config)
    return ws


def test_garbage_pages_in_index_db_are_set_aside_and_rebuilt(fixture_copy):
    ws = _indexed(fixture_copy)
    path = ws.store.path
    ws.store.close()
    _garble(path)
    store = IndexStore(path)
    assert any("corrupt" in m and "rebuilding" in m for m in store.messages), store.messages
    assert store.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert list(path.parent.glob("index.db.broken-*"))


def test_garbage_pages_in_lexical_db_are_dropped_and_rebuilt(fixture_copy):
    ws = _indexed(fixture_copy)
    lexical = LexicalIndex.for_workspace(ws.root)
    lexical.sync(ws.store)
    assert lexical.search_chunks("f3_7")
    path = lexical.path
    lexical.close()
    _garble(path)
    reopened = LexicalIndex(path)  # no DatabaseError here, nor in the search below
    reopened.sync(ws.store)
    assert reopened.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert reopened.search_chunks("f3_7")


def test_an_intact_store_is_kept(fixture_copy):
    ws = _indexed(fixture_copy)
    path = ws.store.path
    ws.store.close()
    store = IndexStore(path)
    assert store.messages == []
    assert not list(path.parent.glob("index.db.broken-*"))
    assert sqlite3.connect(path).execute("SELECT count(*) FROM meta").fetchone()[0] >= 1
    assert os.stat(path.parent).st_mode & 0o777 == 0o700


def test_a_store_that_cannot_be_created_says_so_in_one_sentence(tmp_path, monkeypatch):
    """Another user's (or a read-only) checkout: one clear line, not a bare errno."""
    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(PermissionError) as err:
        private.private_dir(tmp_path / "repo" / ".code-intel")
    assert "read-only or another user's checkout" in str(err.value)
