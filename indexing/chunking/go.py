"""Go: functions, methods, structs, interfaces, type definitions and aliases as
chunks; struct fields, interface methods and top-level consts/vars as definitions;
`//` doc comments; imports; a file summary chunk.

Names are qualified the way Go code reads them: by package name, and a method by its
receiver type, which is its container although it sits outside the type's braces
(`func (s *Service) Login()` in package `auth` is `auth.Service.Login`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import tree_sitter

from ..model import Chunk, FileAnalysis, SymbolKind
from ..source import SourceDocument
from .base import FileWork, TreeSitterStrategy, _Def, comments_above
from .walks import attach_leading_lines, collapse, defines_line

_TYPE_KINDS = {
    "struct_type": SymbolKind.STRUCT,
    "interface_type": SymbolKind.INTERFACE,
}
_DECLARATIONS = frozenset({"type_declaration", "const_declaration", "var_declaration"})
# Specs that may name several things at once (`a, b int`); a name alone is the
# definition then, and the whole spec when it names one.
_MULTI_NAME_PARENTS = frozenset({"field_declaration", "const_spec", "var_spec"})
_BODYLESS = frozenset({"method_elem"})


def import_alias(path: str) -> str:
    """The name a package is used under without an explicit alias: its last path
    element, skipping a major-version suffix (`github.com/go-chi/chi/v5` -> `chi`)."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and parts[-1].startswith("v") and parts[-1][1:].isdigit():
        parts = parts[:-1]
    return parts[-1] if parts else path


def go_imports(doc: SourceDocument, root: tree_sitter.Node) -> dict[str, str]:
    """alias -> import path for every import of the file (blank and dot imports bind
    no name and are left out)."""
    out: dict[str, str] = {}
    for decl in root.named_children:
        if decl.type != "import_declaration":
            continue
        specs = [c for c in decl.named_children if c.type == "import_spec"]
        for spec_list in (c for c in decl.named_children if c.type == "import_spec_list"):
            specs.extend(c for c in spec_list.named_children if c.type == "import_spec")
        for spec in specs:
            path_node = spec.child_by_field_name("path")
            if path_node is None:
                continue
            path = doc.node_text(path_node).strip('"`')
            name = spec.child_by_field_name("name")
            if name is None:
                out[import_alias(path)] = path
            elif name.type == "package_identifier":
                out[doc.node_text(name)] = path
    return out


def package_name(doc: SourceDocument, root: tree_sitter.Node) -> str | None:
    clause = next((c for c in root.named_children if c.type == "package_clause"), None)
    if clause is None:
        return None
    name = next((c for c in clause.named_children if c.type == "package_identifier"), None)
    return doc.node_text(name) if name is not None else None


def receiver_type(doc: SourceDocument, method: tree_sitter.Node) -> tuple[str | None, bool]:
    """(`Service`, pointer?) for `func (s *Service) ...`; generic receivers
    (`func (l List[T]) ...`) give the bare type name."""
    receiver = method.child_by_field_name("receiver")
    param = (
        next((c for c in receiver.named_children if c.type == "parameter_declaration"), None)
        if receiver is not None
        else None
    )
    node = param.child_by_field_name("type") if param is not None else None
    pointer = False
    while node is not None and node.type in ("pointer_type", "generic_type", "parenthesized_type"):
        pointer = pointer or node.type == "pointer_type"
        inner = node.child_by_field_name("type")
        node = (
            inner
            if inner is not None
            else (node.named_children[0] if node.named_child_count else None)
        )
    if node is None or node.type != "type_identifier":
        return None, pointer
    return doc.node_text(node), pointer


def _declaration_of(node: tree_sitter.Node) -> tree_sitter.Node:
    """A spec alone in its `type`/`const`/`var` declaration stands for it: the doc
    comment and the keyword are on the declaration."""
    parent = node.parent
    if parent is not None and parent.type == "var_spec_list":
        return node
    if parent is not None and parent.type in _DECLARATIONS:
        specs = [c for c in parent.named_children if c.type != "comment"]
        if len(specs) == 1:
            return parent
    return node


