"""Laravel route files (`routes/*.php`): every route as a symbol and a chunk.

`Route::get('{thread}', [ThreadsController::class, 'show'])->name('thread')` inside
`Route::prefix('forum')->group(...)` is a `route` symbol named `thread` (what
`route('thread')` in a view or controller refers to); the chunk holding it lists, under
`route_definitions`, the HTTP methods, the full URI (`forum/{thread}`), the action (`App\\...\\ThreadsController::show`,
an invokable controller, a Livewire component, a view or a closure) and the middleware
collected from the enclosing groups. The action's class and method are references, so
`refs markSolution` finds the route that is the method's only caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import tree_sitter

from ..model import Chunk, FileAnalysis, Reference, Symbol, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings
from .laravel_links import inside_quotes
from .php import (
    PhpStrategy,
    call_arguments,
    class_constant_target,
    resolve_name,
    string_list,
    string_value,
)

_VERBS = {
    "get": ["GET", "HEAD"],
    "post": ["POST"],
    "put": ["PUT"],
    "patch": ["PATCH"],
    "delete": ["DELETE"],
    "options": ["OPTIONS"],
    "any": ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    "view": ["GET", "HEAD"],
    "redirect": ["GET", "HEAD"],
    "permanentRedirect": ["GET", "HEAD"],
    "livewire": ["GET", "HEAD"],
}
# Route::resource()'s actions: (action, methods, uri suffix).
_RESOURCE_ACTIONS = (
    ("index", ["GET", "HEAD"], ""),
    ("create", ["GET", "HEAD"], "/create"),
    ("store", ["POST"], ""),
    ("show", ["GET", "HEAD"], "/{id}"),
    ("edit", ["GET", "HEAD"], "/{id}/edit"),
    ("update", ["PUT", "PATCH"], "/{id}"),
    ("destroy", ["DELETE"], "/{id}"),
)
_API_SKIPPED = frozenset({"create", "edit"})
_GROUP_ATTRIBUTES = frozenset({"prefix", "name", "as", "middleware", "controller", "domain"})


@dataclass
class _Group:
    """What the enclosing `Route::prefix()->name()->middleware()->group()` add."""

    prefix: str = ""
    name: str = ""
    middleware: list[str] = field(default_factory=list)
    controller: str | None = None

    def join(self, attrs: dict[str, Any]) -> _Group:
        prefix = self.prefix
        if attrs.get("prefix"):
            prefix = _join_uri(prefix, attrs["prefix"])
        return _Group(
            prefix=prefix,
            name=self.name + (attrs.get("name") or attrs.get("as") or ""),
            middleware=self.middleware + list(attrs.get("middleware", [])),
            controller=attrs.get("controller") or self.controller,
        )


def _join_uri(prefix: str, uri: str) -> str:
    joined = "/".join(p.strip("/") for p in (prefix, uri) if p.strip("/"))
    return joined or "/"


class LaravelRoutesStrategy(PhpStrategy):
    language = "laravel_routes"
    grammar_name = "php"

    def analyze(
        self, doc: SourceDocument, settings: ChunkSettings, lazy: bool = False
    ) -> FileAnalysis:
        analysis = super().analyze(doc, settings, lazy)
        root = doc.tree.root_node  # type: ignore[union-attr]
        imports = analysis.imports

        def res(name: str) -> str:
            return resolve_name(name, None, imports)

        walker = _Walker(doc, res)
        walker.statements(root, _Group())
        facts = [self._route(doc, analysis, route) for route in walker.routes]
        pending = analysis.pending_references
        if pending is not None:
            extra = walker.references
            analysis.pending_references = lambda: pending() + extra
        else:
            analysis.references.extend(walker.references)
        # The facts go on the chunks that hold the routes (the file's code blocks),
        # not on a chunk per route: a one-line chunk per route outranks the
        # controller it points to in semantic search.
        if analysis.pending_chunks is None:
            analysis.chunks = [_with_routes(c, facts) for c in analysis.chunks]
            covered = {
                id(r) for c in analysis.chunks for r in c.metadata.get("route_definitions", [])
            }
            left = [(line, r) for line, r in facts if id(r) not in covered]
            if left:
                # Statements too short for a code block of their own (a 2-route file).
                first, last = min(line for line, _ in left), max(line for line, _ in left)
                chunk = Chunk(
                    path=doc.path,
                    language=doc.language,
                    symbol_name=f"{doc.path}:{first + 1}-{last + 1}",
                    symbol_type="block",
                    start_line=first,
                    end_line=last,
                    content=doc.lines_text(first, last),
                )
                analysis.chunks.append(_with_routes(chunk, left))
        return analysis

    def _route(
        self, doc: SourceDocument, analysis: FileAnalysis, route: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        """The route's symbol, and (line, facts) for the chunk that holds it."""
        stmt: tree_sitter.Node = route.pop("_node")
        sel: tree_sitter.Node = route.pop("_name_node")
        label = route["name"] or f"{'|'.join(route['methods'])} {route['uri']}"
        action = route.get("action") or ""
        analysis.symbols.append(
            Symbol(
                name=label,
                kind=SymbolKind.ROUTE,
                range=doc.node_range(stmt),
                selection_range=doc.node_range(sel),
                qualified_name=label,
                signature=f"{'|'.join(route['methods'])} /{route['uri'].lstrip('/')}"
                + (f" -> {action}" if action else ""),
            )
        )
        return sel.start_point[0], route


