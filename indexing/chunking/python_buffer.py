"""An open Python buffer, re-analysed statement by statement.

A definition request after a keystroke needs the buffer's definitions and imports.
Analysing the whole file again costs a definitions query over every node, the
nested-imports query and the docstring and signature of every definition, although
an edit touches one or two top-level statements. Everything this analysis extracts
from a top-level statement depends on that statement's own bytes only (and the
module name): so each statement's part is kept under its text, and after an edit
only the statements whose text is new, or that tree-sitter reports as structurally
changed (`Tree.changed_ranges`), are read again. The parts of the others move by
whole lines. The file-wide rules are then applied to the parts in file order
exactly as the full analysis applies them (imports: file-level ones first, then
nested ones where no file-level one binds the name; `self.x` fields). The
result equals `analyze(doc, settings, lazy=True)` of the same text; the unit tests
compare the two after random edits of a real file.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

import tree_sitter

from ..languages import query
from ..model import FileAnalysis, Position, Range, Symbol
from ..source import SourceDocument
from .base import ChunkSettings, TreeSitterStrategy, _Def, new_analysis

if TYPE_CHECKING:
    from .python import PythonStrategy

_IMPORT_TYPES = ("import_statement", "import_from_statement")
# its own query (limited to the statements it reads; the whole-file pass finds them
# its own way)
_IMPORTS_QUERY = "[(import_statement) (import_from_statement)] @import"


@dataclass(frozen=True, slots=True)
class Statement:
    """What one top-level statement contributes, with positions as of `row`."""

    row: int
    symbols: tuple[Symbol, ...]
    self_fields: tuple[bool, ...]
    imports: tuple[tuple[str, str], ...]  # a file-level import statement's bindings
    nested: tuple[tuple[str, str], ...]  # imports inside it, in file order

    def at(self, row: int) -> Statement:
        if row == self.row:
            return self
        delta = row - self.row
        return Statement(row, tuple([_shift(s, delta) for s in self.symbols]), self.self_fields,
                         self.imports, self.nested)


# A statement's node type, start column, whether it holds a syntax error, and its bytes
# from the start of its first line (UTF-16 columns depend on them) to its end.
Key = tuple[str, int, bool, bytes]
StatementMemo = dict[Key, Statement]


def analyze_buffer(
    strategy: PythonStrategy,
    doc: SourceDocument,
    settings: ChunkSettings,
    memo: StatementMemo | None,
    changed: list[tuple[int, int]],
) -> tuple[FileAnalysis, StatementMemo]:
    """The lazy analysis of `doc` (symbols, imports, syntax errors now; references and
    chunks when asked) and the memo for the next edit. `memo` holds the previous
    analysis' statements; `changed` the byte ranges tree-sitter reports changed
    since that tree (both empty on a first analysis)."""
    from .python import module_name  # late: python.py imports this module

    assert doc.tree is not None, "a buffer's analysis needs its tree"
    root = doc.tree.root_node
    data = doc.data
    starts = doc.line_starts
    module = module_name(doc.path)
    prefix = module or None
    memo = memo or {}

    statements = root.named_children
    span = (min(lo for lo, _ in changed), max(hi for _, hi in changed)) if changed else None
    parts: list[Statement | None] = []
    keys: list[Key] = []
    missing: list[int] = []
    for i, node in enumerate(statements):
        row, column = node.start_point
        key = (node.type, column, node.has_error, data[starts[row] : node.end_byte])
        keys.append(key)
        known = memo.get(key)
        if known is not None and not _touches(node, changed, span):
            parts.append(known.at(row))
        else:
            parts.append(None)
            missing.append(i)
    for run in _runs(missing):  # one query per run of adjacent statements
        _read(strategy, doc, root, [statements[i] for i in run], run, parts, module, prefix)

    analysis = new_analysis(doc, strategy.grammar_name, root)
    symbols: list[Symbol] = []
    self_fields: list[bool] = []
    next_memo: StatementMemo = {}
    for key, part in zip(keys, parts, strict=True):
        assert part is not None
        next_memo[key] = part
        symbols.extend(part.symbols)
        self_fields.extend(part.self_fields)
        analysis.imports.update(part.imports)
    for part in parts:
        for alias, target in part.nested:  # type: ignore[union-attr]
            analysis.imports.setdefault(alias, target)
    kept = _place_self_fields(symbols, self_fields)
    analysis.symbols = symbols if kept is None else [s for _, s in kept]

    def references() -> list:
        return strategy._references(doc, root, strategy._definitions(doc, root, prefix))

    analysis.pending_references = references
    analysis.pending_chunks = lambda: strategy.analyze(doc, settings)
    return analysis, next_memo


def _read(
    strategy: PythonStrategy,
    doc: SourceDocument,
    root: tree_sitter.Node,
    nodes: list[tree_sitter.Node],
    indexes: list[int],
    parts: list[Statement | None],
    module: str,
    prefix: str | None,
) -> None:
    """Analyse the statements `nodes` (top-level, in file order) into `parts[indexes]`:
    one definitions query and one nested-imports query over the span they cover."""
    from .python import _imports as imports_of
    from .python import _is_self_field

    lo, hi = nodes[0].start_byte, nodes[-1].end_byte
    bounds = [n.start_byte for n in nodes]

    def owner(node: tree_sitter.Node) -> int | None:
        """Position in `nodes` of the statement holding `node`, if it is one of them."""
        k = bisect_right(bounds, node.start_byte) - 1
        if k >= 0 and node.end_byte <= nodes[k].end_byte:
            return k
        return None

    defs = _span_definitions(strategy, doc, root, lo, hi, prefix)
    symbols: list[list[Symbol]] = [[] for _ in nodes]
    fields: list[list[bool]] = [[] for _ in nodes]
    for d in defs:
        k = owner(d.node)
        if k is not None:
            symbols[k].append(d.symbol)
            fields[k].append(_is_self_field(d))

    nested: list[list[tuple[str, str]]] = [[] for _ in nodes]
    cursor = tree_sitter.QueryCursor(query(strategy.grammar_name, _IMPORTS_QUERY))
    cursor.set_byte_range(lo, hi)
    found = sorted(cursor.captures(root).get("import", ()), key=lambda n: n.start_byte)
    for node in found:
        if node.parent is not None and node.parent.type != "module":
            k = owner(node)
            if k is not None:
                nested[k].extend(imports_of(doc, node, module, doc.path).items())

    for k, node in enumerate(nodes):
        top = tuple(imports_of(doc, node, module, doc.path).items()) if node.type in _IMPORT_TYPES else ()
        parts[indexes[k]] = Statement(node.start_point[0], tuple(symbols[k]), tuple(fields[k]),
                                      top, tuple(nested[k]))


def _span_definitions(
    strategy: PythonStrategy, doc: SourceDocument, root: tree_sitter.Node, lo: int, hi: int,
    prefix: str | None,
) -> list[_Def]:
    """The base definitions pass, before the file-wide `self.x` rule, limited to
    the statements in bytes lo..hi."""
    return TreeSitterStrategy._definitions(strategy, doc, root, prefix, span=(lo, hi))


def _place_self_fields(symbols: list[Symbol], self_fields: list[bool]) -> list[tuple[int, Symbol]] | None:
    from .python import place_self_fields

    return place_self_fields(symbols, self_fields)


def _runs(indexes: list[int]) -> list[list[int]]:
    """Ascending indexes split where they are not consecutive: [1, 2, 5] -> [[1, 2], [5]]."""
    runs: list[list[int]] = []
    for i in indexes:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _touches(node: tree_sitter.Node, changed: list[tuple[int, int]], span: tuple[int, int] | None) -> bool:
    """Whether `node` overlaps a changed range (`span` bounds them all)."""
    if span is None:
        return False
    start, end = node.start_byte, node.end_byte
    if end < span[0] or start > span[1]:
        return False
    return any(start <= hi and lo <= end for lo, hi in changed)


def _shift(s: Symbol, delta: int) -> Symbol:
    """`s` moved down `delta` lines (a statement's whole lines move: columns stay)."""
    r, sr = s.range, s.selection_range
    return Symbol(
        s.name, s.kind,
        Range(Position(r.start.line + delta, r.start.character), Position(r.end.line + delta, r.end.character)),
        Range(Position(sr.start.line + delta, sr.start.character), Position(sr.end.line + delta, sr.end.character)),
        s.qualified_name, s.container, s.signature, s.doc,
    )
