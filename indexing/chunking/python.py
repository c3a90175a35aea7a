"""Python: classes, functions, methods, module variables; docstrings; imports; a
module summary chunk."""

from __future__ import annotations

import inspect
from dataclasses import replace
from pathlib import PurePosixPath

import tree_sitter

from ..model import FileAnalysis, Symbol, SymbolKind
from ..source import SourceDocument
from . import refscan
from .base import (
    RECORDED_STRINGS,
    ChunkSettings,
    FileWork,
    TreeSitterStrategy,
    _Def,
)
from .python_buffer import StatementMemo, analyze_buffer
from .python_strings import DECIDING, MAX_UP, recorded_type_strings, type_strings
from .walks import defines_line

_IMPORT_NAMES = ("import_statement", "import_from_statement")
_VARIABLE, _CLASS, _FIELD = SymbolKind.VARIABLE, SymbolKind.CLASS, SymbolKind.FIELD  # per symbol: see base._FUNCTION
_IMPORT_TYPES = frozenset(_IMPORT_NAMES)
#: Where `module_prefix` leaves, on the document, the root's import statements' spans
#: and its docstring's span ((root, spans, (start, end)): valid for that tree only) for
#: `finish`, so the root's statements are read once.
_MODULE_HEADER = "_python_module_header"
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def import_keywords(data: bytes) -> list[int]:
    """Start of each whole word `import` (what `rb"\\bimport\\b"` finds). A pattern
    opening with `\\b` gives `re` no literal to search for, so it tries every byte
    (~8 ns each, as much as the rest of the imports pass); `bytes.find` jumps."""
    out = []
    find = data.find
    at = find(b"import")
    while at != -1:
        end = at + 6
        if (at == 0 or data[at - 1] not in _WORD_BYTES) and (
            end == len(data) or data[end] not in _WORD_BYTES
        ):
            out.append(at)
        at = find(b"import", end)
    return out


def nested_import_statements(
    data: bytes, root: tree_sitter.Node, known: list[tree_sitter.Node]
) -> list[tree_sitter.Node]:
    """The import statements below the top level (under `if TYPE_CHECKING:`, `try:`, in
    functions), in file order; `known` are the module's own, in file order. Each holds
    the keyword `import`, so the statements are found from the keyword's few
    occurrences in the bytes instead of a query walking every node of the tree (a third
    of a parse); a keyword inside a known statement is not looked up."""
    return [node for node, top_level in _imports_above(data, root, known) if not top_level]


def _imports_above(
    data: bytes, root: tree_sitter.Node, known: list[tree_sitter.Node]
) -> list[tuple[tree_sitter.Node, bool]]:
    """(import statement, whether the module holds it) per statement holding an
    `import` keyword outside `known`, in file order. The compiled helper finds each
    keyword's statement and parent in one descent; the binding's walk otherwise."""
    spans = [(n.start_byte, n.end_byte) for n in known]
    k = 0
    keywords = []
    for at in import_keywords(data):
        while k < len(spans) and spans[k][1] <= at:
            k += 1
        if not (k < len(spans) and spans[k][0] <= at):
            keywords.append((at, at + 6))
    found: dict[int, tuple[tree_sitter.Node, bool]] = {}
    hits = refscan.enclosing(root, keywords, _IMPORT_NAMES, ("module",), 1) if keywords else []
    if hits is not None:
        for hit in hits:
            if hit is not None:
                found.setdefault(hit[0], (hit[4], hit[2] == 0))
    else:
        for at, end in keywords:
            node = root.descendant_for_byte_range(at, end)
            while node is not None and node.type not in _IMPORT_TYPES:
                node = node.parent
            if node is not None and node.start_byte not in found:
                parent = node.parent
                found[node.start_byte] = (node, parent is None or parent.type == "module")
    return [found[k] for k in sorted(found)]


def _is_self_field(d: _Def) -> bool:
    """`self.x = …`, `cls.a, cls.b = …`: an attribute set in a method (for a tuple
    target the definition node is the attribute itself)."""
    if d.node.type == "attribute":
        return True
    left = d.node.child_by_field_name("left") if d.node.type == "assignment" else None
    return left is not None and left.type == "attribute"


