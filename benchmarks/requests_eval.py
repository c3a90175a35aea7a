"""Evaluation (b): Japanese requests with English twins over real applications.

Why: agents and users here ask in Japanese about code written in English. Each case
was written from reading the application's code before any search was run: a request
in Japanese, the same request in English, and the files (and where one method is the
answer, the symbol) that implement it. The tree is laid at the commit the set was
written against, indexed once, and each request is ranked by whole-file BM25 and by
code-intel's lexical, vector and hybrid modes; Japanese and English are reported side
by side so the cross-lingual gap is visible per mode.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bm25 import BM25
from code_intel.indexing.config import Config, VectorStoreConfig
from code_intel.indexing.embeddings import load_embedder
from code_intel.indexing.lexical import LexicalIndex
from code_intel.indexing.search import hybrid_query
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace
from code_intel.indexing.vectors import VectorIndex
from history_eval import LABELS as HISTORY_LABELS
from history_eval import MODES as HISTORY_MODES
from history_eval import OPTIONS, choices, find_git_dir, is_test, lay_tree, metrics
from tables import table

CODE_SUFFIXES = (".php", ".py", ".ts", ".tsx", ".js", ".jsx", ".vue")
LANGS = ("ja", "en")
SPLITS = ("all", "tune", "heldout")
# The words-only signals together (what a Japanese request gets without vectors).
MODES = {**HISTORY_MODES, "words": ("lexical", "definition", "reference")}
LABELS = {**HISTORY_LABELS, "words": "lexical+definition+reference"}


def app_bm25(root: Path) -> BM25:
    """Whole-file BM25 over the application's code files (no vendor, no tests)."""
    docs = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if (path.is_file() and rel.endswith(CODE_SUFFIXES) and not rel.startswith(("vendor/", "node_modules/",
                                                                                   "tests/", ".code-intel/"))):
            docs.append((rel, path.read_text(encoding="utf-8", errors="replace")))
    return BM25(docs)


def run(sets: list[dict[str, Any]], corpora: list[Path], work: Path, spec: str,
        modes: tuple[str, ...], log=print,  # type: ignore[no-untyped-def]
        dump: list[dict[str, Any]] | None = None, keep_tests: bool = False,
        ) -> tuple[dict[tuple[str, str, str, str], list[int | None]], dict[str, Any]]:
    """Ranks of the first gold file per (app, language, mode, split); `split` is "all"
    and the case's own "tune"/"heldout". `work` may be kept between runs: each app's
    workspace is synced, not rebuilt, so its vectors are embedded once. `keep_tests`
    ranks as a user sees the answer: test files stay in the list (never gold)."""
    ranks: dict[tuple[str, str, str, str], list[int | None]] = defaultdict(list)
    info: dict[str, Any] = {}
    embedder = load_embedder(spec) if any("vector" in (MODES[m] or ()) for m in modes) else None
    for app in sets:
        git_dir = find_git_dir(app["repo"], corpora)
        if git_dir is None:
            log(f"    {app['app']}: no checkout of {app['repo']} under {', '.join(map(str, corpora))}; skipped")
            continue
        root = work / f"requests-{app['app']}"
        root.mkdir(parents=True, exist_ok=True)
        lay_tree(git_dir, app["commit"], root)
        # Test files are neither candidates nor answers (issue 18's protocol), so they
        # are not embedded either: that only saves time.
        config = Config(embedding_model=embedder.spec if embedder else spec, vector_store=VectorStoreConfig(),
                        embed_exclude_patterns=[*Config().embed_exclude_patterns, "tests/**", "**/tests/**"])
        store = IndexStore.for_workspace(root)
        lexical = LexicalIndex.for_workspace(root)
        s = time.perf_counter()
        sync_workspace(root, store, config)
        lexical.sync(store)
        vectors = None
        chunks = 0
        if embedder is not None:
            vectors = VectorIndex(root, config, embedder)
            chunks = vectors.sync(store).chunks_embedded
        ids = {split: [c["id"] for c in app["cases"] if c.get("split", "tune") == split] for split in SPLITS[1:]}
        info[app["app"]] = (time.perf_counter() - s, chunks, ids)
        bm25 = app_bm25(root)
        for case in app["cases"]:
            gold = set(case["gold_files"])
            for lang in LANGS:
                for m in modes:
                    if MODES[m] is None:
                        ranked = bm25.rank(case[lang])
                    else:
                        res = hybrid_query(case[lang], store=store, lexical=lexical, vectors=vectors,
                                           top=100, signals=MODES[m], **OPTIONS.get(m, {}))
                        ranked = [f.path for f in res.files if keep_tests or not is_test(f.path)]
                    rank = next((i for i, p in enumerate(ranked, 1) if p in gold), None)
                    for split in ("all", case.get("split", "tune")):
                        ranks[(app["app"], lang, m, split)].append(rank)
                    if dump is not None:
                        dump.append({"app": app["app"], "id": case["id"], "lang": lang, "mode": m,
                                     "split": case.get("split"), "rank": rank, "top": ranked[:5]})
    return ranks, info


def report(ranks: dict[tuple[str, str, str, str], list[int | None]], info: dict[str, Any], spec: str,
           modes: tuple[str, ...]) -> str:
    rows = []
    for app in sorted({k[0] for k in ranks}):
        for split in SPLITS:
            for m in modes:
                ja, en = metrics(ranks[(app, "ja", m, split)]), metrics(ranks[(app, "en", m, split)])
                n_split = len(ranks[(app, "ja", m, split)])
                rows.append([app, f"{split} ({n_split})", LABELS[m], ja[4], en[4], ja[4] - en[4],
                             ja[0], ja[2], en[0], en[2]])
    out = table(f"(b) Japanese requests with English twins over real apps (model {spec}; file ranking; "
                "weights chosen on 'tune' only)",
                ["app", "split", "ranker", "MRR ja", "MRR en", "ja-en", "Acc@1 ja", "Acc@5 ja", "Acc@1 en",
                 "Acc@5 en"],
                rows)
    n = {app: len(ranks[(app, "ja", modes[0], "all")]) for app in {k[0] for k in ranks}}
    out += "\n    " + ", ".join(f"{a}: {n.get(a, 0)} requests, indexed in {t:.0f}s ({c} chunks embedded)"
                                for a, (t, c, _) in info.items())
    return out + "\n" + choices() + "".join(
        f"\n    {a} {split} ({len(ids[split])}): {' '.join(ids[split])}" for a, (_, _, ids) in info.items()
        for split in SPLITS[1:])



def load_sets(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    return data if isinstance(data, list) else [data]

