"""JavaScript, JSX, TypeScript and TSX: classes, functions (declarations and
`const f = () => ...` / function expressions bound to a name), methods, interfaces,
type aliases, enums and top-level constants; JSDoc; ES/CommonJS imports; a module
summary chunk.

Qualified names follow the file's module path the way Python's do
(`src/api/client.ts` -> `api.client.ApiClient.request`), and relative or `@/` import
specifiers are resolved to the same module names, so `import { ApiClient } from
"../api/client"` maps `ApiClient` to `api.client.ApiClient`, the very symbol the
language server ranks first for a reference to `ApiClient`.

Chunks carry what a front-end developer filters on: `exported` / `default_export`,
`react_component` (a PascalCase function that renders JSX, or a class extending
`Component`) with the hooks it calls, decorators, and for classes their heritage and
the constructor-injected dependencies (Angular/NestJS style) as `related_symbols`.
"""

from __future__ import annotations

import posixpath
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import tree_sitter

from ..languages import query
from ..model import Chunk, FileAnalysis, Reference, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings, FileWork, TreeSitterStrategy, _Def
from .jsdoc import jsdoc_references
from .walks import (
    attach_leading_lines,
    clean_block_comment,
    collapse,
    defines_line,
    header_skeletons,
)

_TRAILING = " {:;,"  # what a one-line signature drops at its end (body, type colon, separators)
_JS_DEFINITIONS = """
(class_declaration name: (_) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (_) @name) @definition.method
(variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(variable_declarator
    name: (identifier) @name
    value: (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [(arrow_function) (function_expression)]))
    (#match? @_wrapper "^(React\\\\.)?(memo|forwardRef)$")) @definition.function
(program (lexical_declaration
    (variable_declarator name: (identifier) @name) @definition.constant))
(program (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name) @definition.constant)))
(program (export_statement declaration: (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable)))
(program (expression_statement (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)]) @definition.function))
"""
_JS_FIELDS = "(field_definition property: (_) @name) @definition.property\n"
_TS_DEFINITIONS = """
(public_field_definition name: (_) @name) @definition.property
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body name: (property_identifier) @name @definition.enum_member)
(enum_assignment name: (property_identifier) @name) @definition.enum_member
(internal_module name: (_) @name) @definition.namespace
(module name: (identifier) @name) @definition.namespace
(function_signature name: (identifier) @name) @definition.function
(abstract_method_signature name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(property_signature name: (_) @name) @definition.property
(required_parameter
    ["readonly" (accessibility_modifier) (override_modifier)]
    pattern: (identifier) @name) @definition.property
(optional_parameter
    ["readonly" (accessibility_modifier) (override_modifier)]
    pattern: (identifier) @name) @definition.property
"""
_JS_REFERENCES = """
[(identifier) (property_identifier) (shorthand_property_identifier)
 (shorthand_property_identifier_pattern) (private_property_identifier)] @reference
"""
_TS_REFERENCES = """
[(identifier) (property_identifier) (shorthand_property_identifier)
 (shorthand_property_identifier_pattern) (type_identifier) (private_property_identifier)] @reference
"""
_JSX_QUERY = "[(jsx_element) (jsx_self_closing_element)] @jsx"
_HOOKS_QUERY = '(call_expression function: (identifier) @hook (#match? @hook "^use[A-Z]"))'

_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "generator_function"})
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})
# Definitions without a body: declarations only, never chunked on their own.
_SIGNATURE_NODES = frozenset(
    {"function_signature", "method_signature", "abstract_method_signature", "property_signature"}
)
_PARAMETER_NODES = frozenset({"required_parameter", "optional_parameter"})
_FIELD_NODES = frozenset({"field_definition", "public_field_definition"})
_JS_EXTENSION = re.compile(r"\.(d\.ts|[cm]?[jt]sx?)$")
_REACT_BASES = re.compile(r"^(React\.)?(Pure)?Component\b")
# Calls whose first argument is the function a name is bound to.
_WRAPPERS = re.compile(r"^(React\.)?(memo|forwardRef)$")

# Facts about the file every definition's metadata needs (exported names), computed
# once per `analyze`. Thread-local: one strategy instance serves all indexing threads.
_local = threading.local()


