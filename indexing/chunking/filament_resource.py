"""Filament classes (resources, v4 schema/table classes, relation managers, pages,
clusters): the admin-panel DSL as chunks.

A resource is ordinary PHP (symbols, references and fqcns come from the PHP strategy),
but its methods mean something: `form()` is the edit form, `table()` the list screen,
`getRelations()`/`getPages()` wire it up. Those chunks get their own types
(`filament_resource`, `filament_form`, `filament_table`, `filament_infolist`,
`filament_relations`, `filament_pages`, `filament_actions`) and say which fields,
columns, filters and actions they declare, so "add a stock field to the product form"
lands on `ProductResource::form` with the current field list at hand.

Filament v4's default layout delegates: `ProductResource::form()` is
`return ProductForm::configure($schema);` and the items live in
`Schemas/ProductForm.php` (`Tables/ProductsTable.php`, `Schemas/ProductInfolist.php`).
A `configure()` method is a section of its own, linked to the resource by Filament's
directory convention, and the resource method records the class it delegates to.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import tree_sitter

from ..languages import query
from ..model import FileAnalysis, SymbolKind
from ..source import SourceDocument, nearest_ancestor
from .base import FileWork, _Def
from .php import (
    _CLASS_LIKE_NODES,
    PhpStrategy,
    Resolver,
    _members,
    _namespace_of,
    call_arguments,
    class_constant_target,
    literal_value,
    property_defaults,
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
# Where Filament's own classes live, most specific first: a component's list is what
# its class is, not what its name ends with (`Repeater\TableColumn` is no table column).
_FILAMENT_NAMESPACES: tuple[tuple[str, str | None], ...] = (
    ("Filament\\Notifications\\", None),
    ("Filament\\Tables\\Filters\\QueryBuilder\\Constraints\\", "constraints"),
    ("Filament\\Tables\\Filters\\", "filters"),
    ("Filament\\Tables\\Columns\\Layout\\", "layout"),
    ("Filament\\Tables\\Columns\\", "columns"),
    ("Filament\\Tables\\Grouping\\", "layout"),
    ("Filament\\Forms\\Components\\Repeater\\", "layout"),
    ("Filament\\Infolists\\Components\\", "entries"),
    ("Filament\\Schemas\\Components\\", "layout"),
    ("Filament\\Widgets\\", None),
)
# Roles whose resource is found by the v4 folder layout when no property names it.
_CONVENTIONAL_ROLES = frozenset({"schema", "relation_manager"})
_API_RESOURCE_PARENTS = frozenset({"JsonResource", "ResourceCollection"})
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


def component_kind(component: str, fqcn: str | None = None) -> str | None:
    """Which list a `Component::make()` belongs to: by the namespace of Filament's own
    classes, else by Filament's naming conventions. None: not a schema item at all
    (a `Notification::make()` sent inside an action, a widget `Stat`)."""
    if fqcn:
        if "\\Actions\\" in f"\\{fqcn}" and component.endswith(("Action", "ActionGroup")):
            return "layout" if component.endswith("Group") else "actions"
        for prefix, kind in _FILAMENT_NAMESPACES:
            if fqcn.startswith(prefix):
                return kind
    if component.endswith("Constraint"):
        return "constraints"
    if component == "QueryBuilder":
        return "filters"
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
        if node.type == "class_declaration":
            role = class_role(s.name, meta, _members(node), doc)
            if role == "api_resource":
                meta["api_resource"] = True
            elif role == "resource":
                meta.update(self.resource_metadata(doc, node, meta, analysis.imports))
                meta["filament"] = "resource"
            elif role is not None:
                meta.update(_role_metadata(doc, role, s.name, node, meta, analysis.imports))
                meta["filament"] = role
            return meta
        if s.kind is not SymbolKind.METHOD:
            return meta
        cls = nearest_ancestor(node, _CLASS_LIKE_NODES)
        if cls is None or cls.type != "class_declaration":
            return meta
        cls_name_node = cls.child_by_field_name("name")
        if cls_name_node is None:
            return meta
        cls_name = doc.node_text(cls_name_node)
        namespace = _namespace_of(doc, node)
        res = _resolver(namespace, analysis.imports)

        cls_meta = {"extends": _parent(doc, cls, res)}
        role = class_role(cls_name, cls_meta, _members(cls), doc)
        if role is None or role == "api_resource":
            return meta
        section = _section(doc, node, s.name, cls_name)
        if section is None:
            return meta
        meta["filament"] = section
        owner = (
            s.container
            if role == "resource"
            else _resource_property(doc, _members(cls), res)
            or (conventional_resource(namespace) if role in _CONVENTIONAL_ROLES else None)
        )
        if owner:
            meta["resource"] = owner
        model = _model(doc, _members(cls), res)
        if model:
            meta["model"] = model
        delegate = _delegate(doc, node, res)
        if delegate:
            meta["delegates_to"] = delegate
        meta.update(self.components(doc, node, s.name, res, cls))
        if section == "relations":
            meta["relations"] = _class_constants(doc, node, res)
        elif section == "pages":
            meta["pages"] = _pages(doc, node, res)
        # Filament's own component classes are the vocabulary of every resource, not
        # what this one is about: keep the model, relation managers, pages, delegates.
        related = [model] if model else []
        if meta.get("resource") and meta["resource"] != s.container:
            related.append(meta["resource"])
        if delegate:
            related.append(delegate)
        related.extend(r for r in meta.get("related_symbols", []) if not r.startswith("Filament\\"))
        related.extend(meta.get("relations", []))
        related.extend(p["page"] for p in meta.get("pages", []) if p.get("page"))
        if related:
            meta["related_symbols"] = list(dict.fromkeys(related))
        return meta

    def finish(self, work: FileWork) -> None:
        super().finish(work)
        analysis = work.analysis
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
        """The resource's model, its settings, sections and related classes."""
        res = _resolver(meta.get("namespace"), imports)
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
        self,
        doc: SourceDocument,
        method: tree_sitter.Node,
        method_name: str,
        res: Resolver,
        cls: tree_sitter.Node | None = None,
    ) -> dict[str, list[dict[str, Any]]]:
        """`TextInput::make('email')->required()` -> fields: [{component: TextInput,
        name: email, modifiers: [required]}], likewise columns, filters (a
        `QueryBuilder`'s constraints apart), actions (with where they are placed:
        recordActions, bulkActions, headerActions, ...), infolist entries and layout
        components. Items built in the class's own helper methods
        (`->schema(static::getDetailsComponents())`) are followed, once each."""
        helpers = _helper_methods(doc, cls) if cls is not None else {}
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, _MAKE_QUERY))
        found: list[tuple[tuple[int, ...], str, dict[str, Any]]] = []
        seen = {method.id}
        todo = [((), method)]
        while todo:
            order, body = todo.pop()
            for call_order, helper in _helper_calls(doc, body, helpers):
                if helper.id not in seen:
                    seen.add(helper.id)
                    todo.append(((*order, call_order), helper))
            for _, captures in cursor.matches(body):
                call = captures["call"][0]
                component_text = doc.node_text(captures["component"][0])
                component = component_text.rsplit("\\", 1)[-1]
                kind = component_kind(component, res(component_text))
                if kind is None:
                    continue
                args = call_arguments(call)
                name = string_value(doc, args[0]) if args else None
                item: dict[str, Any] = {"component": component, "name": name}
                if kind == "layout":
                    item = {"component": component, "label": name}
                modifiers = _chained_methods(doc, call)
                if modifiers and kind != "layout":
                    item["modifiers"] = modifiers
                if kind == "actions":
                    item["placement"] = _placement(doc, call, body) or method_name
                found.append(((*order, call.start_byte), kind, item))
        found.sort(key=lambda t: t[0])
        out: dict[str, list[dict[str, Any]]] = {}
        for _, kind, item in found:
            out.setdefault(kind, []).append(item)
        return out


