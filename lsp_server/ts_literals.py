"""Keys of an object literal a `const` holds, read from its file's tree: what tsserver
answers for `routesV1.user.root` with `export const routesV1 = { user: { root: … } }`
written in another file (config objects, route tables). The index keeps no symbol for
such keys; the declaration's tree has them."""

from __future__ import annotations

import tree_sitter
from code_intel.indexing.model import Position, Range
from code_intel.indexing.source import SourceDocument

_WRAPPERS = frozenset({"as_expression", "satisfies_expression", "parenthesized_expression"})
_KEYS = frozenset({"property_identifier", "shorthand_property_identifier", "string", "private_property_identifier"})


def literal_key(doc: SourceDocument, at: Position, chain: list[str], name: str) -> Range | None:
    """The range of key `name` in the object literal reached by `chain` (keys, outer
    first) from the value of the variable declared at `at`; None when the declaration
    holds no literal there, or a declared type says what the value is."""
    if doc.tree is None or at.line >= len(doc.line_starts):
        return None
    offset = doc.line_starts[at.line] + at.character
    node = doc.tree.root_node.named_descendant_for_byte_range(offset, offset)
    holder = node.parent if node is not None else None
    if holder is None or holder.type != "variable_declarator" or holder.child_by_field_name("type") is not None:
        return None
    value = _unwrapped(holder.child_by_field_name("value"))
    for key in chain:
        value = _unwrapped(_pair_value(doc, value, key))
    found = _key(doc, value, name)
    return doc.node_range(found) if found is not None else None


def _unwrapped(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and node.type in _WRAPPERS and node.named_child_count:
        node = node.named_children[0]  # `{…} as const`, `{…} satisfies Routes`, `({…})`
    return node if node is not None and node.type == "object" else None


def _key_text(doc: SourceDocument, key: tree_sitter.Node) -> str:
    text = doc.node_text(key)
    return text[1:-1] if key.type == "string" and len(text) >= 2 else text


def _key(doc: SourceDocument, obj: tree_sitter.Node | None, name: str) -> tree_sitter.Node | None:
    for member in obj.named_children if obj is not None else []:
        if member.type == "shorthand_property_identifier":
            key: tree_sitter.Node | None = member
        elif member.type in ("pair", "method_definition"):
            key = member.child_by_field_name("key") or member.child_by_field_name("name")
        else:
            continue
        if key is not None and key.type in _KEYS and _key_text(doc, key) == name:
            return key
    return None


def _pair_value(doc: SourceDocument, obj: tree_sitter.Node | None, name: str) -> tree_sitter.Node | None:
    key = _key(doc, obj, name)
    pair = key.parent if key is not None else None
    return pair.child_by_field_name("value") if pair is not None and pair.type == "pair" else None