@dataclass
class _FileFacts:
    exported: set[str] = field(default_factory=set)
    default_export: str | None = None
    top_level: dict[str, str] = field(default_factory=dict)  # name -> qualified name


def module_name(rel_path: str) -> str:
    """`src/api/client.ts` -> `api.client`; `src/components/index.tsx` -> `components`.

    A leading `src`/`lib` is dropped as in Python, which also makes `@/api/client`
    (the usual alias for `src/`) name the same module."""
    parts = [p for p in _JS_EXTENSION.sub("", rel_path).split("/") if p and p != "."]
    # `index` first: `lib/index.ts` is the module a `from "../lib"` import names (`lib`)
    if len(parts) > 1 and parts[-1] == "index":
        parts = parts[:-1]
    if parts and parts[0] in {"src", "lib"} and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts)


def resolve_specifier(specifier: str, importer: str) -> str:
    """A module specifier as a module name: relative paths against the importing
    file, `@/x` and `~/x` as project paths; package names stay as written."""
    if specifier in (".", "..") or specifier.startswith(("./", "../")):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
        return specifier if joined.startswith("..") else module_name(joined)
    if specifier.startswith(("@/", "~/")):
        return module_name(specifier[2:])
    if specifier.startswith(_PROJECT_ROOTS):
        # `from 'src/lib/client'` under tsconfig's `"baseUrl": "./"`: a project path
        return module_name(specifier)
    return specifier


# a non-relative specifier that names a project path from the tsconfig's baseUrl (no npm
# package is called `src`)
_PROJECT_ROOTS = ("src/",)


def _is_relative(specifier: str) -> bool:
    return specifier.startswith((".", "@/", "~/", *_PROJECT_ROOTS))


def _string_value(doc: SourceDocument, node: tree_sitter.Node | None) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    text = doc.node_text(node)
    return text[1:-1] if len(text) >= 2 else None


def _import_target(module: str, specifier: str, imported: str, local: str) -> str:
    """`module.name` for a named import. A default import of a project module maps to
    `module.<local name>`: the default export nearly always carries the name it is
    imported under, and a wrong guess only costs the import-based ranking. A default
    import of a package (`import React from "react"`) is the package itself."""
    if imported == "default":
        return f"{module}.{local}" if _is_relative(specifier) else module
    return f"{module}.{imported}"


def es_imports(doc: SourceDocument, node: tree_sitter.Node) -> dict[str, str]:
    """local name -> target for one `import ...` or `export ... from` statement."""
    specifier = _string_value(doc, node.child_by_field_name("source"))
    if specifier is None:
        return {}
    module = resolve_specifier(specifier, doc.path)
    out: dict[str, str] = {}
    if node.type == "export_statement":
        for clause in node.named_children:
            if clause.type == "namespace_export":
                # `export * as ns from "./x"`
                alias = next((c for c in clause.named_children if c.type == "identifier"), None)
                if alias is not None:
                    out[doc.node_text(alias)] = module
            elif clause.type == "export_clause":
                for spec in clause.named_children:
                    name, alias = (
                        spec.child_by_field_name("name"),
                        spec.child_by_field_name("alias"),
                    )
                    if name is None:
                        continue
                    local = doc.node_text(alias if alias is not None else name)
                    out[local] = _import_target(module, specifier, doc.node_text(name), local)
        return out
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    for part in clause.named_children if clause is not None else []:
        if part.type == "identifier":
            local = doc.node_text(part)
            out[local] = _import_target(module, specifier, "default", local)
        elif part.type == "namespace_import":
            alias = next((c for c in part.named_children if c.type == "identifier"), None)
            if alias is not None:
                out[doc.node_text(alias)] = module
        elif part.type == "named_imports":
            for spec in part.named_children:
                name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                if name is None:
                    continue
                local = doc.node_text(alias if alias is not None else name)
                out[local] = _import_target(module, specifier, doc.node_text(name), local)
    return out


def _require_specifier(doc: SourceDocument, value: tree_sitter.Node | None) -> str | None:
    """`require("x")` -> "x"."""
    if value is None or value.type != "call_expression":
        return None
    fn, args = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if fn is None or args is None or doc.node_text(fn) != "require" or args.named_child_count != 1:
        return None
    return _string_value(doc, args.named_children[0])


