"""How parser workers start: forked with what the parent warmed when the parent runs
one thread, spawned (nothing inherited) when other threads could hold a lock."""

from __future__ import annotations

import threading

import pytest
from code_intel.indexing import workers
from code_intel.indexing.chunking import ChunkSettings, strategy_for
from code_intel.indexing.discovery import Candidate
from code_intel.indexing.languages import query
from code_intel.indexing.sync import _Job, _warm

WARMED: list[str] = []


def probe(_: int) -> list[str]:
    """Runs in a worker: what it inherited of this module's state."""
    return list(WARMED)


@pytest.fixture
def single_threaded(monkeypatch):
    monkeypatch.setattr(workers.threading, "active_count", lambda: 1)


def test_one_thread_forks_and_the_workers_start_with_the_warm_up(single_threaded):
    WARMED.clear()
    assert workers.start_method() == "fork"
    with workers.parser_pool(2, warm=lambda: WARMED.append("php queries")) as pool:
        seen = list(pool.map(probe, range(4)))
    assert seen == [["php queries"]] * 4  # a spawned worker would see an empty list


def test_another_thread_means_spawn_and_no_warm_up_in_this_process():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        WARMED.clear()
        assert workers.start_method() == "spawn"
        with workers.parser_pool(1, warm=lambda: WARMED.append("x")) as pool:
            seen = list(pool.map(probe, range(2)))
        assert WARMED == [] and seen == [[], []]
    finally:
        stop.set()
        other.join()


def test_warm_up_compiles_the_languages_of_the_jobs(tmp_path):
    (tmp_path / "a.php").write_text("<?php\n")
    cand = Candidate(rel_path="a.php", abs_path=str(tmp_path / "a.php"), size=6, mtime_ns=0)
    query.cache_clear()
    _warm([_Job(cand, None, ChunkSettings())])
    compiled = query.cache_info().currsize
    assert compiled >= 4  # definitions, references, related classes, Laravel links
    strategy_for("php")  # what a worker does first: nothing left to compile
    assert query.cache_info().currsize == compiled
