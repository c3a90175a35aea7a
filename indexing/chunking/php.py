"""PHP: classes, interfaces, traits, enums, functions and methods as chunks; constants,
properties and enum cases as definitions. Names are fully qualified the PHP way
(`App\\Models\\User`, `App\\Models\\User::orders`), `use` imports are resolved, and class
chunks carry what a Laravel developer asks about: constructor-injected dependencies,
Eloquent relations and `$translatable` fields.

References are class, function, method, property and constant names (`new X`,
`X::class`, `X::make()`, `$this->orders()`, `$order->total`, type hints, `extends`,
`use` statements). Local variables (`$request`, `$this`) are deliberately *not*
references: they are the bulk of all PHP identifiers, never point at a definition
elsewhere, and would drown `refs user` (the relation) in every `$user` local.
"""

from __future__ import annotations

import ast
import re
import threading
from bisect import bisect_left
from collections.abc import Callable
from operator import itemgetter
from typing import Any

import tree_sitter

from ..languages import query
from ..model import Chunk, FileAnalysis, Reference, Symbol, SymbolKind
from ..source import SourceDocument, nearest_ancestor
from . import refscan
from .base import (
    CONTAINER_KINDS,
    ChunkSettings,
    FileWork,
    TreeSitterStrategy,
    _Def,
    signature_text,
    split_oversized,
)
from .php_docblock import docblock_type_names, magic_members
from .walks import attach_leading_lines, clean_block_comment, defines_line

# Members are joined with `::`, namespaces and the types/functions in them with `\`.
_MEMBER_KINDS = frozenset(
    {
        SymbolKind.METHOD,
        SymbolKind.CONSTRUCTOR,
        SymbolKind.PROPERTY,
        SymbolKind.CONSTANT,
        SymbolKind.ENUM_MEMBER,
    }
)
_CLASS_LIKE_NODES = frozenset(
    {
        "class_declaration",
        "interface_declaration",
        "trait_declaration",
        "enum_declaration",
        "anonymous_class",
    }
)
# Type names that never resolve to a class of the project.
_BUILTIN_TYPES = frozenset(
    {
        "array",
        "bool",
        "boolean",
        "callable",
        "false",
        "float",
        "double",
        "int",
        "integer",
        "iterable",
        "mixed",
        "never",
        "null",
        "object",
        "string",
        "true",
        "void",
        "self",
        "static",
        "parent",
        "resource",
    }
)
ELOQUENT_RELATIONS = frozenset(
    {
        "hasOne",
        "hasMany",
        "belongsTo",
        "belongsToMany",
        "hasOneThrough",
        "hasManyThrough",
        "morphTo",
        "morphOne",
        "morphMany",
        "morphToMany",
        "morphedByMany",
    }
)
ANONYMOUS_CLASS = "class@anonymous"
# Short class name -> fully qualified name, bound to one file's namespace and imports.
Resolver = Callable[[str], str]

# Per-file memo for facts every method of a class needs (its property types, the
# namespace regions): without it a class with n methods costs O(n^2). Thread-local
# because one strategy instance serves all indexing threads; reset per `analyze`.
_memo = threading.local()


def memoized(key: object, compute: Callable[[], Any]) -> Any:
    cache: dict[object, Any] | None = getattr(_memo, "cache", None)
    if cache is None:
        return compute()
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def is_translation_trait(fqcn: str) -> bool:
    """spatie/laravel-translatable's `HasTranslations` or Astrotomic's `Translatable`
    on a model (Filament's `...\\Concerns\\Translatable` is for resources and pages)."""
    short = fqcn.rsplit("\\", 1)[-1]
    # Only these two: the `Translatable` concerns of Filament and its plugins
    # (`LaraZeus\\SpatieTranslatable\\...`) put a locale switcher on a page.
    return short == "HasTranslations" or fqcn.startswith("Astrotomic\\Translatable\\")


def resolve_name(name: str, namespace: str | None, imports: dict[str, str]) -> str:
    """PHP's class name resolution: `\\A\\B` is absolute, a first segment that is a
    `use` alias is replaced by its target, anything else is relative to the namespace."""
    if name.startswith("\\"):
        return name[1:]
    if name.startswith("namespace\\"):
        rest = name[len("namespace\\") :]
        return f"{namespace}\\{rest}" if namespace else rest
    first, sep, rest = name.partition("\\")
    target = imports.get(first)
    if target is None:
        # PHP aliases are case-insensitive.
        lowered = first.lower()
        target = next((v for k, v in imports.items() if k.lower() == lowered), None)
    if target is not None:
        return f"{target}{sep}{rest}" if sep else target
    return f"{namespace}\\{name}" if namespace else name


def string_value(doc: SourceDocument, node: tree_sitter.Node | None) -> str | None:
    """The value of a PHP string literal without interpolation, else None."""
    if node is None:
        return None
    if node.type == "argument" and node.named_child_count:
        node = node.named_children[-1]
    if node.type == "string" or (
        node.type == "encapsed_string"
        and not any(
            c.type not in {"string_content", "escape_sequence"} for c in node.named_children
        )
    ):
        text = doc.node_text(node)
        if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
            return text[1:-1].replace("\\" + text[0], text[0])
    return None