def require_imports(doc: SourceDocument, declarator: tree_sitter.Node) -> dict[str, str]:
    """`const x = require("m")` and `const { a, b: c } = require("m")`."""
    specifier = _require_specifier(doc, declarator.child_by_field_name("value"))
    name = declarator.child_by_field_name("name")
    if specifier is None or name is None:
        return {}
    module = resolve_specifier(specifier, doc.path)
    if name.type == "identifier":
        return {doc.node_text(name): module}
    out: dict[str, str] = {}
    if name.type == "object_pattern":
        for prop in name.named_children:
            if prop.type == "shorthand_property_identifier_pattern":
                out[doc.node_text(prop)] = f"{module}.{doc.node_text(prop)}"
            elif prop.type == "pair_pattern":
                key, value = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                if key is not None and value is not None and value.type == "identifier":
                    out[doc.node_text(value)] = f"{module}.{doc.node_text(key)}"
    return out


def _top_declarators(root: tree_sitter.Node) -> list[tree_sitter.Node]:
    out = []
    for child in root.named_children:
        decl = child
        if child.type == "export_statement":
            decl = child.child_by_field_name("declaration") or child
        if decl.type in _DECLARATIONS:
            out.extend(c for c in decl.named_children if c.type == "variable_declarator")
    return out


def file_imports(doc: SourceDocument, root: tree_sitter.Node) -> dict[str, str]:
    """Every top-level import, re-export and `require` of the file."""
    out: dict[str, str] = {}
    for child in root.named_children:
        if _is_import(child):
            out.update(es_imports(doc, child))
    for declarator in _top_declarators(root):
        out.update(require_imports(doc, declarator))
    return out


