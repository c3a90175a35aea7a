"""Filament resources (`*Resource.php` under `Resources/`): the admin-panel DSL as chunks.

A resource is ordinary PHP (symbols, references and fqcns come from the PHP strategy),
but its methods mean something: `form()` is the edit form, `table()` the list screen,
`getRelations()`/`getPages()` wire it up. Those chunks get their own types
(`filament_resource`, `filament_form`, `filament_table`, `filament_infolist`,
`filament_relations`, `filament_pages`, `filament_actions`) and say which fields,
columns, filters and actions they declare, so "add a stock field to the product form"
lands on `ProductResource::form` with the current field list at hand.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import tree_sitter

from ..languages import query
from ..model import FileAnalysis, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings, _Def
from .php import (
    PhpStrategy,
    Resolver,
    _enclosing_class,
    _members,
    _namespace_of,
    call_arguments,
    class_constant_target,
    literal_value,
    resolve_name,
    string_value,
)

FILAMENT_METHODS = {
    "form": "form",
    "table": "table",
    "infolist": "infolist",
    "getRelations": "relations",
    "getPages": "pages",
}
_ACTIONS_METHOD = re.compile(r"^get\w*Actions$")
_LAYOUT_COMPONENTS = frozenset(
    {
        "Section",
        "Grid",
        "Fieldset",
        "Tabs",
        "Tab",
        "Wizard",
        "Step",
        "Group",
        "Split",
        "Card",
        "Flex",
        "Actions",
        "ActionGroup",
        "BulkActionGroup",
        "Stack",
        "Panel",
        "Layout",
        "View",
        "Placeholder",
    }
)
_RESOURCE_PROPERTIES = {
    "navigationIcon": "navigation_icon",
    "navigationGroup": "navigation_group",
    "navigationLabel": "navigation_label",
    "navigationSort": "navigation_sort",
    "recordTitleAttribute": "record_title_attribute",
    "slug": "slug",
}
_MAKE_QUERY = """
(scoped_call_expression
    scope: [(name) (qualified_name)] @component
    name: (name) @method (#eq? @method "make")) @call
"""


def component_kind(component: str) -> str:
    """Which list a `Component::make()` belongs to, by Filament's naming conventions."""
    if component in _LAYOUT_COMPONENTS or component.endswith("Group"):
        return "layout"
    if component.endswith("Action"):
        return "actions"
    if component.endswith("Column"):
        return "columns"
    if component.endswith("Filter"):
        return "filters"
    if component.endswith("Entry"):
        return "entries"
    return "fields"


class FilamentResourceStrategy(PhpStrategy):
    language = "filament_resource"
    grammar_name = "php"

    def __init__(self) -> None:
        super().__init__()
        query(self.grammar_name, _MAKE_QUERY)

    def symbol_metadata(
        self, doc: SourceDocument, d: _Def, analysis: FileAnalysis
    ) -> dict[str, Any]:
        meta = super().symbol_metadata(doc, d, analysis)
        node = d.node
        s = d.symbol
        if node.type == "class_declaration" and _is_resource(s.name, meta):
            meta.update(self.resource_metadata(doc, node, meta, analysis.imports))
            meta["filament"] = "resource"
            return meta
        if s.kind is not SymbolKind.METHOD:
            return meta
        cls = _enclosing_class(node)
        if cls is None or cls.type != "class_declaration":
            return meta
        cls_name = cls.child_by_field_name("name")
        if cls_name is None or not doc.node_text(cls_name).endswith("Resource"):
            return meta
        section = FILAMENT_METHODS.get(s.name) or (
            "actions" if _ACTIONS_METHOD.match(s.name) else None
        )
        if section is None:
            return meta
        namespace = _namespace_of(doc, node)

        def res(name: str) -> str:
            return resolve_name(name, namespace, analysis.imports)

        meta["filament"] = section
        meta["resource"] = s.container
        model = _model(doc, _members(cls), res)
        if model:
            meta["model"] = model
        meta.update(self.components(doc, node, s.name, res))
        if section == "relations":
            meta["relations"] = _class_constants(doc, node, res)
        elif section == "pages":
            meta["pages"] = _pages(doc, node, res)
        # Filament's own component classes are the vocabulary of every resource, not
        # what this one is about: keep the model, relation managers and pages.
        related = [model] if model else []
        related.extend(r for r in meta.get("related_symbols", []) if not r.startswith("Filament\\"))
        related.extend(meta.get("relations", []))
        related.extend(p["page"] for p in meta.get("pages", []) if p.get("page"))
        if related:
            meta["related_symbols"] = list(dict.fromkeys(related))
        return meta

    def finish(
        self,
        doc: SourceDocument,
        analysis: FileAnalysis,
        defs: list[_Def],
        settings: ChunkSettings,
    ) -> None:
        super().finish(doc, analysis, defs, settings)
        analysis.chunks = [
            replace(c, symbol_type=f"filament_{c.metadata['filament']}")
            if c.metadata.get("filament")
            else c
            for c in analysis.chunks
        ]

    # ---- the resource class ----------------------------------------------------------

    def resource_metadata(
        self,
        doc: SourceDocument,
        node: tree_sitter.Node,
        meta: dict[str, Any],
        imports: dict[str, str],
    ) -> dict[str, Any]:
        namespace = meta.get("namespace")

        def res(name: str) -> str:
            return resolve_name(name, namespace, imports)

        members = _members(node)
        out: dict[str, Any] = {}
        model = _model(doc, members, res)
        if model:
            out["model"] = model
        for prop, key in _RESOURCE_PROPERTIES.items():
            value = _static_value(doc, members, prop)
            if value is not None:
                out[key] = value
        traits = meta.get("traits", [])
        # `use Translatable;` (Filament's resource concern): the admin edits the
        # model per locale, with a locale switcher on its pages.
        out["translatable"] = any(t.rsplit("\\", 1)[-1] == "Translatable" for t in traits)
        methods = {
            doc.node_text(m.child_by_field_name("name")): m  # type: ignore[arg-type]
            for m in members
            if m.type == "method_declaration" and m.child_by_field_name("name") is not None
        }
        out["sections"] = [
            FILAMENT_METHODS.get(name) or name
            for name in methods
            if name in FILAMENT_METHODS or _ACTIONS_METHOD.match(name)
        ]
        related = list(meta.get("related_symbols", []))
        if model:
            related.insert(0, model)
        if "getRelations" in methods:
            related.extend(_class_constants(doc, methods["getRelations"], res))
        if "getPages" in methods:
            related.extend(
                p["page"] for p in _pages(doc, methods["getPages"], res) if p.get("page")
            )
        if related:
            out["related_symbols"] = list(dict.fromkeys(related))
        return out

    # ---- components inside form/table/infolist/actions ------------------------------

    def components(
        self, doc: SourceDocument, method: tree_sitter.Node, method_name: str, res: Resolver
    ) -> dict[str, list[dict[str, Any]]]:
        """`TextInput::make('email')->required()` -> fields: [{component: TextInput,
        name: email, modifiers: [required]}], likewise columns, filters, actions
        (with where they are placed: actions, bulkActions, headerActions, ...),
        infolist entries and layout components."""
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, _MAKE_QUERY))
        found: list[tuple[int, str, dict[str, Any]]] = []
        for _, captures in cursor.matches(method):
            call = captures["call"][0]
            component_text = doc.node_text(captures["component"][0])
            component = component_text.rsplit("\\", 1)[-1]
            kind = component_kind(component)
            args = call_arguments(call)
            name = string_value(doc, args[0]) if args else None
            item: dict[str, Any] = {"component": component, "name": name}
            if kind == "layout":
                item = {
                    "component": component,
                    "label": string_value(doc, args[0]) if args else None,
                }
            modifiers = _chained_methods(doc, call)
            if modifiers and kind != "layout":
                item["modifiers"] = modifiers
            if kind == "actions":
                item["placement"] = _placement(doc, call, method) or method_name
            found.append((call.start_byte, kind, item))
        found.sort(key=lambda t: t[0])
        out: dict[str, list[dict[str, Any]]] = {}
        for _, kind, item in found:
            out.setdefault(kind, []).append(item)
        return out


