"""Language-server benchmark: what an editor user waits for, on the large tree of the
index benchmark (sympy 1.13.3, copied to a scratch directory).

    .venv/bin/python benchmarks/lsp_bench.py            # all of sympy
    .venv/bin/python benchmarks/lsp_bench.py --quick    # sympy/core + sympy/printing

The real server (`code-intel lsp`, a child on stdio) and a real LSP client. Measured:
time from `initialize` to the first non-empty `workspace/symbol` answer (the first
sync runs in the background; on an empty index a navigation request waits for that
first build, so this is about the build's time) and to an index that is ready; `didChange` → `definition` latency on a file of 2,000 lines
(sympy/core/mul.py, the size the target names) and on one twice that (expr.py);
each round inserts a line, so the buffer is re-parsed incrementally before the
answer; `workspace/symbol` and `references` latencies; the server's RSS after the
sync; `definition` latency across the tree (call sites in a fixed sample of files
that are not open: issue 15's "definition p95 ≤ 10 ms on a large tree").
Baselines in the same run: the same lookups straight against the SQLite index in
this process, so the difference is what the protocol and the live overlay cost; and
the same didChange → definition rounds and definitions in this process (LiveIndex
and OpenDocument, no protocol), so the difference is what the protocol costs.
Start-up, with the index already on disk: `code-intel lsp` spawned on stdio by a
bare JSON-RPC client, time from spawn to the `initialize` answer and to the first
non-empty `definition` answer (median of 3 spawns), next to two floors measured in
the same run: an empty `python -c pass` and `import lsprotocol.types` (the protocol
types every pygls server loads before it can answer).
Targets (issue 13): initialize ≤ 300 ms and first definition ≤ 1 s after spawn;
didChange→definition p95 ≤ 10 ms on the 2k- and 4k-line files; workspace/symbol
p95 ≤ 20 ms. Issue 15: definition p95 ≤ 10 ms on the large tree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import keyword
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.indexing.store import IndexStore
from code_intel.lsp_server.client import WorkspaceClient
from code_intel.lsp_server.live_index import LiveIndex

from benchmarks.cli_bench import timed
from benchmarks.index_bench import copy_tree, sympy_tree
from benchmarks.intelephense import read_message, send_message

QUERIES = ["Add", "Mul", "expand", "simplify", "Symbol", "Pow", "latex", "Printer", "sqrt",
           "as_coeff", "eval", "doit", "subs", "free_symbols", "_print_Mul", "Rational"]
# both in the full and the quick tree: the size the target names, and twice that
TARGET_FILE = "sympy/core/mul.py"  # 2,196 lines
BIG_FILE = "sympy/core/expr.py"  # 4,163 lines
NAMES = ["sympify", "Add", "Mul", "Pow", "S", "Integer", "Float", "expand_mul"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 2), "p95_ms": round(pct(ms, 0.95), 2)}


def positions_of(text: str, names: list[str]) -> list[tuple[str, int, int]]:
    """(name, line, column) of a usage of each name after the imports."""
    found = []
    lines = text.splitlines()
    for name in names:
        for n, line in enumerate(lines[200:], start=200):
            col = line.find(name + "(")
            if col > 0 and not line[col - 1].isalnum() and line[col - 1] not in "._":
                found.append((name, n, col))
                break
    return found


async def change_then_define(lsp, path: Path, rounds: int) -> dict:  # type: ignore[no-untyped-def]
    """Open `path`, then `rounds` times: insert a line at the top, ask for a definition."""
    text = path.read_text(encoding="utf-8")
    doc = path.as_uri()
    lsp.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(doc, "python", 1, text)))
    targets = positions_of(text, NAMES)
    times: list[float] = []
    resolved = 0
    server = psutil.Process(lsp._server.pid)
    await lsp.text_document_definition_async(  # the first analysis of the buffer
        types.DefinitionParams(types.TextDocumentIdentifier(doc), types.Position(targets[0][1], targets[0][2] + 1))
    )
    cpu = server.cpu_times()
    for i in range(rounds):
        _name, line, col = targets[i % len(targets)]
        start = time.perf_counter()
        lsp.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=doc, version=i + 2),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                        text=f"_bench_{i} = {i}\n",
                    )
                ],
            )
        )
        result = await lsp.text_document_definition_async(
            types.DefinitionParams(types.TextDocumentIdentifier(doc), types.Position(line + i + 1, col + 1))
        )
        times.append(time.perf_counter() - start)
        resolved += bool(result)
    after = server.cpu_times()
    server_cpu = (after.user + after.system - cpu.user - cpu.system) / rounds
    return {**summary(times), "resolved": resolved, "lines": text.count("\n") + 1,
            "server_cpu_ms_per_round": round(server_cpu * 1000, 2)}


def change_then_define_in_process(root: Path, rel: str, rounds: int) -> dict:
    """The rounds of `change_then_define` without the protocol: the edit applied to an
    OpenDocument and the definition resolved by a LiveIndex, in this process."""
    live = LiveIndex(root)
    text = (root / rel).read_text(encoding="utf-8")
    doc = live.open_document((root / rel).as_uri(), text, 1)
    assert doc is not None
    targets = positions_of(text, NAMES)
    live.resolve(rel, targets[0][1], targets[0][2] + 1)  # the first analysis of the buffer
    times: list[float] = []
    cpu: list[float] = []
    for i in range(rounds):
        _name, line, col = targets[i % len(targets)]
        start, start_cpu = time.perf_counter(), time.process_time()
        doc.apply_edit((0, 0), (0, 0), f"_bench_{i} = {i}\n", i + 2)
        live.resolve(rel, line + i + 1, col + 1)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    live.store.close()
    return {**summary(times), "cpu": summary(cpu)}


def call_sites(root: Path, files: int = 16, per_file: int = 8) -> list[tuple[str, int, int]]:
    """(path, line, column) of the first `name(` calls in a fixed sample of the tree's
    files (every n-th in path order): definitions asked where nothing is open."""
    paths = sorted(p for p in root.rglob("*.py") if p.stat().st_size > 4000)
    found = []
    for path in paths[:: max(1, len(paths) // files)][:files]:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        here = 0
        for n, line in enumerate(lines):
            if line.lstrip().startswith(("def ", "class ", "#")):
                continue
            m = next((m for m in re.finditer(r"(?<![\w.])([A-Za-z_]\w*)\(", line)
                      if not keyword.iskeyword(m.group(1))), None)
            if m is not None:
                found.append((path.relative_to(root).as_posix(), n, m.start(1) + 1))
                here += 1
                if here == per_file:
                    break
    return found


async def define_across(lsp, root: Path, sites: list[tuple[str, int, int]], passes: int = 3) -> dict:  # type: ignore[no-untyped-def]
    times: list[float] = []
    resolved = 0
    for _ in range(passes):
        for rel, line, col in sites:
            start = time.perf_counter()
            result = await lsp.text_document_definition_async(
                types.DefinitionParams(types.TextDocumentIdentifier((root / rel).as_uri()), types.Position(line, col))
            )
            times.append(time.perf_counter() - start)
            resolved += bool(result)
    return {**summary(times), "resolved": resolved}


def define_across_in_process(root: Path, sites: list[tuple[str, int, int]], passes: int = 3) -> dict:
    live = LiveIndex(root)
    times: list[float] = []
    for _ in range(passes):
        for rel, line, col in sites:
            start = time.perf_counter()
            live.resolve(rel, line, col)
            times.append(time.perf_counter() - start)
    live.store.close()
    return summary(times)


def _answer(stdin, stdout, msg_id: int) -> dict:  # type: ignore[no-untyped-def]
    """The reply to `msg_id`; the server's own requests (progress) get a null result."""
    while True:
        msg = read_message(stdout)
        if msg.get("id") == msg_id and "method" not in msg:
            return msg
        if "method" in msg and "id" in msg:
            send_message(stdin, {"jsonrpc": "2.0", "id": msg["id"], "result": None})