def module_name(rel_path: str) -> str:
    """`src/pkg/mod.py` -> `pkg.mod`; `pkg/__init__.py` -> `pkg`. Split by hand (twice
    per file: 2-3 % of the analysis above the parse went to `PurePosixPath`); a path
    `PurePosixPath` would normalize (an empty or `.` part) is read by it."""
    parts = rel_path.split("/")
    if "" in parts or "." in parts:
        parts = list(PurePosixPath(rel_path).with_suffix("").parts)
    else:  # `with_suffix("")`: the last part's suffix, as `PurePath.suffix` finds it
        last = parts[-1]
        dot = last.rfind(".")
        if 0 < dot < len(last) - 1:
            parts[-1] = last[:dot]
    if parts and parts[0] in {"src", "lib"} and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class PythonStrategy(TreeSitterStrategy):
    language = "python"
    grammar_name = "python"
    recorded_strings = ("string", DECIDING, MAX_UP)
    definitions_query = """
    (class_definition name: (identifier) @name) @definition.class
    (function_definition name: (identifier) @name) @definition.function
    (module (assignment left: (identifier) @name) @definition.variable)
    (module (expression_statement (assignment left: (identifier) @name) @definition.variable))
    (class_definition body: (block (assignment left: (identifier) @name) @definition.field))
    (class_definition body: (block (expression_statement
        (assignment left: (identifier) @name) @definition.field)))
    (module (if_statement consequence: (block (assignment left: (identifier) @name) @definition.variable)))
    (module (if_statement alternative: (else_clause body: (block
        (assignment left: (identifier) @name) @definition.variable))))
    (module (if_statement alternative: (elif_clause consequence: (block
        (assignment left: (identifier) @name) @definition.variable))))
    (module (try_statement body: (block (assignment left: (identifier) @name) @definition.variable)))
    (module (try_statement (except_clause (block
        (assignment left: (identifier) @name) @definition.variable))))
    ((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name))
        @definition.field (#match? @_self "^(self|cls)$"))
    (assignment left: (pattern_list
        ((attribute object: (identifier) @_self attribute: (identifier) @name) @definition.field
        (#match? @_self "^(self|cls)$"))))
    """

    def _appended_references(self, doc: SourceDocument, root: tree_sitter.Node) -> list[refscan.Extra]:
        """`__all__` entries and forward references (`x: "Client"`) name code too."""
        recorded = doc.__dict__.pop(RECORDED_STRINGS, None)
        names = (
            recorded_type_strings(doc.data, recorded[1])
            if recorded is not None and recorded[0] == root else type_strings(doc.data, root)
        )
        placed = doc.spans_in_order([(start, end) for start, end, _ in names])
        return [(name, *where) for (_, _, name), where in zip(names, placed, strict=True)]

    def module_prefix(self, doc: SourceDocument, analysis: FileAnalysis) -> str | None:
        """The module name. It runs first, so it also records the imports (and, for
        `finish`, the module's own import statements and docstring)."""
        module = module_name(doc.path)
        root = doc.tree.root_node  # type: ignore[union-attr]
        facts = refscan.python_imports(root, doc.data)
        if facts is not None:
            top_facts, nested_facts, docstring = facts
            data, path = doc.data, doc.path
            for fact in top_facts:
                analysis.imports.update(_imports_of_facts(data, fact, module, path))
            for fact in nested_facts:  # file order: the first binding wins
                for alias, target in _imports_of_facts(data, fact, module, path).items():
                    analysis.imports.setdefault(alias, target)
            doc.__dict__[_MODULE_HEADER] = (root, [f[:2] for f in top_facts], docstring)
            return module or None
        top = [child for child in root.named_children if child.type in _IMPORT_TYPES]
        for child in top:
            analysis.imports.update(_imports(doc, child, module, doc.path))
        # Imports under `if TYPE_CHECKING:` / `try:` or inside functions decide names
        # too; the file-level ones win a clash.
        for node in nested_import_statements(doc.data, root, top):  # file order: the first binding wins
            for alias, target in _imports(doc, node, module, doc.path).items():
                analysis.imports.setdefault(alias, target)
        return module or None

    def _definitions(
        self, doc: SourceDocument, root: tree_sitter.Node, prefix: str | None
    ) -> list[_Def]:
        """`self.x = ...` in a method (`cls.x = ...` in a classmethod: pytest's
        `setup_class`) defines the field `x` of the method's class (once, and not where
        the class body already declares `x`)."""
        defs = super()._definitions(doc, root, prefix)
        # only a field can be `self.x` (the query's other kinds assign to a bare name):
        # the rest are not asked, each question being a binding Node or two
        kept = place_self_fields([d.symbol for d in defs], [d.symbol.kind is _FIELD and _is_self_field(d) for d in defs])
        if kept is None:
            return defs
        return [defs[i] if s is defs[i].symbol else replace(defs[i], symbol=s) for i, s in kept]

    def analyze_buffer(
        self, doc: SourceDocument, settings: ChunkSettings, memo: StatementMemo | None,
        changed: list[tuple[int, int]],
    ) -> tuple[FileAnalysis, StatementMemo]:
        """An open buffer's analysis, re-reading only the top-level statements an edit
        touched (see `python_buffer`)."""
        return analyze_buffer(self, doc, settings, memo, changed)

    def definition_texts(
        self, doc: SourceDocument, nodes: list[tree_sitter.Node]
    ) -> list[tuple[str, str | None]] | None:
        """`signature` and `docstring` of every definition from one compiled call
        (`refscan.python_texts`: the same strings the two hooks make, by the same
        rules); None where the extension cannot run."""
        return refscan.python_texts(nodes, doc.data)

    def docstring(self, doc: SourceDocument, node: tree_sitter.Node) -> str | None:
        if node.type == "assignment":
            return None
        body = node.child_by_field_name("body")
        if body is None or body.named_child_count == 0:
            return None
        return _leading_string(doc, body)

    def signature(self, doc: SourceDocument, node: tree_sitter.Node) -> str:
        if node.type == "assignment":
            return _assignment_signature(doc.node_text(node))
        return super().signature(doc, node)

    def finish(self, work: FileWork) -> None:
        doc, analysis, defs = work.doc, work.analysis, work.defs
        root = doc.tree.root_node  # type: ignore[union-attr]
        module = module_name(doc.path)
        header = doc.__dict__.pop(_MODULE_HEADER, None)
        if header is not None and header[0] == root:  # what module_prefix read of the root
            data = doc.data
            import_lines = [data[s:e].decode("utf-8", errors="replace") for s, e in header[1]]
            start, end = header[2]
            module_doc = _strip_string(data[start:end].decode("utf-8", errors="replace")) if start >= 0 else None
        else:
            import_lines = [doc.node_text(child) for child in root.named_children if child.type in _IMPORT_TYPES]
            module_doc = _leading_string(doc, root)
        top = [d.symbol for d in defs if d.symbol.container == (module or None)]
        if not (module_doc or import_lines or top):
            return
        parts = []
        if module_doc:
            parts.append(module_doc)
        parts.extend(import_lines)
        if top:
            parts.append(defines_line(top))
        self.add_module_chunk(doc, analysis, module or doc.path, parts, {
            "qualified_name": module,
            "docstring": module_doc,
            "imports": sorted(set(analysis.imports.values())),
        })


