"""The compiled reference pass (`native/refscan.c`), used only where it is safe.

The extension links its own copy of tree-sitter's runtime and reads py-tree-sitter's
`Node` objects by their C layout, so it runs only when the installed binding is the
version it was vendored from and the root is a real `tree_sitter.Node`. Anything else
(no compiler at install time, another tree-sitter, a query predicate the C side does
not evaluate) returns None and the caller runs the Python loop: same output, slower.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import tree_sitter

from ..model import REFERENCE_CONTAINER_SEP, PackedReferences, Reference

try:
    from .. import _refscan  # type: ignore[attr-defined]
except ImportError:  # not built (optional extension): the Python pass runs
    _refscan = None

AVAILABLE = _refscan is not None and tree_sitter.__version__ == _refscan.TREE_SITTER_VERSION

# `[(identifier) (type_identifier)] @reference`: nothing but node types, found by a
# plain tree walk in C (several times faster than the query engine); any other
# query runs on tree-sitter's query engine inside the extension.
_NODE_TYPES = re.compile(r"\s*\[?\s*(?:\(\w+\)\s*)+\]?\s*@\w+\s*")
_queries: dict[tuple[str, str], Any] = {}  # (grammar, query source) -> handle or None
_lock = threading.Lock()


_TOKEN = re.compile(
    r'\s*(?:(?P<open>\()|(?P<close>\))|(?P<capture>@[\w.]+)|(?P<field>\w+):'
    r'|(?P<anchor>\.)|(?P<pred>#[\w?!-]+)|"(?P<text>[^"\\]*)"|(?P<word>\w+)|(?P<other>\S))'
)


class _Unsupported(ValueError):
    """The query uses more than single-path patterns: the query engine runs it."""


def single_path_rules(source: str) -> list[tuple[list[tuple[str, str | None, bool]], list[tuple[bool, str]]]]:
    """`(P field: (Q (name) @ref (#not-eq? @ref "class")))` patterns as (levels from
    the captured node up as (type, field in its parent, anchored first), predicates
    on the captured node as (positive, text)). Raises `_Unsupported` for anything
    else (sibling children, alternations, quantifiers, wildcards, other predicates,
    a capture not on the innermost node)."""
    tokens = [(m.lastgroup, m.group(m.lastgroup)) for m in _TOKEN.finditer(source) if m.lastgroup]
    pos = 0

    def take(kind: str) -> str:
        nonlocal pos
        if pos >= len(tokens) or tokens[pos][0] != kind:
            raise _Unsupported(source)
        pos += 1
        return tokens[pos - 1][1]

    def peek() -> str | None:
        return tokens[pos][0] if pos < len(tokens) else None

    def node() -> tuple[list[tuple[str, str | None, bool]], list[tuple[bool, str]], str | None]:
        """levels (innermost first; the last is this node), predicates, capture name."""
        take("open")
        kind = take("word")
        child: tuple[list, list, str | None] | None = None
        preds: list[tuple[bool, str]] = []
        while peek() != "close":
            if peek() == "open" and pos + 1 < len(tokens) and tokens[pos + 1][0] == "pred":
                take("open")
                op = take("pred")
                if op not in ("#eq?", "#not-eq?"):
                    raise _Unsupported(source)
                capture = take("capture")
                preds.append((op == "#eq?", take("text")))
                take("close")
                preds_capture.append(capture)
                continue
            if child is not None:
                raise _Unsupported(source)
            field = take("field") if peek() == "field" else None
            anchored = peek() == "anchor"
            if anchored:
                take("anchor")
            levels, inner_preds, capture = node()
            levels[-1] = (levels[-1][0], field, anchored)
            child = (levels, inner_preds, capture)
        take("close")
        capture = take("capture") if peek() == "capture" else None
        if child is None:
            return [(kind, None, False)], preds, capture
        levels, inner_preds, inner_capture = child
        if capture is not None or inner_capture is None:
            raise _Unsupported(source)  # the capture must be the innermost node
        return [*levels, (kind, None, False)], inner_preds + preds, inner_capture

    rules = []
    while pos < len(tokens):
        preds_capture: list[str] = []
        levels, preds, capture = node()
        if capture is None or any(c != capture for c in preds_capture):
            raise _Unsupported(source)
        rules.append((levels, preds))
    return rules


def _compiled(root: tree_sitter.Node, grammar_name: str, source: str) -> Any:
    key = (grammar_name, source)
    try:
        return _queries[key]
    except KeyError:
        pass
    with _lock:
        if key not in _queries:
            if _NODE_TYPES.fullmatch(source):
                kinds = re.findall(r"\((\w+)\)", source)
                _queries[key] = _refscan.compile_kinds(root, kinds)  # type: ignore[union-attr]
            else:
                try:
                    rules = single_path_rules(source)
                except _Unsupported:
                    _queries[key] = _refscan.compile(root, source)  # type: ignore[union-attr]
                else:
                    _queries[key] = _refscan.compile_rules(root, rules)  # type: ignore[union-attr]
        return _queries[key]


def kinds_handle(root: tree_sitter.Node, grammar_name: str, query_source: str) -> Any:
    """The compiled handle of a reference query that only names node types (a tree walk
    finds them), which the definitions walk can record on its way (`defscan`); None
    for any other query or where the extension cannot run here."""
    if not AVAILABLE or type(root) is not tree_sitter.Node or not _NODE_TYPES.fullmatch(query_source):
        return None
    return _compiled(root, grammar_name, query_source)


#: A reference without a container, appended after the scanned ones: (name, start line,
#: start column, end line, end column).
Extra = tuple[str, int, int, int, int]


def scan(
    root: tree_sitter.Node,
    grammar_name: str,
    query_source: str,
    data: bytes,
    name_starts: list[int],
    defs: tuple[list[int], list[int], list[str]],
    sigil: bool,
    utf16: Callable[[int, int], int] | None,
    found: Any = None,
    pack: tuple[str, list[Extra]] | None = None,
) -> list[Reference] | PackedReferences | None:
    """The file's references from the compiled pass, or None where it cannot run.
    `name_starts`: sorted start bytes of definition names; `defs`: the definitions'
    start bytes, end bytes and qualified names, in list order; `found`: the query's
    nodes in this tree as the definitions walk recorded them (`defscan`), instead of a
    walk of its own. `pack` (path, extras): instead, `store.pack_references`'s rows and
    containers of the references followed by the extras, without a Reference per occurrence."""
    if not AVAILABLE or type(root) is not tree_sitter.Node:
        return None
    handle = _compiled(root, grammar_name, query_source)
    if handle is None:
        return None
    starts, ends, containers = defs
    if pack is not None:
        return _refscan.scan(  # type: ignore[union-attr]
            root, handle, data, name_starts, starts, ends, containers, sigil, utf16, Reference, found,
            pack[0], pack[1], REFERENCE_CONTAINER_SEP,
        )
    return _refscan.scan(  # type: ignore[union-attr]
        root, handle, data, name_starts, starts, ends, containers, sigil, utf16, Reference, found
    )


#: A rule for `rule_spans`: levels from the captured node up as (type, field in its
#: parent, anchored first), predicates on the captured node as (positive, text), then
#: optionally a check and an emit sibling test on the top level's node, each
#: (field, type, named) or None, and a name set: the captured node's text must be one
#: of these bytes, or None (see `Rule` in native/refscan.c).
_Levels = list[tuple[str, str | None, bool]]
_Sibling = tuple[str, str, bool] | None
SpanRule = (
    tuple[_Levels, list[tuple[bool, str]], _Sibling, _Sibling]
    | tuple[_Levels, list[tuple[bool, str]], _Sibling, _Sibling, frozenset[bytes] | None]
)


def rule_spans(
    root: tree_sitter.Node, grammar_name: str, name: str, rules: list[SpanRule]
) -> list[tuple[int, int, int]] | None:
    """(start byte, end byte, rule index) of every node the `rules` yield in the tree, by
    start byte: one compiled walk, where the query engine matching the same patterns
    costs several times more. `name` keys the compiled rules (once per grammar). None
    where the extension cannot run here (the caller runs its query instead)."""
    if not AVAILABLE or type(root) is not tree_sitter.Node:
        return None
    key = (grammar_name, f"rules:{name}")
    handle = _queries.get(key)
    if handle is None:
        with _lock:
            if key not in _queries:
                _queries[key] = _refscan.compile_rules(root, rules)  # type: ignore[union-attr]
            handle = _queries[key]
    return _refscan.rule_spans(root, handle)  # type: ignore[union-attr]


#: Per span: (start byte, end byte, index of the deciding context or -1, that context's
#: node or None, the target node), or None when no target encloses the span.
Enclosing = tuple[int, int, int, tree_sitter.Node | None, tree_sitter.Node] | None


def enclosing(
    root: tree_sitter.Node,
    spans: list[tuple[int, int]],
    targets: tuple[str, ...],
    contexts: tuple[str, ...],
    max_up: int,
) -> list[Enclosing] | None:
    """For each byte span (lo, hi): the nearest node of a `targets` type at or above the
    smallest named node over it (as `named_descendant_for_byte_range` and `Node.parent`
    find it), and the first of its next `max_up` ancestors of a `contexts` type. One
    compiled descent from the root per span, where each `Node.parent` step is a descent
    of its own (native/enclosing.c). None where the extension cannot run here."""
    if not AVAILABLE or type(root) is not tree_sitter.Node:
        return None
    return _refscan.enclosing(  # type: ignore[union-attr]
        root, [lo for lo, _ in spans], [hi for _, hi in spans], targets, contexts, max_up
    )


#: One import statement: (start, end, 1 for `from ... import` else 0, module_name start,
#: end (-1, -1: none), [(1 for an aliased_import else 0, name start, end, alias start,
#: end (-1, -1 unless aliased))]): see native/pyimports.c
PythonImport = tuple[int, int, int, int, int, list[tuple[int, int, int, int, int]]]


def python_imports(
    root: tree_sitter.Node, data: bytes
) -> tuple[list[PythonImport], list[PythonImport], tuple[int, int]] | None:
    """A module's import statements (its own, then those nested in other statements)
    and its docstring's span, as the Python strategy reads them (native/pyimports.c),
    without a binding Node per statement and name. None where the extension cannot run
    here or a statement lacks a field (the strategy then asks the binding)."""
    if not AVAILABLE or type(root) is not tree_sitter.Node:
        return None
    return _refscan.python_imports(root, data)  # type: ignore[union-attr]


#: (kind, signature start, end, body start or -1, comment start, end, row, column):
#: see native/phpfacts.c
PhpFacts = tuple[int, int, int, int, int, int, int, int]


def php_facts(nodes: list[tree_sitter.Node]) -> list[PhpFacts] | None:
    """What the PHP strategy's signature and docstring hooks read of each definition
    node (native/phpfacts.c), in one call instead of a binding Node for its body and
    one for its previous sibling per definition. None where the extension cannot run
    here (the hooks then ask the binding)."""
    if not AVAILABLE or (nodes and type(nodes[0]) is not tree_sitter.Node):
        return None
    return _refscan.php_facts(nodes)  # type: ignore[union-attr]


def python_texts(nodes: list[tree_sitter.Node], data: bytes) -> list[tuple[str, str | None]] | None:
    """The Python strategy's (signature, docstring) of each definition node, made in one
    compiled call (native/pyfacts.c) from the same nodes and by the same rules as its
    `signature` and `docstring` hooks. None where the extension cannot run here (the
    hooks then run)."""
    if not AVAILABLE or (nodes and type(nodes[0]) is not tree_sitter.Node):
        return None
    return _refscan.python_texts(nodes, data)  # type: ignore[union-attr]
