"""Precision and recall of the Laravel / Filament extraction on real applications.

For each app the gold list (`benchmarks/data/laravel_gold/<app>.json`, facts checked by
reading the app's code at the recorded commit) is compared with what the indexer's
strategies extract from the same files (real tree-sitter grammars, `analyze_source`),
kind by kind:

  filament_item   (file, section, kind, component, name)  fields/columns/filters/
                  constraints/actions/entries of forms, tables, infolists, actions
  filament_link   (class, role, resource)                 schema classes, relation
                  managers, pages -> their resource
  resource_part   (resource, part, target)                relation managers, pages,
                  delegated schema classes of a resource
  route           (name-or-"METHODS uri", methods, uri, action)
  route_ref       (file, line, route name)                route()/to_route()/... uses
  model_table     (model class, table)
  schema_table    (table, column names)                   schema dump tables
  view_ref        (file, line, view)                      view()/@extends/@include/...
  component       (file, line, tag, target)               <x-...> -> components.view | external

Usage:
  python benchmarks/laravel_bench.py APP=PATH [APP=PATH ...]
e.g.
  python benchmarks/laravel_bench.py filament-demo=/work/corpora/filament-demo \\
      laravelio=/work/corpora/laravelio

Get the apps at the commits recorded in the gold files:
  git clone https://github.com/filamentphp/demo filament-demo && git -C filament-demo checkout <commit>
  git clone https://github.com/laravelio/laravel.io laravelio && git -C laravelio checkout <commit>
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.model import FileAnalysis

GOLD_DIR = Path(__file__).parent / "data" / "laravel_gold"
ITEM_KINDS = ("fields", "columns", "filters", "constraints", "actions", "entries")
KINDS = (
    "filament_item",
    "filament_link",
    "resource_part",
    "route",
    "route_ref",
    "model_table",
    "schema_table",
    "view_ref",
    "component",
)
# Where an app's own code lives (vendor, storage, public and build output are not it).
APP_DIRS = ("app", "resources", "routes", "tests", "database", "config")


def app_files(root: Path) -> Iterable[tuple[str, Path]]:
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not rel.parts or rel.parts[0] not in APP_DIRS or not path.is_file():
            continue
        if path.suffix in (".php", ".sql"):
            yield rel.as_posix(), path


def extract(root: Path) -> dict[str, set[tuple]]:
    """What the indexer extracts, as comparable tuples per kind."""
    out: dict[str, set[tuple]] = {k: set() for k in KINDS}
    for rel, path in app_files(root):
        if rel.endswith(".sql") and not rel.startswith("database/schema/"):
            continue
        analysis = analyze_source(rel, path.read_bytes())
        _collect(rel, analysis, out)
    return out


def _first_chunks(analysis: FileAnalysis) -> list:
    """One chunk per symbol: an oversized chunk is split, each part repeats metadata."""
    seen: set[tuple[str, str]] = set()
    out = []
    for c in analysis.chunks:
        key = (c.symbol_type, c.metadata.get("qualified_name") or c.symbol_name)
        if "split" in c.metadata and key in seen:
            continue
        seen.add(key)
        out.append(c)
    return out


def _collect(rel: str, analysis: FileAnalysis, out: dict[str, set[tuple]]) -> None:
    lang = analysis.language
    for c in analysis.chunks:  # each part of a split code block holds its own routes
        for route in c.metadata.get("route_definitions", []):
            label = route["name"] or f"{'|'.join(route['methods'])} {route['uri']}"
            action = route.get("action") or route.get("view") or route.get("action_type")
            out["route"].add((label, "|".join(route["methods"]), route["uri"], action))
    for c in _first_chunks(analysis):
        m = c.metadata
        section = m.get("filament")
        if section in ("form", "table", "infolist", "actions"):
            for kind in ITEM_KINDS:
                for item in m.get(kind, []):
                    out["filament_item"].add(
                        (rel, c.symbol_name, kind, item["component"], item.get("name"))
                    )
            if m.get("delegates_to") and m.get("resource"):
                out["resource_part"].add((m["resource"], section, m["delegates_to"]))
        elif section in ("schema", "relation_manager", "page") and m.get("resource"):
            out["filament_link"].add((m["fqcn"], section, m["resource"]))
        elif section == "relations":
            for rm in m.get("relations", []):
                out["resource_part"].add((m["resource"], "relation", rm))
        elif section == "pages":
            for page in m.get("pages", []):
                out["resource_part"].add((m["resource"], "page", page["page"]))
        if c.symbol_type == "class" and "table" in m and m.get("fqcn"):
            out["model_table"].add((m["fqcn"], m["table"]))
        if c.symbol_type == "table_schema" and m.get("source") == "schema_dump":
            out["schema_table"].add((m["table"], tuple(col["name"] for col in m["columns"])))
        for tag in m.get("external_components", []) if c.symbol_type == "view" else []:
            out["component"].add((rel, None, tag, "external"))
    for r in analysis.references:
        name = r.name
        if lang == "blade" and name.startswith("components."):
            out["component"].add((rel, r.start_line, "x-" + name[len("components.") :], name))


# The call a string literal is passed to, read back from the text before the reference:
# route names and view names share one reference namespace with other names, so the
# bench tells a route use from a view use by the call around it.
_CONTEXT = {
    "route": re.compile(r"(?:\broute|\bto_route|->route|Route::has|Route::is)\(\s*['\"]$"),
    "view": re.compile(
        r"(?:(?:\bview|View::make|View::first|->view|->layout|->extends|->markdown"
        r"|@extends|@include|@includeIf|@each|@component|#\[Layout)\(\s*['\"]"
        r"|(?:Route::view|@includeWhen|@includeUnless)\(.*,\s*['\"])$"
    ),
}


def reference_tuples(root: Path) -> dict[str, set[tuple]]:
    """(file, line, name) of the references the extractor put inside the string passed
    to a route call or a view call."""
    found: dict[str, set[tuple]] = {k: set() for k in _CONTEXT}
    for rel, path in app_files(root):
        if rel.endswith(".sql"):
            continue
        data = path.read_bytes()
        lines = data.decode("utf-8", errors="replace").splitlines()
        for r in analyze_source(rel, data).references:
            line = lines[r.start_line] if r.start_line < len(lines) else ""
            if line[r.start_character : r.end_character] != r.name:
                continue
            for kind, context in _CONTEXT.items():
                if context.search(line[: r.start_character]):
                    found[kind].add((rel, r.start_line, r.name))
    return found


def score(gold: set[tuple], got: set[tuple]) -> tuple[int, int, int, float, float]:
    tp = len(gold & got)
    precision = tp / len(got) if got else 1.0
    recall = tp / len(gold) if gold else 1.0
    return tp, len(got), len(gold), precision, recall


def as_tuples(rows: list[list]) -> set[tuple]:
    return {tuple(tuple(x) if isinstance(x, list) else x for x in row) for row in rows}


def main(argv: list[str]) -> int:
    apps = []
    for arg in argv:
        name, sep, path = arg.partition("=")
        root = Path(path)
        if not sep or not root.is_dir():
            print(f"error: expected APP=PATH with an existing directory, got {arg!r}")
            return 2
        gold_file = GOLD_DIR / f"{name}.json"
        if not gold_file.is_file():
            print(f"error: no gold list {gold_file} for app {name!r}")
            return 2
        apps.append((name, root, json.loads(gold_file.read_text())))
    if not apps:
        print(__doc__)
        return 2
    print(f"{'app':<14}{'kind':<15}{'tp':>5}{'got':>6}{'gold':>6}{'precision':>11}{'recall':>8}")
    worst = 1.0
    for name, root, gold_data in apps:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            check=False,
            capture_output=True,
            text=True,
        ).stdout.strip()
        if head and head != gold_data["commit"]:
            print(f"warning: {name} is at {head}, the gold list is for {gold_data['commit']}")
        got = extract(root)
        gold_kinds = gold_data["kinds"]
        refs = reference_tuples(root)
        got["route_ref"], got["view_ref"] = refs["route"], refs["view"]
        for kind in KINDS:
            gold = as_tuples(gold_kinds.get(kind, []))
            if not gold and not got[kind]:
                continue
            tp, n_got, n_gold, p, r = score(gold, got[kind])
            worst = min(worst, p, r)
            print(f"{name:<14}{kind:<15}{tp:>5}{n_got:>6}{n_gold:>6}{p:>10.1%}{r:>8.1%}")
            if "-v" in sys.argv:
                for t in sorted(gold - got[kind], key=str)[:15]:
                    print("    missed", t)
                for t in sorted(got[kind] - gold, key=str)[:15]:
                    print("    extra ", t)
    print(f"lowest precision/recall: {worst:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main([a for a in sys.argv[1:] if a != "-v"]))
