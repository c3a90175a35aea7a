"""Evaluation (a): localise real fixes from their commit text, index kept as a user's would be.

Why: see `history_cases.py`. For each repository the cases are replayed oldest first;
before each one the tree at the fix's parent is laid into one workspace and the index
is *synced* (not rebuilt), so unchanged chunks keep their vectors exactly as in a
user's editor. Every ranker sees the same tree: whole-file BM25 (the baseline),
code-intel's lexical signal alone, its vector signal alone and the default hybrid.
Test files are removed from every ranking (they are neither candidates nor answers).

This module imports `code_intel` from whichever environment runs it, so another
worktree's venv evaluates that worktree's code on the same data.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from bm25 import BM25
from code_intel.indexing import file_fusion, ja_terms, search
from code_intel.indexing.config import Config, VectorStoreConfig
from code_intel.indexing.embeddings import load_embedder
from code_intel.indexing.lexical import LexicalIndex
from code_intel.indexing.search import hybrid_query
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace
from code_intel.indexing.vectors import VectorIndex
from history_cases import is_source
from tables import table

KS = (1, 3, 5, 10)
MODES: dict[str, tuple[str, ...] | None] = {
    "bm25": None,
    "lexical": ("lexical",),
    "vector": ("vector",),
    "hybrid": ("vector", "lexical", "definition", "reference"),
    "hybrid_rank": ("vector", "lexical", "definition", "reference"),
}
#: hybrid_query options per mode: `hybrid_rank` is the hybrid before a signal's clear
#: leader was trusted (rank fusion alone), kept as the same-run baseline
OPTIONS: dict[str, dict[str, Any]] = {"hybrid_rank": {"trust_leaders": False}}
LABELS = {
    "bm25": "BM25 whole-file (baseline)",
    "lexical": "lexical only (FTS5 chunks)",
    "vector": "vector only",
    "hybrid": "hybrid (default signals)",
    "hybrid_rank": "hybrid, rank fusion only (before)",
}


#: a directory that holds tests: tests/, test/, testing/, tests_e2e/, test-utils/, __tests__/,
#: e2e/, cypress/ (at any depth)
_TEST_DIR = re.compile(r"^(tests?|testing|tests?[-_]\w+|__tests__|e2e|cypress)$", re.IGNORECASE)
#: a test file: test_x.py, x_test.py, e2e_test_x.py, conftest.py, x.test.ts, x.spec.tsx, x.cy.ts
_TEST_FILE = re.compile(r"^(test_|e2e_test_)|_tests?\.py$|^conftest\.py$|\.(test|spec|cy)\.[cm]?[jt]sx?$",
                        re.IGNORECASE)


def is_test(path: str) -> bool:
    """Test files are excluded from candidates and answers (issue 18's protocol): test
    directories at any depth (Django's `tests_e2e/`, JS's `__tests__/`, `cypress/`) and
    test files by name in Python and JS/TS conventions (`x.test.ts`, `x.spec.tsx`)."""
    *dirs, name = path.split("/")
    return any(_TEST_DIR.match(d) for d in dirs) or bool(_TEST_FILE.search(name))


def find_git_dir(repo: str, corpora: list[Path]) -> Path | None:
    """`<corpus>/<repo>` (a checkout or bare clone) or a mirror `<corpus>/<owner>+<repo>/repo`."""
    for base in corpora:
        for cand in [base / repo, *sorted(base.glob(f"*+{repo}/repo"))]:
            if (cand / ".git").exists() or (cand / "HEAD").exists():
                return cand
    return None


def lay_tree(git_dir: Path, sha: str, root: Path) -> None:
    """Replace the workspace's files by the tree at `sha`, keeping `.code-intel/`."""
    for child in root.iterdir():
        if child.name != ".code-intel":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    archive = subprocess.run(["git", "-C", str(git_dir), "archive", sha, "--", *present_paths(git_dir, sha)],
                             capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)


def present_paths(git_dir: Path, sha: str) -> list[str]:
    """Every path of the tree at `sha` whose blob the clone holds. A fetched mirror may
    lack large unrelated blobs (shynet's GeoLite2 archive), and `git archive` refuses the
    whole tree for one of them; empty when none is missing (archive everything)."""
    listing = subprocess.run(["git", "-C", str(git_dir), "ls-tree", "-r", "-z", "--format=%(objectname) %(path)", sha],
                             capture_output=True, check=True).stdout.decode().split("\0")
    entries = [line.split(" ", 1) for line in listing if line]
    check = subprocess.run(["git", "-C", str(git_dir), "cat-file", "--batch-check"],
                           input="".join(f"{oid}\n" for oid, _ in entries).encode(), capture_output=True, check=True)
    present = [path for (_, path), line in zip(entries, check.stdout.decode().splitlines()) if not line.endswith(" missing")]
    return [] if len(present) == len(entries) else present


def whole_file_bm25(root: Path) -> BM25:
    docs = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if ".code-intel" not in rel and is_source(rel):
            docs.append((rel, path.read_text(encoding="utf-8", errors="replace")))
    return BM25(docs)


@dataclass
class Tally:
    """Ranks of the first gold file per case (None = not in the top 100 or refused)."""

    ranks: dict[str, list[int | None]] = field(default_factory=lambda: defaultdict(list))
    latency_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    refused: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def first_rank(ranked: list[str], gold: set[str]) -> int | None:
    ranked = [p for p in ranked if not is_test(p)]
    return next((i for i, p in enumerate(ranked, 1) if p in gold), None)


def metrics(ranks: list[int | None]) -> list[float]:
    n = max(len(ranks), 1)
    accs = [sum(1 for r in ranks if r is not None and r <= k) / n for k in KS]
    return accs + [sum(1 / r for r in ranks if r) / n]


def run(cases: list[dict[str, Any]], corpora: list[Path], work: Path, spec: str,
        truncate: int = 0, modes: tuple[str, ...] = tuple(MODES), dump: Path | None = None,
        log=print) -> tuple[dict[str, Tally], dict[str, Any], list[dict[str, Any]]]:  # type: ignore[no-untyped-def]
    """Replay every repository's cases; returns tallies per split, timings, per-case rows."""
    needs_vectors = any("vector" in (MODES[m] or ()) for m in modes)
    embedder = load_embedder(spec) if needs_vectors else None
    tallies = {"tune": Tally(), "heldout": Tally(), "all": Tally()}
    timing: dict[str, Any] = {"sync_s": [], "first_sync_s": {}, "chunks_embedded": 0, "vector_s": 0.0}
    rows: list[dict[str, Any]] = []
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in cases:
        by_repo[c["repo"]].append(c)
    for repo, repo_cases in by_repo.items():
        git_dir = find_git_dir(repo, corpora)
        if git_dir is None:
            log(f"    {repo}: no git checkout under {', '.join(map(str, corpora))}; its "
                f"{len(repo_cases)} cases are skipped (clone it there, see benchmarks/README)")
            continue
        root = work / f"history-{repo}"
        root.mkdir(parents=True, exist_ok=True)
        config = Config(embedding_model=embedder.spec if embedder else spec,
                        vector_store=VectorStoreConfig())
        store = IndexStore.for_workspace(root)
        lexical = LexicalIndex.for_workspace(root)
        vectors: VectorIndex | None = None
        started = time.perf_counter()
        for i, case in enumerate(sorted(repo_cases, key=lambda c: c["date"])):
            lay_tree(git_dir, case["parent"], root)
            s = time.perf_counter()
            sync_workspace(root, store, config)
            lexical.sync(store)
            embedded = 0
            if embedder is not None:
                if vectors is None:
                    vectors = VectorIndex(root, config, embedder)
                v = time.perf_counter()
                embedded = vectors.sync(store).chunks_embedded
                timing["vector_s"] += time.perf_counter() - v
                timing["chunks_embedded"] += embedded
            took = time.perf_counter() - s
            if i == 0:
                timing["first_sync_s"][repo] = (took, embedded)
            else:
                timing["sync_s"].append(took)
            query = case["query"][:truncate] if truncate else case["query"]
            gold = set(case["gold"])
            row: dict[str, Any] = {"repo": repo, "sha": case["sha"], "split": case["split"],
                                   "gold": case["gold"], "ranks": {}, "top3": {}}
            for name in modes:
                signals = MODES[name]
                s = time.perf_counter()
                if signals is None:
                    ranked = whole_file_bm25(root).rank(query)
                else:
                    try:
                        res = hybrid_query(query, store=store, lexical=lexical, vectors=vectors,
                                           top=100, signals=signals, **OPTIONS.get(name, {}))
                    except Exception as exc:  # noqa: BLE001 - a refusal is a result, recorded
                        row.setdefault("refused", {})[name] = str(exc)[:200]
                        for t in (tallies[case["split"]], tallies["all"]):
                            t.refused[name] += 1
                        ranked = []
                    else:
                        ranked = [f.path for f in res.files]
                ms = (time.perf_counter() - s) * 1000
                rank = first_rank(ranked, gold)
                row["ranks"][name] = rank
                row["top3"][name] = [p for p in ranked if not is_test(p)][:3]
                for t in (tallies[case["split"]], tallies["all"]):
                    t.ranks[name].append(rank)
                    t.latency_ms[name].append(ms)
            rows.append(row)
        if dump is not None:  # after every repository: a long run that is stopped keeps its cases
            dump.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
        log(f"    {repo}: {len(repo_cases)} cases in {time.perf_counter() - started:.0f}s "
            f"(first sync {timing['first_sync_s'].get(repo, (0, 0))[0]:.0f}s, "
            f"{timing['first_sync_s'].get(repo, (0, 0))[1]} chunks embedded)", flush=True)
    return tallies, timing, rows


def report(tallies: dict[str, Tally], timing: dict[str, Any], spec: str, n_repos: int,
           modes: tuple[str, ...] = tuple(MODES)) -> str:
    out = []
    for split in ("tune", "heldout", "all"):
        t = tallies[split]
        n = len(next(iter(t.ranks.values()), []))
        if not n:
            continue
        rows = [[LABELS[m]] + metrics(t.ranks[m]) + [t.refused.get(m, 0)] for m in modes]
        out.append(table(
            f"(a) real fix histories, {split} ({n} cases, {n_repos} repositories; model {spec}; "
            "file ranking, tests excluded)",
            ["ranker", "Acc@1", "Acc@3", "Acc@5", "Acc@10", "MRR", "refused"], rows))
    t = tallies["all"]
    lat = [[LABELS[m], f"{np.median(t.latency_ms[m]):.0f}", f"{np.percentile(t.latency_ms[m], 95):.0f}"]
           for m in modes if t.latency_ms[m]]
    out.append(table("(c) query latency in this run (ms; BM25 includes building its index)",
                     ["ranker", "median", "p95"], lat))
    syncs = timing["sync_s"]
    firsts = ", ".join(f"{r} {s:.0f}s/{c} chunks" for r, (s, c) in timing["first_sync_s"].items())
    rate = timing["chunks_embedded"] / timing["vector_s"] if timing["vector_s"] else 0.0
    out.append(f"    first syncs: {firsts}\n    sync between commits: median "
               f"{np.median(syncs) if syncs else 0:.1f}s, p95 {np.percentile(syncs, 95) if syncs else 0:.1f}s; "
               f"{timing['chunks_embedded']} chunks embedded at {rate:.0f} chunks/s (vector sync)")
    out.append(choices())
    return "\n".join(out)


def choices() -> str:
    """The fusion's tuned constants, printed with every evaluation (chosen on 'tune' only)."""
    return (f"    fusion choices (set (b) tune halves only): FILE_WEIGHTS {search.FILE_WEIGHTS}, "
            f"chunk decay {file_fusion.CHUNK_DECAY}, agreement decay "
            f"{getattr(file_fusion, 'AGREEMENT_DECAY', 1.0)}, clear vector lead {file_fusion.CLEAR_LEAD} of the "
            f"grey zone, leader bonus {file_fusion.LEADER_BONUS}/K, vector confidence "
            f"{file_fusion.VECTOR_CONFIDENCE} at peak {file_fusion.VECTOR_PEAK}, Japanese terms per word "
            f"{ja_terms.TERMS_PER_WORD}, a translated word names at most "
            f"{search.TRANSLATED_SINGLE_WORD_MAX_DEFINITIONS} definitions")

def load_cases(path: Path, repos: list[str] | None, split: str, per_repo: int) -> list[dict[str, Any]]:
    cases = json.loads(path.read_text())
    if repos:
        cases = [c for c in cases if c["repo"] in repos]
    if split != "all":
        cases = [c for c in cases if c["split"] == split]
    if per_repo:
        kept: dict[str, int] = defaultdict(int)
        out = []
        for c in cases:
            if kept[c["repo"]] < per_repo:
                kept[c["repo"]] += 1
                out.append(c)
        cases = out
    return cases


def tallies_from_rows(rows: list[dict[str, Any]]) -> dict[str, Tally]:
    """Rebuild the tallies from `--dump` files (runs split across processes or stopped early)."""
    tallies = {"tune": Tally(), "heldout": Tally(), "all": Tally()}
    for row in rows:
        for mode, rank in row["ranks"].items():
            for t in (tallies[row["split"]], tallies["all"]):
                t.ranks[mode].append(rank)
            if mode in row.get("refused", {}):
                for t in (tallies[row["split"]], tallies["all"]):
                    t.refused[mode] += 1
    return tallies


def report_dumps(paths: list[Path]) -> str:
    rows = [r for p in paths for r in json.loads(p.read_text())]
    tallies = tallies_from_rows(rows)
    modes = tuple(m for m in MODES if tallies["all"].ranks.get(m))
    out = []
    for split in ("tune", "heldout", "all"):
        t = tallies[split]
        n = len(t.ranks[modes[0]]) if modes else 0
        if n:
            out.append(table(
                f"(a) real fix histories, {split} ({n} cases, {len({r['repo'] for r in rows})} repositories, "
                "from --dump files; file ranking, tests excluded)",
                ["ranker", "Acc@1", "Acc@3", "Acc@5", "Acc@10", "MRR", "refused"],
                [[LABELS[m]] + metrics(t.ranks[m]) + [t.refused.get(m, 0)] for m in modes]))
    return "\n".join(out)
