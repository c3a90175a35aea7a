"""Index benchmark: how fast code-intel indexes a large tree no one here wrote, next to
Universal Ctags on the same tree in the same run.

    .venv/bin/python benchmarks/index_bench.py            # sympy 1.13.3 (~1,500 files)
    .venv/bin/python benchmarks/index_bench.py --quick    # sympy/core + sympy/printing
    .venv/bin/python benchmarks/index_bench.py --tree PATH
    .venv/bin/python benchmarks/index_bench.py --laravel /work/corpora/laravel-framework \
        --intelephense /work/peers/index/node_modules/.bin/intelephense
    .venv/bin/python benchmarks/index_bench.py --baseline-cli /work/main/.venv/bin/code-intel
        (also another build's `code-intel index` next to this one's: same trees, same minutes)
    .venv/bin/python benchmarks/index_bench.py --pool-overhead
        (also what the forked parser pool adds: see `pool_overhead`)

Measured (in this process, through the same `sync_workspace` the CLI and the language
server use): cold index, files/s, symbols/s, peak RSS of the indexer and its parser
processes (sampled), a no-change re-sync and a one-file-changed re-sync; then
`ctags -R` over the same files, and tree-sitter's parse alone of those files (the
floor under any indexer built on tree-sitter, which the spec requires). Targets
from the foundation issue: cold within 2x of ctags, no-change re-sync under 5 % of
cold, one-file re-sync under 200 ms.

On sympy (2 cores, 2026-11-23): cold 14.5 s vs ctags 0.44 s (33x; 26 s / 48x in a
slower hour); tree-sitter's parse alone 1.85 s = 4.2x ctags, so the 2x target is out
of reach for any tree-sitter indexer here; no-change 28 ms, one file 55 ms.
Later the same day, with 6-8 other jobs on the 2 cores (load 13-15, wall figures 3-8x
inflated): sympy cold 131 s vs the parse floor 12.9 s (10x; CPU 32.7 s vs 4.9 s parse
alone = 6.7x); Laravel src/ 33.3 s vs Intelephense 19.4 s (1.7x; CPU 9.2 s vs 6.2 s).
Per file, in multiples of its parse: definitions 0.7, references 1.4, rows 0.3,
pickling 0.6, SQLite 1.4: the 2x-floor target needs fewer reference rows.
With references packed one row per (file, name) and fewer whole-tree queries (issue 13
item 4; 20:35, load 4-5, main's bench in the same minute): sympy CPU 24.9 s -> 15.6 s
(7.4x -> 5.4x the parse alone), index 343 -> 167 MB; Laravel src/ 13.2 s -> 6.8 s wall
against Intelephense 4.1-4.5 s (3.2x -> 1.5x). `--phases` prints where the CPU goes:
on sympy the analysis is 3.5x the parse, SQLite 0.7x, rows 0.3x, pickling 0.1x.
With the reference pass and its packing in C (native/refscan.c; 22:28-22:34, load 6-8, main's
bench first): sympy CPU 5.1x -> 4.1x the parse alone, analysis 3.7x -> 2.2x, rows 0.33x ->
0.17x; `--baseline-cli` (main's venv) sympy CPU 13.8 s -> 11.4 s; Laravel unchanged within
noise (the PHP reference pass was already small).
With the definitions query matched by a compiled walk (native/defscan.c; Python, Java and
PHP queries; the query engine otherwise): the engine's matching 0.41-0.49x the parse ->
0.19x on sympy; whole analysis + rows, interleaved per file in one process, -13 % CPU
(2.37x -> 2.05x the parse; 23:33, machine shared with one other helper). Full `code-intel
index` runs swing more than that between runs on a loaded machine.
Workers forked from a warmed parent (one thread: `code-intel index`), batched writes and a
first build's name indexes built after the load (issue 13 item 4, idx4php; 00:52-00:58,
four helpers on the 2 cores, load 5-7): `--baseline-cli` (main's venv, best of 2) Laravel
src/ CPU 4.55 s -> 3.90 s (0.86x), wall 9.76 s -> 7.51 s; sympy CPU unchanged within noise
(9.47 vs 9.51 s). SQLite writes of Laravel's rows in one process 0.46 s -> 0.36 s.
With the Python pass's remaining binding round-trips cut (idx4py: definitions' ranges
from the walk's points, nested imports and type strings from one compiled descent per
keyword or quoted name instead of `Node.parent` per level, `import` found by
`bytes.find`): analysis + rows interleaved per file, main's frozen build vs this one
alternating, 3 runs each on sympy (01:27, load 4-7): 2.07x -> 1.87x the parse (the
part above the parse -18 %); Laravel src/ 4.16x -> 4.00x. Whole `code-intel index`
CPU, 12 alternating runs each: 10.1 s vs 9.9 s mean, inside its +-15 % noise.
Does the forked pool itself cost CPU (issue 13, idx5; 03:00-03:40, load 5-9)? Per-file
work (read, analysis, rows), medians of 5 fresh processes: sympy one process 4.70 s, two
processes at once 5.02 s each (1.07x: sharing the cores), the pool's workers 5.23 s
(1.11x) plus its parent receiving 0.27 s; Laravel src/ 2.55 / 2.61 / 3.03 + 0.21 s. The
workers' extra is user time (system time and page faults barely move); gc.freeze() before
the fork with gc off in the workers, chunksize 32, or warming by analysing every file in
the parent first changed nothing beyond the +-15 % noise. So what a sync's parent adds
over one process is its SQLite writes (~1.5 s on sympy) and receiving, not a fork cost.
With PHP's related-classes query, docblock type names and Laravel links gate compiled
(native/refscan.c `rule_spans`, native/docblock.c), the rules walk reading subtrees
directly, and less at start (issue 13, idx6; 05:50-06:20, load 5-7, main's frozen build
alternating): Laravel src/ per-file CPU in one process 1.86 -> 1.52 s (-19 %, 6 runs
each); sympy unchanged. Output identical (chunking_snapshot). Whole `code-intel index`
of Laravel src/ in quiet minutes (06:30, load 0.9-1.4, 7 rounds, medians): 1.68 -> 1.48 s
wall, 2.82 -> 2.43 s CPU, Intelephense 2.47 s: 0.68x -> 0.60x (target <= 0.5x missed);
this bench in the same minutes: 1.57 s vs Intelephense 2.57 s = 0.61x.
With one compiled walk for Python's definitions that also records the reference pass's
nodes (the scan reads them instead of walking the tree again) and the quoted names of type
strings with their deciding ancestor (no regex over every byte, no descent per match),
and Python's signatures and docstrings from one compiled call (native/pyfacts.c) (issue
13, idx8py; 08:30-09:00, load 2-5, main's frozen build alternating): sympy's analysis
above the parse, one process, interleaved 5x: 1.87 -> 1.54 s (-18 %); per-file work in
fresh processes 4.22 -> 3.92 s (-7 %, 6 each); whole `code-intel index` CPU 6.60 -> 6.30 s
(medians of 8 alternating rounds, lower in every round). Output identical
(chunking_snapshot, 5,051 files; sympy's store tables row by row). This bench at 09:00
(load 5): CPU 6.99 s vs the parse 2.20 s = 3.17x (target 2x: MISS); analysis 1.82x the
parse, rows 0.19x, pickling 0.10x, SQLite writes 0.52-0.67x, mostly WAL traffic
(pwrite, the checkpoints' copy and reads).

With the parent's share cut (issue 13, idx8php; 08:52, load 2.5-3.1 with these runs
included, main's frozen build alternating, 7 rounds, medians): a new store in 16 KB
pages (its writes 0.36 -> 0.27 s CPU, system time 0.12 -> 0.04 s), a first build's name
indexes sorted while the workers parse the last tenth of the files and that tenth
written in batches of 25 (what was left after the workers: 0.08-0.12 s -> 0.01 s),
`code-intel index` parsing its own arguments (typer's coercion imported pydantic: 0.04 s)
and leaving without the interpreter's teardown (0.06-0.09 s): Laravel src/ 1.74 -> 1.50 s
wall, 2.73 -> 2.49 s CPU, Intelephense 2.80 s: 0.62x -> 0.53x (target <= 0.5x missed).
`index --json` then also without typer and rich (0.035 s of imports; a no-change index
of a one-file tree 0.21-0.26 -> 0.07-0.12 s CPU): 7 rounds at 09:05 (load 1.9-2.3 with
these runs): 2.03 -> 1.52 s wall (quietest rounds 1.62-1.68 -> 1.43-1.46 s), 2.80 -> 2.58 s
CPU, Intelephense 2.76 s: 0.74x -> 0.55x (per-round medians 0.72x -> 0.60x).
With the Laravel links query as a compiled rules walk (refscan rules gain a name-set test
in C) that is the same walk as the related classes' (one per file), the links query no
longer compiled at start, the links gate's second regex only where its words occur, and
cattrs imported only when a config file is read (issue 13, idx9php; 09:30-09:37, load
0.9-1.9 with these runs, main's frozen build alternating): Laravel src/ per-file CPU in
one process 1.67 -> 1.55 s (-7 %); whole `code-intel index`, 9 rounds, medians: 1.45 ->
1.38 s wall (faster in every round), 2.50 -> 2.37 s CPU, Intelephense 2.76 s: 0.53x ->
0.50x (per-round 0.53x -> 0.50x); 7 rounds at 09:30: 1.44 -> 1.38 s, 0.54x -> 0.52x. This
bench four times in a row at 09:32-09:33: 0.49x, 0.55x, 0.49x, 0.57x (on the edge).
With container skeletons sliced instead of joined line by line, Position/Range/Symbol/
Chunk built through their slots' setters (a Symbol with its ranges 1.9 -> 1.26 us), chunk
metadata JSON through one C encoder built once (same text), the parent warming only the
languages of >= 16 files and freezing its objects for the collector before the fork
(issue 13, idx10; 09:55-10:10, load 0.5-1.5 with these runs, main's frozen build
alternating): per-file CPU in one process Laravel src/ 1.45 -> 1.37 s (-5 %, 4 each),
sympy 3.83 -> 3.55 s (-7 %, 3 each); whole `code-intel index` of Laravel src/, 7 rounds,
medians: 1.30 -> 1.25 s wall, 2.22 -> 2.18 s CPU, Intelephense 2.53 s: 0.51x -> 0.49x
(per-round 0.51x -> 0.49x). Output identical (chunking_snapshot, 4,500 files; store tables
row by row on Laravel src/, laravelio, sympy, spring-petclinic, ky). This bench four times
at 10:02-10:04: 0.49x, 0.50x, 0.53x, 0.47x (Intelephense itself 2.29-2.70 s).
With a first build (`code-intel index`, one thread) written into a side file with its
journal in memory and no syncs, flushed once when its names are indexed and renamed over
`index.db` at the end, instead of every page going through WAL and back (issue 13,
idx11py; 11:45-11:50, load 5-6 from other sessions, main's frozen build alternating, 7
rounds, medians): sympy's parent 1.40 -> 1.20 s CPU (system time 0.37 -> 0.17 s, lower
in every round; user time and the workers unchanged), all processes 6.34 -> 6.12 s;
the rows' writes alone, one process, 5 rounds: 0.83 -> 0.67 s CPU, 1.00 -> 0.69 s wall.
Stores row by row and CLI answers identical (sympy, flask, Laravel src/). This bench's
own cold index now runs in one thread like `code-intel index` (its memory sampler is a
process): before, its sampler thread sent the cold index down the language server's
path. This bench at 11:48 (load 6): CPU 6.08 s vs the parse alone 2.34 s = 2.60x
(target 2x: MISS); SQLite writes 0.34x the parse.
With detect_language by string operations (3.4 -> 0.8 us a path, serial before the
fork), comment markers stripped without a regex per line, PHP's signatures and docblocks
from one compiled call (native/phpfacts.c), its relation and constructor lookups only
where the walk or the bytes say one can be, the parent collecting no garbage while it
takes the results (none is cyclic) and the last files one per task (issue 13, idx11php;
11:30-12:10, load 2-9 from other helpers the whole time, main's frozen build alternating):
Laravel src/ per-file CPU in one process 1.62 -> 1.50 s (-7.6 %, lower in 6 of 6 pairs);
whole `code-intel index`, 6 pairs twice: workers' CPU 2.05 -> 1.87 s and 1.77 -> 1.66 s,
the parent's 0.70 -> 0.67 s and 0.65 -> 0.63 s. Output identical (chunking_snapshot,
4,758 files; store tables row by row on Laravel src/, laravelio, filament-demo, sympy).
At load 2-9 the wall ratio could not be read (this bench 0.67x, 0.74x). At 12:10-12:15
(load 1.8-2.3), against main with idx11py's first build merged (735dbd5), alternating:
10 rounds without the peer 1.27 -> 1.18 s wall, 2.19 -> 2.05 s CPU (lower in all 10); 7
rounds with Intelephense (2.84 s): 1.27 -> 1.23 s, 2.19 -> 2.09 s CPU, 0.45x -> 0.43x.
This bench four times in a row at 12:11-12:13: 0.48x, 0.46x, 0.48x, 0.46x (all PASS;
`--baseline-cli` Laravel CPU 0.96-0.99x of main's, sympy --quick 0.99-1.02x); four more
at 12:16-12:18 as the load rose from 1.0 to 3.8: 0.58x, 0.48x, 0.65x, 0.56x (ours
1.97-2.29 s): within target on a machine to itself, not yet under others' load.

With `--laravel` (a checkout of laravel/framework; its `src/` is indexed) the PHP
peer runs too: `code-intel index` from spawn to exit against Intelephense from spawn
to its `indexingEnded` notification, each on its own fresh copy of `src/`, in the same
invocation (see `benchmarks/intelephense.py` for installing it). Targets (issue 13):
cold index <= 2x tree-sitter's parse floor, and <= 0.5x Intelephense's time on Laravel.

The sympy source comes from PyPI (`pip install --no-deps --target`), cached in
~/.cache/code-intel-bench/.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pickle
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Self

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.indexing import sync
from code_intel.indexing.analyze import analyze_source, parse
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.config import Config
from code_intel.indexing.discovery import discover
from code_intel.indexing.languages import detect_language
from code_intel.indexing.store import FileRows, IndexedFile, IndexStore
from code_intel.indexing.sync import sync_workspace

from benchmarks import intelephense

SYMPY = "sympy==1.13.3"
CACHE = Path.home() / ".cache" / "code-intel-bench" / "sympy-1.13.3"
QUICK_DIRS = ("sympy/core", "sympy/printing")
CTAGS_KINDS = {"class", "function", "member"}  # ctags' Python kinds we must match


def sympy_tree() -> Path:
    if not (CACHE / "sympy").is_dir():
        print(f"fetching {SYMPY} into {CACHE} (once) …", flush=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(CACHE), SYMPY],
            check=True,
        )
    return CACHE


def copy_tree(source: Path, dest: Path, quick: bool) -> Path:
    """A private copy, so `.code-intel/` and the edited file land in a scratch place."""
    if quick:
        for sub in QUICK_DIRS:
            shutil.copytree(source / sub, dest / sub)
    else:
        src = source / "sympy" if (source / "sympy").is_dir() else source
        shutil.copytree(src, dest / src.name, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


#: The sampler of `PeakRss`, run as its own process: a thread here would make the cold
#: index take the language server's path (a process with threads keeps its name indexes
#: and writes through WAL) instead of `code-intel index`'s (see `sync.single_threaded`).
_RSS_SAMPLER = """
import os, select, sys
import psutil
watched, interval = psutil.Process(int(sys.argv[1])), float(sys.argv[2])
peak = 0
while True:
    total = 0
    for proc in [watched, *watched.children(recursive=True)]:
        if proc.pid == os.getpid():
            continue
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    peak = max(peak, total)
    if select.select([sys.stdin], [], [], interval)[0]:  # stdin closed: done
        break
