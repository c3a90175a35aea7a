"""Laravel's string links in PHP code: route names and Eloquent relation names.

`route('threads.show')`, `to_route('home')`, `redirect()->route('login')` and
`Route::has('forum')` name a route by string; each becomes a reference named like the
route symbol the routes strategy defines, so `refs threads.show` lists its uses and a
definition lookup on the string lands on the route (and from there on its action).

Views likewise: `view('articles.show')`, `View::make(...)`, `response()->view(...)`,
`Route::view('rules', 'rules')`, a Livewire component's `->layout('layouts.app')` or
`#[Layout('layouts.app')]` reference the Blade file's view symbol by its name, so the
controller or `render()` that shows a view and the view itself link both ways.

Relations are named by string too: `->with('authorRelation')`, `->whereHas('tags')`,
`$with = ['likesRelation']`, `TextColumn::make('customer.name')`,
`->relationship('brand', 'name')`. Each relation segment is a reference of the relation
method (`customer`), so `refs customer` finds every eager load and admin column that
depends on it.
"""

from __future__ import annotations

import re

import tree_sitter

from ..languages import query
from ..model import Reference
from ..source import SourceDocument
from .php import call_arguments, string_value


def any_of(capture: str, words: str) -> str:
    """`(#any-of? @fn "a" "b")` for `words` "a|b": the same test as `#match? "^(a|b)$"` on
    a name, compared as strings by the binding instead of a regex call per candidate
    (the links query's matching -24 % on Laravel's src/)."""
    return f"(#any-of? {capture} " + " ".join(f'"{w}"' for w in words.split("|")) + ")"


# Every link is found in ONE walk of the tree: a query of one pattern per kind of call
# (each pattern's index says which), where a query per kind walked the whole tree
# eleven times per file, more than its parse.
_ROUTE_CALLS = (
    f"""(function_call_expression function: (name) @fn {any_of("@fn", "route|to_route")}) @call""",
    """(member_call_expression name: (name) @fn (#eq? @fn "route")) @call""",
    f"""(scoped_call_expression
        scope: [(name) (qualified_name)] @scope (#match? @scope "Route$")
        name: (name) @fn {any_of("@fn", "has|is")}) @call""",
)


_RELATION_METHODS = (
    "with|without|withOnly|load|loadMissing|loadCount|has|orHas|doesntHave|orDoesntHave"
    "|whereHas|orWhereHas|whereDoesntHave|orWhereDoesntHave|withWhereHas|withCount"
    "|withExists|withSum|withAvg|withMin|withMax|whereRelation|orWhereRelation|relationship"
)
_RELATION_CALLS = (
    f"""(member_call_expression name: (name) @fn {any_of("@fn", _RELATION_METHODS)}) @call""",
    f"""(scoped_call_expression name: (name) @fn {any_of("@fn", _RELATION_METHODS)}) @call""",
)
# `Component::make('customer.name')`: every segment but the last names a relation.
_MAKE_CALL = """(scoped_call_expression name: (name) @fn (#eq? @fn "make")) @call"""
_WITH_PROPERTY = """
(property_element
    name: (variable_name (name) @prop (#eq? @prop "with"))
    default_value: (array_creation_expression) @array)
"""


# (pattern, which argument holds the view name)
_VIEW_CALLS = (
    ("""(function_call_expression function: (name) @fn (#eq? @fn "view")) @call""", 0),
    (
        f"""(scoped_call_expression scope: [(name) (qualified_name)] @scope
            (#match? @scope "View$") name: (name) @fn {any_of("@fn", "make|first|exists")})
            @call""",
        0,
    ),
    (
        f"""(member_call_expression name: (name) @fn
            {any_of("@fn", "view|layout|extends|markdown|text")}) @call""",
        0,
    ),
    (
        """(scoped_call_expression scope: [(name) (qualified_name)] @scope
            (#match? @scope "Route$") name: (name) @fn (#eq? @fn "view")) @call""",
        1,
    ),
    (
        """(attribute [(name) (qualified_name)] @fn (#match? @fn "Layout$")
            parameters: (arguments) @args) @call""",
        0,
    ),
)

# pattern index -> (kind, argument index); the query's patterns in this order
_KINDS: list[tuple[str, int]] = (
    [("route", 0)] * len(_ROUTE_CALLS)
    + [("view", index) for _, index in _VIEW_CALLS]
    + [("relation", 0)] * len(_RELATION_CALLS)
    + [("make", 0), ("with", 0)]
)
_LINKS_QUERY = "\n".join(
    [*_ROUTE_CALLS, *(source for source, _ in _VIEW_CALLS), *_RELATION_CALLS, _MAKE_CALL, _WITH_PROPERTY]
)


#: Text every match of `_LINKS_QUERY` contains: one of its call names before a `(`
#: (the query's predicates are case-sensitive too), or the `$with` property. Most files
#: of a framework have none, and the query's predicates run Python per method call.
_LINK_CALLS = ("route|to_route|has|is|view|make|first|exists|layout|extends|markdown|text|"
               + _RELATION_METHODS).split("|")


def word_trie(words: list[str]) -> str:
    """A regex matching exactly `words`, factored by shared prefixes
    (`ha(?:s|...)`): Python's engine tries an alternation's branches one by one at
    every word start, so a flat list of 40 names cost as much as a file's parse."""
    by_first: dict[str, list[str]] = {}
    for word in sorted(set(words)):
        by_first.setdefault(word[:1], []).append(word[1:])
    branches = []
    for first, rests in by_first.items():
        longer = [r for r in rests if r]
        if not longer:
            branches.append(re.escape(first))
            continue
        tail = word_trie(longer)
        branches.append(re.escape(first) + (f"(?:{tail})?" if "" in rests else tail))
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


