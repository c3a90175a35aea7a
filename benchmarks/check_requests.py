"""Check a set (b) request file against the repository it was written for.

Why: a request set is only as good as its golds. A gold path that does not exist at the
pinned commit, or a gold symbol its file does not define, makes a case unanswerable and
silently lowers every ranker's score; a test file as gold can never be found because
tests are neither candidates nor answers. This reads every gold from the repository at
the set's own commit (`git show <commit>:<path>`, not a checkout's work tree, so a later
checkout cannot hide a problem) and exits non-zero listing every problem. It runs no
search and builds no index.

    .venv/bin/python benchmarks/check_requests.py benchmarks/data/requests_solidtime.json \
        [--corpora /work/corpora /work/.mirror]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from history_eval import find_git_dir, is_test
from requests_eval import CODE_SUFFIXES, load_sets
from retrieval_eval import DEFAULT_CORPORA

SPLITS = ("tune", "heldout")
# Hiragana, katakana or CJK ideographs: a Japanese request has at least one.
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def definition_pattern(name: str) -> re.Pattern[str]:
    """Where `name` is defined, in PHP, Python or JS/TS: a function or method, a class-like
    type, a constant, an enum case, a property, or a module-level binding. A call or a use
    does not match (a method-looking line must open a body on the same line)."""
    n = re.escape(name)
    forms = [
        rf"\bfunction\*?\s+&?{n}\s*[(<]",                       # PHP/JS functions and methods
        rf"\b(class|interface|trait|enum|type)\s+{n}\b",          # types (PHP, Python, TS)
        rf"\bconst\s+(\w+\s+)?{n}\s*=",                           # PHP (typed) class constants, JS const
        rf"\b(let|var)\s+{n}\b",                                  # JS bindings
        rf"^\s*case\s+{n}\b",                                     # PHP enum cases
        rf"\b(public|protected|private|var)\s+(static\s+)?(readonly\s+)?([?\w\\|]+\s+)?\${n}\b",  # PHP properties
        rf"^\s*(async\s+)?def\s+{n}\b",                           # Python functions and methods
        rf"^{n}\s*(:[^=\n]+)?=",                                  # Python module-level names
        # JS/TS class or object methods: the line ends by opening the body, and not an arrow's.
        (rf"^\s*(public\s+|private\s+|protected\s+|static\s+|async\s+|get\s+|set\s+)*{n}\s*(<[^>\n]*>)?\(.*\)"
         rf"(\s*:[^{{\n]+)?\s?(?<!=>\s)(?<!=>)\{{\s*$"),
    ]
    return re.compile("|".join(f"(?:{f})" for f in forms), re.MULTILINE)


def file_at(git_dir: Path, commit: str, path: str) -> str | None:
    """The text of `path` at `commit`, or None when the commit has no such file."""
    proc = subprocess.run(["git", "-C", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, check=False)
    return proc.stdout.decode("utf-8", errors="replace") if proc.returncode == 0 else None


def check_case(case: dict[str, Any], read: Any) -> list[str]:
    """Problems with one case; `read(path)` gives a file's text at the set's commit or None."""
    cid = case.get("id", "?")
    problems = []
    for lang in ("ja", "en"):
        if not isinstance(case.get(lang), str) or not case[lang].strip():
            problems.append(f"{cid}: no '{lang}' request")
    if isinstance(case.get("ja"), str) and not _JAPANESE.search(case["ja"]):
        problems.append(f"{cid}: the 'ja' request has no Japanese in it")
    if isinstance(case.get("en"), str) and _JAPANESE.search(case["en"]):
        problems.append(f"{cid}: the 'en' request has Japanese in it")
    if case.get("split") not in SPLITS:
        problems.append(f"{cid}: split is {case.get('split')!r}, expected one of {', '.join(SPLITS)}")
    files = case.get("gold_files") or []
    if not files:
        problems.append(f"{cid}: no gold_files")
    if len(set(files)) != len(files):
        problems.append(f"{cid}: a gold file is listed twice")
    texts = {}
    for path in files:
        if is_test(path):
            problems.append(f"{cid}: gold {path} is a test file (tests are never candidates)")
        text = read(path)
        if text is None:
            problems.append(f"{cid}: gold {path} does not exist at the set's commit")
        texts[path] = text
    for symbol in case.get("gold_symbols") or []:
        path, sep, name = symbol.rpartition("::")
        if not sep or not path or not name:
            problems.append(f"{cid}: gold symbol {symbol!r} is not 'path::name'")
        elif path not in texts:
            problems.append(f"{cid}: gold symbol {symbol} is in a file that is not a gold file")
        elif texts[path] is not None and not definition_pattern(name).search(texts[path]):
            problems.append(f"{cid}: {path} does not define {name}")
    return problems


def check_set(app: dict[str, Any], corpora: list[Path]) -> tuple[list[str], str]:
    """All problems of one app's set, and a one-line summary of it."""
    name = app.get("app", "?")
    git_dir = find_git_dir(app.get("repo", ""), corpora)
    if git_dir is None:
        return [f"{name}: no checkout of {app.get('repo')!r} under {', '.join(map(str, corpora))}"], ""
    commit = app.get("commit", "")
    if subprocess.run(["git", "-C", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
                      capture_output=True, check=False).returncode != 0:
        return [f"{name}: commit {commit!r} is not in {git_dir} (fetch the repository again)"], ""
    cache: dict[str, str | None] = {}

    def read(path: str) -> str | None:
        if path not in cache:
            cache[path] = file_at(git_dir, commit, path)
        return cache[path]

    cases = app.get("cases") or []
    problems = [f"{name}: case id {i} is used {n} times" for i, n in Counter(c.get("id") for c in cases).items()
                if n > 1]
    for case in cases:
        problems += check_case(case, read)
    splits = Counter(c.get("split") for c in cases)
    golds = {p for c in cases for p in c.get("gold_files") or []}
    outside = sorted(p for p in golds if not p.endswith(CODE_SUFFIXES))
    summary = (f"{name} @ {commit[:10]}: {len(cases)} cases ({', '.join(f'{s} {n}' for s, n in splits.items())}), "
               f"{len(golds)} gold files, {sum(len(c.get('gold_symbols') or []) for c in cases)} gold symbols")
    if outside:
        summary += f"; not seen by whole-file BM25 (suffix): {', '.join(outside)}"
    return problems, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("requests", type=Path, nargs="+", help="request set files (data/requests_*.json)")
    parser.add_argument("--corpora", type=Path, nargs="*", default=DEFAULT_CORPORA,
                        help="folders holding the repositories as <name>/ or <owner>+<name>/repo")
    args = parser.parse_args()
    problems = []
    for path in args.requests:
        try:
            sets = load_sets(path)
        except (OSError, ValueError) as exc:
            problems.append(f"{path}: cannot be read as JSON ({exc})")
            continue
        for app in sets:
            found, summary = check_set(app, args.corpora)
            problems += [f"{path.name}: {p}" for p in found]
            if summary:
                print(summary)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(problems)} problem(s)" if problems else "all golds exist at their commits and define their symbols")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