def _is_resource(name: str, meta: dict[str, Any]) -> bool:
    parent = meta.get("extends")
    return name.endswith("Resource") or (
        isinstance(parent, str) and parent.rsplit("\\", 1)[-1] in ("Resource", "BaseResource")
    )


def _property_default(
    doc: SourceDocument, members: list[tree_sitter.Node], name: str
) -> tree_sitter.Node | None:
    for m in members:
        if m.type != "property_declaration":
            continue
        for element in m.named_children:
            if element.type != "property_element":
                continue
            var = element.child_by_field_name("name")
            if var is not None and doc.node_text(var) == f"${name}":
                return element.child_by_field_name("default_value")
    return None


def _static_value(doc: SourceDocument, members: list[tree_sitter.Node], name: str) -> Any:
    """A resource setting from `protected static ?string $navigationGroup = 'Shop';` or
    from a `getNavigationGroup()` that returns a literal (or `__('Shop')`)."""
    default = _property_default(doc, members, name)
    if default is not None:
        return literal_value(doc, default)
    getter = "get" + name[0].upper() + name[1:]
    for m in members:
        if m.type != "method_declaration":
            continue
        mname = m.child_by_field_name("name")
        body = m.child_by_field_name("body")
        if mname is None or body is None or doc.node_text(mname) != getter:
            continue
        ret = next((c for c in body.named_children if c.type == "return_statement"), None)
        if ret is None or not ret.named_child_count:
            return None
        value = ret.named_children[0]
        if value.type == "function_call_expression" and doc.node_text(
            value.child_by_field_name("function") or value
        ) in ("__", "trans"):
            args = call_arguments(value)
            return string_value(doc, args[0]) if args else None
        return literal_value(doc, value)
    return None