def _widen(node: tree_sitter.Node) -> tree_sitter.Node:
    """The spec for a name that is the only one it declares."""
    parent = node.parent
    if parent is None or parent.type not in _MULTI_NAME_PARENTS:
        return node
    # The grammar also files the commas between names under `name`.
    if sum(1 for c in parent.children_by_field_name("name") if c.is_named) <= 1:
        return parent
    return node


class GoStrategy(TreeSitterStrategy):
    language = "go"
    grammar_name = "go"
    definitions_query = """
    (function_declaration name: (identifier) @name) @definition.function
    (method_declaration name: (field_identifier) @name) @definition.method
    (type_spec name: (type_identifier) @name) @definition.type
    (type_alias name: (type_identifier) @name) @definition.type
    (method_elem name: (field_identifier) @name) @definition.method
    (field_declaration name: (field_identifier) @name @definition.field)
    (field_declaration !name type: (type_identifier) @name) @definition.field
    (field_declaration !name type: (qualified_type name: (type_identifier) @name)) @definition.field
    (source_file (const_declaration (const_spec (identifier) @name @definition.constant)))
    (source_file (var_declaration (var_spec (identifier) @name @definition.variable)))
    (source_file (var_declaration (var_spec_list
        (var_spec (identifier) @name @definition.variable))))
    """
    # Const and var names are matched as bare children: with a `name:` field the
    # query engine only reports the first of `a, b = 1, 2` (values sit in an
    # expression_list, so every direct identifier child is a name).
    references_query = """
    [(identifier) (type_identifier) (field_identifier) (package_identifier)] @reference
    """
    header_types = frozenset({"package_clause", "import_declaration"})

    # ---- hooks -------------------------------------------------------------------

    def module_prefix(self, doc: SourceDocument, analysis: FileAnalysis) -> str | None:
        """The package name. It runs first, so it also records the imports."""
        root = doc.tree.root_node  # type: ignore[union-attr]
        analysis.imports.update(go_imports(doc, root))
        return package_name(doc, root)

    def docstring(self, doc: SourceDocument, node: tree_sitter.Node) -> str | None:
        return super().docstring(doc, _declaration_of(_widen(node)))

    def signature(self, doc: SourceDocument, node: tree_sitter.Node) -> str:
        """`func (s *Service) Login(ctx context.Context) (Token, error)`,
        `type Service struct`, `const MaxAttempts = 5`, `users store.UserRepository`."""
        node = _widen(node)
        if node.type in ("function_declaration", "method_declaration"):
            return super().signature(doc, node)
        if node.type in ("type_spec", "type_alias"):
            type_node = node.child_by_field_name("type")
            if type_node is not None and type_node.type in _TYPE_KINDS:
                end = type_node.start_byte + len(type_node.type.split("_")[0])
                text = doc.data[node.start_byte : end].decode("utf-8", errors="replace")
                return "type " + collapse(text)
            return "type " + collapse(doc.node_text(node).split("\n", 1)[0])
        if node.type in ("const_spec", "var_spec"):
            keyword = "const" if node.type == "const_spec" else "var"
            return f"{keyword} " + collapse(doc.node_text(node).split("\n", 1)[0], 200)
        if node.type == "identifier" and node.parent is not None:
            keyword = "const" if node.parent.type == "const_spec" else "var"
            return f"{keyword} " + collapse(doc.node_text(node.parent).split("\n", 1)[0], 200)
        return collapse(doc.node_text(node).split("\n", 1)[0])

    def _definitions(
        self, doc: SourceDocument, root: tree_sitter.Node, prefix: str | None
    ) -> list[_Def]:
        """The base nesting plus Go's rules: a type's kind follows its underlying type,
        a method's container is its receiver type, a name that is alone in its spec
        covers the spec, and `_` defines nothing."""
        defs = super()._definitions(doc, root, prefix)
        kept = []
        for d in defs:
            s = d.symbol
            if s.name == "_":
                continue
            node = _widen(d.node)
            kind, container = s.kind, s.container
            if node.type == "type_spec":
                type_node = node.child_by_field_name("type")
                kind = _TYPE_KINDS.get(type_node.type if type_node is not None else "", kind)
            elif node.type == "method_declaration":
                receiver, _ = receiver_type(doc, node)
                if receiver:
                    container = f"{prefix}.{receiver}" if prefix else receiver
            d.widen(node)
            d.symbol = replace(
                s,
                kind=kind,
                container=container,
                range=doc.node_range(node),
                qualified_name=self.qualify(container, s.name, kind),
            )
            kept.append(d)
        return kept

    def _chunks(self, work: FileWork) -> list[Chunk]:
        """Interface method specs are definitions, not chunks: the interface's chunk
        shows them."""
        return super()._chunks(replace(work, defs=[d for d in work.defs if d.node.type not in _BODYLESS]))

    def symbol_metadata(
        self, doc: SourceDocument, d: _Def, analysis: FileAnalysis
    ) -> dict[str, Any]:
        root = doc.tree.root_node  # type: ignore[union-attr]
        s = d.symbol
        meta: dict[str, Any] = {
            "package": package_name(doc, root),
            "exported": s.name[:1].isupper(),
        }
        if d.node.type == "method_declaration":
            receiver, pointer = receiver_type(doc, d.node)
            if receiver:
                meta["receiver"] = receiver
                meta["pointer_receiver"] = pointer
        if s.kind is SymbolKind.STRUCT:
            embedded = self._embedded_types(doc, d.node)
            if embedded:
                meta["embeds"] = embedded
        return meta

    def finish(self, work: FileWork) -> None:
        """Doc comments join their chunks; a summary chunk holds the package clause,
        its doc comment, the imports and what the file defines."""
        doc, analysis, defs = work.doc, work.analysis, work.defs
        attach_leading_lines(doc, analysis, defs, work.settings, self._leading_row)
        root = doc.tree.root_node  # type: ignore[union-attr]
        package = package_name(doc, root)
        header = self.header_nodes(doc)
        if not header:
            return
        clause = header[0] if header[0].type == "package_clause" else None
        package_doc = super().docstring(doc, clause) if clause is not None else None
        top = [d.symbol for d in defs if d.symbol.container == package]
        methods = [d.symbol for d in defs if d.node.type == "method_declaration"]
        parts = [package_doc] if package_doc else []
        parts.extend(doc.node_text(n) for n in header)
        listed = top + methods
        if listed:
            parts.append(defines_line(listed, lambda s: s.qualified_name.removeprefix(f"{package}.")))
        self.add_module_chunk(doc, analysis, doc.path, parts, {
            "qualified_name": package,
            "package": package,
            "docstring": package_doc,
            "imports": dict(analysis.imports),
        })

    # ---- helpers -----------------------------------------------------------------

    def _leading_row(self, d: _Def) -> int:
        """First line of the `type`/`var` keyword and the doc comment above."""
        anchor = _declaration_of(d.node)
        comments = comments_above(anchor, self.comment_types)
        return comments[-1].start_point[0] if comments else anchor.start_point[0]

    def _embedded_types(self, doc: SourceDocument, spec: tree_sitter.Node) -> list[str]:
        struct = spec.child_by_field_name("type")
        fields = (
            next((c for c in struct.named_children if c.type == "field_declaration_list"), None)
            if struct is not None
            else None
        )
        out = []
        for f in fields.named_children if fields is not None else []:
            if f.type == "field_declaration" and f.child_by_field_name("name") is None:
                type_node = f.child_by_field_name("type")
                if type_node is not None:
                    out.append(doc.node_text(type_node))
        return out