def _spawn_once(exe: str, root: Path, uri: str, line: int, col: int, env: dict[str, str]) -> tuple[float, float]:
    """One `code-intel lsp`: seconds from spawn to the `initialize` answer and to the
    first non-empty definition."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([exe, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    try:
        send_message(stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}}})
        _answer(stdin, stdout, 1)
        initialized = time.perf_counter() - t0
        send_message(stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        msg_id = 2
        while True:
            send_message(stdin, {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/definition",
                          "params": {"textDocument": {"uri": uri},
                                     "position": {"line": line, "character": col + 1}}})
            if _answer(stdin, stdout, msg_id).get("result"):
                break
            msg_id += 1
            time.sleep(0.01)
        return initialized, time.perf_counter() - t0
    finally:
        proc.kill()
        proc.wait()


def startup(root: Path, spawns: int = 3) -> dict:
    """Spawn → `initialize` answer and → first non-empty definition, index on disk.
    The first spawn has an empty start-up cache (the first start after an install or
    an upgrade: pygls answers `initialize`); the next `spawns` start with it filled
    (the stdio front end answers before pygls is imported)."""
    exe = str(Path(sys.executable).parent / "code-intel")
    subprocess.run([exe, "index", str(root)], check=True, capture_output=True)
    text = (root / TARGET_FILE).read_text(encoding="utf-8")
    _name, line, col = positions_of(text, NAMES)[0]
    uri = (root / TARGET_FILE).as_uri()
    with tempfile.TemporaryDirectory(prefix="code-intel-bench-cache-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        cold_init, cold_first = _spawn_once(exe, root, uri, line, col, env)
        warm = [_spawn_once(exe, root, uri, line, col, env) for _ in range(spawns)]
    return {
        "initialize_s": round(statistics.median(w[0] for w in warm), 3),
        "first_definition_s": round(statistics.median(w[1] for w in warm), 3),
        "initialize_empty_cache_s": round(cold_init, 3),
        "first_definition_empty_cache_s": round(cold_first, 3),
        "floor_python_s": round(timed([sys.executable, "-c", "pass"], Path.cwd()), 3),
        "floor_lsprotocol_s": round(timed([sys.executable, "-c", "import lsprotocol.types"], Path.cwd()), 3),
    }


def ok(good: bool) -> str:
    return "PASS" if good else "MISS"


def print_startup(st: dict) -> None:
    print(f"spawn → initialize answered (index on disk)  {st['initialize_s']:>8.3f} s   target ≤ 0.3: "
          f"{ok(st['initialize_s'] <= 0.3)}")
    print(f"spawn → first definition answer              {st['first_definition_s']:>8.3f} s   target ≤ 1: "
          f"{ok(st['first_definition_s'] <= 1)}")
    print(f"  first start after an install (empty start-up cache): initialize "
          f"{st['initialize_empty_cache_s']:.3f} s, first definition {st['first_definition_empty_cache_s']:.3f} s")
    print(f"  floors, same run: python -c pass {st['floor_python_s']:.3f} s, "
          f"import lsprotocol.types {st['floor_lsprotocol_s']:.3f} s")


async def run(root: Path, rounds: int) -> dict:
    client = WorkspaceClient(root, "bench")
    t0 = time.perf_counter()
    await client.connect()
    lsp = client.lsp
    first_answer = None
    while True:
        found = await lsp.workspace_symbol_async(types.WorkspaceSymbolParams(query="Basic"))
        if found:
            first_answer = time.perf_counter() - t0
            break
        await asyncio.sleep(0.01)
    while (await client.request("codeIntel/indexStatus"))["state"] != "ready":
        await asyncio.sleep(0.05)
    ready = time.perf_counter() - t0
    rss = psutil.Process(lsp._server.pid).memory_info().rss

    typing = {}
    for rel in (TARGET_FILE, BIG_FILE):
        typing[rel] = await change_then_define(lsp, root / rel, rounds)
    sites = call_sites(root)
    across = await define_across(lsp, root, sites)
    doc = (root / BIG_FILE).as_uri()
    targets = positions_of((root / BIG_FILE).read_text(encoding="utf-8"), NAMES)

    symbol_times: list[float] = []
    for _ in range(5):
        for q in QUERIES:
            start = time.perf_counter()
            await lsp.workspace_symbol_async(types.WorkspaceSymbolParams(query=q))
            symbol_times.append(time.perf_counter() - start)

    ref_times: list[float] = []
    ref_counts = []
    for _ in range(3):
        for name, line, col in targets:
            start = time.perf_counter()
            refs = await lsp.text_document_references_async(
                types.ReferenceParams(
                    text_document=types.TextDocumentIdentifier(doc),
                    position=types.Position(line + rounds, col + 1),
                    context=types.ReferenceContext(include_declaration=False),
                )
            )
            ref_times.append(time.perf_counter() - start)
            ref_counts.append(len(refs or []))
    await client.close()

    # baseline: the same lookups on the SQLite index in this process
    store = IndexStore.for_workspace(root)
    base_def, base_sym, base_ref = [], [], []
    for name, _, _ in targets * 3:
        start = time.perf_counter()
        store.find_definitions(name)
        base_def.append(time.perf_counter() - start)
        start = time.perf_counter()
        store.find_references(name)
        base_ref.append(time.perf_counter() - start)
    for q in QUERIES * 5:
        start = time.perf_counter()
        store.symbols_like(f"%{q}%", 100)
        base_sym.append(time.perf_counter() - start)
    files = store.stats()["files"]
    store.close()
    in_process = {rel: change_then_define_in_process(root, rel, rounds) for rel in (TARGET_FILE, BIG_FILE)}
    return {
        "files": files,
        "initialize_to_first_answer_s": round(first_answer, 3),
        "initialize_to_ready_s": round(ready, 2),
        "server_rss_mb_after_sync": round(rss / 2**20, 1),
        "did_change_to_definition": typing,
        "baseline_in_process_did_change_to_definition": in_process,
        "definition_across_tree": {**across, "sites": len(sites)},
        "baseline_in_process_definition": define_across_in_process(root, sites),
        "workspace_symbol": summary(symbol_times),
        "references": {**summary(ref_times), "mean_results": round(statistics.mean(ref_counts), 1)},
        "baseline_store_find_definitions": summary(base_def),
        "baseline_store_symbols_like": summary(base_sym),
        "baseline_store_find_references": summary(base_ref),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="sympy/core and sympy/printing only")
    parser.add_argument("--rounds", type=int, default=200, help="didChange → definition rounds")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--startup-only", action="store_true", help="only the spawn → first answers figures")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="code-intel-lsp-bench-") as tmp:
        root = copy_tree(sympy_tree(), Path(tmp) / "tree", args.quick)
        figures = {} if args.startup_only else asyncio.run(run(root, args.rounds))
        figures["startup"] = startup(root)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"tree: sympy{' (quick)' if args.quick else ''}")
    print_startup(figures["startup"])
    if args.startup_only:
        return
    ws, rf = figures["workspace_symbol"], figures["references"]
    print(f"files: {figures['files']}")
    print(f"initialize → first workspace/symbol answer  {figures['initialize_to_first_answer_s']:>8.3f} s")
    print(f"initialize → index ready                    {figures['initialize_to_ready_s']:>8.2f} s")
    print(f"server RSS after the sync                   {figures['server_rss_mb_after_sync']:>8.0f} MB")
    print(f"{'':44}{'p50 ms':>8}{'p95 ms':>9}   in-process store p95")
    for rel, cd in figures["did_change_to_definition"].items():
        label = f"didChange → definition ({cd['lines']:,} lines)"
        base = figures["baseline_in_process_did_change_to_definition"][rel]
        print(
            f"{label:44}{cd['p50_ms']:>8.2f}{cd['p95_ms']:>9.2f}"
            f"   {figures['baseline_store_find_definitions']['p95_ms']:>6.2f}"
            + f"   target ≤ 10: {ok(cd['p95_ms'] <= 10)}"
            + f"   ({cd['resolved']}/{cd['n']} resolved)"
        )
        print(f"{'  same rounds in process (no protocol)':44}{base['p50_ms']:>8.2f}{base['p95_ms']:>9.2f}"
              f"   CPU p50 {base['cpu']['p50_ms']:.2f} p95 {base['cpu']['p95_ms']:.2f}; "
              f"server CPU per round (mean) {cd['server_cpu_ms_per_round']:.2f}")
    da, dab = figures["definition_across_tree"], figures["baseline_in_process_definition"]
    print(
        f"{'definition, files not open (' + str(da['sites']) + ' sites)':44}{da['p50_ms']:>8.2f}{da['p95_ms']:>9.2f}"
        f"   {figures['baseline_store_find_definitions']['p95_ms']:>6.2f}   target ≤ 10: {ok(da['p95_ms'] <= 10)}"
        f"   ({da['resolved']}/{da['n']} resolved)"
    )
    print(f"{'  same definitions in process (no protocol)':44}{dab['p50_ms']:>8.2f}{dab['p95_ms']:>9.2f}")
    print(
        f"workspace/symbol                            {ws['p50_ms']:>8.2f}{ws['p95_ms']:>9.2f}"
        f"   {figures['baseline_store_symbols_like']['p95_ms']:>6.2f}   target ≤ 20: {ok(ws['p95_ms'] <= 20)}"
    )
    print(
        f"references ({rf['mean_results']:.0f} results on average)        {rf['p50_ms']:>8.2f}{rf['p95_ms']:>9.2f}"
        f"   {figures['baseline_store_find_references']['p95_ms']:>6.2f}"
    )


if __name__ == "__main__":
    main()
