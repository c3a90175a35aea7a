"""Index output of real corpora, written before a chunker refactoring and compared
after it: symbols, references, chunks and imports must stay the same to the byte.

    .venv/bin/python benchmarks/chunking_snapshot.py write /tmp/before.pickle CORPUS...
    (change the chunkers)
    .venv/bin/python benchmarks/chunking_snapshot.py compare /tmp/before.pickle CORPUS...

Every file the indexer would index (its discovery and default config) goes through
`sync.analyze_bytes`, the function the parser workers run, so the rows compared are
the rows the store receives. Corpora used for issue 13's item 6 (any checkout works):
/work/corpora/{click,ky,laravelio,filament-demo} (see the README), go-chi/chi and
spring-projects/spring-petclinic (`git clone https://github.com/…`), tests/fixtures.
References are compared decoded, one tuple per occurrence in position order, so a
snapshot of the one-row-per-occurrence store (schema 3) checks the packed rows of
schema 4 (issue 13's item 4 used sympy/core+printing, laravel/framework src/, click,
ky, laravelio and tests/fixtures).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.config import Config
from code_intel.indexing.discovery import discover
from code_intel.indexing.store import split_containers, unpack_references
from code_intel.indexing.sync import analyze_bytes


def snapshot(corpora: list[Path]) -> dict[str, tuple]:
    """`corpus/path` → the rows the store would get for it."""
    settings = ChunkSettings()
    rows: dict[str, tuple] = {}
    for corpus in corpora:
        root = corpus.resolve()
        for rel in sorted(discover(root, Config()).files):
            r = analyze_bytes(rel, (root / rel).read_bytes(), settings).rows
            rows[f"{root.name}/{rel}"] = (
                r.language, r.syntax_errors, r.notes, r.symbols, flat_references(r.refs, r.ref_containers),
                r.chunks, r.imports
            )
    return rows


def flat_references(rows: list[tuple], containers: str = "") -> list[tuple]:
    """(path, name, sl, sc, el, ec, container) per occurrence, in position order: the
    store's packed rows decoded with the file's `containers` (snapshots hold these
    tuples already, as did the one-row-per-occurrence format), so both formats compare."""
    numbered = split_containers(containers)
    flat = [
        (row[0], *ref)
        for row in rows
        for ref in ([row[1:]] if len(row) == 7 else unpack_references(*row[1:], numbered))
    ]
    return sorted(flat, key=lambda t: (t[2], t[3], t[4], t[5], t[1], t[6] or ""))


def compare(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """One line per file whose rows differ (the first differing part named)."""
    parts = ("language", "syntax_errors", "notes", "symbols", "references", "chunks", "imports")
    problems = [f"{p}: only before" for p in sorted(before.keys() - after.keys())]
    problems += [f"{p}: only after" for p in sorted(after.keys() - before.keys())]
    for path in sorted(before.keys() & after.keys()):
        old_rows, new_rows = list(before[path]), list(after[path])
        old_rows[4], new_rows[4] = flat_references(old_rows[4]), flat_references(new_rows[4])
        for name, old, new in zip(parts, old_rows, new_rows, strict=True):
            if old != new:
                detail = ""
                if isinstance(old, list) and isinstance(new, list):
                    at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
                    detail = f" (row {at}: {old[at]!r} → {new[at]!r})" if at is not None else (
                        f" ({len(old)} rows → {len(new)})"
                    )
                problems.append(f"{path}: {name} differ{detail}")
                break
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["write", "compare"])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("corpora", type=Path, nargs="+")
    args = parser.parse_args()
    missing = [str(c) for c in args.corpora if not c.is_dir()]
    if missing:
        parser.error(f"not a directory: {', '.join(missing)}")
    rows = snapshot(args.corpora)
    counts = [sum(len(r[i]) for r in rows.values()) for i in (3, 4, 5)]
    summary = f"{len(rows)} files, {counts[0]} symbols, {counts[1]} references, {counts[2]} chunks"
    if args.mode == "write":
        args.snapshot.write_bytes(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))
        print(f"wrote {args.snapshot}: {summary}")
        return 0
    if not args.snapshot.is_file():
        parser.error(f"no snapshot at {args.snapshot}: run `write` first")
    problems = compare(pickle.loads(args.snapshot.read_bytes()), rows)
    print(f"compared {summary}: {'identical' if not problems else f'{len(problems)} files differ'}")
    for line in problems[:50]:
        print("  " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