def place_self_fields(
    symbols: list[Symbol], self_field: list[bool]
) -> list[tuple[int, Symbol]] | None:
    """Which definitions stay, as (index, symbol), once every `self.x = ...` is made a
    field of the method's class; None when there is none (all stay as they are).
    Pure, so an open buffer's statement-by-statement analysis applies the same rule."""
    if not any(self_field):
        return None
    by_qname: dict[str, Symbol] = {}
    for s in symbols:  # `Converter = _add_repr(Converter)` after the class keeps the class
        if s.qualified_name not in by_qname or s.kind is not _VARIABLE:
            by_qname[s.qualified_name] = s
    taken = {s.qualified_name for s, f in zip(symbols, self_field, strict=True) if not f}
    out: list[tuple[int, Symbol]] = []
    for i, (sym, is_field) in enumerate(zip(symbols, self_field, strict=True)):
        if not is_field:
            out.append((i, sym))
            continue
        method = by_qname.get(sym.container or "")
        cls = by_qname.get(method.container or "") if method is not None else None
        if cls is None or cls.kind is not _CLASS:
            continue
        qualified = f"{cls.qualified_name}.{sym.name}"
        if qualified in taken:
            continue
        taken.add(qualified)
        out.append((i, replace(sym, qualified_name=qualified, container=cls.qualified_name)))
    return out