print(peak)
"""


class PeakRss:
    """Peak resident memory of this process plus its children (the parser pool), sampled
    by a separate process so this one keeps a single thread."""

    def __init__(self, interval: float = 0.05) -> None:
        self.peak = 0
        self._interval = interval
        self._sampler: subprocess.Popen[str] | None = None

    def __enter__(self) -> Self:
        self._sampler = subprocess.Popen(
            [sys.executable, "-c", _RSS_SAMPLER, str(os.getpid()), str(self._interval)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._sampler is not None
        out, _ = self._sampler.communicate("")
        if self._sampler.returncode != 0:
            raise RuntimeError(f"the memory sampler failed (exit {self._sampler.returncode}); is psutil installed?")
        self.peak = int(out.strip())


def cpu_seconds() -> float:
    """CPU time of this process and its reaped children (the parser workers): the
    work done, which a loaded machine does not inflate the way it inflates wall time."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed_sync(root: Path, store: IndexStore) -> tuple[float, object, float]:
    """(wall seconds, report, CPU seconds)."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    report = sync_workspace(root, store, Config())
    return time.perf_counter() - t0, report, cpu_seconds() - c0


def ctags(root: Path) -> tuple[float, Counter]:
    out = root.parent / "ctags.tags"
    cmd = ["ctags", "-R", "--languages=Python", "--fields=+K", "--exclude=.code-intel", "-f", str(out), str(root)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    elapsed = time.perf_counter() - t0
    kinds: Counter = Counter()
    for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("!_"):
            continue
        fields = line.split("\t")
        kind = next((f for f in fields[3:] if f in CTAGS_KINDS or f.isalpha()), "")
        kinds[kind] += 1
    return elapsed, kinds


def parse_floor(root: Path, workers: int) -> tuple[float, float]:
    """tree-sitter's parse alone over the files the index reads, on one core: (wall
    divided by the parser processes, CPU seconds). The least any tree-sitter indexer
    spends before one symbol is read."""
    files = [(detect_language(rel), Path(c.abs_path)) for rel, c in discover(root, Config()).files.items()]
    c0, t0 = cpu_seconds(), time.perf_counter()
    for language, path in files:
        parse(language, path.read_bytes())
    return (time.perf_counter() - t0) / max(workers, 1), cpu_seconds() - c0


def phases(root: Path, scratch: Path) -> dict[str, float]:
    """Where a cold index's CPU goes, phase by phase, in this one process (no pool):
    parse alone, the whole analysis (parse included), flattening into rows, the
    pickling both ways that carries rows from a parser process to the writer, and
    the SQLite writes (batches of the sync's size, into a fresh store). CPU seconds,
    so the figures compare with each other on a loaded machine. The last two are the
    language server's path: `code-intel index`'s first build pickles no rows, its
    workers write them (`store.RowsFile`) and its parent copies them in SQLite."""
    files = [(rel, detect_language(rel), Path(c.abs_path).read_bytes())
             for rel, c in sorted(discover(root, Config()).files.items())]
    settings = ChunkSettings()
    clock = time.process_time
    t = clock()
    for _, language, data in files:
        parse(language, data)
    out = {"parse": clock() - t}
    t = clock()
    analyses = [(rel, analyze_source(rel, data, settings, language)) for rel, language, data in files]
    out["analysis (parse included)"] = clock() - t
    t = clock()
    rows = [(rel, FileRows.from_analysis(rel, a)) for rel, a in analyses]
    out["rows"] = clock() - t
    t = clock()
    blobs = [pickle.dumps(r, protocol=pickle.HIGHEST_PROTOCOL) for _, r in rows]
    for blob in blobs:
        pickle.loads(blob)
    out["pickling, both ways"] = clock() - t
    store = IndexStore(scratch / "phases" / "index.db")
    t = clock()
    with store.bulk_load():  # a first build, as `sync_workspace` writes it
        for i in range(0, len(rows), 200):
            store.write_files([IndexedFile(rel, "-", 0, 0, r) for rel, r in rows[i:i + 200]])
    out["SQLite writes"] = clock() - t
    out["references"] = sum(len(a.references) for _, a in analyses)
    store.close()
    return out


def _pool_probe(mode: str, root: str, out: multiprocessing.Queue) -> None:
    """In a fresh process: the sync's per-file work (read, analyse, rows; no SQLite) over
    `root`, in this process (`one`) or through the sync's own forked pool (`pool`).
    Puts (this process's CPU, its workers' CPU)."""
    jobs = [sync._Job(c, None, ChunkSettings()) for c in discover(Path(root), Config()).files.values()]
    sync._warm(jobs)
    me0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    results = map(sync._process, jobs) if mode == "one" else sync._run(jobs, os.cpu_count() or 2)
    for _ in results:
        pass
    me1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    out.put((me1.ru_utime + me1.ru_stime - me0.ru_utime - me0.ru_stime,
             kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime))


def pool_overhead(root: Path, rounds: int = 3) -> dict[str, float]:
    """What the forked parser pool adds to the per-file work, and how much of it any
    second busy process on the machine would add too. Alternating rounds of: the work
    in one process alone; two such processes at once (each does all of it: the control
    for sharing the cores and caches); the sync's pool (workers, and the parent
    receiving the results). Medians of CPU seconds; SQLite writes are not included."""
    ctx = multiprocessing.get_context("spawn")  # fresh interpreters, as the CLI starts

    def run(modes: list[str]) -> list[tuple[float, float]]:
        queue = ctx.Queue()
        procs = [ctx.Process(target=_pool_probe, args=(m, str(root), queue)) for m in modes]
        for proc in procs:
            proc.start()
        got = [queue.get() for _ in procs]
        for proc in procs:
            proc.join()
        return got

    runs: dict[str, list[float]] = {"one process": [], "two at once, each": [],
                                    "pool workers": [], "pool parent": []}
    for _ in range(rounds):
        runs["one process"].append(run(["one"])[0][0])
        runs["two at once, each"] += [me for me, _ in run(["one", "one"])]
        (parent, workers), = run(["pool"])
        runs["pool workers"].append(workers)
        runs["pool parent"].append(parent)
    return {name: round(sorted(v)[len(v) // 2], 2) for name, v in runs.items()}


def laravel_peer(checkout: Path, exe: str, scratch: Path, rounds: int) -> dict[str, float | int]:
    """`code-intel index` (spawn to exit) and Intelephense (spawn to `indexingEnded`),
    alternating, each round on two fresh copies of the framework's `src/`: medians."""
    src = checkout / "src" if (checkout / "src").is_dir() else checkout
    cli = Path(sys.executable).parent / "code-intel"
    files = 0
    runs: dict[str, list[float]] = {"ours": [], "ours_cpu": [], "peer": [], "peer_cpu": []}
    for i in range(rounds):
        ours_root = scratch / f"laravel-ours-{i}" / "src"
        peer_root = scratch / f"laravel-peer-{i}" / "src"
        shutil.copytree(src, ours_root)
        shutil.copytree(src, peer_root)
        c0, t0 = cpu_seconds(), time.perf_counter()
        done = subprocess.run([str(cli), "index", str(ours_root), "--json"], capture_output=True, text=True, check=True)
        runs["ours"].append(time.perf_counter() - t0)
        runs["ours_cpu"].append(cpu_seconds() - c0)
        files = json.loads(done.stdout).get("added", 0)
        c0 = cpu_seconds()
        runs["peer"].append(intelephense.index_seconds(peer_root, exe))
        runs["peer_cpu"].append(cpu_seconds() - c0)
    ours, ours_cpu, peer, peer_cpu = (statistics.median(runs[k]) for k in ("ours", "ours_cpu", "peer", "peer_cpu"))
    return {"files": files, "rounds": rounds, "ours_seconds": round(ours, 2),
            "intelephense_seconds": round(peer, 2), "ratio": round(ours / peer, 2),
            "ratios": [round(a / b, 2) for a, b in zip(runs["ours"], runs["peer"], strict=True)],
            "ours_cpu_seconds": round(ours_cpu, 2), "intelephense_cpu_seconds": round(peer_cpu, 2),
            "cpu_ratio": round(ours_cpu / peer_cpu, 2)}