def literal_value(doc: SourceDocument, node: tree_sitter.Node | None) -> Any:
    """A PHP literal as a Python value (strings, numbers, booleans, null, lists of
    those); other expressions as their source text."""
    if node is None:
        return None
    if node.type == "argument" and node.named_child_count:
        node = node.named_children[-1]
    text = doc.node_text(node)
    s = string_value(doc, node)
    if s is not None:
        return s
    if node.type in ("integer", "float"):
        try:
            return ast.literal_eval(text.replace("_", ""))
        except (ValueError, SyntaxError):
            return text
    if node.type == "boolean":
        return text.lower() == "true"
    if node.type == "null":
        return None
    if node.type == "array_creation_expression":
        return [literal_value(doc, e.named_children[-1]) for e in _array_elements(node)]
    return text


def _array_elements(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [c for c in node.named_children if c.type == "array_element_initializer"]


def string_list(doc: SourceDocument, node: tree_sitter.Node | None) -> list[str]:
    """`['a', 'b']` -> ['a', 'b']; a single string -> [it]; anything else -> []."""
    if node is None:
        return []
    if node.type == "argument" and node.named_child_count:
        node = node.named_children[-1]
    single = string_value(doc, node)
    if single is not None:
        return [single]
    if node.type != "array_creation_expression":
        return []
    out = []
    for element in _array_elements(node):
        value = string_value(doc, element.named_children[-1]) if element.named_child_count else None
        if value is not None:
            out.append(value)
    return out


def call_arguments(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    args = node.child_by_field_name("arguments")
    if args is None:
        return []
    return [a for a in args.named_children if a.type in ("argument", "variadic_placeholder")]


def class_constant_target(node: tree_sitter.Node | None, doc: SourceDocument) -> str | None:
    """`Post::class` (as an argument or bare) -> 'Post'."""
    if node is None:
        return None
    if node.type == "argument" and node.named_child_count:
        node = node.named_children[-1]
    if node.type != "class_constant_access_expression" or node.named_child_count != 2:
        return None
    scope, member = node.named_children
    if doc.node_text(member) != "class" or scope.type not in ("name", "qualified_name"):
        return None
    return doc.node_text(scope)


def namespace_regions(doc: SourceDocument, root: tree_sitter.Node) -> list[tuple[int, int, str]]:
    """(start byte, end byte, namespace) per namespace of the file; `namespace X;`
    applies up to the next namespace statement, `namespace X { }` to its block."""
    decls = [c for c in root.named_children if c.type == "namespace_definition"]
    regions = []
    for i, decl in enumerate(decls):
        name_node = decl.child_by_field_name("name")
        name = doc.node_text(name_node) if name_node is not None else ""
        if decl.child_by_field_name("body") is not None:
            regions.append((decl.start_byte, decl.end_byte, name))
        else:
            end = decls[i + 1].start_byte if i + 1 < len(decls) else len(doc.data)
            regions.append((decl.start_byte, end, name))
    return regions


def namespace_at(regions: list[tuple[int, int, str]], offset: int) -> str | None:
    for start, end, name in regions:
        if start <= offset < end:
            return name or None
    return None


def use_imports(doc: SourceDocument, root: tree_sitter.Node) -> dict[str, str]:
    """alias -> fully qualified name for every `use` statement of the file (top level
    and inside braced namespaces), including `use X as Y` and group uses."""
    out: dict[str, str] = {}
    declarations = []
    for child in root.named_children:
        if child.type == "namespace_use_declaration":
            declarations.append(child)
        elif child.type == "namespace_definition":
            body = child.child_by_field_name("body")
            if body is not None:
                declarations.extend(
                    c for c in body.named_children if c.type == "namespace_use_declaration"
                )
    for decl in declarations:
        group = decl.child_by_field_name("body")
        base = ""
        if group is not None:
            base_node = next(
                (c for c in decl.named_children if c.type in ("namespace_name", "qualified_name")),
                None,
            )
            base = doc.node_text(base_node).strip("\\") if base_node is not None else ""
            clauses = [c for c in group.named_children if c.type == "namespace_use_clause"]
        else:
            clauses = [c for c in decl.named_children if c.type == "namespace_use_clause"]
        for clause in clauses:
            alias_node = clause.child_by_field_name("alias")
            target_node = next(
                (
                    c
                    for c in clause.named_children
                    if c.type in ("qualified_name", "name", "namespace_name")
                    and (alias_node is None or c.id != alias_node.id)
                ),
                None,
            )
            if target_node is None:
                continue
            target = doc.node_text(target_node).strip("\\")
            if base:
                target = f"{base}\\{target}"
            alias = (
                doc.node_text(alias_node) if alias_node is not None else target.rsplit("\\", 1)[-1]
            )
            out[alias] = target
    return out


def docblock(doc: SourceDocument, node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `/** ... */` comment directly above a declaration, if any."""
    if node.type in ("const_element", "property_element"):
        node = node.parent or node
    prev = node.prev_sibling
    if node.type == "anonymous_class":
        # `return new class ...`: the docblock sits above the statement.
        stmt = node
        while stmt.parent is not None and stmt.parent.type not in ("program", "compound_statement"):
            stmt = stmt.parent
        prev = stmt.prev_sibling
    if prev is None or prev.type != "comment" or prev.end_point[0] < node.start_point[0] - 1:
        return None
    return prev if doc.data.startswith(b"/**", prev.start_byte, prev.end_byte) else None


#: A docblock: (start byte, end byte, start row, start byte column).
Docblock = tuple[int, int, int, int]


def _docblock_of(doc: SourceDocument, node: tree_sitter.Node) -> Docblock | None:
    """`docblock` once per definition and analysis (the docstring and the chunk's first
    row both ask; `definition_texts` answers for all of a file's definitions at once),
    each one found kept by its start byte for `docblock_references`, which then asks
    the tree only about the `/**` of no definition's docblock."""

    def find() -> Docblock | None:
        comment = docblock(doc, node)
        if comment is None:
            return None
        return _keep_docblock(doc, (comment.start_byte, comment.end_byte, *comment.start_point))

    return memoized(("docblock", node.id), find)


def _keep_docblock(doc: SourceDocument, found: Docblock) -> Docblock:
    memoized(("docblocks", doc.path), dict)[found[0]] = found
    return found


class PhpStrategy(TreeSitterStrategy):
    language = "php"
    grammar_name = "php"
    separator = "\\"
    dollar_is_sigil = True
    definitions_query = """
    (class_declaration name: (name) @name) @definition.class
    (interface_declaration name: (name) @name) @definition.interface
    (trait_declaration name: (name) @name) @definition.trait
    (enum_declaration name: (name) @name) @definition.enum
    (anonymous_class "class" @name) @definition.class
    (function_definition name: (name) @name) @definition.function
    (method_declaration name: (name) @name) @definition.method
    (enum_case name: (name) @name) @definition.enum_member
    (const_declaration (const_element (name) @name) @definition.constant)
    (property_declaration
        (property_element name: (variable_name (name) @name)) @definition.property)
    (property_promotion_parameter name: (variable_name (name) @name)) @definition.property
    """
    # Every place a class, function, method, property or constant *name* is used;
    # variables are excluded on purpose (see the module docstring).
    references_query = """
    (named_type (name) @reference)
    (qualified_name (name) @reference)
    (object_creation_expression (name) @reference)
    (class_constant_access_expression (name) @reference (#not-eq? @reference "class"))
    (scoped_call_expression scope: (name) @reference)
    (scoped_call_expression name: (name) @reference)
    (scoped_property_access_expression scope: (name) @reference)
    (scoped_property_access_expression name: (variable_name (name) @reference))
    (member_call_expression name: (name) @reference)
    (nullsafe_member_call_expression name: (name) @reference)
    (member_access_expression name: (name) @reference)
    (nullsafe_member_access_expression name: (name) @reference)
    (function_call_expression function: (name) @reference)
    (base_clause (name) @reference)
    (class_interface_clause (name) @reference)
    (use_declaration (name) @reference)
    (namespace_use_clause . (name) @reference)
    (attribute (name) @reference)
    (binary_expression right: (name) @reference)
    (catch_clause type: (type_list (named_type (name) @reference)))
    (argument (name) @reference)
    (return_statement (name) @reference)
    (array_element_initializer (name) @reference)
    (assignment_expression right: (name) @reference)
    (match_condition_list (name) @reference)
    (case_statement value: (name) @reference)
    (binary_expression left: (name) @reference)
    """
    comment_types = frozenset({"comment"})

    def __init__(self) -> None:
        from .laravel_links import _LINKS_QUERY  # builds on this module

        super().__init__()
        if not refscan.AVAILABLE:  # else the compiled walk runs these as rules instead
            query(self.grammar_name, _RELATED_QUERY)
            query(self.grammar_name, _LINKS_QUERY)

    def analyze(
        self, doc: SourceDocument, settings: ChunkSettings, lazy: bool = False
    ) -> FileAnalysis:
        _memo.cache = {}
        try:
            analysis = super().analyze(doc, settings, lazy)
        finally:
            _memo.cache = None
        # with the definitions, so an open buffer's lazy analysis has them too
        analysis.symbols.extend(_magic_members(doc, analysis.symbols))
        return analysis

    def _references(
        self, doc: SourceDocument, root: tree_sitter.Node, defs: list[_Def]
    ) -> list[Reference]:
        from .laravel_links import laravel_string_references  # builds on this module

        refs = super()._references(doc, root, defs)
        # Laravel hook: route and relation names passed as strings (`route('home')`,
        # `->with('author')`, `TextColumn::make('customer.name')`).
        refs.extend(laravel_string_references(doc, root))
        refs.extend(docblock_references(doc, root))
        return refs

    # ---- hooks -------------------------------------------------------------------

    def module_prefix(self, doc: SourceDocument, analysis: FileAnalysis) -> str | None:
        """The file's (first) namespace. It runs before anything else, so it also
        records the `use` imports that `symbol_metadata` resolves short names with."""
        root = doc.tree.root_node  # type: ignore[union-attr]
        analysis.imports.update(use_imports(doc, root))
        regions = namespace_regions(doc, root)
        return (regions[0][2] or None) if regions else None

    def qualify(self, container: str | None, name: str, kind: SymbolKind) -> str:
        if not container:
            return name
        return f"{container}::{name}" if kind in _MEMBER_KINDS else f"{container}\\{name}"

    def anonymous_class_name(self, doc: SourceDocument, node: tree_sitter.Node) -> str:
        """Name for `new class { ... }`; the migration strategy names it after the file."""
        return ANONYMOUS_CLASS

    def docstring(self, doc: SourceDocument, node: tree_sitter.Node) -> str | None:
        """The `/** ... */` docblock right above the declaration (plain comments are
        not documentation in PHP)."""
        comment = _docblock_of(doc, node)  # finish asks again
        if comment is None:
            return None
        return clean_block_comment(doc.data[comment[0] : comment[1]].decode("utf-8", errors="replace"))

    def definition_texts(
        self, doc: SourceDocument, nodes: list[tree_sitter.Node]
    ) -> list[tuple[str, str | None]] | None:
        """`signature` and `docstring` of every definition from one compiled call
        (`refscan.php_facts`: each node's body, its declaration's span and the comment
        above it), the same strings the two hooks make, each docblock kept as
        `_docblock_of` keeps it; None where the extension cannot run or a subclass
        makes its own texts."""
        cls = type(self)
        if cls.signature is not PhpStrategy.signature or cls.docstring is not PhpStrategy.docstring:
            return None
        facts = refscan.php_facts(nodes)
        if facts is None:
            return None
        data = doc.data
        out: list[tuple[str, str | None]] = []
        for node, (kind, start, end, body, c_start, c_end, c_row, c_col) in zip(nodes, facts, strict=True):
            if kind == 1 or kind == 2:  # a constant, a property: its declaration, a promoted parameter
                signature = " ".join(data[start:end].decode("utf-8", errors="replace").split())[:200]
            elif kind == 3:
                signature = signature_text(data, start, end, body).replace("class", "new class", 1)
            else:
                signature = signature_text(data, start, end, body)
            comment = None
            if c_start >= 0 and data.startswith(b"/**", c_start, c_end):
                comment = _keep_docblock(doc, (c_start, c_end, c_row, c_col))
            memoized(("docblock", node.id), lambda found=comment: found)
            text = None if comment is None else clean_block_comment(data[c_start:c_end].decode("utf-8", errors="replace"))
            out.append((signature, text))
        return out

    def signature(self, doc: SourceDocument, node: tree_sitter.Node) -> str:
        if node.type in ("const_element", "property_element"):
            decl = node.parent or node
            text = doc.node_text(decl)
            return " ".join(text.split())[:200]
        if node.type == "property_promotion_parameter":
            return " ".join(doc.node_text(node).split())[:200]
        if node.type == "anonymous_class":
            return super().signature(doc, node).replace("class", "new class", 1)
        return super().signature(doc, node)

    def _definitions(
        self, doc: SourceDocument, root: tree_sitter.Node, prefix: str | None
    ) -> list[_Def]:
        """The base nesting plus PHP's rules: each definition takes the namespace it
        is declared in (files may hold several), promoted constructor parameters are
        properties of the class, `__construct` is a constructor, and anonymous classes
        get a name."""
        defs = super()._definitions(doc, root, prefix)
        regions = namespace_regions(doc, root)
        stack: list[_Def] = []
        for d in defs:
            node = d.node
            while stack and stack[-1].node.end_byte <= node.start_byte:
                stack.pop()
            parents = stack
            if node.type == "property_promotion_parameter":
                parents = [p for p in stack if p.symbol.kind in CONTAINER_KINDS]
            parent = parents[-1].symbol if parents else None
            s = d.symbol
            name, kind = s.name, s.kind
            if node.type == "anonymous_class":
                name = self.anonymous_class_name(doc, node)
            elif node.type == "method_declaration":
                kind = (
                    SymbolKind.CONSTRUCTOR if name.lower() == "__construct" else SymbolKind.METHOD
                )
            container = parent.qualified_name if parent else namespace_at(regions, node.start_byte)
            if (name, kind, container) != (s.name, s.kind, s.container):  # else the base built this one
                # built directly: `dataclasses.replace` re-reads the class's fields per call
                d.symbol = Symbol(name, kind, s.range, s.selection_range,
                                  self.qualify(container, name, kind), container, s.signature, s.doc)
            stack.append(d)
        return defs

    def symbol_metadata(
        self, doc: SourceDocument, d: _Def, analysis: FileAnalysis
    ) -> dict[str, Any]:
        s = d.symbol
        if d.node.type in _CLASS_LIKE_NODES:
            return self.class_metadata(doc, d.node, s, analysis)
        if s.kind in (SymbolKind.METHOD, SymbolKind.CONSTRUCTOR):
            cls = nearest_ancestor(d.node, _CLASS_LIKE_NODES)
            return self.method_metadata(doc, d.node, cls, s, analysis)
        if s.kind is SymbolKind.FUNCTION:
            namespace = s.container
            related = self.related_in(doc, d.node, namespace, analysis.imports, None)
            meta: dict[str, Any] = {"fqcn": s.qualified_name}
            if related:
                meta["related_symbols"] = related
            return meta
        return {}

    def finish(self, work: FileWork) -> None:
        """Docblocks join their chunks, and a `namespace` chunk holds the file header
        (namespace + `use` lines), so neither is re-chunked as an anonymous block."""
        doc, analysis, defs, settings = work.doc, work.analysis, work.defs, work.settings
        attach_leading_lines(doc, analysis, defs, settings, lambda d: self._docblock_row(doc, d))
        root = doc.tree.root_node  # type: ignore[union-attr]
        header = [
            c
            for c in root.named_children
            if c.type == "namespace_use_declaration"
            or (c.type == "namespace_definition" and c.child_by_field_name("body") is None)
        ]
        if not header:
            return
        last = header[-1].end_point[0]
        namespace = next(
            (
                doc.node_text(c.child_by_field_name("name"))  # type: ignore[arg-type]
                for c in header
                if c.type == "namespace_definition" and c.child_by_field_name("name") is not None
            ),
            None,
        )
        top = [d.symbol for d in defs if d.symbol.container == namespace]
        content = doc.lines_text(0, last)
        if top:
            content += "\n// " + defines_line(top)
        header_chunk = Chunk(
            path=doc.path,
            language=doc.language,
            symbol_name=namespace or doc.path,
            symbol_type="namespace",
            start_line=0,
            end_line=last,
            content=content,
            metadata={
                "namespace": namespace,
                "imports": dict(analysis.imports),
                "defines": [s.qualified_name for s in top],
            },
        )
        analysis.chunks[0:0] = split_oversized(header_chunk, settings)

    def _docblock_row(self, doc: SourceDocument, d: _Def) -> int | None:
        """Where a chunk starts with its docblock: the docblock is the prose that says
        what the code is for, which is what semantic search matches on."""
        if d.symbol.kind not in self.chunk_kinds:
            return None
        comment = _docblock_of(doc, d.node)
        if comment is None or comment[2] >= d.symbol.range.start.line:
            return None
        return comment[2]

    # ---- class-level analysis ------------------------------------------------------

    def class_metadata(
        self,
        doc: SourceDocument,
        node: tree_sitter.Node,
        s: Symbol,
        analysis: FileAnalysis,
    ) -> dict[str, Any]:
        imports = analysis.imports
        namespace = s.container if s.container and "::" not in s.container else None
        if node.type == "anonymous_class":
            namespace = _namespace_of(doc, node)

        def res(name: str) -> str:
            return resolve_name(name, namespace, imports)

        meta: dict[str, Any] = {
            "fqcn": s.qualified_name,
            "namespace": namespace,
            "uses": list(dict.fromkeys(imports.values())),
        }
        base = next((c for c in node.named_children if c.type == "base_clause"), None)
        if base is not None:
            parents = [
                res(doc.node_text(n))
                for n in base.named_children
                if n.type in ("name", "qualified_name")
            ]
            if parents:
                meta["extends"] = parents if node.type == "interface_declaration" else parents[0]
        interfaces = next(
            (c for c in node.named_children if c.type == "class_interface_clause"), None
        )
        if interfaces is not None:
            meta["implements"] = [
                res(doc.node_text(n))
                for n in interfaces.named_children
                if n.type in ("name", "qualified_name")
            ]
        body = node.child_by_field_name("body")
        members = body.named_children if body is not None else []
        traits = [
            doc.node_text(n)
            for m in members
            if m.type == "use_declaration"
            for n in m.named_children
            if n.type in ("name", "qualified_name")
        ]
        if traits:
            meta["traits"] = [res(t) for t in traits]
        related: list[str] = []
        deps = constructor_dependencies(doc, members, res)
        if deps:
            meta["injected_dependencies"] = deps
            related.extend(dep["class"] for dep in deps)
        relations = []
        for m in members:
            if m.type != "method_declaration":
                continue
            relation = eloquent_relation(doc, m, res)
            if relation is not None:
                relations.append(relation)
                if relation.get("related"):
                    related.append(relation["related"])
        if relations:
            meta["relations"] = relations
        translatable = translatable_fields(doc, members)
        if translatable is not None or any(is_translation_trait(res(t)) for t in traits):
            meta["translatable"] = translatable or []
            meta["is_translatable_model"] = True
        if isinstance(meta.get("extends"), str):
            from .laravel_models import is_model, model_metadata  # builds on this module

            if is_model(meta["extends"], namespace):  # Laravel hook: model <-> table
                meta.update(model_metadata(doc, members, s.name, res))
        if related:
            meta["related_symbols"] = list(dict.fromkeys(related))
        return meta

    def method_metadata(
        self,
        doc: SourceDocument,
        node: tree_sitter.Node,
        cls: tree_sitter.Node | None,
        s: Symbol,
        analysis: FileAnalysis,
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        namespace = _namespace_of(doc, node)
        if s.container and "::" not in s.container:
            meta["fqcn"] = s.container

        def res(name: str) -> str:
            return resolve_name(name, namespace, analysis.imports)

        property_types: dict[str, str] = {}
        if cls is not None:
            klass = cls
            property_types = memoized(
                ("property_types", klass.id),
                lambda: typed_properties(doc, _members(klass), res),
            )
            relation = eloquent_relation(doc, node, res)
            if relation is not None:
                meta["relation"] = relation
        related = self.related_in(doc, node, namespace, analysis.imports, property_types)
        own = meta.get("fqcn")
        related = [r for r in related if r != own]
        if related:
            meta["related_symbols"] = related
        return meta

    def related_in(
        self,
        doc: SourceDocument,
        node: tree_sitter.Node,
        namespace: str | None,
        imports: dict[str, str],
        property_types: dict[str, str] | None,
    ) -> list[str]:
        """Classes a function/method touches: parameter and return types, `new X`,
        `X::class`, `X::call()`, `instanceof X`, and `$this->prop->...` where the
        property's type is known (constructor injection, typed properties)."""
        starts, captured = memoized(("related", doc.path), lambda: self._related_captures(doc))
        found: list[str] = []
        for i in range(bisect_left(starts, node.start_byte), bisect_left(starts, node.end_byte)):
            capture, text = captured[i]
            if capture == "this_prop":
                t = (property_types or {}).get(text)
                if t:
                    found.append(t)
            elif text.lower() not in _BUILTIN_TYPES:
                found.append(resolve_name(text, namespace, imports))
        return list(dict.fromkeys(found))

    def _related_captures(self, doc: SourceDocument) -> tuple[list[int], list[tuple[str, str]]]:
        """`_RELATED_QUERY`'s captures over the whole file in byte order: one query per
        file instead of one per method (a query run costs more than its matches)."""
        root = doc.tree.root_node  # type: ignore[union-attr]
        spans = compiled_spans(doc, root)
        if spans is not None:
            data = doc.data
            spans = [span for span in spans if span[2] < len(_RELATED_RULES)]
            return [s for s, _, _ in spans], [
                (_RELATED_RULE_CAPTURES[r], data[s:e].decode("utf-8", errors="replace")) for s, e, r in spans
            ]
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, _RELATED_QUERY))
        nodes = sorted(
            ((n.start_byte, capture, n) for capture, ns in cursor.captures(root).items()
             if capture in ("type", "this_prop") for n in ns),
            key=itemgetter(0),
        )
        return [b for b, _, _ in nodes], [(capture, doc.node_text(n)) for _, capture, n in nodes]


_RELATED_QUERY = """
(named_type [(name) (qualified_name)] @type)
(object_creation_expression [(name) (qualified_name)] @type)
(class_constant_access_expression . [(name) (qualified_name)] @type)
(scoped_call_expression scope: [(name) (qualified_name)] @type)
(scoped_property_access_expression scope: [(name) (qualified_name)] @type)
(binary_expression operator: "instanceof" right: [(name) (qualified_name)] @type)
(member_access_expression
    object: (variable_name (name) @_this (#eq? @_this "this"))
    name: (name) @this_prop)
"""

# `_RELATED_QUERY` as rules of the compiled walk (refscan.rule_spans), same captures in
# the same order: one alternative per rule, `operator: "instanceof"` as a check on the
# sibling, and `$this->prop` matched at `this` yielding the sibling `name`.
_RELATED_RULES: list[refscan.SpanRule] = [
    *(
        rule
        for t in ("name", "qualified_name")
        for rule in (
            ([(t, None, False), ("named_type", None, False)], [], None, None),
            ([(t, None, False), ("object_creation_expression", None, False)], [], None, None),
            ([(t, None, True), ("class_constant_access_expression", None, False)], [], None, None),
            ([(t, "scope", False), ("scoped_call_expression", None, False)], [], None, None),
            ([(t, "scope", False), ("scoped_property_access_expression", None, False)], [], None, None),
            ([(t, "right", False), ("binary_expression", None, False)], [],
             ("operator", "instanceof", False), None),
        )
    ),
    ([("name", None, False), ("variable_name", "object", False), ("member_access_expression", None, False)],
     [(True, "this")], None, ("name", "name", True)),
]
_RELATED_RULE_CAPTURES = ["type"] * (len(_RELATED_RULES) - 1) + ["this_prop"]
#: The walk's rule after the related classes': a call of a relation's name
#: (`->hasMany(`), where `eloquent_relation` looks; `laravel_links._LINK_RULES` follow.
_RELATION_CALL_RULE: refscan.SpanRule = (
    [("name", "name", False), ("member_call_expression", None, False)], [], None, None,
    frozenset(name.encode() for name in ELOQUENT_RELATIONS),
)
RELATION_CALLS = len(_RELATED_RULES)
FIRST_LINK_RULE = RELATION_CALLS + 1


def file_may_link(doc: SourceDocument) -> bool:
    """`laravel_links.may_link` of the file, once per analysis: the links pass and the
    walk (`compiled_spans`) both ask."""
    from .laravel_links import may_link  # builds on this module

    return memoized(("may_link", doc.path), lambda: may_link(doc.data))


def compiled_spans(doc: SourceDocument, root: tree_sitter.Node) -> list[tuple[int, int, int]] | None:
    """The related classes' spans (`_RELATED_RULES`, rule < their count), the calls of a
    relation's name (rule `RELATION_CALLS`) and, in a file that may link
    (`laravel_links.may_link`), the Laravel links' spans (rule - `FIRST_LINK_RULE`
    indexes `_LINK_RULES`), from ONE compiled walk per analysis: each walk visits every
    node of the file, and the links' walk cost as much as the related one. The rule sets
    match disjoint places (their parents' types or fields differ, or their name sets:
    no link's call name is a relation's), so the walk's first-rule-wins gives each what
    its own walk would. None where the extension cannot run here."""

    def walk() -> list[tuple[int, int, int]] | None:
        from .laravel_links import _LINK_RULES  # builds on this module

        rules = [*_RELATED_RULES, _RELATION_CALL_RULE]
        if file_may_link(doc):
            return refscan.rule_spans(root, "php", "php related+relations+links", rules + _LINK_RULES)
        return refscan.rule_spans(root, "php", "php related+relations", rules)

    return memoized(("spans", doc.path), walk)


def relation_calls(doc: SourceDocument) -> list[int] | None:
    """Start bytes of the names of the file's calls of a relation (`->hasMany(`), from
    the walk `compiled_spans` runs anyway; None where it cannot run. A method without
    one has no relation: most methods, and both their class and they themselves ask."""

    def starts() -> list[int] | None:
        spans = compiled_spans(doc, doc.tree.root_node) if doc.tree is not None else None
        return None if spans is None else [s for s, _, rule in spans if rule == RELATION_CALLS]

    return memoized(("relation_calls", doc.path), starts)


def _magic_members(doc: SourceDocument, symbols: list[Symbol]) -> list[Symbol]:
    """`@method static Carbon now()` / `@property string $name` in a class docblock: members
    of that class, placed on the tag (where intelephense goes for `Date::now()`)."""
    out: list[Symbol] = []
    if doc.tree is None or (b"@method" not in doc.data and b"@property" not in doc.data):
        return out
    root = doc.tree.root_node
    for sym in symbols:
        if sym.kind not in (SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.TRAIT):
            continue
        r = sym.selection_range.start  # the class's name (byte column = character: ASCII)
        decl = _ancestor_declaration(root.named_descendant_for_point_range((r.line, r.character), (r.line, r.character)))
        comment = docblock(doc, decl) if decl is not None else None
        if comment is None:
            continue
        text = doc.data[comment.start_byte : comment.end_byte]
        owner = sym.qualified_name
        for kind, name, s, e, line in magic_members(text):
            rng = doc.byte_range(comment.start_byte + s, comment.start_byte + e)
            out.append(Symbol(
                name, SymbolKind.METHOD if kind == "method" else SymbolKind.PROPERTY, rng, rng,
                f"{owner}::{name}", owner, line,
            ))
    return out


_DECLARATIONS = frozenset({"class_declaration", "interface_declaration", "trait_declaration"})


def _ancestor_declaration(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and node.type not in _DECLARATIONS:
        node = node.parent
    return node


_DOCBLOCK_OPEN = re.compile(rb"/\*\*")


def docblock_references(doc: SourceDocument, root: tree_sitter.Node) -> list[Reference]:
    """Class names in `/** @param … @return … */` tags, placed in the file. The
    docblocks are found from the `/**` in the bytes (a comment node starting there),
    not by a query walking every node of the tree; only those with a tag reach the
    regex. A definition's docblock is already known (`_docblock_of`): the tree is asked
    only about the other `/**`."""
    out: list[Reference] = []
    append = out.append
    new = tuple.__new__  # the NamedTuple's own constructor is a Python call per name
    data = doc.data
    non_ascii = doc.non_ascii_rows
    known: dict[int, Docblock] = memoized(("docblocks", doc.path), dict)
    for m in _DOCBLOCK_OPEN.finditer(data):
        start = m.start()
        found = known.get(start)
        if found is not None:
            _, end, row0, col0 = found
        else:
            node = root.descendant_for_byte_range(start, m.end())
            if node is None or node.type != "comment" or node.start_byte != start:
                continue
            end = node.end_byte
            row0, col0 = node.start_point
        text = data[start:end]
        names = docblock_type_names(text)
        if not names:
            continue
        for s, e, written in names:
            nl = text.rfind(b"\n", 0, s)
            if nl == -1:
                row, col = row0, col0 + s
            else:
                row, col = row0 + text.count(b"\n", 0, s), s - nl - 1
            end_col = col + (e - s)
            if row in non_ascii:
                col = doc.position((row, col)).character
                end_col = doc.position((row, end_col)).character
            append(new(Reference, (written.rsplit("\\", 1)[-1], row, col, row, end_col, None)))
    return out


def _members(cls: tree_sitter.Node) -> list[tree_sitter.Node]:
    body = cls.child_by_field_name("body")
    return body.named_children if body is not None else []


def _namespace_of(doc: SourceDocument, node: tree_sitter.Node) -> str | None:
    def regions() -> list[tuple[int, int, str]]:
        root = node
        while root.parent is not None:
            root = root.parent
        return namespace_regions(doc, root)

    return namespace_at(memoized("namespace_regions", regions), node.start_byte)


def _type_name(doc: SourceDocument, type_node: tree_sitter.Node | None) -> str | None:
    """The class in a parameter/property type (`?Foo`, `Foo|null`), or None for
    builtins and ambiguous unions."""
    if type_node is None:
        return None
    if type_node.type == "optional_type" and type_node.named_child_count:
        type_node = type_node.named_children[0]
    if type_node.type == "union_type":
        named = [c for c in type_node.named_children if c.type == "named_type"]
        if len(named) != 1:
            return None
        type_node = named[0]
    if type_node.type != "named_type":
        return None
    text = doc.node_text(type_node)
    return None if text.lower() in _BUILTIN_TYPES else text


#: `__construct` in any case (PHP's method names are): a class body without it has no
#: constructor to look for member by member.
_CONSTRUCT = re.compile(rb"(?i)__construct")


def _constructor(doc: SourceDocument, members: list[tree_sitter.Node]) -> tree_sitter.Node | None:
    if not members or _CONSTRUCT.search(doc.data, members[0].start_byte, members[-1].end_byte) is None:
        return None
    for m in members:
        if m.type == "method_declaration":
            name = m.child_by_field_name("name")
            if name is not None and name.text and name.text.decode().lower() == "__construct":
                return m
    return None


def constructor_dependencies(
    doc: SourceDocument, members: list[tree_sitter.Node], res: Resolver
) -> list[dict[str, Any]]:
    """Class-typed constructor parameters (promoted or not): what the container injects."""
    ctor = _constructor(doc, members)
    if ctor is None:
        return []
    params = ctor.child_by_field_name("parameters")
    out = []
    for p in params.named_children if params is not None else []:
        if p.type not in ("simple_parameter", "property_promotion_parameter"):
            continue
        type_name = _type_name(doc, p.child_by_field_name("type"))
        var = p.child_by_field_name("name")
        if type_name is None or var is None:
            continue
        dep: dict[str, Any] = {
            "class": res(type_name),
            "variable": doc.node_text(var).lstrip("$"),
        }
        if p.type == "property_promotion_parameter":
            dep["promoted"] = True
        out.append(dep)
    return out


def typed_properties(
    doc: SourceDocument, members: list[tree_sitter.Node], res: Resolver
) -> dict[str, str]:
    """property name -> class fqcn, from typed property declarations, promoted
    constructor parameters and `$this->x = $x` assignments of typed constructor
    parameters (the pre-PHP 8 injection style)."""
    out: dict[str, str] = {}
    for m in members:
        if m.type != "property_declaration":
            continue
        type_name = _type_name(doc, m.child_by_field_name("type"))
        if type_name is None:
            continue
        for element in m.named_children:
            if element.type == "property_element":
                var = element.child_by_field_name("name")
                if var is not None:
                    out[doc.node_text(var).lstrip("$")] = res(type_name)
    ctor = _constructor(doc, members)
    if ctor is None:
        return out
    param_types: dict[str, str] = {}
    params = ctor.child_by_field_name("parameters")
    for p in params.named_children if params is not None else []:
        type_name = _type_name(doc, p.child_by_field_name("type"))
        var = p.child_by_field_name("name")
        if type_name is None or var is None:
            continue
        param_types[doc.node_text(var).lstrip("$")] = res(type_name)
        if p.type == "property_promotion_parameter":
            out[doc.node_text(var).lstrip("$")] = res(type_name)
    body = ctor.child_by_field_name("body")
    for stmt in body.named_children if body is not None else []:
        expr = (
            stmt.named_children[0]
            if stmt.type == "expression_statement" and stmt.named_child_count
            else None
        )
        if expr is None or expr.type != "assignment_expression":
            continue
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if (
            left is not None
            and right is not None
            and left.type == "member_access_expression"
            and right.type == "variable_name"
            and doc.node_text(left.child_by_field_name("object") or left) == "$this"
        ):
            prop = left.child_by_field_name("name")
            t = param_types.get(doc.node_text(right).lstrip("$"))
            if prop is not None and t:
                out.setdefault(doc.node_text(prop), t)
    return out


def eloquent_relation(
    doc: SourceDocument, method: tree_sitter.Node, res: Resolver
) -> dict[str, Any] | None:
    """`return $this->hasMany(Post::class, ...)->latest();` -> {name, type, related}."""
    calls = relation_calls(doc)
    if calls is not None and bisect_left(calls, method.start_byte) == bisect_left(calls, method.end_byte):
        return None  # no relation's name is called in it: its statements are not walked
    body = method.child_by_field_name("body")
    name_node = method.child_by_field_name("name")
    if body is None or name_node is None:
        return None
    for stmt in body.named_children:
        if stmt.type != "return_statement" or not stmt.named_child_count:
            continue
        call = stmt.named_children[0]
        # Walk down the fluent chain to the call made on `$this`.
        while call.type == "member_call_expression":
            obj = call.child_by_field_name("object")
            if obj is not None and obj.type == "variable_name" and doc.node_text(obj) == "$this":
                break
            call = obj  # type: ignore[assignment]
            if call is None:
                return None
        if call.type != "member_call_expression":
            return None
        rel_type = doc.node_text(call.child_by_field_name("name"))  # type: ignore[arg-type]
        if rel_type not in ELOQUENT_RELATIONS:
            return None
        args = call_arguments(call)
        related = None
        if args:
            target = class_constant_target(args[0], doc)
            if target is not None:
                related = res(target)
            else:
                text = string_value(doc, args[0])
                related = text.lstrip("\\") if text and "\\" in text else None
        relation: dict[str, Any] = {
            "name": doc.node_text(name_node),
            "type": rel_type,
            "related": related,
        }
        return relation
    return None


def property_defaults(
    doc: SourceDocument, members: list[tree_sitter.Node]
) -> dict[str, tree_sitter.Node | None]:
    """A class body's properties by name (without `$`) -> their default value, if any."""
    out: dict[str, tree_sitter.Node | None] = {}
    for m in members:
        if m.type != "property_declaration":
            continue
        for element in m.named_children:
            var = element.child_by_field_name("name") if element.type == "property_element" else None
            if var is not None:
                out[doc.node_text(var).lstrip("$")] = element.child_by_field_name("default_value")
    return out


def translatable_fields(doc: SourceDocument, members: list[tree_sitter.Node]) -> list[str] | None:
    """`protected $translatable = ['name', 'description'];` (spatie) or
    `$translatedAttributes` (Astrotomic) -> the field names."""
    props = property_defaults(doc, members)
    for name in ("translatable", "translatedAttributes"):
        if name in props:
            return string_list(doc, props[name])
    return None
