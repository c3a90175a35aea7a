"""How the parent runs its pool: the forking parent (the CLI) takes its workers'
results with the garbage collector paused and what it froze for the fork unfrozen (a
process that spawns its workers, the language server, keeps collecting), and the last
files go one per task."""

from __future__ import annotations

import subprocess
import sys
from typing import Self

import pytest
from code_intel.indexing import sync

_CONSUME = r"""
import gc, sys, threading
from code_intel.indexing import sync
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.discovery import Candidate

path, workers, other_thread = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
if other_thread:
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()
jobs = [sync._Job(Candidate(f"m{i}.py", path, 1, 0), None, ChunkSettings())
        for i in range(sync.PARALLEL_THRESHOLD + sync.WARM_MIN_FILES)]
seen = set()
for result in sync._run(jobs, workers):
    assert result.indexed is not None and result.indexed.rows.symbols
    seen.add((gc.isenabled(), gc.get_freeze_count() > 0))
print(sorted(seen), gc.isenabled(), gc.get_freeze_count())
"""


def _consume(tmp_path, workers: int, other_thread: bool) -> str:
    src = tmp_path / "m.py"
    src.write_text("class Model:\n    def save(self):\n        return 1\n")
    return subprocess.run(
        [sys.executable, "-c", _CONSUME, str(src), str(workers), "1" if other_thread else "0"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout.strip()


def test_a_forking_parent_collects_nothing_while_it_takes_the_results(tmp_path):
    # every result seen with the collector off and nothing frozen; on again after
    assert _consume(tmp_path, 2, other_thread=False) == "[(False, False)] True 0"


def test_a_spawning_parent_and_a_serial_sync_keep_collecting(tmp_path):
    assert _consume(tmp_path, 2, other_thread=True) == "[(True, False)] True 0"
    assert _consume(tmp_path, 1, other_thread=False) == "[(True, False)] True 0"


class _RecordingPool:
    """Stands in for the process pool: runs the tasks here, records how they were cut."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn, jobs, chunksize: int = 1):
        self.calls.append((len(jobs), chunksize))
        return map(fn, jobs)


@pytest.mark.parametrize(("n", "calls"), [(100, [(68, 8), (32, 1)]), (30, [(0, 8), (30, 1)])])
def test_the_last_files_go_one_per_task_in_order(monkeypatch, n, calls):
    """A worker that finds no task left idles until the other's last task ends: the
    last two tasks' worth of files per worker go one file a task, results in order."""
    pool = _RecordingPool()
    monkeypatch.setattr(sync, "parser_pool", lambda workers, warm=None: pool)
    monkeypatch.setattr(sync, "_process", lambda job: job)
    assert list(sync._run(list(range(n)), 2)) == list(range(n))
    assert pool.calls == calls