def cli_index(cli: Path, source: Path, dest: Path) -> tuple[float, float]:
    """`<cli> index` on a fresh copy of `source`, spawn to exit: (wall, CPU seconds)."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".code-intel"))
    c0, t0 = cpu_seconds(), time.perf_counter()
    subprocess.run([str(cli), "index", str(dest), "--json"], capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, cpu_seconds() - c0


def builds_compared(baseline: Path, trees: dict[str, Path], scratch: Path) -> dict[str, dict[str, float]]:
    """This build's and another build's `code-intel index` (e.g. main's venv) on fresh
    copies of the same trees, one after the other (baseline first, then ours, twice
    alternating), so a change is judged against a baseline measured in the same
    minutes on the same loaded machine."""
    ours = Path(sys.executable).parent / "code-intel"
    out = {}
    for label, tree in trees.items():
        runs: dict[str, list[tuple[float, float]]] = {"baseline": [], "ours": []}
        for i, (name, cli) in enumerate([("baseline", baseline), ("ours", ours), ("ours", ours),
                                          ("baseline", baseline)]):
            runs[name].append(cli_index(cli, tree, scratch / f"builds-{label}-{i}" / tree.name))
        best = {name: (min(w for w, _ in r), min(c for _, c in r)) for name, r in runs.items()}
        out[label] = {"baseline_seconds": round(best["baseline"][0], 2), "ours_seconds": round(best["ours"][0], 2),
                      "baseline_cpu_seconds": round(best["baseline"][1], 2),
                      "ours_cpu_seconds": round(best["ours"][1], 2)}
    return out


def pick_file(root: Path) -> Path:
    """A mid-size Python file, the kind a developer edits."""
    files = sorted(root.rglob("*.py"), key=lambda p: p.stat().st_size)
    return files[len(files) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, help="index this tree instead of sympy")
    parser.add_argument("--quick", action="store_true", help="sympy/core and sympy/printing only")
    parser.add_argument("--rounds", type=int, default=3,
                        help="cold builds and parse floors (and Laravel runs of both indexers), "
                             "alternating; the figures are their medians (default 3)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--laravel", type=Path, help="laravel/framework checkout: index its src/ next to Intelephense")
    parser.add_argument("--intelephense", default=shutil.which("intelephense"),
                        help="Intelephense executable (default: on PATH)")
    parser.add_argument("--phases", action="store_true",
                        help="also the CPU of each phase in one process, as multiples of the parse")
    parser.add_argument("--pool-overhead", action="store_true",
                        help="also the forked pool's CPU next to one process and two at once (3 rounds each)")
    parser.add_argument("--baseline-cli", type=Path,
                        help="another build's code-intel (e.g. /work/main/.venv/bin/code-intel): its "
                             "`index` runs next to this build's on the same trees, best of two each")
    args = parser.parse_args()
    if args.rounds < 1:
        sys.exit(f"--rounds {args.rounds}: give at least 1 (cold builds and parse floors, alternating)")
    if args.baseline_cli is not None and not args.baseline_cli.is_file():
        sys.exit(f"--baseline-cli {args.baseline_cli} is not a file (a code-intel executable of another venv)")
    if not shutil.which("ctags"):
        sys.exit("Universal Ctags is needed for the baseline: apt-get install universal-ctags")
    if args.laravel is not None and not args.laravel.is_dir():
        sys.exit(f"--laravel {args.laravel} is not a directory (a checkout of laravel/framework)")
    if args.laravel is not None and not args.intelephense:
        sys.exit("--laravel needs Intelephense: npm install --prefix /work/peers/index intelephense, "
                 "then --intelephense /work/peers/index/node_modules/.bin/intelephense")

    source = args.tree.resolve() if args.tree else sympy_tree()
    with tempfile.TemporaryDirectory(prefix="code-intel-bench-") as tmp:
        root = copy_tree(source, Path(tmp) / "tree", args.quick)
        store = IndexStore.for_workspace(root)
        with PeakRss() as rss:
            cold, report, cold_cpu = timed_sync(root, store)
        stats = store.stats()
        files, symbols = stats["files"], stats["symbols"]
        nochange, _, _ = timed_sync(root, store)
        target = pick_file(root)
        target.write_text(target.read_text(encoding="utf-8") + "\n\ndef bench_added():\n    return 1\n")
        onefile, one_report, _ = timed_sync(root, store)
        kinds = Counter(
            k for (k,) in store.conn.execute("SELECT kind FROM symbols").fetchall()
        )
        store.close()
        ctags_time, ctags_kinds = ctags(root)
        # More cold builds, each followed by the floor again, on fresh copies: one run of
        # each moved 1.8-2.25x on a quiet 2-core machine (the parse's own CPU 4.1-5.6 s),
        # so the ratio is taken between the medians of runs made in the same minutes.
        floors = [parse_floor(root, report.workers)]
        colds = [(cold, cold_cpu)]
        for i in range(1, args.rounds):
            fresh = copy_tree(source, Path(tmp) / f"round-{i}", args.quick)
            again = IndexStore.for_workspace(fresh)
            wall, _, cpu = timed_sync(fresh, again)
            again.close()
            shutil.rmtree(fresh)
            colds.append((wall, cpu))
            floors.append(parse_floor(root, report.workers))
        cold, cold_cpu = (statistics.median(x) for x in zip(*colds, strict=True))
        floor, floor_cpu = (statistics.median(x) for x in zip(*floors, strict=True))
        round_ratios = [round(c / f, 2) for (c, _), (f, _) in zip(colds, floors, strict=True)]
        laravel = laravel_peer(args.laravel, args.intelephense, Path(tmp), args.rounds) if args.laravel else None
        phase_cpu = phases(root, Path(tmp)) if args.phases else None
        pool = pool_overhead(root) if args.pool_overhead else None
        builds = None
        if args.baseline_cli:
            trees = {"tree": copy_tree(source, Path(tmp) / "pristine", args.quick)}
            if args.laravel:
                trees["laravel src/"] = args.laravel / "src" if (args.laravel / "src").is_dir() else args.laravel
            builds = builds_compared(args.baseline_cli, trees, Path(tmp))

    figures = {
        "tree": str(source) + (" (quick)" if args.quick else ""),
        "files": files,
        "symbols": symbols,
        "references": stats.get("references"),
        "workers": report.workers,
        "rounds": args.rounds,
        "cold_seconds": round(cold, 3),
        "files_per_second": round(files / cold, 1),
        "symbols_per_second": round(symbols / cold, 1),
        "peak_rss_mb": round(rss.peak / 2**20, 1),
        "nochange_resync_seconds": round(nochange, 4),
        "onefile_resync_seconds": round(onefile, 4),
        "onefile_processed": one_report.processed,
        "ctags_seconds": round(ctags_time, 3),
        "ratio_cold_vs_ctags": round(cold / ctags_time, 2),
        "parse_only_seconds": round(floor, 3),
        "ratio_parse_only_vs_ctags": round(floor / ctags_time, 2),
        "ratio_cold_vs_parse_floor": round(cold / floor, 2),
        "ratio_cold_vs_parse_floor_by_round": round_ratios,
        "cold_cpu_seconds": round(cold_cpu, 2),
        "parse_only_cpu_seconds": round(floor_cpu, 2),
        "cpu_ratio_cold_vs_parse": round(cold_cpu / floor_cpu, 2),
        "laravel": laravel,
        "phases_cpu_seconds": phase_cpu,
        "pool_overhead_cpu_seconds": pool,
        "builds": builds,
        "ctags_tags": dict(ctags_kinds.most_common()),
        "our_symbol_kinds": dict(kinds.most_common()),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    ok = lambda good: "PASS" if good else "MISS"
    print(f"tree: {figures['tree']}  ({files} files, {report.workers} parser processes; "
          f"cold index and parse: medians of {args.rounds} alternating rounds)")
    print(f"{'cold index':<28}{cold:>9.2f} s   {files / cold:>7.0f} files/s   {symbols / cold:>8.0f} symbols/s")
    print(f"{'ctags -R (baseline)':<28}{ctags_time:>9.2f} s")
    print(f"{'ratio ours / ctags':<28}{cold / ctags_time:>9.2f} x   target <= 2x: {ok(cold <= 2 * ctags_time)}")
    print(f"{'tree-sitter parse alone':<28}{floor:>9.2f} s   = {floor / ctags_time:.1f}x ctags "
          f"(1-core parse time / {report.workers}: the floor for any tree-sitter indexer)")
    print(f"{'ratio ours / parse floor':<28}{cold / floor:>9.2f} x   target <= 2x: {ok(cold <= 2 * floor)}"
          f"   (rounds: {', '.join(f'{r:.2f}' for r in round_ratios)})")
    print(f"{'  CPU: cold index':<28}{cold_cpu:>9.2f} s   parse alone {floor_cpu:.2f} s   "
          f"= {cold_cpu / floor_cpu:.2f}x (all processes; what load does not inflate)")
    print(f"{'peak RSS (with workers)':<28}{rss.peak / 2**20:>9.0f} MB")
    print(
        f"{'no-change re-sync':<28}{nochange * 1000:>9.1f} ms  = {100 * nochange / cold:.2f} % of cold"
        f"   target < 5 %: {ok(nochange < 0.05 * cold)}"
    )
    print(
        f"{'one-file re-sync':<28}{onefile * 1000:>9.1f} ms  ({one_report.processed} file parsed)"
        f"   target < 200 ms: {ok(onefile < 0.2)}"
    )
    print(f"symbols: ours {symbols} {dict(kinds.most_common(6))}")
    print(f"         ctags {sum(ctags_kinds.values())} {dict(ctags_kinds.most_common(6))}")
    if phase_cpu:
        references = phase_cpu.pop("references")
        print(f"CPU by phase, one process ({references} references), as multiples of the parse:")
        for name, seconds in phase_cpu.items():
            print(f"  {name:<26}{seconds:>9.2f} s   {seconds / phase_cpu['parse']:5.2f}x")
    if pool:
        one = pool["one process"]
        print("per-file work (read, analysis, rows; no SQLite), CPU, median of 3:")
        for name, seconds in pool.items():
            print(f"  {name:<26}{seconds:>9.2f} s   {seconds / one:5.2f}x one process")
    if laravel:
        print(f"laravel/framework src/ ({laravel['files']} files), spawn to done, medians of {laravel['rounds']} "
              f"alternating rounds (ratios {', '.join(f'{r:.2f}' for r in laravel['ratios'])}):")
        print(f"{'  code-intel index':<28}{laravel['ours_seconds']:>9.2f} s")
        print(f"{'  intelephense (baseline)':<28}{laravel['intelephense_seconds']:>9.2f} s")
        print(f"{'  ratio ours / intelephense':<28}{laravel['ratio']:>9.2f} x   target <= 0.5x: "
              f"{ok(laravel['ratio'] <= 0.5)}")
        print(f"{'  CPU ours / intelephense':<28}{laravel['ours_cpu_seconds']:>9.2f} s / "
              f"{laravel['intelephense_cpu_seconds']:.2f} s = {laravel['cpu_ratio']:.2f}x")
    if builds:
        print(f"`code-intel index`, spawn to exit, best of 2: this build vs {args.baseline_cli}")
        for label, b in builds.items():
            print(f"  {label:<26}{b['ours_seconds']:>9.2f} s vs {b['baseline_seconds']:.2f} s "
                  f"= {b['ours_seconds'] / b['baseline_seconds']:.2f}x   CPU {b['ours_cpu_seconds']:.2f} s vs "
                  f"{b['baseline_cpu_seconds']:.2f} s = {b['ours_cpu_seconds'] / b['baseline_cpu_seconds']:.2f}x")


if __name__ == "__main__":
    main()