# ---- what a Filament class is ----------------------------------------------------------


def class_role(
    name: str, meta: dict[str, Any], members: list[tree_sitter.Node], doc: SourceDocument
) -> str | None:
    """resource, relation_manager, page, cluster, widget, schema (a v4 `configure()` class),
    api_resource (Laravel's `JsonResource`, not Filament at all) or None."""
    parent = meta.get("extends")
    parent = parent if isinstance(parent, str) else ""
    short = parent.rsplit("\\", 1)[-1]
    if short in _API_RESOURCE_PARENTS:
        return "api_resource"
    if _is_resource(name, meta):
        return "resource"
    if short.endswith("RelationManager"):
        return "relation_manager"
    if short == "Cluster" or parent.startswith("Filament\\Clusters\\"):
        return "cluster"
    if parent.startswith("Filament\\") and "\\Pages\\" in parent:
        return "page"
    if parent.startswith("Filament\\Widgets\\"):
        return "widget"
    if any(
        m.type == "method_declaration"
        and (n := m.child_by_field_name("name")) is not None
        and doc.node_text(n) == "configure"
        for m in members
    ):
        return "schema"
    return None


def conventional_resource(namespace: str | None) -> str | None:
    """The resource a v4 `Schemas/`, `Tables/` or `RelationManagers/` class belongs to:
    `...\\Resources\\Products\\Schemas` -> `...\\Resources\\Products\\ProductResource`."""
    if not namespace or "\\" not in namespace:
        return None
    parent = namespace.rsplit("\\", 1)[0]
    folder = parent.rsplit("\\", 1)[-1]
    return f"{parent}\\{singular(folder)}Resource"


