"""Latency of `code-intel hook pre-tool-use` as Claude Code pays it (one process per
Edit/Write), next to a no-op Python hook measured in the same run as the baseline.

    python -m benchmarks.hook_bench [WORKSPACE] [--runs 30]

WORKSPACE (default: a temporary copy of tests/fixtures/laravel_app) gets a READY
session that explored one file; each case runs the hook `--runs` times:

* noop: `python -c` reading the payload (interpreter start-up, the floor);
* no server: the saved sessions decide (an allowed Edit, a refused Edit, a README edit);
* live server: the same three with a language server running (started here);
* and in both, the PostToolUse hook after the agent's own Read (it records the file).

Targets (issue 14): p50 ≤ 150 ms with a live server, ≤ 400 ms without one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE_INTEL = str(Path(sys.executable).parent / "code-intel")
NOOP = [sys.executable, "-c", "import json, sys; json.load(sys.stdin)"]
HOOK = [CODE_INTEL, "hook", "pre-tool-use"]
READ_HOOK = [CODE_INTEL, "hook", "post-tool-use"]
READ = "app/Services/AuthService.php"  # read by the agent itself; neither file above


def payload(root: Path, tool: str, rel: str) -> str:
    return json.dumps({"session_id": "bench", "cwd": str(root), "hook_event_name": "PreToolUse",
                       "tool_name": tool, "tool_input": {"file_path": str(root / rel),
                                                         "old_string": "a", "new_string": "b"}})


def read_payload(root: Path, rel: str) -> str:
    """PostToolUse after the agent's own Read, as Claude Code 2.1.330 sends it."""
    path = str(root / rel)
    return json.dumps({"session_id": "bench", "cwd": str(root), "hook_event_name": "PostToolUse",
                       "tool_name": "Read", "tool_input": {"file_path": path},
                       "tool_response": {"type": "text", "file": {"filePath": path}}})


def timed(command: list[str], stdin: str, cwd: Path, runs: int) -> tuple[list[float], str]:
    times, last = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(command, input=stdin, text=True, capture_output=True, cwd=cwd,
                              check=False, timeout=30)
        times.append((time.perf_counter() - started) * 1000)
        last = "deny" if "permissionDecision" in done.stdout else (
            "allow" if done.returncode == 0 else f"exit {done.returncode}")
    return times, last


def report(name: str, times: list[float], outcome: str) -> None:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"{name:<34} p50 {statistics.median(times):7.1f} ms  p95 {p95:7.1f} ms  "
          f"max {max(times):7.1f} ms  ({outcome})")


def prepare(root: Path, explored: str) -> None:
    from code_intel.gating.workspace import open_engine
    from code_intel.indexing.config import Config
    from code_intel.mcp_bridge.hook import _NoEmbedder, _WorkspaceFiles

    (root / ".code-intel").mkdir(exist_ok=True)
    engine = open_engine(root, Config(), _NoEmbedder(), index=_WorkspaceFiles(root))
    sid = engine.start_session("QUESTION", "how many login attempts are allowed?")["session_id"]
    engine.submit_understanding(sid, files_analyzed=[explored])
    engine.store.close()


def run_cases(label: str, root: Path, explored: str, other: str, runs: int) -> None:
    for case, rel in (("allowed Edit", explored), ("refused Edit", other),
                      ("README.md Edit", "README.md")):
        times, outcome = timed(HOOK, payload(root, "Edit", rel), root, runs)
        report(f"{label}: {case}", times, outcome)
    times, outcome = timed(READ_HOOK, read_payload(root, READ), root, runs)
    report(f"{label}: Read (post-tool-use)", times, outcome)


async def with_server(root: Path, explored: str, other: str, runs: int) -> None:
    from code_intel.lsp_server.client import WorkspaceClient

    client = WorkspaceClient(root, "hook-bench")
    await client.connect()
    try:
        for _ in range(600):
            if (await client.request("codeIntel/indexStatus"))["state"] == "ready":
                break
            await asyncio.sleep(0.1)
        await asyncio.get_running_loop().run_in_executor(
            None, run_cases, "live server", root, explored, other, runs)
    finally:
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", nargs="?", type=Path)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--explored", default="app/Http/Controllers/Auth/LoginController.php")
    parser.add_argument("--other", default="app/Models/User.php")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.workspace
        if root is None:
            root = Path(tmp) / "laravel_app"
            shutil.copytree(ROOT / "tests/fixtures/laravel_app", root)
        root = root.resolve()
        for rel in (args.explored, args.other):
            if not (root / rel).is_file():
                parser.error(f"{root / rel} is not a file (use --explored/--other)")
        if not (root / "README.md").exists():
            (root / "README.md").write_text("# bench\n")
        prepare(root, args.explored)
        print(f"workspace {root}, {args.runs} runs per case")
        report("baseline: no-op python hook", *timed(NOOP, payload(root, "Edit", args.explored),
                                                     root, args.runs))
        run_cases("no server", root, args.explored, args.other, args.runs)
        asyncio.run(with_server(root, args.explored, args.other, args.runs))
        report("baseline again: no-op python hook", *timed(
            NOOP, payload(root, "Edit", args.explored), root, args.runs))


if __name__ == "__main__":
    main()