_MAY_LINK = re.compile(rb"\b" + word_trie(_LINK_CALLS).encode() + rb"\s*\(|Layout\s*\(|\$with\b")
_LINK_CALL_NAMES = frozenset(word.encode() for word in _LINK_CALLS)
_MAY_LINK_ELSE = re.compile(rb"Layout\s*\(|\$with\b")  # `_MAY_LINK`'s other two branches

try:
    from .._refscan import calls_any  # type: ignore[import-not-found]
except ImportError:  # not built (optional extension): the regex alone
    calls_any = None


def may_link(data: bytes) -> bool:
    """`_MAY_LINK.search(data)` as a yes/no. The regex tries its 40-name alternation at
    every word start of every PHP file (4 % of a Laravel file's analysis); the compiled
    `calls_any` looks a name up only where a word is followed by `(`."""
    if calls_any is None:
        return _MAY_LINK.search(data) is not None
    return calls_any(data, _LINK_CALL_NAMES) or _MAY_LINK_ELSE.search(data) is not None


def laravel_string_references(doc: SourceDocument, root: tree_sitter.Node) -> list[Reference]:
    """Route names, view names and relation names given as string literals (routes,
    then views, then relations, each in file order)."""
    if not may_link(doc.data):
        return []
    found: dict[str, list[Reference]] = {"route": [], "view": [], "relation": [], "make": [], "with": []}
    for pattern, captures in tree_sitter.QueryCursor(query("php", _LINKS_QUERY)).matches(root):
        kind, index = _KINDS[pattern]
        _READERS[kind](doc, captures, index, found[kind])
    return found["route"] + found["view"] + found["relation"] + found["make"] + found["with"]


def _view(doc: SourceDocument, captures: dict, index: int, out: list[Reference]) -> None:
    call = captures["call"][0]
    if "args" in captures:
        args = [a for a in captures["args"][0].named_children if a.type == "argument"]
    else:
        args = call_arguments(call)
    if len(args) <= index:
        return
    for node in _strings_in(args[index]):
        name = string_value(doc, node)
        if name and _is_view_name(name):
            out.append(inside_quotes(doc, node, name))


def _is_view_name(name: str) -> bool:
    """`articles.show`, `livewire.editor`, `mail::message`, `components.x` -- not
    a path or a sentence."""
    parts = name.replace("::", ".").split(".")
    return all(part.replace("-", "_").isidentifier() for part in parts)


def inside_quotes(doc: SourceDocument, node: tree_sitter.Node, name: str) -> Reference:
    """A reference spelled as a PHP string literal, placed on its text (not its quotes)."""
    r = doc.node_range(node)
    return Reference(
        name, r.start.line, r.start.character + 1, r.end.line, r.end.character - 1, None
    )


def _relation(doc: SourceDocument, captures: dict, _: int, out: list[Reference]) -> None:
    args = call_arguments(captures["call"][0])
    if args:
        for node in _strings_in(args[0]):
            out.extend(_relation_segments(doc, node, last_is_relation=True))


def _make(doc: SourceDocument, captures: dict, _: int, out: list[Reference]) -> None:
    args = call_arguments(captures["call"][0])
    if args and _literal(args[0]) is not None:
        out.extend(_relation_segments(doc, _literal(args[0]), last_is_relation=False))


def _with(doc: SourceDocument, captures: dict, _: int, out: list[Reference]) -> None:
    for node in _strings_in(captures["array"][0]):
        out.extend(_relation_segments(doc, node, last_is_relation=True))


def _literal(node: tree_sitter.Node) -> tree_sitter.Node | None:
    if node.type == "argument" and node.named_child_count:
        node = node.named_children[-1]
    return node if node.type in ("string", "encapsed_string") else None


def _strings_in(arg: tree_sitter.Node) -> list[tree_sitter.Node]:
    """`'a'`, `['a', 'b']` or `['a' => fn ...]` (the keys) -> the string nodes."""
    node = arg.named_children[-1] if arg.type == "argument" and arg.named_child_count else arg
    single = _literal(node)
    if single is not None:
        return [single]
    if node.type != "array_creation_expression":
        return []
    out = []
    for e in node.named_children:
        if e.type == "array_element_initializer" and e.named_child_count:
            lit = _literal(e.named_children[0])
            if lit is not None:
                out.append(lit)
    return out


def _relation_segments(
    doc: SourceDocument, node: tree_sitter.Node, last_is_relation: bool
) -> list[Reference]:
    """`'author.profile:id,name'` -> references `author`, `profile` at their columns."""
    value = string_value(doc, node)
    if not value or not _is_relation_path(value):
        return []
    path = value.split(":", 1)[0].split(" as ", 1)[0]
    segments = path.split(".")
    if not last_is_relation:
        segments = segments[:-1]
    r = doc.node_range(node)
    if r.start.line != r.end.line:
        return []
    out = []
    offset = r.start.character + 1
    for segment in segments:
        if segment.isidentifier():
            out.append(
                Reference(segment, r.start.line, offset, r.start.line, offset + len(segment), None)
            )
        offset += len(segment) + 1
    return out


def _is_relation_path(value: str) -> bool:
    path = value.split(":", 1)[0].split(" as ", 1)[0]
    return bool(path) and all(p.isidentifier() for p in path.split("."))


def _route(doc: SourceDocument, captures: dict, _: int, out: list[Reference]) -> None:
    """A reference per route name given as a literal first argument."""
    args = call_arguments(captures["call"][0])
    if not args:
        return
    name = string_value(doc, args[0])
    if name:
        out.append(inside_quotes(doc, args[0], name))


_READERS = {"route": _route, "view": _view, "relation": _relation, "make": _make, "with": _with}
