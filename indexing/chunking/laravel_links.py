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
from . import refscan
from .php import FIRST_LINK_RULE, call_arguments, compiled_spans, file_may_link, string_value


def any_of(capture: str, words: str) -> str:
    """`(#any-of? @fn "a" "b")` for `words` "a|b": the same test as `#match? "^(a|b)$"` on
    a name, compared as strings by the binding instead of a regex call per candidate
    (the links query's matching -24 % on Laravel's src/)."""
    return f"(#any-of? {capture} " + " ".join(f'"{w}"' for w in words.split("|")) + ")"


# the call names of the patterns below (shared with their compiled rules)
_ROUTE_FUNCTIONS = "route|to_route"
_ROUTE_STATICS = "has|is"
_VIEW_STATICS = "make|first|exists"
_VIEW_METHODS = "view|layout|extends|markdown|text"

# Every link is found in ONE walk of the tree: a query of one pattern per kind of call
# (each pattern's index says which), where a query per kind walked the whole tree
# eleven times per file, more than its parse.
_ROUTE_CALLS = (
    f"""(function_call_expression function: (name) @fn {any_of("@fn", _ROUTE_FUNCTIONS)}) @call""",
    """(member_call_expression name: (name) @fn (#eq? @fn "route")) @call""",
    f"""(scoped_call_expression
        scope: [(name) (qualified_name)] @scope (#match? @scope "Route$")
        name: (name) @fn {any_of("@fn", _ROUTE_STATICS)}) @call""",
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
            (#match? @scope "View$") name: (name) @fn {any_of("@fn", _VIEW_STATICS)})
            @call""",
        0,
    ),
    (
        f"""(member_call_expression name: (name) @fn
            {any_of("@fn", _VIEW_METHODS)}) @call""",
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
    return calls_any(data, _LINK_CALL_NAMES) or (
        # the regex only where its words occur: `in` scans for them at memchr speed, where
        # the regex tries its two branches at every byte of the three files in four that
        # call no link name (0.023 -> 0.007 s on Laravel's src/)
        (b"Layout" in data or b"$with" in data) and _MAY_LINK_ELSE.search(data) is not None
    )


#: A match of `_LINKS_QUERY`: (pattern index, the `@call` node or for `$with` the
#: `@array` node, the `@args` node or None).
Match = tuple[int, tree_sitter.Node, "tree_sitter.Node | None"]


def laravel_string_references(doc: SourceDocument, root: tree_sitter.Node) -> list[Reference]:
    """Route names, view names and relation names given as string literals (routes,
    then views, then relations, each in file order)."""
    if not file_may_link(doc):
        return []
    found: dict[str, list[Reference]] = {"route": [], "view": [], "relation": [], "make": [], "with": []}
    matches = compiled_matches(doc, root)
    for pattern, node, args in query_matches(root) if matches is None else matches:
        kind, index = _KINDS[pattern]
        _READERS[kind](doc, node, args, index, found[kind])
    return found["route"] + found["view"] + found["relation"] + found["make"] + found["with"]


def query_matches(root: tree_sitter.Node) -> list[Match]:
    """`_LINKS_QUERY`'s matches from the query engine, in its order: the definition of
    what `compiled_matches` finds, and the path where the extension cannot run."""
    return [
        (pattern, (captures.get("call") or captures["array"])[0], (captures.get("args") or [None])[0])
        for pattern, captures in tree_sitter.QueryCursor(query("php", _LINKS_QUERY)).matches(root)
    ]


def _names(words: str) -> frozenset[bytes]:
    return frozenset(word.encode() for word in words.split("|"))


# name -> the patterns (by index in `_LINKS_QUERY`) a call of that name matches
_FUNCTION_NAMES = {**dict.fromkeys(_names(_ROUTE_FUNCTIONS), (0,)), b"view": (3,)}
_MEMBER_NAMES = {
    b"route": (1,), **dict.fromkeys(_names(_VIEW_METHODS), (5,)), **dict.fromkeys(_names(_RELATION_METHODS), (8,))
}
_ROUTE_STATIC_NAMES = _names(_ROUTE_STATICS)
_VIEW_STATIC_NAMES = _names(_VIEW_STATICS)
_RELATION_NAMES = _names(_RELATION_METHODS)
_SCOPED_NAMES = _ROUTE_STATIC_NAMES | _VIEW_STATIC_NAMES | _RELATION_NAMES | {b"view", b"make"}

# `_LINKS_QUERY` as rules of the compiled walk (refscan.rule_spans): each rule finds a
# call's name node by its place, and its name set keeps only the query's call names,
# so no Python runs per call of any other name (the query engine ran its `#any-of?`
# predicates through the binding per call). What a single path cannot say (a scope
# ending in `Route`, an attribute's arguments) is tested below on the few matches.
_LINK_RULES: list[refscan.SpanRule] = [
    ([("name", "function", False), ("function_call_expression", None, False)], [], None, None,
     frozenset(_FUNCTION_NAMES)),
    ([("name", "name", False), ("member_call_expression", None, False)], [], None, None, frozenset(_MEMBER_NAMES)),
    ([("name", "name", False), ("scoped_call_expression", None, False)], [], None, None, _SCOPED_NAMES),
    ([("name", None, False), ("attribute", None, False)], [], None, None, None),
    ([("qualified_name", None, False), ("attribute", None, False)], [], None, None, None),
    ([("name", None, False), ("variable_name", "name", False), ("property_element", None, False)],
     [(True, "with")], None, ("default_value", "array_creation_expression", True), None),
]
# the node each rule's match is read from: the span's nearest ancestor of this type
_RULE_NODE = ("function_call_expression", "member_call_expression", "scoped_call_expression",
              "attribute", "attribute", "array_creation_expression")
_ROUTE_SCOPE = re.compile(rb"Route$")
_VIEW_SCOPE = re.compile(rb"View$")
_LAYOUT = re.compile(rb"Layout$")


def compiled_matches(doc: SourceDocument, root: tree_sitter.Node) -> list[Match] | None:
    """`query_matches(root)`, from one compiled walk; None where the extension cannot
    run here. The query engine reports a match where its last node matches: for every
    pattern that is the call's name (the attribute's arguments and the `$with` array
    follow their name with nothing between), so the walk's order by name is its order
    within each kind, and that is the only order the readers keep."""
    spans = compiled_spans(doc, root)
    if spans is None:
        return None
    data = doc.data
    out: list[Match] = []
    first = FIRST_LINK_RULE  # the walk's rules: the related classes', relation calls, `_LINK_RULES`
    for start, end, rule in spans:
        if rule < first:
            continue
        rule -= first
        node = root.named_descendant_for_byte_range(start, end)
        while node is not None and node.type != _RULE_NODE[rule]:
            node = node.parent
        if node is None:
            continue
        name = data[start:end]
        if rule == 0:
            out.extend((p, node, None) for p in _FUNCTION_NAMES[name])
        elif rule == 1:
            out.extend((p, node, None) for p in _MEMBER_NAMES[name])
        elif rule == 2:
            out.extend((p, node, None) for p in _scoped_patterns(data, node, name))
        elif rule < 5:
            args = node.child_by_field_name("parameters")
            if args is not None and args.type == "arguments" and _LAYOUT.search(name):
                out.append((7, node, args))
        else:
            out.append((11, node, None))
    return out


def _scoped_patterns(data: bytes, call: tree_sitter.Node, name: bytes) -> list[int]:
    """The patterns a `Scope::name(...)` call of a `_SCOPED_NAMES` name matches, by index."""
    scope = call.child_by_field_name("scope")
    text = data[scope.start_byte : scope.end_byte] if scope is not None and scope.type in (
        "name", "qualified_name") else None
    route = text is not None and _ROUTE_SCOPE.search(text) is not None
    view = text is not None and _VIEW_SCOPE.search(text) is not None
    patterns = []
    if route and name in _ROUTE_STATIC_NAMES:
        patterns.append(2)
    if view and name in _VIEW_STATIC_NAMES:
        patterns.append(4)
    if route and name == b"view":
        patterns.append(6)
    if name in _RELATION_NAMES:
        patterns.append(9)
    if name == b"make":
        patterns.append(10)
    return patterns


def _view(
    doc: SourceDocument, call: tree_sitter.Node, arguments: tree_sitter.Node | None, index: int,
    out: list[Reference],
) -> None:
    if arguments is not None:
        args = [a for a in arguments.named_children if a.type == "argument"]
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


def _relation(doc: SourceDocument, call: tree_sitter.Node, _a: None, _: int, out: list[Reference]) -> None:
    args = call_arguments(call)
    if args:
        for node in _strings_in(args[0]):
            out.extend(_relation_segments(doc, node, last_is_relation=True))


def _make(doc: SourceDocument, call: tree_sitter.Node, _a: None, _: int, out: list[Reference]) -> None:
    args = call_arguments(call)
    if args and _literal(args[0]) is not None:
        out.extend(_relation_segments(doc, _literal(args[0]), last_is_relation=False))


def _with(doc: SourceDocument, array: tree_sitter.Node, _a: None, _: int, out: list[Reference]) -> None:
    for node in _strings_in(array):
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


def _route(doc: SourceDocument, call: tree_sitter.Node, _a: None, _: int, out: list[Reference]) -> None:
    """A reference per route name given as a literal first argument."""
    args = call_arguments(call)
    if not args:
        return
    name = string_value(doc, args[0])
    if name:
        out.append(inside_quotes(doc, args[0], name))


_READERS = {"route": _route, "view": _view, "relation": _relation, "make": _make, "with": _with}
