"""Eloquent models and their tables: `$table`, `$fillable`, `$guarded`, `$casts` (or
`casts()`), `$hidden`, `$with`, and the table by Laravel's naming convention.

A model chunk that says `table: threads, fillable: [...], casts: {...}` answers "which
model writes the threads table, which columns can be mass-assigned" without opening
the migration, and the table name ties it to the `table` symbol that migrations and
schema dumps define.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import tree_sitter

from ..source import SourceDocument
from .php import class_constant_target, literal_value, property_defaults, string_list, string_value

_MODEL_PARENTS = frozenset({"Model", "Authenticatable", "Pivot", "MorphPivot", "User"})
_ILLUMINATE_MODELS = frozenset(
    {
        "Illuminate\\Database\\Eloquent\\Model",
        "Illuminate\\Database\\Eloquent\\Relations\\Pivot",
        "Illuminate\\Database\\Eloquent\\Relations\\MorphPivot",
        "Illuminate\\Foundation\\Auth\\User",
    }
)
_LIST_PROPERTIES = ("fillable", "guarded", "hidden", "visible", "with", "appends")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Words whose plural Laravel's inflector does not form by the rules below.
_IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women"}
_UNCOUNTABLE = frozenset({"equipment", "information", "money", "news", "series", "media"})


def is_model(extends: str | None, namespace: str | None) -> bool:
    """An Eloquent model: extends Eloquent's `Model` (or `Authenticatable`, `Pivot`),
    or extends a class of the app's own `Models` namespace. Factories, casts and
    scopes live under `Illuminate\\Database\\Eloquent\\` too but are not models."""
    if not extends:
        return False
    short = extends.rsplit("\\", 1)[-1]
    if extends.startswith("Illuminate\\"):
        return extends in _ILLUMINATE_MODELS
    return short in _MODEL_PARENTS or "\\Models\\" in f"\\{namespace or ''}\\"


def conventional_table(class_name: str) -> str:
    """Laravel's default table: the snake_case plural of the class (`OrderItem` ->
    `order_items`)."""
    words = _CAMEL_BOUNDARY.sub("_", class_name).lower().split("_")
    words[-1] = plural(words[-1])
    return "_".join(words)


def plural(word: str) -> str:
    if word in _UNCOUNTABLE:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", word):
        return word + "es"
    return word + "s"


def model_metadata(
    doc: SourceDocument,
    members: list[tree_sitter.Node],
    class_name: str,
    res: Callable[[str], str],
) -> dict[str, Any]:
    """The model's table (and whether it is declared or by convention) and its
    attribute lists."""
    props = {k: v for k, v in property_defaults(doc, members).items() if v is not None}
    consts = _constants(doc, members)
    out: dict[str, Any] = {}
    table_node = props.get("table")
    table = _string_or_constant(doc, table_node, consts)
    if table:
        out["table"] = table
        out["table_source"] = "property"
    else:
        out["table"] = conventional_table(class_name)
        out["table_source"] = "convention"
    for name in _LIST_PROPERTIES:
        if name in props:
            out[name] = string_list(doc, props[name])
    casts = props.get("casts") or _casts_method(members, doc)
    if casts is not None and casts.type == "array_creation_expression":
        out["casts"] = _casts(doc, casts, res)
    return out


def _constants(doc: SourceDocument, members: list[tree_sitter.Node]) -> dict[str, str]:
    out = {}
    for m in members:
        if m.type != "const_declaration":
            continue
        for element in m.named_children:
            if element.type == "const_element" and element.named_child_count >= 2:
                value = string_value(doc, element.named_children[-1])
                if value is not None:
                    out[doc.node_text(element.named_children[0])] = value
    return out


def _string_or_constant(
    doc: SourceDocument, node: tree_sitter.Node | None, consts: dict[str, str]
) -> str | None:
    """`'threads'` or `self::TABLE` / `static::TABLE` with `const TABLE = 'threads'`."""
    if node is None:
        return None
    value = string_value(doc, node)
    if value is not None:
        return value
    if node.type == "class_constant_access_expression" and node.named_child_count == 2:
        scope, member = node.named_children
        if doc.node_text(scope) in ("self", "static"):
            return consts.get(doc.node_text(member))
    return None


def _casts_method(members: list[tree_sitter.Node], doc: SourceDocument) -> tree_sitter.Node | None:
    """The array `casts(): array { return [...]; }` returns (Laravel 11)."""
    for m in members:
        name = m.child_by_field_name("name") if m.type == "method_declaration" else None
        if name is None or doc.node_text(name) != "casts":
            continue
        body = m.child_by_field_name("body")
        for stmt in body.named_children if body is not None else []:
            if stmt.type == "return_statement" and stmt.named_child_count:
                return stmt.named_children[0]
    return None


def _casts(
    doc: SourceDocument, array: tree_sitter.Node, res: Callable[[str], str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for e in array.named_children:
        if e.type != "array_element_initializer" or e.named_child_count != 2:
            continue
        key = string_value(doc, e.named_children[0])
        if key is None:
            continue
        value = e.named_children[1]
        target = class_constant_target(value, doc)
        out[key] = res(target) if target is not None else literal_value(doc, value)
    return out