def singular(word: str) -> str:
    """English plural -> singular for Filament's folder names (Categories, Addresses)."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _parent(doc: SourceDocument, cls: tree_sitter.Node, res: Resolver) -> str | None:
    base = next((c for c in cls.named_children if c.type == "base_clause"), None)
    if base is None:
        return None
    names = [n for n in base.named_children if n.type in ("name", "qualified_name")]
    return res(doc.node_text(names[0])) if names else None


def _section(doc: SourceDocument, method: tree_sitter.Node, name: str, cls_name: str) -> str | None:
    if name in FILAMENT_METHODS:
        return FILAMENT_METHODS[name]
    if _ACTIONS_METHOD.match(name):
        return "actions"
    if name != "configure":
        return None
    params = method.child_by_field_name("parameters")
    types = {
        _type_short(doc, p.child_by_field_name("type"))
        for p in (params.named_children if params is not None else [])
    }
    if "Table" in types:
        return "table"
    if "Infolist" in types or cls_name.endswith("Infolist"):
        return "infolist"
    if types & {"Schema", "Form"}:
        return "form"
    return None


def _type_short(doc: SourceDocument, node: tree_sitter.Node | None) -> str | None:
    return doc.node_text(node).rsplit("\\", 1)[-1].lstrip("?") if node is not None else None


def _resolver(namespace: str | None, imports: dict[str, str]) -> Callable[[str], str]:
    """Class names as PHP resolves them in `namespace` with the file's `use` imports."""
    return partial(resolve_name, namespace=namespace, imports=imports)


def _role_metadata(
    doc: SourceDocument,
    role: str,
    name: str,
    node: tree_sitter.Node,
    meta: dict[str, Any],
    imports: dict[str, str],
) -> dict[str, Any]:
    """What a relation manager, page, cluster or schema class is for, and whose it is."""
    namespace = meta.get("namespace")
    res = _resolver(namespace, imports)
    members = _members(node)
    out: dict[str, Any] = {}
    resource = _resource_property(doc, members, res)
    if role in _CONVENTIONAL_ROLES and resource is None:
        resource = conventional_resource(namespace)
    if resource:
        out["resource"] = resource
    if role in ("relation_manager", "page"):
        relationship = _static_value(doc, members, "relationship")
        if isinstance(relationship, str):
            out["relationship"] = relationship
    if role == "cluster":
        for prop, key in _RESOURCE_PROPERTIES.items():
            value = _static_value(doc, members, prop)
            if value is not None:
                out[key] = value
    if role == "schema":
        out["sections"] = [
            section
            for m in members
            if m.type == "method_declaration"
            and (n := m.child_by_field_name("name")) is not None
            and (section := _section(doc, m, doc.node_text(n), name)) is not None
        ]
    related = [resource] if resource else []
    related.extend(meta.get("related_symbols", []))
    if related:
        out["related_symbols"] = list(dict.fromkeys(related))
    return out


def _resource_property(
    doc: SourceDocument, members: list[tree_sitter.Node], res: Resolver
) -> str | None:
    """`protected static string $resource = PostResource::class;` (pages) or
    `$relatedResource` (relation managers)."""
    for prop in ("resource", "relatedResource"):
        target = class_constant_target(property_defaults(doc, members).get(prop), doc)
        if target is not None:
            return res(target)
    return None


def _delegate(doc: SourceDocument, method: tree_sitter.Node, res: Resolver) -> str | None:
    """`return ProductForm::configure($schema);` -> the class the section lives in."""
    stack = [method]
    while stack:
        n = stack.pop()
        if n.type == "scoped_call_expression":
            scope = n.child_by_field_name("scope")
            mname = n.child_by_field_name("name")
            if (
                scope is not None
                and mname is not None
                and doc.node_text(mname) == "configure"
                and scope.type in ("name", "qualified_name")
            ):
                return res(doc.node_text(scope))
        stack.extend(n.named_children)
    return None


def _helper_methods(doc: SourceDocument, cls: tree_sitter.Node) -> dict[str, tree_sitter.Node]:
    return {
        doc.node_text(n): m
        for m in _members(cls)
        if m.type == "method_declaration" and (n := m.child_by_field_name("name")) is not None
    }


def _helper_calls(
    doc: SourceDocument, body: tree_sitter.Node, helpers: dict[str, tree_sitter.Node]
) -> list[tuple[int, tree_sitter.Node]]:
    """`static::x()`, `self::x()`, `$this->x()` calls of the class's own methods."""
    out = []
    stack = [body]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type == "scoped_call_expression":
            scope = n.child_by_field_name("scope")
            if scope is None or doc.node_text(scope) not in ("static", "self"):
                continue
        elif n.type == "member_call_expression":
            obj = n.child_by_field_name("object")
            if obj is None or doc.node_text(obj) != "$this":
                continue
        else:
            continue
        mname = n.child_by_field_name("name")
        helper = helpers.get(doc.node_text(mname)) if mname is not None else None
        if helper is not None:
            out.append((n.start_byte, helper))
    return out


def _is_resource(name: str, meta: dict[str, Any]) -> bool:
    parent = meta.get("extends")
    if not isinstance(parent, str):
        return name.endswith("Resource")
    if parent.startswith("Filament\\"):
        return parent.startswith("Filament\\Resources\\Resource")
    return parent.rsplit("\\", 1)[-1] in ("Resource", "BaseResource") or name.endswith("Resource")


def _static_value(doc: SourceDocument, members: list[tree_sitter.Node], name: str) -> Any:
    """A resource setting from `protected static ?string $navigationGroup = 'Shop';` or
    from a `getNavigationGroup()` that returns a literal (or `__('Shop')`)."""
    default = property_defaults(doc, members).get(name)
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
    default = property_defaults(doc, members).get("model")
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
