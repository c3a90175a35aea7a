"""Is the persistent Chroma store readable? Asked in a child process before this one
opens it.

A damaged HNSW segment does not raise: Chroma's native code reads garbage offsets and
the process dies with SIGSEGV (`code-intel search` exits -11; a language server would
take every client with it). Other damage (a truncated or garbage `chroma.sqlite3`, a
garbage index header, unreadable files) raises `InternalError` deep in a query. So a
child opens the store, counts and queries every collection; if it dies or reports an
error, the store is set aside (`chroma.broken-<time>`) and rebuilt empty, and the
vectors are re-embedded by the next sync. The map's learned agreements are read
(from SQLite, before any query touches the HNSW files) and handed back, so they can
be re-embedded rather than lost.

The child costs a second or two (it imports Chroma), so it runs only when the store
changed since the last good check: a marker next to the store records the sizes and
mtimes of its files after a passing check or a finished sync.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CHECK_TIMEOUT_SECONDS = 120.0  # generous: a loaded machine imports Chroma slowly
MAP = "map"


@dataclass
class Damage:
    """What was found wrong with a store, and what could be saved from it."""

    problem: str
    set_aside: Path
    map_entries: dict[str, Any] = field(default_factory=dict)  # `get` result of the map

    def message(self, path: Path) -> str:
        return (
            f"the vector store {path} could not be read ({self.problem}); it was set aside as "
            f"{self.set_aside.name} and is being rebuilt (the vectors are re-embedded at the next sync)"
        )


def marker_path(path: Path) -> Path:
    return path.with_name(f"{path.name}.checked")


def fingerprint(path: Path) -> str | None:
    """Sizes and mtimes of every file in the store; None when there is no store yet."""
    entries = []
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            full = Path(dirpath, name)
            try:
                st = full.stat()
            except OSError:
                entries.append(f"{full.relative_to(path)}:unreadable")
                continue
            entries.append(f"{full.relative_to(path)}:{st.st_size}:{st.st_mtime_ns}:{st.st_mode & 0o777}")
    if not entries:
        return None
    return hashlib.sha1("\n".join(sorted(entries)).encode()).hexdigest()


def mark_good(path: Path) -> None:
    """Record the store as it is now as readable (after a check or a finished sync)."""
    fp = fingerprint(path)
    if fp is None:
        return
    try:
        marker_path(path).write_text(fp)
    except OSError as exc:  # costs a check next time, nothing more
        log.debug("cannot record the vector store check: %s", exc)


def _known_good(path: Path, fp: str) -> bool:
    try:
        return marker_path(path).read_text().strip() == fp
    except OSError:
        return False


def ensure_readable(path: Path, timeout: float = CHECK_TIMEOUT_SECONDS) -> Damage | None:
    """Check the store at `path` (unless unchanged since its last good check); set it
    aside when it cannot be read. Returns what was found, or None when it is fine."""
    fp = fingerprint(path) if path.is_dir() else None
    if fp is None or _known_good(path, fp):
        return None
    verdict = probe(path, timeout)
    if verdict.ok:
        mark_good(path)
        return None
    if verdict.problem is None:  # no verdict (timed out): open it here as before
        return None
    aside = path.with_name(f"{path.name}.broken-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    path.rename(aside)  # PermissionError etc. is the caller's to report
    marker_path(path).unlink(missing_ok=True)
    return Damage(verdict.problem, aside, verdict.map_entries)


@dataclass
class Verdict:
    ok: bool
    problem: str | None = None
    map_entries: dict[str, Any] = field(default_factory=dict)


def probe(path: Path, timeout: float = CHECK_TIMEOUT_SECONDS) -> Verdict:
    """Open, count and query every collection of the store in a child process."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "code_intel.indexing.chroma_check", str(path)],
            capture_output=True,
            check=False,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        log.warning("checking the vector store %s took over %.0f s; opening it without a check", path, timeout)
        return Verdict(ok=False)
    verdict = Verdict(ok=False)
    last: dict[str, Any] = {}
    for line in done.stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            if MAP in record:
                verdict.map_entries = record[MAP]
            last = record
    if done.returncode == 0 and last.get("ok") is True:
        verdict.ok = True
    elif done.returncode < 0:
        verdict.problem = f"reading it crashed the reader (signal {-done.returncode})"
    else:
        verdict.problem = str(last.get("problem") or _last_line(done.stderr) or f"exit status {done.returncode}")
    return verdict


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


# ---- the child ----------------------------------------------------------------------


def _child(path: str) -> int:
    """Runs in the child: one JSON line for the map's entries, one for the verdict."""
    try:
        import chromadb
        from chromadb.config import Settings
        from code_intel.indexing import vectors  # noqa: F401 - registers our embedding function

        client = chromadb.PersistentClient(path=path, settings=Settings(anonymized_telemetry=False))
        names = sorted(getattr(c, "name", c) for c in client.list_collections())
        for name in sorted(names, key=lambda n: n != MAP):  # the map's entries first
            col = client.get_collection(name)
            if name == MAP:
                got = col.get(include=["documents", "metadatas"])
                print(json.dumps({MAP: {"documents": got.get("documents"), "metadatas": got.get("metadatas")}}),
                      flush=True)
            count = col.count()
            if count:
                sample = col.get(limit=1, include=["embeddings"])["embeddings"]
                col.query(query_embeddings=[list(map(float, sample[0]))], n_results=min(count, 10))
    except Exception as exc:  # noqa: BLE001 - every failure is the verdict
        message = " ".join(str(exc).split())[:300] or type(exc).__name__
        print(json.dumps({"ok": False, "problem": message}), flush=True)
        return 1
    print(json.dumps({"ok": True, "collections": names}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1]))
