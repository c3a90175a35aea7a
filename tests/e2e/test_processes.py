"""The real `code-intel` executable and the processes it leaves behind: parser
workers die with `index` (kill -9 included) and a finished command leaves nothing
running; the read-only commands never load the heavy libraries."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.e2e.lean_probe import HEAVY, run_lean

EXE = str(Path(sys.executable).parent / "code-intel")
GRACE_SECONDS = 5.0


def make_tree(root: Path, files: int, functions: int) -> Path:
    """Plain Python files, enough of them for the indexer to start its worker pool."""
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    for n in range(files):
        body = "\n".join(
            f"def f{n}_{i}(a, b):\n    x = a + b\n    return g{n}_{i}(x, a, b)\n\n"
            for i in range(functions)
        )
        (pkg / f"mod{n}.py").write_text(f"class C{n}:\n    pass\n\n{body}", encoding="utf-8")
    return root


def group_members(pgid: int) -> list[psutil.Process]:
    """Live (not zombie) processes of a process group."""
    found = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (ProcessLookupError, psutil.Error):
            continue
    return found


def wait_until_empty(pgid: int, seconds: float) -> list[psutil.Process]:
    deadline = time.monotonic() + seconds
    while (left := group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def describe(procs: list[psutil.Process]) -> list[str]:
    out = []
    for p in procs:
        try:
            out.append(f"{p.pid} {' '.join(p.cmdline())[:120]}")
        except psutil.Error:
            out.append(str(p.pid))
    return out


@pytest.fixture
def reap():
    """Whatever a failing test leaves in its group is killed, so it cannot pile up."""
    groups: list[int] = []
    yield groups.append
    for pgid in groups:
        for proc in group_members(pgid):
            proc.kill()


def test_kill_9_of_index_leaves_no_worker(tmp_path, reap):
    root = make_tree(tmp_path / "big", files=400, functions=150)
    proc = subprocess.Popen(
        [EXE, "index", str(root)],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    reap(proc.pid)
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + 60
    workers: list[psutil.Process] = []
    while time.monotonic() < deadline and proc.poll() is None:
        # forked workers carry the parent's command line, spawned ones `spawn_main`
        workers = [c for c in parent.children() if "resource_tracker" not in " ".join(c.cmdline())]
        if len(workers) >= 2:
            break
        time.sleep(0.05)
    assert len(workers) >= 2, "the parser pool never started; the tree should be big enough"
    time.sleep(0.5)  # workers busy parsing
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    left = wait_until_empty(proc.pid, GRACE_SECONDS)
    assert not left, f"still running {GRACE_SECONDS}s after kill -9 of index: {describe(left)}"


def test_index_in_a_terminal_forks_its_workers_and_leaves_nothing(tmp_path, reap):
    """With a progress bar on a terminal, `index` still forks its parser workers (no
    refresh thread runs, see `indexing.workers`): they start with the parent's
    grammars and queries instead of importing and compiling their own."""
    import pty

    root = make_tree(tmp_path / "big", files=200, functions=40)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([EXE, "index", str(root)], start_new_session=True,
                            stdin=follower, stdout=follower, stderr=follower)
    os.close(follower)
    reap(proc.pid)
    parent = psutil.Process(proc.pid)
    kinds: set[str] = set()
    while proc.poll() is None:
        try:
            for child in parent.children():  # spawn: `spawn_main` workers + a resource tracker
                line = " ".join(child.cmdline())
                kinds.add("spawned" if "spawn_main" in line or "resource_tracker" in line else "forked")
        except psutil.Error:
            pass
        try:  # drain the terminal so the progress bar never blocks on a full buffer
            os.read(leader, 65536) if select.select([leader], [], [], 0.02)[0] else None
        except OSError:
            break
    assert proc.wait(timeout=120) == 0
    os.close(leader)
    assert kinds == {"forked"}
    left = wait_until_empty(proc.pid, 2.0)
    assert not left, f"left running after index exited: {describe(left)}"


def test_finished_index_leaves_nothing_running(tmp_path, reap):
    root = make_tree(tmp_path / "small", files=40, functions=5)
    proc = subprocess.Popen(
        [EXE, "index", str(root), "--json"],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reap(proc.pid)
    out, errors = proc.communicate(timeout=120)
    assert proc.returncode == 0, errors
    summary = json.loads(out)
    assert summary["added"] == 40 and summary["workers"] > 1  # the pool did run
    left = wait_until_empty(proc.pid, 2.0)
    assert not left, f"left running after index exited: {describe(left)}"


@pytest.mark.parametrize(
    "command",
    [["defs", "f1_1"], ["refs", "g1_1"], ["outline", "pkg/mod1.py"], ["grep", "return"]],
    ids=lambda c: c[0],
)
def test_navigation_commands_stay_lean(tmp_path, command):
    """defs, refs, outline and grep answer without chromadb, pygls, numpy or a model."""
    root = make_tree(tmp_path / "lean", files=3, functions=3)
    subprocess.run([EXE, "index", str(root)], check=True, capture_output=True, timeout=120)
    _answer, heavy = run_lean(command, root)
    assert heavy == [], f"{command[0]} imported {heavy}"


def test_language_server_starts_without_the_search_stack():
    """The server answers `initialize` and navigation without chromadb, numpy, a model
    or the gating engine: those load with the first search or session request."""
    probe = (
        "import sys\n"
        "from code_intel.lsp_server.server import create_server\n"
        "create_server()\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1].split(',')))))\n"
        "print('code_intel.gating' in sys.modules)\n"
    )
    heavy = [m for m in HEAVY if m not in ("pygls", "lsprotocol")]
    proc = subprocess.run(
        [sys.executable, "-c", probe, ",".join(heavy)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    loaded, gating = proc.stdout.splitlines()
    assert loaded == "", f"the server imported {loaded} at start"
    assert gating == "False", "the server imported the gating engine at start"
