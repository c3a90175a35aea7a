"""How parser workers start: forked with what the parent warmed when the parent runs
one thread, spawned (nothing inherited) when other threads could hold a lock."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from code_intel.indexing import sync, workers
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.discovery import Candidate

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


def worker_pid(_: int) -> int:
    import os

    return os.getpid()


def test_workers_told_to_end_are_gone_once_waited_for(single_threaded):
    """A build lets its workers exit while it writes its last rows (`let_end`), and
    waits for them before it returns: nothing of the pool outlives the command."""
    from code_intel.indexing.processes import pid_alive

    with workers.parser_pool(2) as pool:
        pids = set(pool.map(worker_pid, range(8)))
        wait = workers.let_end(pool)
    wait()
    assert pids and not any(pid_alive(pid) for pid in pids)


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


_AFTER_WARM_UP = r"""
import sys
import tree_sitter
from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.discovery import Candidate
from code_intel.indexing.sync import WARM_MIN_FILES, _Job, _warm

path = sys.argv[1]
_warm([_Job(Candidate(f"app/Post{i}.php", path, 0, 0), None, ChunkSettings())
       for i in range(WARM_MIN_FILES)])
compiled = []
real = tree_sitter.Query
tree_sitter.Query = lambda *a: compiled.append(a) or real(*a)
analysis = analyze_source("app/Post.php", open(path, "rb").read())
print(len(compiled), len(analysis.symbols))
"""


def test_after_the_warm_up_a_php_file_compiles_no_query(tmp_path):
    """What a forked worker inherits is all it needs: analysing a PHP class with a
    typed method, a relation and a route() call compiles nothing more."""
    php = tmp_path / "Post.php"
    php.write_text(
        "<?php\nnamespace App;\nuse Illuminate\\Database\\Eloquent\\Model;\n"
        "class Post extends Model {\n"
        "    /** @return \\Illuminate\\Support\\Collection */\n"
        "    public function author(User $u) { return $this->belongsTo(User::class); }\n"
        "    public function url() { return route('posts.show', $this); }\n}\n"
    )
    out = subprocess.run([sys.executable, "-c", _AFTER_WARM_UP, str(php)],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0" and int(out[1]) >= 3


def test_the_parent_warms_only_the_languages_of_many_files(monkeypatch):
    """A language of a few files (Laravel's three JavaScript files) is left to the worker
    that meets it: building it before the fork delays every worker's start."""
    built: list[str] = []
    monkeypatch.setattr(sync, "strategy_for", built.append)
    paths = ([f"src/M{i}.php" for i in range(40)] + ["resources/app.js"] * 3
             + [f"views/v{i}.blade.php" for i in range(sync.WARM_MIN_FILES)] + ["a.css"])
    sync._warm([sync._Job(Candidate(p, p, 0, 0), None, ChunkSettings()) for p in paths])
    assert built == ["php", "blade"]


_FROZEN = r"""
import gc
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.discovery import Candidate
from code_intel.indexing.sync import WARM_MIN_FILES, _Job, _warm

before = gc.get_freeze_count()
_warm([_Job(Candidate(f"m{i}.py", "-", 0, 0), None, ChunkSettings()) for i in range(WARM_MIN_FILES)])
print(before, gc.get_freeze_count())
"""


def test_what_the_workers_inherit_is_frozen_for_the_collector():
    """The warm-up's objects (grammars, queries, modules) are frozen before the fork: a
    worker's collections neither walk them nor copy the pages they sit on."""
    before, after = map(int, subprocess.run([sys.executable, "-c", _FROZEN], capture_output=True,
                                            text=True, check=True).stdout.split())
    assert before == 0 and after > 10_000