def _leading_string(doc: SourceDocument, block: tree_sitter.Node) -> str | None:
    """The docstring: a string literal as the block's first statement (the grammar
    shows it bare or wrapped in an expression_statement, depending on position)."""
    first = None
    for i in range(block.named_child_count):  # not `named_children`: a Node per statement
        first = block.named_child(i)
        if first.type != "comment":  # type: ignore[union-attr]
            break
        first = None
    if first is not None and first.type == "expression_statement" and first.named_child_count:
        first = first.named_child(0)
    if first is not None and first.type == "string":
        return _strip_string(doc.node_text(first))
    return None


def _assignment_signature(text: str) -> str:
    """A module or class variable's signature: its whole assignment, on one line."""
    return " ".join(text.split())[:200]


def _strip_string(text: str) -> str:
    for q in ('"""', "'''", '"', "'"):
        i = text.find(q)
        if i != -1 and text.endswith(q) and len(text) >= i + 2 * len(q):
            return inspect.cleandoc(text[i + len(q) : -len(q)])
    return text.strip()


def _imports(
    doc: SourceDocument, node: tree_sitter.Node, module: str, path: str
) -> dict[str, str]:
    """One import statement's aliases, read through the binding (where the compiled
    reading cannot run): the same facts `refscan.python_imports` gives, the same strings."""
    return _imports_of_facts(doc.data, _import_facts(node), module, path)


def _import_facts(node: tree_sitter.Node) -> refscan.PythonImport:
    """`refscan.PythonImport` of one statement from the binding's Nodes."""
    def name_fact(name: tree_sitter.Node) -> tuple[int, int, int, int, int]:
        if name.type == "aliased_import":
            target, alias = name.child_by_field_name("name"), name.child_by_field_name("alias")
            return 1, target.start_byte, target.end_byte, alias.start_byte, alias.end_byte  # type: ignore[union-attr]
        return 0, name.start_byte, name.end_byte, -1, -1

    if node.type == "import_statement":
        names = [name_fact(n) for n in node.named_children if n.type in ("aliased_import", "dotted_name")]
        return node.start_byte, node.end_byte, 0, -1, -1, names
    mod = node.child_by_field_name("module_name")
    span = (mod.start_byte, mod.end_byte) if mod is not None else (-1, -1)
    return node.start_byte, node.end_byte, 1, *span, [name_fact(n) for n in node.children_by_field_name("name")]


def _imports_of_facts(data: bytes, fact: refscan.PythonImport, module: str, path: str) -> dict[str, str]:
    """The aliases one import statement binds, and what each names (absolute), from its
    facts (`refscan.python_imports`, or `_import_facts` through the binding)."""
    _, _, is_from, module_start, module_end, names = fact
    out: dict[str, str] = {}
    if not is_from:
        for aliased, start, end, alias_start, alias_end in names:
            target = data[start:end].decode("utf-8", errors="replace")
            if aliased:
                out[data[alias_start:alias_end].decode("utf-8", errors="replace")] = target
            else:
                head = target.split(".")[0]
                out[head] = head
        return out
    base = data[module_start:module_end].decode("utf-8", errors="replace") if module_start >= 0 else ""
    base = _absolute(base, module, path)
    for aliased, start, end, alias_start, alias_end in names:
        target = data[start:end].decode("utf-8", errors="replace")
        alias = data[alias_start:alias_end].decode("utf-8", errors="replace") if aliased else target
        out[alias] = f"{base}.{target}" if base else target
    return out


def _absolute(base: str, module: str, path: str) -> str:
    """A from-import's module as written (`..pkg`), made absolute against the module
    at `path`."""
    if not base.startswith("."):
        return base
    dots = len(base) - len(base.lstrip("."))
    package = module.split(".") if not path.endswith("__init__.py") else module.split(".") + [""]
    anchor = package[: max(len(package) - dots, 0)]
    rest = base.lstrip(".")
    return ".".join([p for p in anchor if p] + ([rest] if rest else []))