def _header_nodes(doc: SourceDocument, root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Top-level statements that only import: the summary chunk lists them, so they
    are not re-chunked as anonymous blocks."""
    return [c for c in root.named_children if _is_import(c) or _is_require(doc, c)]


def _is_import(node: tree_sitter.Node) -> bool:
    """`import ...` or a re-export `export ... from "..."`."""
    return node.type == "import_statement" or (
        node.type == "export_statement" and node.child_by_field_name("source") is not None
    )


def _is_require(doc: SourceDocument, node: tree_sitter.Node) -> bool:
    """A declaration binding only `require(...)` results."""
    return node.type in _DECLARATIONS and all(
        _require_specifier(doc, d.child_by_field_name("value")) is not None
        for d in node.named_children
        if d.type == "variable_declarator"
    )


def _directives(doc: SourceDocument, root: tree_sitter.Node) -> list[str]:
    """`"use client"` / `"use strict"` prologue directives."""
    out = []
    for child in root.named_children:
        if child.type == "comment":
            continue
        if child.type != "expression_statement" or child.named_child_count != 1:
            break
        value = _string_value(doc, child.named_children[0])
        if value is None:
            break
        out.append(value)
    return out


def export_facts(doc: SourceDocument, root: tree_sitter.Node) -> _FileFacts:
    """Names exported by `export { a, b as c }`, `export default X`, and CommonJS
    `module.exports = { a }` / `module.exports = X` / `exports.a = ...`."""
    facts = _FileFacts()
    for child in root.named_children:
        if child.type == "export_statement" and child.child_by_field_name("source") is None:
            value = child.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                facts.default_export = doc.node_text(value)
            for clause in child.named_children:
                if clause.type == "export_clause":
                    for spec in clause.named_children:
                        name = spec.child_by_field_name("name")
                        alias = spec.child_by_field_name("alias")
                        if name is None:
                            continue
                        facts.exported.add(doc.node_text(name))
                        if alias is not None and doc.node_text(alias) == "default":
                            facts.default_export = doc.node_text(name)
        elif child.type == "expression_statement" and child.named_child_count:
            _commonjs_exports(doc, child.named_children[0], facts)
    return facts


def _commonjs_exports(doc: SourceDocument, expr: tree_sitter.Node, facts: _FileFacts) -> None:
    if expr.type != "assignment_expression":
        return
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None:
        return
    target = doc.node_text(left)
    if target == "module.exports":
        if right.type == "identifier":
            facts.default_export = doc.node_text(right)
            facts.exported.add(doc.node_text(right))
        elif right.type == "object":
            for prop in right.named_children:
                if prop.type == "shorthand_property_identifier":
                    facts.exported.add(doc.node_text(prop))
                elif prop.type == "pair":
                    value = prop.child_by_field_name("value")
                    if value is not None and value.type == "identifier":
                        facts.exported.add(doc.node_text(value))
    elif target.startswith(("exports.", "module.exports.")):
        facts.exported.add(target.rsplit(".", 1)[-1])


def _statement(node: tree_sitter.Node) -> tree_sitter.Node:
    """The statement a definition sits in: where its JSDoc and `export` are."""
    if node.type in ("variable_declarator", "assignment_expression") and node.parent is not None:
        node = node.parent
    if node.parent is not None and node.parent.type == "export_statement":
        node = node.parent
    return node


def _jsdoc_node(doc: SourceDocument, node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `/** ... */` comment right above the definition, decorators skipped. Plain
    `//` comments are not documentation (lint directives, TODOs, commented code)."""
    anchor = _statement(node)
    expected_row = anchor.start_point[0]
    prev = anchor.prev_named_sibling
    while prev is not None and prev.type == "decorator":
        expected_row = prev.start_point[0]
        prev = prev.prev_named_sibling
    if prev is None or prev.type != "comment" or prev.end_point[0] < expected_row - 1:
        return None
    return prev if doc.node_text(prev).startswith("/**") else None


def jsdoc(doc: SourceDocument, node: tree_sitter.Node) -> str | None:
    comment = _jsdoc_node(doc, node)
    return clean_block_comment(doc.node_text(comment)) if comment is not None else None


def leading_row(doc: SourceDocument, node: tree_sitter.Node) -> int:
    """First line of a definition with what belongs to it above: `export`,
    decorators, its JSDoc."""
    anchor = _statement(node)
    row = anchor.start_point[0]
    prev = anchor.prev_named_sibling
    while prev is not None and prev.type == "decorator":
        row = prev.start_point[0]
        prev = prev.prev_named_sibling
    comment = _jsdoc_node(doc, node)
    return min(row, comment.start_point[0]) if comment is not None else row


def _function_value(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The function a value is: itself, or the one wrapped by `memo(...)` /
    `forwardRef(...)`."""
    if node is None:
        return None
    if node.type in _FUNCTION_VALUES:
        return node
    if node.type == "call_expression":
        callee = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_child_count else None
        if (
            callee is not None
            and _WRAPPERS.match(callee.text.decode() if callee.text else "")
            and first is not None
            and first.type in _FUNCTION_VALUES
        ):
            return first
    return None


def _value_node(node: tree_sitter.Node) -> tree_sitter.Node | None:
    if node.type == "assignment_expression":
        return node.child_by_field_name("right")
    return node.child_by_field_name("value")


def _declaration_keyword(doc: SourceDocument, declarator: tree_sitter.Node) -> str:
    decl = declarator.parent
    if decl is None or decl.type not in _DECLARATIONS or decl.child_count == 0:
        return ""
    return doc.node_text(decl.children[0])


class JavaScriptStrategy(TreeSitterStrategy):
    language = "javascript"
    grammar_name = "javascript"
    definitions_query = _JS_DEFINITIONS + _JS_FIELDS
    references_query = _JS_REFERENCES
    comment_types = frozenset({"comment"})
    # Only these grammars know JSX; `.ts` files cannot hold components.
    jsx = True

    def __init__(self) -> None:
        super().__init__()
        query(self.grammar_name, _HOOKS_QUERY)
        if self.jsx:
            query(self.grammar_name, _JSX_QUERY)

    def analyze(
        self, doc: SourceDocument, settings: ChunkSettings, lazy: bool = False
    ) -> FileAnalysis:
        _local.facts = None
        try:
            return super().analyze(doc, settings, lazy)
        finally:
            _local.facts = None

    # ---- hooks -------------------------------------------------------------------

    def _references(self, doc: SourceDocument, root: tree_sitter.Node, defs: list[_Def]) -> list[Reference]:
        # names linked from doc comments (`{@link Task}`) are uses too: tsserver lists them
        return super()._references(doc, root, defs) + jsdoc_references(doc, root)

    def module_prefix(self, doc: SourceDocument, analysis: FileAnalysis) -> str | None:
        """The module name. It runs first, so it also records the imports that
        `symbol_metadata` resolves type names with."""
        root = doc.tree.root_node  # type: ignore[union-attr]
        analysis.imports.update(file_imports(doc, root))
        _local.facts = export_facts(doc, root)
        return module_name(doc.path) or None

    def docstring(self, doc: SourceDocument, node: tree_sitter.Node) -> str | None:
        if node.type in _PARAMETER_NODES:
            return None
        return jsdoc(doc, node)

    def signature(self, doc: SourceDocument, node: tree_sitter.Node) -> str:
        """Declaration up to the body, on one line; bound functions start at their
        `const`/`let` keyword, fields and signatures are shown whole."""
        if (
            node.type in ("variable_declarator", "assignment_expression")
            or node.type in _FIELD_NODES
        ):
            value = _value_node(node)
            fn = _function_value(value)
            body = fn.child_by_field_name("body") if fn is not None else None
            end = body.start_byte if body is not None else node.end_byte
            text = doc.data[_after_decorators(node) : end].decode("utf-8", errors="replace")
            if body is None:
                text = text.split("\n", 1)[0][:200]
            keyword = _declaration_keyword(doc, node) if node.type == "variable_declarator" else ""
            return collapse(f"{keyword} {text}".strip(), trailing=_TRAILING)
        if node.type in _SIGNATURE_NODES or node.type in _PARAMETER_NODES:
            return collapse(doc.node_text(node), trailing=_TRAILING)
        if node.type in ("enum_assignment", "property_identifier"):
            return collapse(doc.node_text(node), trailing=_TRAILING)
        long_header = self._long_class_header(doc, node)
        if long_header is not None:
            return long_header
        text = super().signature(doc, node).rstrip(";")
        start = _after_decorators(node)
        if start != node.start_byte:
            # `@Get('/x') async find(a: A)`: the declaration, not its decorators' calls
            prefix = " ".join(doc.data[node.start_byte : start].decode("utf-8", errors="replace").split())
            text = text[len(prefix) :].lstrip() if text.startswith(prefix) else text
        return text

    def _long_class_header(self, doc: SourceDocument, node: tree_sitter.Node) -> str | None:
        """A class or interface whose type parameters take more than a signature's 300
        characters (bullmq's `class Queue<DataTypeOrJob = any, … seven more …> extends
        QueueGetters<…>`): the type parameters shortened to `<…>` so the bases, which
        resolve its members, are kept. None for a header that fits."""
        if node.type not in ("class_declaration", "abstract_class_declaration", "interface_declaration"):
            return None
        body = node.child_by_field_name("body")
        params = node.child_by_field_name("type_parameters")
        if body is None or params is None or body.start_byte - node.start_byte <= 300:
            return None
        head = doc.data[node.start_byte : params.start_byte] + "<…>".encode()
        text = (head + doc.data[params.end_byte : body.start_byte]).decode("utf-8", errors="replace")
        return collapse(text, trailing=_TRAILING)

    def _definitions(
        self, doc: SourceDocument, root: tree_sitter.Node, prefix: str | None
    ) -> list[_Def]:
        """The base nesting plus JS rules: a bound value's kind follows the value
        (function, class, constant, `let`/`var` variable), `require` bindings are
        imports rather than definitions, `constructor` is a constructor, arrow
        functions in class fields are methods, and TypeScript parameter properties
        belong to the class, not to its constructor."""
        defs = super()._definitions(doc, root, prefix)
        kept: list[_Def] = []
        by_qname = {d.symbol.qualified_name: d for d in defs}
        for d in defs:
            kind = self._kind_of(doc, d)
            if kind is None:
                continue
            s = d.symbol
            container = s.container
            if d.node.type in _PARAMETER_NODES:
                ctor = by_qname.get(container or "")
                container = ctor.symbol.container if ctor is not None else container
            if kind is not s.kind or container != s.container:
                d.symbol = replace(
                    s,
                    kind=kind,
                    container=container,
                    qualified_name=self.qualify(container, s.name, kind),
                )
            kept.append(d)
        facts: _FileFacts | None = getattr(_local, "facts", None)
        if facts is not None:
            facts.top_level = {
                d.symbol.name: d.symbol.qualified_name for d in kept if d.symbol.container == prefix
            }
        return kept

    def _kind_of(self, doc: SourceDocument, d: _Def) -> SymbolKind | None:
        """The definition's real kind, or None for bindings that are not definitions."""
        node, kind = d.node, d.symbol.kind
        if node.type == "method_definition":
            return SymbolKind.CONSTRUCTOR if d.symbol.name == "constructor" else SymbolKind.METHOD
        if node.type in _FIELD_NODES:
            return SymbolKind.METHOD if _function_value(_value_node(node)) else kind
        if node.type == "assignment_expression":
            return kind if _function_value(_value_node(node)) is not None else None
        if node.type != "variable_declarator":
            return kind
        value = node.child_by_field_name("value")
        if _function_value(value) is not None:
            return SymbolKind.FUNCTION
        if value is not None and value.type == "class":
            return SymbolKind.CLASS
        if _require_specifier(doc, value) is not None:
            return None
        if node.parent is None or node.parent.parent is None:
            return None
        if node.parent.parent.type not in ("program", "export_statement"):
            return None  # a local binding
        keyword = _declaration_keyword(doc, node)
        return SymbolKind.CONSTANT if keyword == "const" else SymbolKind.VARIABLE

    def _chunks(self, work: FileWork) -> list[Chunk]:
        """Signatures without a body (interface members, overloads, abstract methods)
        are definitions but not chunks: their container's chunk shows them."""
        chunked = [
            d
            for d in work.defs
            if d.node.type not in _SIGNATURE_NODES and d.symbol.kind in self.chunk_kinds
        ]
        chunks = super()._chunks(replace(work, defs=chunked))
        return header_skeletons(work.doc, chunks, chunked, work.settings)

    def symbol_metadata(
        self, doc: SourceDocument, d: _Def, analysis: FileAnalysis
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        facts: _FileFacts = getattr(_local, "facts", None) or _FileFacts()
        s = d.symbol
        exported, default = _export_status(d, facts)
        if exported:
            meta["exported"] = True
        if default:
            meta["default_export"] = True
        decorators = self._decorators(doc, d.node)
        if decorators:
            meta["decorators"] = decorators
        if s.kind is SymbolKind.CLASS:
            meta.update(self.class_metadata(doc, d.node, analysis, facts))
        if self._is_component(doc, d):
            meta["react_component"] = True
            hooks = self._hooks(doc, d.node)
            if hooks:
                meta["hooks"] = hooks
        return meta

    def finish(self, work: FileWork) -> None:
        """A module summary chunk: file comment, directives, imports, exports and the
        top-level definitions, like Python's."""
        doc, analysis, defs = work.doc, work.analysis, work.defs
        attach_leading_lines(doc, analysis, defs, work.settings, lambda d: leading_row(doc, d.node))
        root = doc.tree.root_node  # type: ignore[union-attr]
        module = module_name(doc.path)
        header = [doc.node_text(n) for n in _header_nodes(doc, root)]
        directives = _directives(doc, root)
        module_doc = _module_comment(doc, root)
        top = [d.symbol for d in defs if d.symbol.container == (module or None)]
        if not (module_doc or header or top):
            return
        facts: _FileFacts = getattr(_local, "facts", None) or _FileFacts()
        exported = [d.symbol.name for d in defs if _export_status(d, facts)[0]]
        parts = []
        if module_doc:
            parts.append(module_doc)
        parts.extend(f'"{d}";' for d in directives)
        parts.extend(header)
        if top:
            parts.append(defines_line(top))
        meta: dict[str, Any] = {
            "qualified_name": module,
            "docstring": module_doc,
            "imports": dict(analysis.imports),
            "exports": exported,
        }
        if directives:
            meta["directives"] = directives
        self.add_module_chunk(doc, analysis, module or doc.path, parts, meta)

    def header_nodes(self, doc: SourceDocument) -> list[tree_sitter.Node]:
        """Import lines are in the summary chunk; only other loose code gets windows."""
        return _header_nodes(doc, doc.tree.root_node)  # type: ignore[union-attr]

    # ---- metadata helpers ----------------------------------------------------------

    def _decorators(self, doc: SourceDocument, node: tree_sitter.Node) -> list[str]:
        """`@Component({...})` / `@Input()` names, from the class statement or the
        class-body siblings right before a member."""
        stmt = _statement(node)
        found = [c for c in stmt.children if c.type == "decorator"]
        if stmt is not node:
            found.extend(c for c in node.children if c.type == "decorator")
        prev = stmt.prev_named_sibling
        while prev is not None and prev.type == "decorator":
            found.insert(0, prev)
            prev = prev.prev_named_sibling
        names = []
        for dec in found:
            text = doc.node_text(dec).lstrip("@")
            names.append(re.split(r"[(\s]", text, maxsplit=1)[0])
        return names

    def class_metadata(
        self,
        doc: SourceDocument,
        node: tree_sitter.Node,
        analysis: FileAnalysis,
        facts: _FileFacts,
    ) -> dict[str, Any]:
        """Heritage and constructor-injected dependencies, resolved through the
        file's imports (or its own definitions)."""

        def res(name: str) -> str:
            base = name.split("<", 1)[0].strip()
            first, _, rest = base.partition(".")
            target = analysis.imports.get(first) or facts.top_level.get(first)
            if target is None:
                return base
            return f"{target}.{rest}" if rest else target

        meta: dict[str, Any] = {}
        heritage = _class_heritage(node)
        if heritage is not None:
            extends, implements = _heritage(doc, heritage)
            if extends:
                meta["extends"] = res(extends)
            if implements:
                meta["implements"] = [res(i) for i in implements]
        deps = self._constructor_dependencies(doc, node, res)
        if deps:
            meta["injected_dependencies"] = deps
            meta["related_symbols"] = list(dict.fromkeys(dep["class"] for dep in deps))
        return meta

    def _constructor_dependencies(
        self, doc: SourceDocument, cls: tree_sitter.Node, res: Callable[[str], str]
    ) -> list[dict[str, Any]]:
        if cls.type == "variable_declarator":
            cls = cls.child_by_field_name("value") or cls
        body = cls.child_by_field_name("body")
        ctor = next(
            (
                m
                for m in (body.named_children if body is not None else [])
                if m.type == "method_definition"
                and doc.node_text(m.child_by_field_name("name") or m) == "constructor"
            ),
            None,
        )
        params = ctor.child_by_field_name("parameters") if ctor is not None else None
        out = []
        for p in params.named_children if params is not None else []:
            if p.type not in _PARAMETER_NODES:
                continue
            annotation = p.child_by_field_name("type")
            pattern = p.child_by_field_name("pattern")
            type_node = (
                annotation.named_children[0]
                if annotation is not None and annotation.named_child_count
                else None
            )
            if type_node is None or pattern is None:
                continue
            if type_node.type not in ("type_identifier", "generic_type", "nested_type_identifier"):
                continue
            dep: dict[str, Any] = {
                "class": res(doc.node_text(type_node)),
                "variable": doc.node_text(pattern),
            }
            if any(c.type in ("accessibility_modifier", "readonly") for c in p.children):
                dep["property"] = True
            out.append(dep)
        return out

    def _is_component(self, doc: SourceDocument, d: _Def) -> bool:
        """A PascalCase function rendering JSX, or a class extending `Component`."""
        s = d.symbol
        if not self.jsx or not s.name[:1].isupper():
            return False
        if s.kind is SymbolKind.CLASS:
            heritage = _class_heritage(d.node)
            extends = _heritage(doc, heritage)[0] if heritage is not None else None
            return bool(extends and _REACT_BASES.match(extends))
        if s.kind is not SymbolKind.FUNCTION:
            return False
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, _JSX_QUERY))
        return bool(cursor.captures(d.node))

    def _hooks(self, doc: SourceDocument, node: tree_sitter.Node) -> list[str]:
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, _HOOKS_QUERY))
        nodes = sorted(
            (n for ns in cursor.captures(node).values() for n in ns), key=lambda n: n.start_byte
        )
        return list(dict.fromkeys(doc.node_text(n) for n in nodes))


def _export_status(d: _Def, facts: _FileFacts) -> tuple[bool, bool]:
    """(exported, default export): `export ...` in front of the definition, or a
    top-level name listed by `export { }`, `export default X` or `module.exports`."""
    stmt = _statement(d.node)
    if stmt.type == "export_statement":
        return True, any(c.type == "default" for c in stmt.children)
    s = d.symbol
    if facts.top_level.get(s.name) != s.qualified_name:
        return False, False
    default = facts.default_export == s.name
    return default or s.name in facts.exported, default


def _class_heritage(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `extends`/`implements` part of a class declaration or of the class
    expression bound by `const Foo = class extends Bar {}`."""
    if node.type == "variable_declarator":
        node = node.child_by_field_name("value") or node
    return next((c for c in node.named_children if c.type == "class_heritage"), None)


def _heritage(doc: SourceDocument, heritage: tree_sitter.Node) -> tuple[str | None, list[str]]:
    """(extends, implements) of a class; the JS grammar has no clause nodes, TS does."""
    extends: str | None = None
    implements: list[str] = []
    for clause in heritage.named_children:
        if clause.type == "extends_clause":
            value = clause.child_by_field_name("value")
            extends = doc.node_text(value) if value is not None else None
        elif clause.type == "implements_clause":
            implements.extend(doc.node_text(t) for t in clause.named_children)
        elif extends is None:
            extends = doc.node_text(clause)
    return extends, implements


def _module_comment(doc: SourceDocument, root: tree_sitter.Node) -> str | None:
    """The comment block opening the file, unless it documents the first definition
    (a blank line or an import must separate it from the code)."""
    comments: list[tree_sitter.Node] = []
    for child in root.named_children:
        if child.type != "comment" or (
            comments and child.start_point[0] > comments[-1].end_point[0] + 1
        ):
            break
        comments.append(child)
    if not comments:
        return None
    following = comments[-1].next_named_sibling
    if (
        following is not None
        and following.start_point[0] <= comments[-1].end_point[0] + 1
        and following.type != "import_statement"
    ):
        return None
    text = "\n".join(doc.node_text(c) for c in comments)
    return clean_block_comment(text)


class JsxStrategy(JavaScriptStrategy):
    language = "jsx"


class TypeScriptStrategy(JavaScriptStrategy):
    language = "typescript"
    grammar_name = "typescript"
    definitions_query = _JS_DEFINITIONS + _TS_DEFINITIONS
    references_query = _TS_REFERENCES
    jsx = False


class TsxStrategy(TypeScriptStrategy):
    language = "tsx"
    grammar_name = "tsx"
    jsx = True


# A line that opens with `<` after indentation: a generic call signature's type parameters
# (`  <I extends Input = {}>(handler: H<I>): R` in an interface, hono's `types.ts`).
_GENERIC_SIGNATURE_LINE = re.compile(rb"(?m)^([ \t]*)[ \t]<")


def _after_decorators(node: tree_sitter.Node) -> int:
    """Where a declaration starts after its decorators (`@ValidateNested()` on the line
    above a field: its signature is `mySubClasses: MySubClass[]`, not the decorator)."""
    last = None
    for child in node.children:
        if child.type == "decorator":
            last = child
        elif last is not None or child.is_named:
            break
    if last is None:
        return node.start_byte
    nxt = last.next_sibling
    return nxt.start_byte if nxt is not None else last.end_byte


def repair_generic_signatures(data: bytes) -> bytes | None:
    """tree-sitter-typescript ends a type member at a line break only when the next line
    cannot continue it, and `<` can (a comparison), so an interface whose call signatures
    put their type parameters on a new line (`<\\n E2 extends Env = E,\\n>(…)`) fails to
    parse from that member on: the whole file, for hono's `types.ts`. The same bytes with
    the indentation's last blank before such a `<` turned into `;` parse as TypeScript
    means them; every offset stays the same, so the tree still describes `data`. None
    when no line looks like that."""
    if b"<" not in data:
        return None
    fixed = _GENERIC_SIGNATURE_LINE.sub(rb"\1;<", data)
    return fixed if fixed != data else None
