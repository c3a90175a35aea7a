"""How long one `code-intel` command takes, as a user at a shell sees it.

    python -m benchmarks.cli_bench /work/corpora/click [--runs 5]

The tree is copied to a temporary directory, indexed, and searched once so that its
vectors exist (that first search is printed, not counted). Then, p50 of `--runs`
calls each:

* `search` with words and no server: the words-only path (target ≤ 1.5 s);
* the same with `--wait-model 1`: the previous default, which imported Chroma and
  waited a second for the model, as the baseline of the same run;
* `search` with a Japanese request and no server: its words are translated (no model);
* `search` while a language server owns the workspace (warm);
* `defs` and `refs`, and the floor: `python -c pass`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.intelephense import read_message, send_message
from benchmarks.tables import table

EXE = str(Path(sys.executable).parent / "code-intel")
ENGLISH = "parse the command line options and report a usage error"
JAPANESE = "コマンドライン引数の解析でエラーを表示する処理"
TARGET_S = 1.5


def timed(args: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed


def indexed_copy(tree: Path, tmp: str) -> Path:
    """A copy of `tree` under `tmp` (without its VCS data or store), indexed."""
    root = Path(tmp) / tree.name
    shutil.copytree(tree, root, ignore=shutil.ignore_patterns(".git", ".code-intel"))
    subprocess.run([EXE, "index", "."], cwd=root, check=True, capture_output=True)
    return root


def p50(args: list[str], cwd: Path, runs: int) -> float:
    return statistics.median(timed(args, cwd) for _ in range(runs))


def start_server(root: Path) -> subprocess.Popen:
    """A language server that owns `root`, warm: its model loaded and vectors in step."""
    from code_intel.lsp_server import endpoint

    proc = subprocess.Popen([EXE, "lsp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    send_message(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}}})
    while read_message(proc.stdout).get("id") != 1:
        pass
    send_message(proc.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    deadline = time.monotonic() + 600
    while endpoint.read_info(root) is None:
        if time.monotonic() > deadline:
            raise SystemExit("the language server never published its endpoint")
        time.sleep(0.2)
    while "answered by the language server" not in _notes(root) or "no vector signal" in _notes(root):
        if time.monotonic() > deadline:
            raise SystemExit("the language server never answered with vectors")
        time.sleep(1)
    return proc


def _notes(root: Path) -> str:
    proc = subprocess.run([EXE, "search", ENGLISH, "--json"], cwd=root, capture_output=True, text=True,
                          check=False)
    return proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path, help="a source tree (copied, never written)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = indexed_copy(args.tree, tmp)
        first = timed([EXE, "search", ENGLISH], root)
        n = args.runs
        rows: list[list[object]] = []

        def row(what: str, seconds: float, target: bool = False) -> None:
            verdict = ("met" if seconds <= TARGET_S else "missed") if target else ""
            rows.append([what, f"{seconds:.2f}", verdict])

        row("floor: python -c pass", p50([sys.executable, "-c", "pass"], root, n))
        row("search, words, no server", p50([EXE, "search", ENGLISH], root, n), target=True)
        row("baseline: search --wait-model 1 (previous default)",
            p50([EXE, "search", ENGLISH, "--wait-model", "1"], root, n))
        row("search, Japanese, no server (translated words)", p50([EXE, "search", JAPANESE], root, n),
            target=True)
        row("defs parse_args", p50([EXE, "defs", "parse_args"], root, n))
        row("refs parse_args", p50([EXE, "refs", "parse_args"], root, n))
        server = start_server(root)
        try:
            row("search, words, through a warm server", p50([EXE, "search", ENGLISH], root, n), target=True)
            row("search, Japanese, through a warm server", p50([EXE, "search", JAPANESE], root, n),
                target=True)
        finally:
            server.kill()
            server.wait()
    print(f"first search (indexes the vectors, not counted): {first:.1f} s")
    print(table(f"code-intel commands on {args.tree.name}, p50 of {n} runs (s); target ≤ {TARGET_S} s",
                ["command", "p50 s", "target"], rows))


if __name__ == "__main__":
    main()
