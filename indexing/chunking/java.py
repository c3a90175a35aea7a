"""Java: classes, records, interfaces, annotation types and enums, methods and
constructors as chunks; fields, record components, constants and enum constants as
definitions; Javadoc; imports; a file summary chunk.

Names are qualified by package (`com.example.shop.web.OrderController.list`). Chunks
keep what a Spring developer searches by: the annotations (`@RestController`,
`@GetMapping("/{id}")`, `@Transactional`), and for classes the heritage and the
injected dependencies (constructor parameters, `@Autowired`/`@Inject` fields)
resolved to fully qualified names in `related_symbols`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import tree_sitter

from ..model import Chunk, FileAnalysis
from ..source import SourceDocument
from .base import FileWork, TreeSitterStrategy, _Def
from .walks import (
    attach_leading_lines,
    clean_block_comment,
    collapse,
    defines_line,
    header_skeletons,
)

_ANNOTATIONS = frozenset({"annotation", "marker_annotation"})
_TYPE_DECLARATIONS = frozenset(
    {
        "class_declaration",
        "record_declaration",
        "interface_declaration",
        "annotation_type_declaration",
        "enum_declaration",
    }
)
# Declarations that may declare several variables (`int a, b;`).
_MULTI_DECLARATORS = frozenset({"field_declaration", "constant_declaration"})
_TYPE_NODES = frozenset({"type_identifier", "scoped_type_identifier", "generic_type"})
_INJECTION_ANNOTATIONS = frozenset({"Autowired", "Inject", "Resource"})
# java.lang is imported implicitly; its types are values, not injected services.
_JAVA_LANG = frozenset(
    {
        "Boolean",
        "Byte",
        "Character",
        "Class",
        "Double",
        "Enum",
        "Exception",
        "Float",
        "Integer",
        "Iterable",
        "Long",
        "Number",
        "Object",
        "Record",
        "Runnable",
        "RuntimeException",
        "Short",
        "String",
        "StringBuilder",
        "System",
        "Thread",
        "Throwable",
        "Void",
    }
)


def java_imports(doc: SourceDocument, root: tree_sitter.Node) -> tuple[dict[str, str], list[str]]:
    """(simple name -> fully qualified name, wildcard packages) of the file's imports;
    `import static a.B.m;` maps `m` to `a.B.m`."""
    names: dict[str, str] = {}
    wildcards: list[str] = []
    for decl in root.named_children:
        if decl.type != "import_declaration":
            continue
        target = next(
            (c for c in decl.named_children if c.type in ("scoped_identifier", "identifier")), None
        )
        if target is None:
            continue
        qualified = doc.node_text(target)
        if any(c.type == "asterisk" for c in decl.named_children):
            wildcards.append(qualified)
        else:
            names[qualified.rsplit(".", 1)[-1]] = qualified
    return names, wildcards


def package_name(doc: SourceDocument, root: tree_sitter.Node) -> str | None:
    decl = next((c for c in root.named_children if c.type == "package_declaration"), None)
    if decl is None:
        return None
    name = next(
        (c for c in decl.named_children if c.type in ("scoped_identifier", "identifier")), None
    )
    return doc.node_text(name) if name is not None else None


def annotations(doc: SourceDocument, node: tree_sitter.Node) -> list[str]:
    """The declaration's annotations as written, whitespace collapsed."""
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    if mods is None:
        return []
    return [" ".join(doc.node_text(c).split()) for c in mods.children if c.type in _ANNOTATIONS]


def _annotation_names(doc: SourceDocument, node: tree_sitter.Node) -> set[str]:
    return {a[1:].split("(", 1)[0].rsplit(".", 1)[-1] for a in annotations(doc, node)}


def _start_after_annotations(node: tree_sitter.Node) -> int:
    """Where the declaration proper starts: annotations go to metadata, not into the
    signature."""
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    if mods is None:
        return node.start_byte
    for child in mods.children:
        if child.type not in _ANNOTATIONS:
            return child.start_byte
    following = mods.next_sibling
    return following.start_byte if following is not None else node.start_byte


def _declaration(node: tree_sitter.Node) -> tree_sitter.Node:
    """The field declaration of a variable declarator."""
    if node.type == "variable_declarator" and node.parent is not None:
        return node.parent
    return node


