"""Load benchmark: many clients through the local endpoint while the first sync runs.

    .venv/bin/python benchmarks/load_bench.py                  # all of sympy (1.13.3)
    .venv/bin/python benchmarks/load_bench.py --quick          # sympy/core + sympy/printing
    .venv/bin/python benchmarks/load_bench.py --tree PATH      # any tree (copied first)

An editor (`code-intel lsp` on stdio) opens a scratch copy of the tree; as soon as
the endpoint is up, N clients (default 16) attach with the token and send R mixed
requests between them (default 1,000: definition, references, workspace/symbol,
`codeIntel/searchText`, `codeIntel/query`) while the first sync is still running.
Definitions, references and workspace symbols sent before that first build is done
wait for it (at most 20 s): their latencies include the build's remaining time.
A probe client sends a cheap `codeIntel/indexStatus` every 50 ms throughout; its
worst latency is the longest stall anyone saw. Then the slow cases on their own:
references of a very common name and a search of a common word, with the probe's
worst latency while each ran, and whether `$/cancelRequest` cuts one short.
Baseline in the same run: the probe alone on the idle server, before the load.
Printed: failures, p50 / p95 / max per method and overall, stalls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.lsp_server import endpoint

from benchmarks.index_bench import copy_tree, sympy_tree

SERVER = str(Path(sys.executable).parent / "code-intel")
NAMES = ["sympify", "Add", "Mul", "Pow", "Integer", "Symbol", "expand", "simplify", "Rational", "latex"]
WORDS = ["import", "return", "Matrix", "def _eval", "raise ValueError", "self.args"]
QUERIES = ["expand a product of sums", "latex printing of matrices", "rational number arithmetic"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


class Peer:
    """A minimal JSON-RPC peer; replies are matched to requests by id."""

    def __init__(self, reader: asyncio.StreamReader, writer: Any) -> None:
        self.reader, self.writer = reader, writer
        self.pending: dict[int, asyncio.Future] = {}
        self.next_id = 0
        self.task = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        try:
            while True:
                length = 0
                while True:
                    line = await self.reader.readline()
                    if not line:
                        raise ConnectionError("closed")
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                    elif not line.strip():
                        break
                message = json.loads(await self.reader.readexactly(length))
                if "method" in message and "id" in message:
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                elif (
                    "method" not in message
                    and (fut := self.pending.pop(message.get("id"), None))
                    and not fut.done()
                ):
                    fut.set_result(message)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(str(exc)))

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def start(self, method: str, params: Any) -> tuple[int, asyncio.Future]:
        self.next_id += 1
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id, fut

    async def call(self, method: str, params: Any, timeout: float = 120) -> dict:
        _, fut = self.start(method, params)
        return await asyncio.wait_for(fut, timeout)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})


async def _attach(info: endpoint.ServerInfo, root: Path) -> Peer:
    reader, writer = await endpoint.open_connection(info)
    peer = Peer(reader, writer)
    reply = await peer.call("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                           "initializationOptions": {"token": info.token}})
    assert "result" in reply, reply
    peer.notify("initialized", {})
    return peer


def _positions(root: Path, limit: int = 200) -> list[tuple[str, int, int]]:
    """(uri, line, character) of NAMES as they occur in the tree's files."""
    found: list[tuple[str, int, int]] = []
    for path in sorted(root.rglob("*.py"))[:400]:
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            for name in NAMES:
                col = line.find(name)
                if col >= 0:
                    found.append((path.as_uri(), n, col))
        if len(found) >= limit * 5:
            break
    random.Random(1).shuffle(found)
    return found[:limit]


def _mixed(count: int, positions: list[tuple[str, int, int]], rng: random.Random) -> list[tuple[str, Any]]:
    out = []
    for i in range(count):
        kind = i % 5
        uri, line, char = positions[rng.randrange(len(positions))]
        pos = {"textDocument": {"uri": uri}, "position": {"line": line, "character": char}}
        if kind == 0:
            out.append(("textDocument/definition", pos))
        elif kind == 1:
            out.append(("textDocument/references", {**pos, "context": {"includeDeclaration": False}}))
        elif kind == 2:
            out.append(("workspace/symbol", {"query": rng.choice(NAMES)}))
        elif kind == 3:
            out.append(("codeIntel/searchText", {"pattern": rng.choice(WORDS), "max_results": 50}))
        else:
            out.append(("codeIntel/query", {"text": rng.choice(QUERIES), "top": 10}))
    return out


class Probe:
    """`indexStatus` every 50 ms; the worst latency between `mark` and `worst` is the
    longest any client was kept waiting by someone else's work."""

    def __init__(self, peer: Peer) -> None:
        self.peer = peer
        self.samples: list[tuple[float, float]] = []  # (sent at, latency)
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            sent = time.perf_counter()
            try:
                await self.peer.call("codeIntel/indexStatus", {}, timeout=600)
            except ConnectionError:  # the server is being stopped at the end of the run
                return
            self.samples.append((sent, time.perf_counter() - sent))
            await asyncio.sleep(0.05)

    def worst(self, since: float, until: float) -> float:
        window = [lat for sent, lat in self.samples if since <= sent <= until or since <= sent + lat <= until]
        return max(window, default=float("nan"))

    def all_since(self, since: float, until: float) -> list[float]:
        return [lat for sent, lat in self.samples if since <= sent <= until]


