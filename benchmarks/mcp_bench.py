"""What an agent waits for when Claude Code starts `code-intel mcp`: spawn → MCP
`initialize`, → the tool list, → the first `start_session` answer, → the first `query`
answer (the bridge starts or attaches to the language server, which loads the model).

    python -m benchmarks.mcp_bench [TREE] [--runs 3]

TREE (default tests/fixtures/laravel_app) is copied and indexed first, as `code-intel
init` leaves it. Medians of `--runs` cold starts, next to the floors measured in the same
run: an empty `python -c pass` and `import mcp.server` (the SDK every MCP server loads).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from benchmarks.cli_bench import EXE, indexed_copy, timed
from benchmarks.tables import table

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "laravel_app"


async def one_start(root: Path, errlog: IO[str]) -> dict[str, float]:
    t0 = time.perf_counter()
    marks: dict[str, float] = {}
    params = StdioServerParameters(command=EXE, args=["mcp"], cwd=str(root))
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        marks["initialize"] = time.perf_counter() - t0
        await session.list_tools()
        marks["tools/list"] = time.perf_counter() - t0
        started = await session.call_tool("start_session", {"intent": "MODIFY", "query": "fix the login redirect"})
        if started.is_error:
            raise SystemExit(f"start_session failed: {started.content}")
        marks["first start_session"] = time.perf_counter() - t0
        while True:
            result = await session.call_tool("query", {"text": "where is the login handled"})
            if (result.structured_content or {}).get("status") != "initializing":
                break
            await asyncio.sleep(0.2)
        marks["first query"] = time.perf_counter() - t0
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", nargs="?", type=Path, default=FIXTURE)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = indexed_copy(args.tree, tmp)
        with open(Path(tmp) / "mcp.log", "w") as errlog:
            runs = [asyncio.run(one_start(root, errlog)) for _ in range(args.runs)]
    rows: list[list[object]] = [[what, f"{statistics.median(r[what] for r in runs):.2f}"] for what in runs[0]]
    rows.append(["floor: python -c pass", f"{timed([sys.executable, '-c', 'pass'], Path.cwd()):.2f}"])
    rows.append(["floor: import mcp.server", f"{timed([sys.executable, '-c', 'import mcp.server'], Path.cwd()):.2f}"])
    print(table(f"code-intel mcp on {args.tree.name}: seconds after spawn, median of {args.runs}",
                ["reached", "s"], rows))


if __name__ == "__main__":
    main()