def _with_routes(chunk: Chunk, facts: list[tuple[int, dict[str, Any]]]) -> Chunk:
    inside = [route for line, route in facts if chunk.start_line <= line <= chunk.end_line]
    if not inside:
        return chunk
    related = [r["action"].split("::", 1)[0] for r in inside if "\\" in (r.get("action") or "")]
    meta = dict(chunk.metadata)
    meta["route_definitions"] = inside
    if related:
        meta["related_symbols"] = list(dict.fromkeys([*meta.get("related_symbols", []), *related]))
    return replace(chunk, metadata=meta)


# One fluent call in a chain: (method name, argument nodes, call node).
_Call = tuple[str, list[tree_sitter.Node], tree_sitter.Node]


class _Walker:
    """Walks route statements, descending into groups with their attributes."""

    def __init__(self, doc: SourceDocument, res: Any) -> None:
        self.doc = doc
        self.res = res
        self.routes: list[dict[str, Any]] = []
        self.references: list[Reference] = []

    def statements(self, node: tree_sitter.Node, group: _Group) -> None:
        for child in node.named_children:
            if child.type == "expression_statement" and child.named_child_count:
                self.expression(child.named_children[0], child, group)
            elif child.type in ("compound_statement", "namespace_definition"):
                self.statements(child, group)

    def expression(self, expr: tree_sitter.Node, stmt: tree_sitter.Node, group: _Group) -> None:
        chain = _chain(self.doc, expr)
        if not chain:
            return
        names = [c[0] for c in chain]
        if "group" in names:
            attrs = self.attributes(chain)
            _, args, _ = chain[names.index("group")]
            inner = group.join(attrs)
            for arg in args:
                body = _closure_body(arg)
                if body is not None:
                    self.statements(body, inner)
                elif arg.type == "array_creation_expression":
                    inner = group.join({**attrs, **self.array_attributes(arg)})
            return
        verb, args, _ = chain[0]
        modifiers = chain[1:]
        if verb in ("resource", "apiResource"):
            self.resource(verb, args, modifiers, stmt, group)
            return
        if verb == "match" and len(args) >= 3:
            methods = [m.upper() for m in string_list(self.doc, args[0])]
            args = args[1:]
        elif verb in _VERBS:
            methods = list(_VERBS[verb])
        else:
            return
        uri = string_value(self.doc, args[0]) if args else None
        if uri is None:
            return
        route: dict[str, Any] = {
            "name": None,
            "methods": methods,
            "uri": _join_uri(group.prefix, uri),
            "middleware": list(group.middleware),
        }
        route.update(self.action(verb, args[1:], group))
        name_node = args[0]
        for method, margs, _ in modifiers:
            if method in ("name", "as") and margs:
                route["name"] = group.name + (string_value(self.doc, margs[0]) or "")
                name_node = margs[0]
            elif method == "middleware":
                route["middleware"].extend(self.middleware(margs))
        route["_node"] = stmt
        route["_name_node"] = name_node
        self.routes.append(route)

    def resource(
        self,
        verb: str,
        args: list[tree_sitter.Node],
        modifiers: list[_Call],
        stmt: tree_sitter.Node,
        group: _Group,
    ) -> None:
        doc = self.doc
        base = string_value(doc, args[0]) if args else None
        target = class_constant_target(args[1], doc) if len(args) > 1 else None
        if base is None or target is None:
            return
        controller = self.res(target)
        only: set[str] | None = None
        except_: set[str] = set(_API_SKIPPED) if verb == "apiResource" else set()
        for method, margs, _ in modifiers:
            if method == "only" and margs:
                only = set(string_list(doc, margs[0])) or {string_value(doc, margs[0]) or ""}
            elif method == "except" and margs:
                except_ |= set(string_list(doc, margs[0])) or {string_value(doc, margs[0]) or ""}
        middleware = list(group.middleware)
        for method, margs, _ in modifiers:
            if method == "middleware":
                middleware.extend(self.middleware(margs))
        dotted = base.replace("/", ".")
        for action, methods, suffix in _RESOURCE_ACTIONS:
            if (only is not None and action not in only) or action in except_:
                continue
            self.routes.append(
                {
                    "name": f"{group.name}{dotted}.{action}",
                    "methods": list(methods),
                    "uri": _join_uri(group.prefix, base + suffix),
                    "middleware": list(middleware),
                    "action": f"{controller}::{action}",
                    "action_type": "controller",
                    "_node": stmt,
                    "_name_node": args[0],
                }
            )

    def action(self, verb: str, args: list[tree_sitter.Node], group: _Group) -> dict[str, Any]:
        doc = self.doc
        if verb == "view":
            view = string_value(doc, args[0]) if args else None
            return {"action": None, "action_type": "view", "view": view}
        if verb in ("redirect", "permanentRedirect"):
            target = string_value(doc, args[0]) if args else None
            return {"action": None, "action_type": "redirect", "redirect_to": target}
        if not args:
            return {"action": None, "action_type": None}
        arg = _unwrap(args[0])
        if arg.type in ("anonymous_function", "arrow_function"):
            return {"action": None, "action_type": "closure"}
        if arg.type == "array_creation_expression":
            elements = [
                e.named_children[0]
                for e in arg.named_children
                if e.type == "array_element_initializer" and e.named_child_count == 1
            ]
            if len(elements) == 2:
                target = class_constant_target(elements[0], doc)
                method = string_value(doc, elements[1])
                if target is not None and method:
                    self.reference(method, elements[1])
                    return {
                        "action": f"{self.res(target)}::{method}",
                        "action_type": "controller",
                    }
        target = class_constant_target(arg, doc)
        if target is not None:
            cls = self.res(target)
            if "\\Livewire\\" in f"\\{cls}" or verb == "livewire":
                return {"action": cls, "action_type": "livewire"}
            return {"action": f"{cls}::__invoke", "action_type": "invokable"}
        method = string_value(doc, arg)
        if method and group.controller:
            self.reference(method, arg)
            return {"action": f"{group.controller}::{method}", "action_type": "controller"}
        if method and "@" in method:
            cls, _, m = method.partition("@")
            return {"action": f"{self.res(cls)}::{m}", "action_type": "controller"}
        return {"action": None, "action_type": None}

    def reference(self, name: str, node: tree_sitter.Node) -> None:
        """The method named in `[Controller::class, 'method']`, inside its quotes."""
        self.references.append(inside_quotes(self.doc, node, name))

    def middleware(self, args: list[tree_sitter.Node]) -> list[str]:
        out: list[str] = []
        for arg in args:
            node = _unwrap(arg)
            values = string_list(self.doc, node)
            if values:
                out.extend(values)
                continue
            if node.type == "array_creation_expression":
                for e in node.named_children:
                    if e.named_child_count:
                        out.extend(self.middleware([e.named_children[0]]))
                continue
            target = class_constant_target(node, self.doc)
            if target is not None:
                out.append(self.res(target))
            else:
                value = string_value(self.doc, node)
                if value:
                    out.append(value)
        return out

    def attributes(self, chain: list[_Call]) -> dict[str, Any]:
        attrs: dict[str, Any] = {}
        for method, args, _ in chain:
            if method not in _GROUP_ATTRIBUTES or method == "group":
                continue
            if method == "middleware":
                attrs["middleware"] = attrs.get("middleware", []) + self.middleware(args)
            elif method == "controller" and args:
                target = class_constant_target(_unwrap(args[0]), self.doc)
                attrs["controller"] = self.res(target) if target else None
            elif args:
                attrs[method] = string_value(self.doc, args[0]) or ""
        return attrs

    def array_attributes(self, array: tree_sitter.Node) -> dict[str, Any]:
        """`Route::group(['prefix' => 'admin', 'middleware' => 'auth'], fn)`."""
        attrs: dict[str, Any] = {}
        for e in array.named_children:
            if e.type != "array_element_initializer" or e.named_child_count != 2:
                continue
            key = string_value(self.doc, e.named_children[0])
            value = e.named_children[1]
            if key == "middleware":
                attrs["middleware"] = self.middleware([value])
            elif key in _GROUP_ATTRIBUTES:
                attrs[key] = string_value(self.doc, value) or ""
        return attrs


