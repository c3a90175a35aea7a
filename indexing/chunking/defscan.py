"""The definitions query matched by a compiled tree walk (`native/defscan.c`) instead of
tree-sitter's query engine, where the query's shape allows it.

Why: on a large Python tree the engine costs ~0.4x the parse for the definitions query,
nearly all of it its per-node walk. A pattern is supported when its definition node D
hangs under a single path of ancestors and everything below D is plain typed nodes,
fields and captures, with `#match?` / `#not-match?` on a capture below D. A query with
anything else (alternations, quantifiers, anchors, wildcards, strings, a name outside D,
other predicates) keeps the engine, as does a file where one pattern matches one D in
two ways (the walk answers None): same output either way.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

import tree_sitter

from . import refscan

_TOKEN = re.compile(
    r'\s*(?:(?P<open>\()|(?P<close>\))|(?P<capture>@[\w.]+)|(?P<field>\w+):'
    r'|(?P<pred>#[\w?!-]+)|"(?P<text>(?:[^"\\]|\\.)*)"|(?P<word>\w+)|(?P<other>\S))'
)


class Unsupported(ValueError):
    """A pattern the walk does not match: the engine runs the query."""


@dataclass
class _Node:
    type: str
    field_name: str | None = None
    named: bool = True  # False: a `"keyword"` step (an anonymous node)
    captures: list[str] = field(default_factory=list)
    kids: list[_Node] = field(default_factory=list)


@dataclass(frozen=True)
class Rule:
    """One pattern: `up` = (type, field in parent) from D upward; `down` = (type, field,
    parent index, slot, named) with D first (slot 0 the name, 1.. predicate captures);
    `preds` = (slot, regex, positive); `kind` the `definition.*` capture."""

    kind: str
    up: list[tuple[str, str | None]]
    down: list[tuple[str, str | None, int, int, bool]]
    preds: list[tuple[int, re.Pattern[str], bool]]


def parse_rules(source: str) -> list[Rule]:
    """The query's patterns as rules; raises `Unsupported` for any it cannot express.
    Patterns without both a `definition.*` and a `name` capture yield no definitions
    and are left out."""
    tokens = [(m.lastgroup, m.group(m.lastgroup)) for m in _TOKEN.finditer(source)
              if m.lastgroup]
    pos = 0
    preds: list[tuple[str, str, str]] = []  # (op, capture, regex)

    def peek(k: int = 0) -> str | None:
        return tokens[pos + k][0] if pos + k < len(tokens) else None

    def take(kind: str) -> str:
        nonlocal pos
        if peek() != kind:
            raise Unsupported(source)
        pos += 1
        return tokens[pos - 1][1]

    def predicate() -> None:
        take("open")
        op = take("pred")
        if op not in ("#match?", "#not-match?"):
            raise Unsupported(op)
        capture = take("capture")[1:]
        regex = take("text")
        if "\\" in regex:  # escapes would need the query syntax's unescaping
            raise Unsupported(regex)
        take("close")
        preds.append((op, capture, regex))

    def item() -> _Node:
        """A node, or a parenthesized group of one node with captures/predicates."""
        if peek() == "open" and peek(1) == "open":
            take("open")
            inner = item()
            while peek() == "open" and peek(1) == "pred":
                predicate()
            take("close")
            while peek() == "capture":
                inner.captures.append(take("capture")[1:])
            return inner
        take("open")
        node = _Node(take("word"))
        if node.type in ("_", "ERROR", "MISSING"):  # wildcard, error and missing steps
            raise Unsupported(node.type)
        while peek() != "close":
            if peek() == "open" and peek(1) == "pred":
                predicate()
                continue
            name = take("field") if peek() == "field" else None
            if peek() == "text":  # `"class" @name`: an anonymous node
                text = take("text")
                if "\\" in text:
                    raise Unsupported(text)
                kid = _Node(text, named=False)
                while peek() == "capture":
                    kid.captures.append(take("capture")[1:])
            else:
                kid = item()
            kid.field_name = name
            node.kids.append(kid)
        take("close")
        while peek() == "capture":
            node.captures.append(take("capture")[1:])
        return node

    rules = []
    while pos < len(tokens):
        preds = []
        top = item()
        while peek() == "open" and peek(1) == "pred":
            predicate()
        rule = _rule(top, preds, source)
        if rule is not None:
            rules.append(rule)
    return rules


def _rule(top: _Node, preds: list[tuple[str, str, str]], source: str) -> Rule | None:
    path = _path_to_definition(top, [])
    if path is None:
        return None
    d = path[-1]
    kinds = [c for c in d.captures if c.startswith("definition.")]
    if len(kinds) != 1:
        raise Unsupported(source)
    for ancestor in path[:-1]:
        if len(ancestor.kids) != 1:  # siblings of the path: the engine decides
            raise Unsupported(source)
    down: list[tuple[str, str | None, int, int, bool]] = []
    slots: dict[str, int] = {}
    pred_captures = [c for _, c, _ in preds]
    has_name = False

    def flatten(node: _Node, parent: int) -> None:
        nonlocal has_name
        slot = -1
        if "name" in node.captures:
            slot, has_name = 0, True
        wanted = [c for c in node.captures if c in pred_captures]
        if wanted:
            if slot == 0 or len(wanted) > 1:
                raise Unsupported(source)
            slot = slots.setdefault(wanted[0], len(slots) + 1)
        index = len(down)
        down.append((node.type, node.field_name if parent >= 0 else None, parent, slot, node.named))
        for kid in node.kids:
            flatten(kid, index)

    flatten(d, -1)
    if not has_name:
        if any("name" in n.captures for n in path[:-1]):
            raise Unsupported(source)  # a name above D
        return None
    if any(c not in slots for c in pred_captures) or len(down) > 16 or len(slots) > 7:
        raise Unsupported(source)
    up = [(n.type, n.field_name) for n in reversed(path)]
    if len(up) > 8:
        raise Unsupported(source)
    return Rule(
        kind=kinds[0],
        up=up,
        down=down,
        preds=[(slots[c], re.compile(rx), op == "#match?") for op, c, rx in preds],
    )


def _path_to_definition(node: _Node, above: list[_Node]) -> list[_Node] | None:
    """Nodes from the pattern's root down to the one captured `definition.*`."""
    here = [*above, node]
    if any(c.startswith("definition.") for c in node.captures):
        if any(_captures_definition(k) for k in node.kids):
            return None  # two definition captures: nothing the base pass reads twice
        return here
    for kid in node.kids:
        found = _path_to_definition(kid, here)
        if found is not None:
            return found
    return None


