"""Evaluation set (a): real fix histories → the non-test source files each fix changed.

Why: the fixture projects were written by us and reward whatever we tuned on them. A
commit's message is what its author knew before writing the fix (often the issue it
closes), and the files it modified are the files an agent should have been pointed
at. The tree at the commit's parent is what a user's index held at that moment.

    python benchmarks/history_cases.py --out benchmarks/data/history_cases.json \\
        /work/corpora/click /work/corpora/flask ...

Each positional argument is a git checkout (or bare git dir) of a public repository;
its directory name is the repository's short name. The cases are written as JSON,
each tagged ``tune`` or ``heldout`` by a seeded shuffle within its repository, so the
same history always yields the same split.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

SEED = 18

WANTED = re.compile(
    r"\b(fix|fixes|fixed|bug|add|adds|added|support|allow|implement|handle|preserve|validate|warn|"
    r"close|closes|resolve|respect|prevent|avoid|ensure|raise|error|crash|wrong|incorrect|"
    r"correct|don't|do not|should|when|honou?r)\b",
    re.IGNORECASE,
)
UNWANTED = re.compile(
    r"typing|type annotation|type hint|type ignore|typed|mypy|pyright|ruff|flake8|black|isort|typo|"
    r"\bdocs?\b|documentation|docstring|changelog|changes\.rst|refactor|cleanup|clean up|\btests?\b|"
    r"lint|bump|release|version \d|merge|pre-commit|\bci\b|flaky|readme|annotations|deprecations|"
    r"copyright|license|revert|dependabot|update dependencies|requirements|coverage|py2|python 2",
    re.IGNORECASE,
)
TRAILER = re.compile(r"^(co-authored-by|signed-off-by|reviewed-by|cc):.*$", re.IGNORECASE | re.MULTILINE)
VERSION_FILE = re.compile(r"(^|/)(__version__|__about__|_version|version)\.py$")
NON_SOURCE_DIRS = ("tests/", "test/", "testing/", "docs/", "doc/", "examples/", "example/", "scripts/",
                   "benchmarks/", ".github/", "artwork/")


@dataclass(frozen=True)
class Case:
    """One request: the commit text is the query, the modified source files are gold."""

    repo: str
    sha: str
    parent: str
    date: str
    query: str
    gold: list[str]
    split: str


def is_source(path: str) -> bool:
    """A non-test Python module: what an agent localising a bug should be pointed at."""
    name = path.rsplit("/", 1)[-1]
    return (path.endswith(".py") and not path.startswith(NON_SOURCE_DIRS)
            and "/tests/" not in path and "/test/" not in path
            and not name.startswith("test_") and not name.endswith("_test.py") and name != "conftest.py"
            and name not in ("setup.py", "noxfile.py", "conftest.py"))


def git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(git_dir), *args], capture_output=True, text=True,
                          check=True).stdout


def clean_message(message: str) -> str:
    """The request text: the commit message without trailers and PR/issue numbers."""
    text = TRAILER.sub("", message)
    text = re.sub(r"\(#\d+\)|(?<!\w)#\d+", "", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def cases_for(git_dir: Path, per_repo: int, scan: int) -> list[Case]:
    """The newest ``per_repo`` qualifying commits in the last ``scan``, oldest first."""
    repo = git_dir.name.removesuffix(".git")
    log = git(git_dir, "log", "--no-merges", f"-n{scan}", "--format=%x00%H %P%x01%cI%x01%B")
    picked: list[Case] = []
    for entry in log.split("\x00")[1:]:
        head, date, message = entry.split("\x01", 2)
        shas = head.split()
        subject = message.strip().splitlines()[0] if message.strip() else ""
        if len(shas) != 2 or not WANTED.search(subject) or UNWANTED.search(subject):
            continue
        sha, parent = shas
        status = git(git_dir, "diff-tree", "--no-commit-id", "-r", "--name-status", "-M", parent, sha)
        rows = [line.split("\t") for line in status.splitlines() if line]
        source = [r for r in rows if is_source(r[-1])]
        gold = [r[1] for r in source if r[0] == "M" and not VERSION_FILE.search(r[1])]
        source = [r for r in source if not VERSION_FILE.search(r[-1])]
        # a fix that only adds or renames modules gives nothing to find at the parent
        if not 1 <= len(gold) <= 4 or len(source) != len(gold):
            continue
        query = clean_message(message)
        if len(query) < 15:
            continue
        picked.append(Case(repo, sha, parent, date, query, sorted(gold), ""))
        if len(picked) >= per_repo:
            break
    picked.reverse()
    order = list(range(len(picked)))
    random.Random(f"{SEED}:{repo}").shuffle(order)
    tune = set(order[: len(order) // 2])
    return [Case(**{**asdict(c), "split": "tune" if i in tune else "heldout"}) for i, c in enumerate(picked)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repos", nargs="+", type=Path, help="git checkouts, one per repository")
    parser.add_argument("--per-repo", type=int, default=40)
    parser.add_argument("--scan", type=int, default=3000, help="how many recent commits to look through")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    missing = [str(r) for r in args.repos if not (r / ".git").exists() and not (r / "HEAD").exists()]
    if missing:
        print(f"not a git repository: {', '.join(missing)} (clone each repository first)", file=sys.stderr)
        return 2
    cases = [c for r in args.repos for c in cases_for(r, args.per_repo, args.scan)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps([asdict(c) for c in cases], indent=1, ensure_ascii=False) + "\n")
    by_repo: dict[str, int] = {}
    for c in cases:
        by_repo[c.repo] = by_repo.get(c.repo, 0) + 1
    print(f"{len(cases)} cases → {args.out}: " + ", ".join(f"{k} {v}" for k, v in by_repo.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
