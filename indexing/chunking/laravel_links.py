"""Laravel's string links in PHP code: route names.

`route('threads.show')`, `to_route('home')`, `redirect()->route('login')` and
`Route::has('forum')` name a route by string; each becomes a reference named like the
route symbol the routes strategy defines, so `refs threads.show` lists its uses and a
definition lookup on the string lands on the route (and from there on its action).
"""

from __future__ import annotations

import tree_sitter

from ..languages import query
from ..model import Reference
from ..source import SourceDocument
from .php import call_arguments, string_value

_ROUTE_CALLS = """
(function_call_expression function: (name) @fn (#match? @fn "^(route|to_route)$")) @call
(member_call_expression name: (name) @fn (#eq? @fn "route")) @call
(scoped_call_expression
    scope: [(name) (qualified_name)] @scope (#match? @scope "Route$")
    name: (name) @fn (#match? @fn "^(has|is)$")) @call
"""


def route_name_references(doc: SourceDocument, root: tree_sitter.Node) -> list[Reference]:
    """One reference per route name given as a literal first argument."""
    cursor = tree_sitter.QueryCursor(query("php", _ROUTE_CALLS))
    out: list[Reference] = []
    for _, captures in cursor.matches(root):
        args = call_arguments(captures["call"][0])
        if not args:
            continue
        name = string_value(doc, args[0])
        if not name:
            continue
        r = doc.node_range(args[0])
        out.append(
            Reference(
                name,
                r.start.line,
                r.start.character + 1,
                r.end.line,
                r.end.character - 1,
                None,
            )
        )
    return out