def _model(doc: SourceDocument, members: list[tree_sitter.Node], res: Resolver) -> str | None:
    default = _property_default(doc, members, "model")
    target = class_constant_target(default, doc)
    if target is not None:
        return res(target)
    value = string_value(doc, default)
    return value.lstrip("\\") if value else None


def _class_constants(doc: SourceDocument, node: tree_sitter.Node, res: Resolver) -> list[str]:
    """Every `X::class` under `node`, resolved (relation managers in getRelations)."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "class_constant_access_expression":
            target = class_constant_target(n, doc)
            if target is not None:
                out.append((n.start_byte, res(target)))
                continue
        stack.extend(n.named_children)
    out.sort()
    return list(dict.fromkeys(name for _, name in out))


def _pages(doc: SourceDocument, method: tree_sitter.Node, res: Resolver) -> list[dict[str, Any]]:
    """`'edit' => Pages\\EditProduct::route('/{record}/edit')` -> {name, page, route}."""
    out = []
    stack = [method]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type != "array_element_initializer" or n.named_child_count != 2:
            continue
        key, value = n.named_children
        name = string_value(doc, key)
        if name is None or value.type != "scoped_call_expression":
            continue
        scope = value.child_by_field_name("scope")
        args = call_arguments(value)
        out.append(
            (
                n.start_byte,
                {
                    "name": name,
                    "page": res(doc.node_text(scope)) if scope is not None else None,
                    "route": string_value(doc, args[0]) if args else None,
                },
            )
        )
    out.sort(key=lambda t: t[0])
    return [page for _, page in out]


def _chained_methods(doc: SourceDocument, call: tree_sitter.Node) -> list[str]:
    """Names of the fluent calls made on a component: `->required()->maxLength(255)`."""
    names = []
    node = call
    while node.parent is not None and node.parent.type == "member_call_expression":
        parent = node.parent
        obj = parent.child_by_field_name("object")
        if obj is None or obj.id != node.id:
            break
        name = parent.child_by_field_name("name")
        if name is not None:
            names.append(doc.node_text(name))
        node = parent
    return names


def _placement(doc: SourceDocument, call: tree_sitter.Node, stop: tree_sitter.Node) -> str | None:
    """The `->actions([...])`/`->bulkActions([...])`/`->headerActions([...])` call an
    action is passed to."""
    node = call
    while node.parent is not None and node.id != stop.id:
        parent = node.parent
        if parent.type == "arguments" and parent.parent is not None:
            owner = parent.parent
            name = owner.child_by_field_name("name")
            if owner.type == "member_call_expression" and name is not None:
                text = doc.node_text(name)
                if text.lower().endswith("actions"):
                    return text
        node = parent
    return None