async def run(tree: Path, clients: int, requests: int, timeout: float) -> int:
    scratch = Path(tempfile.mkdtemp(prefix="load-bench-"))
    root = copy_tree(tree, scratch / "tree", quick=False)
    files = sum(1 for _ in root.rglob("*.py"))
    print(f"tree: {root} ({files} Python files); machine shared with other jobs, figures are noisy")
    proc = await asyncio.create_subprocess_exec(
        SERVER, "lsp", cwd=root, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, limit=64 * 1024 * 1024,
    )
    editor = Peer(proc.stdout, proc.stdin)  # type: ignore[arg-type]
    try:
        await editor.call("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        editor.notify("initialized", {})
        while (info := endpoint.read_info(root)) is None:
            await asyncio.sleep(0.05)
        probe = Probe(await _attach(info, root))
        t0 = time.perf_counter()
        await asyncio.sleep(2.0)
        idle = probe.all_since(t0, time.perf_counter())
        print(f"baseline, probe alone: p50 {statistics.median(idle) * 1000:.1f} ms, "
              f"max {max(idle) * 1000:.1f} ms ({len(idle)} probes; the first sync is running)")

        peers = [await _attach(info, root) for _ in range(clients)]
        work = _mixed(requests, _positions(root), random.Random(7))
        queue: asyncio.Queue = asyncio.Queue()
        for item in work:
            queue.put_nowait(item)
        latencies: dict[str, list[float]] = {}
        failures: list[str] = []

        async def client(peer: Peer) -> None:
            while not queue.empty():
                method, params = queue.get_nowait()
                started = time.perf_counter()
                try:
                    reply = await peer.call(method, params, timeout)
                except (TimeoutError, ConnectionError) as exc:
                    failures.append(f"{method}: {type(exc).__name__}")
                    continue
                if "error" in reply and reply["error"].get("code") != -32001:  # gating refusals are answers
                    failures.append(f"{method}: {reply['error'].get('message', '')[:120]}")
                latencies.setdefault(method, []).append(time.perf_counter() - started)

        status = await editor.call("codeIntel/indexStatus", {})
        load_start = time.perf_counter()
        await asyncio.gather(*(client(p) for p in peers))
        load_end = time.perf_counter()
        status_after = await editor.call("codeIntel/indexStatus", {})
        everything = [x for values in latencies.values() for x in values]
        print(f"\nload: {requests} requests from {clients} clients in {load_end - load_start:.1f} s; "
              f"sync state at start {status['result']['state']} "
              f"({status['result']['progress']['percent']}%), after {status_after['result']['state']}")
        print(f"failures: {len(failures)}" + (f" e.g. {failures[:3]}" if failures else ""))
        print(f"{'method':<28}{'n':>5}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
        for method, values in sorted(latencies.items()):
            print(f"{method:<28}{len(values):>5}{pct(values, .5) * 1000:>10.1f}{pct(values, .95) * 1000:>10.1f}"
                  f"{max(values) * 1000:>10.1f}")
        print(f"{'all':<28}{len(everything):>5}{pct(everything, .5) * 1000:>10.1f}"
              f"{pct(everything, .95) * 1000:>10.1f}{max(everything) * 1000:>10.1f}")
        print(f"longest stall of the probe during the load: {probe.worst(load_start, load_end) * 1000:.0f} ms")

        while status_after["result"]["state"] != "ready":
            await asyncio.sleep(0.5)
            status_after = await editor.call("codeIntel/indexStatus", {})
        print("\nslow requests alone (index ready), and what the probe waited meanwhile:")
        slow = [
            ("workspace/symbol", {"query": "s"}, "workspace/symbol 's'"),
            ("codeIntel/findReferences", {"name": "S", "limit": 5000}, "references of 'S'"),
            ("codeIntel/searchText", {"pattern": "self", "max_results": 1000}, "searchText 'self'"),
        ]
        for method, params, label in slow:
            started = time.perf_counter()
            try:
                reply = await peers[0].call(method, params, timeout)
            except TimeoutError:  # a figure too: printed, and the run goes on
                reply = {"error": {"message": f"no answer within {timeout:.0f} s"}}
            took = time.perf_counter() - started
            await asyncio.sleep(0.1)
            stall = probe.worst(started, started + took)
            ok = "ok" if "result" in reply else reply.get("error", {}).get("message", "")[:80]
            print(f"  {label:<24} {took * 1000:8.0f} ms   probe worst {stall * 1000:6.0f} ms   {ok}")
        msg_id, fut = peers[1].start("codeIntel/findReferences", {"name": "S", "limit": 5000})
        started = time.perf_counter()
        peers[1].notify("$/cancelRequest", {"id": msg_id})
        try:
            reply = await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            reply = {}
        code = reply.get("error", {}).get("code")
        print(f"  cancel of references 'S': answered in {(time.perf_counter() - started) * 1000:.0f} ms "
              f"({'cancelled, -32800' if code == -32800 else 'ran to completion'})")
        probe.task.cancel()
        return 1 if failures else 0
    finally:
        proc.kill()
        await proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="a source tree to copy (default: sympy 1.13.3)")
    parser.add_argument("--quick", action="store_true", help="sympy/core + sympy/printing only")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=120.0, help="per request, seconds")
    args = parser.parse_args()
    if args.tree is not None:
        tree = args.tree.resolve()
    else:
        source = sympy_tree()
        if args.quick:
            tree = copy_tree(source, Path(tempfile.mkdtemp(prefix="load-bench-quick-")), quick=True)
        else:
            tree = source / "sympy"
    sys.exit(asyncio.run(run(tree, args.clients, args.requests, args.timeout)))


if __name__ == "__main__":
    main()