def _captures_definition(node: _Node) -> bool:
    return any(c.startswith("definition.") for c in node.captures) or any(
        _captures_definition(k) for k in node.kids
    )


def walks(source: str) -> bool:
    """Whether the compiled walk matches this definitions query (the extension is built
    and every pattern is one it expresses), so the query engine needs no Query for it
    unless a file's walk answers None. A grammar lacking one of the query's types or
    fields is only found with a tree (`_handle`): the engine's Query then says so."""
    if not refscan.AVAILABLE:
        return False
    try:
        parse_rules(source)
    except Unsupported:
        return False
    return True


_compiled: dict[tuple[str, str], Any] = {}  # the walk's handle, None: the engine's query
_lock = threading.Lock()


def _handle(root: tree_sitter.Node, grammar_name: str, source: str) -> Any:
    key = (grammar_name, source)
    try:
        return _compiled[key]
    except KeyError:
        pass
    with _lock:
        if key not in _compiled:
            try:
                rules = parse_rules(source)
            except Unsupported:
                _compiled[key] = None
            else:
                try:
                    # each rule with its `definition.*` capture, which the walk's items start with
                    handle = refscan._refscan.compile_defs(  # type: ignore[union-attr]
                        root, [(r.up, r.down, r.preds, r.kind) for r in rules]
                    )
                except ValueError:  # a type or field this grammar lacks: the engine says so
                    handle = None
                _compiled[key] = handle
        return _compiled[key]


#: (definition id, name id) and (start byte, end byte, start row, start column, end row,
#: end column) of the definition, then the same six of its name: what the definitions
#: pass reads of both nodes, handed over by the walk instead of asked of the binding.
Ids = tuple[int, int]
Where = tuple[int, int, int, int, int, int, int, int, int, int, int, int]


def definitions(
    root: tree_sitter.Node, grammar_name: str, source: str, data: bytes
) -> list[tuple[str, tree_sitter.Node, tree_sitter.Node, Ids, Where]] | None:
    """(`definition.*` capture, definition node, name node, ids, where) for every match,
    in tree order, or None where the engine must run (not built, unsupported query, a
    pattern matching one node in two ways)."""
    return definitions_collecting(root, grammar_name, source, data, None)[0]


#: What the walk can record of quoted names for a strategy: (the string node type, the
#: ancestor types that decide, how many ancestors to look at) (see python_strings).
StringsSpec = tuple[str, tuple[str, ...], int]
#: (start, end, index of the deciding ancestor type or -1, whether that ancestor says
#: the string stands where a type does: python_strings._decides, compiled)
RecordedString = tuple[int, int, int, bool]


def definitions_collecting(
    root: tree_sitter.Node, grammar_name: str, source: str, data: bytes, collect: Any,
    strings: StringsSpec | None = None,
) -> tuple[list[tuple[str, tree_sitter.Node, tree_sitter.Node, Ids, Where]] | None, Any,
           list[RecordedString] | None]:
    """`definitions`, and with `collect` (`refscan.kinds_handle` of the reference
    query) the reference pass's nodes, recorded by the same walk for `refscan.scan`;
    with `strings` too, the quoted names it met (see native/defscan.c). None for what
    was not recorded."""
    if not refscan.AVAILABLE or type(root) is not tree_sitter.Node:
        return None, None, None
    handle = _handle(root, grammar_name, source)
    if handle is None:
        return None, None, None
    # the C walk answers `found`, `(found, nodes)` or `(found, nodes, quoted)` by what it was given
    extra: tuple[Any, ...] = () if collect is None else (collect,) if strings is None else (collect, strings)
    answer = refscan._refscan.defs(root, handle, data, *extra)  # type: ignore[union-attr]
    if answer is None:
        return None, None, None
    found, nodes, quoted = (*answer, None, None)[:3] if extra else (answer, None, None)
    return found, nodes, quoted