def javadoc_node(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `/** ... */` comment right above a declaration (annotations are part of
    the declaration, so the Javadoc is its previous sibling)."""
    prev = _declaration(node).prev_named_sibling
    if prev is None or prev.type != "block_comment":
        return None
    if prev.end_point[0] < _declaration(node).start_point[0] - 1:
        return None
    text = prev.text.decode("utf-8", errors="replace") if prev.text else ""
    return prev if text.startswith("/**") else None


def _javadoc_row(d: _Def) -> int | None:
    comment = javadoc_node(d.node)
    return comment.start_point[0] if comment is not None else None


class JavaStrategy(TreeSitterStrategy):
    language = "java"
    grammar_name = "java"
    definitions_query = """
    (class_declaration name: (identifier) @name) @definition.class
    (record_declaration name: (identifier) @name) @definition.class
    (interface_declaration name: (identifier) @name) @definition.interface
    (annotation_type_declaration name: (identifier) @name) @definition.interface
    (enum_declaration name: (identifier) @name) @definition.enum
    (enum_constant name: (identifier) @name) @definition.enum_member
    (method_declaration name: (identifier) @name) @definition.method
    (annotation_type_element_declaration name: (identifier) @name) @definition.method
    (constructor_declaration name: (identifier) @name) @definition.constructor
    (compact_constructor_declaration name: (identifier) @name) @definition.constructor
    (field_declaration declarator: (variable_declarator name: (identifier) @name) @definition.field)
    (constant_declaration
        declarator: (variable_declarator name: (identifier) @name) @definition.constant)
    (record_declaration parameters: (formal_parameters
        (formal_parameter name: (identifier) @name) @definition.field))
    """
    references_query = "[(identifier) (type_identifier)] @reference"
    comment_types = frozenset({"line_comment", "block_comment"})
    header_types = frozenset({"package_declaration", "import_declaration"})

    # ---- hooks -------------------------------------------------------------------

    def module_prefix(self, doc: SourceDocument, analysis: FileAnalysis) -> str | None:
        """The package. It runs first, so it also records the imports."""
        root = doc.tree.root_node  # type: ignore[union-attr]
        analysis.imports.update(java_imports(doc, root)[0])
        return package_name(doc, root)

    def docstring(self, doc: SourceDocument, node: tree_sitter.Node) -> str | None:
        """Javadoc only: `//` comments above a member are rarely about it."""
        comment = javadoc_node(node)
        return clean_block_comment(doc.node_text(comment)) if comment is not None else None

    def signature(self, doc: SourceDocument, node: tree_sitter.Node) -> str:
        """The declaration up to its body without its annotations:
        `public List<Order> list(@RequestParam int page)`."""
        node = _declaration(node)
        start = _start_after_annotations(node)
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        text = doc.data[start:end].decode("utf-8", errors="replace")
        if node.type == "enum_constant":
            text = text.split("{", 1)[0]
        return collapse(text)

    def _definitions(
        self, doc: SourceDocument, root: tree_sitter.Node, prefix: str | None
    ) -> list[_Def]:
        """A field declaring one variable covers its whole declaration (annotations,
        type, initializer); one of `int a, b;` covers its declarator."""
        defs = super()._definitions(doc, root, prefix)
        for d in defs:
            decl = _declaration(d.node)
            if decl is d.node or decl.type not in _MULTI_DECLARATORS:
                continue
            if len(decl.children_by_field_name("declarator")) == 1:
                d.widen(decl)
                d.symbol = replace(d.symbol, range=doc.node_range(decl))
        return defs

    def _chunks(self, work: FileWork) -> list[Chunk]:
        """Class skeletons keep member headers whole: a method's first line is
        often an annotation, not its signature."""
        chunked = [d for d in work.defs if d.symbol.kind in self.chunk_kinds]
        return header_skeletons(work.doc, super()._chunks(work), chunked, work.settings)

    def symbol_metadata(
        self, doc: SourceDocument, d: _Def, analysis: FileAnalysis
    ) -> dict[str, Any]:
        root = doc.tree.root_node  # type: ignore[union-attr]
        package = package_name(doc, root)
        meta: dict[str, Any] = {"package": package}
        found = annotations(doc, d.node)
        if found:
            meta["annotations"] = found
        if d.node.type in _TYPE_DECLARATIONS:
            meta.update(self.type_metadata(doc, d, analysis, package))
        return meta

    def finish(self, work: FileWork) -> None:
        """Javadoc joins its chunk; a summary chunk holds the package, the imports and
        what the file defines."""
        doc, analysis, defs = work.doc, work.analysis, work.defs
        attach_leading_lines(doc, analysis, defs, work.settings, _javadoc_row)
        root = doc.tree.root_node  # type: ignore[union-attr]
        header = self.header_nodes(doc)
        package = package_name(doc, root)
        top = [d.symbol for d in defs if d.symbol.container == package]
        if not (header or top):
            return
        parts = [doc.node_text(n) for n in header]
        if top:
            parts.append(defines_line(top))
        meta: dict[str, Any] = {
            "qualified_name": package,
            "package": package,
            "imports": dict(analysis.imports),
            "defines": [s.qualified_name for s in top],
        }
        wildcards = java_imports(doc, root)[1]
        if wildcards:
            meta["wildcard_imports"] = wildcards
        self.add_module_chunk(doc, analysis, doc.path, parts, meta)

    # ---- type-level analysis -------------------------------------------------------

    def type_metadata(
        self, doc: SourceDocument, d: _Def, analysis: FileAnalysis, package: str | None
    ) -> dict[str, Any]:
        node = d.node
        nested = _nested_types(doc, node, d.symbol.qualified_name)

        def res(name: str) -> str:
            return resolve_type(name, package, analysis.imports, nested)

        meta: dict[str, Any] = {}
        if node.type == "record_declaration":
            meta["record"] = True
            params = node.child_by_field_name("parameters")
            meta["components"] = [
                doc.node_text(p.child_by_field_name("name"))  # type: ignore[arg-type]
                for p in (params.named_children if params is not None else [])
                if p.type == "formal_parameter" and p.child_by_field_name("name") is not None
            ]
        elif node.type == "annotation_type_declaration":
            meta["annotation_type"] = True
        superclass = node.child_by_field_name("superclass")
        if superclass is not None:
            named = [c for c in superclass.named_children if c.type in _TYPE_NODES]
            if named:
                meta["extends"] = res(doc.node_text(named[0]))
        interfaces = node.child_by_field_name("interfaces") or next(
            (c for c in node.named_children if c.type == "extends_interfaces"), None
        )
        if interfaces is not None:
            key = "extends" if node.type == "interface_declaration" else "implements"
            meta[key] = [res(doc.node_text(t)) for t in _type_list(interfaces)]
        deps = injected_dependencies(doc, node, res)
        if deps:
            meta["injected_dependencies"] = deps
            meta["related_symbols"] = list(dict.fromkeys(dep["class"] for dep in deps))
        return meta


def _type_list(clause: tree_sitter.Node) -> list[tree_sitter.Node]:
    types = next((c for c in clause.named_children if c.type == "type_list"), clause)
    return [t for t in types.named_children if t.type in _TYPE_NODES]


def _nested_types(doc: SourceDocument, cls: tree_sitter.Node, owner: str) -> dict[str, str]:
    """Simple name -> qualified name of the types declared directly in a class body,
    which shadow imports and the package."""
    body = cls.child_by_field_name("body")
    out: dict[str, str] = {}
    for member in body.named_children if body is not None else []:
        name = member.child_by_field_name("name")
        if member.type in _TYPE_DECLARATIONS and name is not None:
            out[doc.node_text(name)] = f"{owner}.{doc.node_text(name)}"
    return out


def resolve_type(
    name: str, package: str | None, imports: dict[str, str], nested: dict[str, str]
) -> str:
    """A type as written (`List<Order>`, `Map.Entry`, `OrderService`) -> its fully
    qualified name: a nested type, an import, `java.lang`, else the own package."""
    raw = name.split("<", 1)[0].strip()
    first, sep, rest = raw.partition(".")
    if first in nested:
        return f"{nested[first]}{sep}{rest}"
    if first in imports:
        return f"{imports[first]}{sep}{rest}"
    if first in _JAVA_LANG:
        return f"java.lang.{raw}"
    if sep and first[:1].islower():
        return raw  # already qualified: `java.time.Clock`
    return f"{package}.{raw}" if package else raw


def injected_dependencies(
    doc: SourceDocument, cls: tree_sitter.Node, res: Callable[[str], str]
) -> list[dict[str, Any]]:
    """What the container injects: class-typed parameters of the constructor (the
    `@Autowired`/`@Inject` one, else the only one) and annotated fields."""
    body = cls.child_by_field_name("body")
    members = body.named_children if body is not None else []
    ctors = [m for m in members if m.type == "constructor_declaration"]
    marked = [c for c in ctors if _annotation_names(doc, c) & _INJECTION_ANNOTATIONS]
    ctor = marked[0] if marked else (ctors[0] if len(ctors) == 1 else None)
    out: list[dict[str, Any]] = []
    params = ctor.child_by_field_name("parameters") if ctor is not None else None
    for p in params.named_children if params is not None else []:
        dep = _typed_dependency(doc, p, res)
        if dep is not None:
            dep["via"] = "constructor"
            out.append(dep)
    for m in members:
        if m.type != "field_declaration" or not (
            _annotation_names(doc, m) & _INJECTION_ANNOTATIONS
        ):
            continue
        for declarator in m.children_by_field_name("declarator"):
            dep = _typed_dependency(doc, m, res, declarator)
            if dep is not None:
                dep["via"] = "field"
                out.append(dep)
    return out


def _typed_dependency(
    doc: SourceDocument,
    node: tree_sitter.Node,
    res: Callable[[str], str],
    declarator: tree_sitter.Node | None = None,
) -> dict[str, Any] | None:
    type_node = node.child_by_field_name("type")
    name = (declarator or node).child_by_field_name("name")
    if type_node is None or name is None or type_node.type not in _TYPE_NODES:
        return None
    target = res(doc.node_text(type_node))
    if target.startswith("java.lang."):
        return None
    return {"class": target, "variable": doc.node_text(name)}