def _unwrap(arg: tree_sitter.Node) -> tree_sitter.Node:
    return arg.named_children[-1] if arg.type == "argument" and arg.named_child_count else arg


def _closure_body(arg: tree_sitter.Node) -> tree_sitter.Node | None:
    node = _unwrap(arg)
    if node.type == "anonymous_function":
        return node.child_by_field_name("body")
    return None


def _chain(doc: SourceDocument, expr: tree_sitter.Node) -> list[_Call]:
    """`Route::prefix('x')->name('y')->group(fn)` -> [(prefix, ..), (name, ..), (group, ..)],
    only for chains rooted at `Route::`."""
    calls: list[_Call] = []
    node = expr
    while node.type == "member_call_expression":
        name = node.child_by_field_name("name")
        calls.append((doc.node_text(name) if name else "", call_arguments(node), node))
        obj = node.child_by_field_name("object")
        if obj is None:
            return []
        node = obj
    if node.type != "scoped_call_expression":
        return []
    scope = node.child_by_field_name("scope")
    name = node.child_by_field_name("name")
    if (
        scope is None
        or name is None
        or doc.node_text(scope).lstrip("\\").rsplit("\\", 1)[-1] != "Route"
    ):
        return []
    calls.append((doc.node_text(name), call_arguments(node), node))
    calls.reverse()
    return calls
