"""`tailwind.config.{js,ts,cjs,mjs}`: the project's design tokens, as data.

"Make the primary button darker" needs to know that `brand` is a colour of this
project and where it is defined. The config object is found wherever Tailwind configs
put it (`export default {…}`, `module.exports = {…}`, `defineConfig({…})`,
`{…} satisfies Config`, or a `const config = {…}` exported by name) and read from the
TypeScript syntax tree (which also parses plain JavaScript).

Symbols: every key of the config is a `key` symbol qualified by its dotted path
(`theme.extend.colors.brand`, `theme.extend.colors.brand.600`), so `defs brand` lands
on the line to edit.

Chunks: one `theme_section` per top-level theme section (`theme.container`,
`theme.extend.colors`, `theme.extend.fontFamily`, …) with its flattened `values`;
`content_paths` (metadata `content`: the globs Tailwind scans) and `plugins` (package
names, resolved through `import`/`require`); and a `tailwind_config` summary chunk (the
file with those sections folded) whose metadata gathers `content`, `plugins`, `colors`,
`fonts`, `screens`, `spacing`, `dark_mode` and the section list. A file without a
recognisable config object degrades to line windows with a note.
"""

from __future__ import annotations

from typing import Any

import tree_sitter

from ..languages import parser_for
from ..model import Chunk, FileAnalysis, Symbol, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings, line_windows, split_oversized
from .html import skeleton

_WRAPPERS = frozenset(
    {"parenthesized_expression", "satisfies_expression", "as_expression", "non_null_expression"}
)
# Theme sections whose values the summary lists under a friendlier name.
_SUMMARY_KEYS = {
    "colors": "colors",
    "fontFamily": "fonts",
    "screens": "screens",
    "spacing": "spacing",
}


def _string(doc: SourceDocument, node: tree_sitter.Node | None) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    text = doc.node_text(node)
    if node.type == "template_string" and "${" in text:
        return None
    return text[1:-1]


def _key(doc: SourceDocument, pair: tree_sitter.Node) -> tuple[str, tree_sitter.Node] | None:
    key = pair.child_by_field_name("key")
    if key is None:
        return None
    if key.type == "string":
        return (_string(doc, key) or "", key)
    if key.type == "computed_property_name":
        return None
    return (doc.node_text(key), key)


def _pairs(
    doc: SourceDocument, obj: tree_sitter.Node
) -> list[tuple[str, tree_sitter.Node, tree_sitter.Node]]:
    """(key, key node, pair node) of an object literal, in order."""
    out = []
    for pair in obj.named_children:
        if pair.type != "pair":
            continue
        key = _key(doc, pair)
        if key is not None:
            out.append((key[0], key[1], pair))
    return out


def _unwrap(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """`defineConfig({…})`, `({…})`, `{…} satisfies Config` -> the object."""
    while node is not None:
        if node.type in _WRAPPERS:
            node = node.named_children[0] if node.named_child_count else None
        elif node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            node = args.named_children[0] if args is not None and args.named_child_count else None
        else:
            return node
    return None


def value_of(doc: SourceDocument, node: tree_sitter.Node | None) -> Any:
    """A literal as a Python value; spreads and expressions as their source text."""
    if node is None:
        return None
    node = _unwrap(node) if node.type in _WRAPPERS else node
    if node is None:
        return None
    s = _string(doc, node)
    if s is not None:
        return s
    if node.type == "number":
        return doc.node_text(node)
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "array":
        return [value_of(doc, c) for c in node.named_children if c.type != "comment"]
    if node.type == "object":
        return {k: value_of(doc, p.child_by_field_name("value")) for k, _, p in _pairs(doc, node)}
    return " ".join(doc.node_text(node).split())


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """`{brand: {600: '#…'}}` -> `{'brand.600': '#…'}`; `DEFAULT` keys name their parent."""
    if not isinstance(value, dict):
        return {prefix: value} if prefix else {}
    out: dict[str, Any] = {}
    for k, v in value.items():
        path = prefix if k == "DEFAULT" and prefix else (f"{prefix}.{k}" if prefix else k)
        out.update(flatten(v, path))
    return out


def find_config(doc: SourceDocument, root: tree_sitter.Node) -> tree_sitter.Node | None:
    """The config object literal, wherever the file exports it."""
    bindings: dict[str, tree_sitter.Node] = {}
    exported: tree_sitter.Node | None = None
    for stmt in root.named_children:
        if stmt.type in ("lexical_declaration", "variable_declaration"):
            for decl in stmt.named_children:
                name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
                if decl.type == "variable_declarator" and name is not None and value is not None:
                    bindings[doc.node_text(name)] = value
        elif stmt.type == "export_statement":
            exported = stmt.child_by_field_name("value") or exported
        elif stmt.type == "expression_statement" and stmt.named_child_count:
            expr = stmt.named_children[0]
            left = (
                expr.child_by_field_name("left") if expr.type == "assignment_expression" else None
            )
            if left is not None and doc.node_text(left) in ("module.exports", "exports.default"):
                exported = expr.child_by_field_name("right")
    target = _unwrap(exported)
    if target is not None and target.type == "identifier":
        target = _unwrap(bindings.get(doc.node_text(target)))
    return target if target is not None and target.type == "object" else None


def module_imports(doc: SourceDocument, root: tree_sitter.Node) -> dict[str, str]:
    """Local name -> package, from `import x from 'p'` and `const x = require('p')`."""
    out: dict[str, str] = {}
    for stmt in root.named_children:
        if stmt.type == "import_statement":
            source = _string(doc, stmt.child_by_field_name("source"))
            clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
            if source is None or clause is None:
                continue
            for ident in _descendants(clause, "identifier"):
                out[doc.node_text(ident)] = source
        elif stmt.type in ("lexical_declaration", "variable_declaration"):
            for decl in stmt.named_children:
                name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
                package = _required(doc, value)
                if name is not None and package is not None:
                    out[doc.node_text(name)] = package
    return out


def _descendants(node: tree_sitter.Node, node_type: str) -> list[tree_sitter.Node]:
    found = []
    for c in node.named_children:
        if c.type == node_type:
            found.append(c)
        found.extend(_descendants(c, node_type))
    return found


def _required(doc: SourceDocument, node: tree_sitter.Node | None) -> str | None:
    """`require('p')` (also `require('p')({…})`, `require('p').default`) -> 'p'."""
    while node is not None and node.type in ("call_expression", "member_expression"):
        fn = node.child_by_field_name("function") or node.child_by_field_name("object")
        if fn is not None and fn.type == "identifier" and doc.node_text(fn) == "require":
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_child_count else None
            return _string(doc, first)
        node = fn
    return None


def plugin_name(doc: SourceDocument, node: tree_sitter.Node, imports: dict[str, str]) -> str:
    """A plugins entry as the package it comes from when that can be told."""
    package = _required(doc, node)
    if package is not None:
        return package
    base = node
    while base.type in ("call_expression", "member_expression"):
        base = base.child_by_field_name("function") or base.child_by_field_name("object") or base
        if base.type == "identifier":
            break
    if base.type == "identifier" and doc.node_text(base) in imports:
        return imports[doc.node_text(base)]
    return " ".join(doc.node_text(node).split())[:120]


class TailwindConfigStrategy:
    language = "tailwind_config"
    grammar_name = "typescript"

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        analysis = FileAnalysis(path=doc.path, language=doc.language)
        tree = doc.tree or parser_for(self.grammar_name).parse(doc.data)
        root = tree.root_node
        if root.has_error:
            analysis.syntax_errors = 1
        config = find_config(doc, root)
        if config is None:
            analysis.notes.append("no Tailwind config object found; indexed as line windows")
            analysis.chunks = [
                c for w in line_windows(doc, settings) for c in split_oversized(w, settings)
            ]
            return analysis
        imports = module_imports(doc, root)
        analysis.imports.update(imports)
        self._symbols(doc, analysis, config, "")
        sections = self._sections(doc, config, settings)
        summary = self._summary(doc, config, imports, sections, settings)
        analysis.chunks = sorted(
            sections + summary, key=lambda c: (c.start_line, c.symbol_type != "tailwind_config")
        )
        return analysis

    # ---- symbols -----------------------------------------------------------------------

    def _symbols(
        self, doc: SourceDocument, analysis: FileAnalysis, obj: tree_sitter.Node, prefix: str
    ) -> None:
        """Every key, recursively, as `key` symbols qualified by the dotted path."""
        for key, key_node, pair in _pairs(doc, obj):
            path = f"{prefix}.{key}" if prefix else key
            value = _unwrap(pair.child_by_field_name("value"))
            text = " ".join(doc.node_text(pair).split())
            analysis.symbols.append(
                Symbol(
                    name=key,
                    kind=SymbolKind.KEY,
                    range=doc.node_range(pair),
                    selection_range=doc.node_range(
                        _inner_string(key_node) if key_node.type == "string" else key_node
                    ),
                    qualified_name=path,
                    container=prefix or None,
                    signature=text if len(text) <= 120 else text[:117] + "...",
                )
            )
            if value is not None and value.type == "object":
                self._symbols(doc, analysis, value, path)

    # ---- chunks ------------------------------------------------------------------------

    def _sections(
        self, doc: SourceDocument, config: tree_sitter.Node, settings: ChunkSettings
    ) -> list[Chunk]:
        """Theme sections (extended ones under `theme.extend.`), content and plugins."""
        out: list[Chunk] = []
        for key, _, pair in _pairs(doc, config):
            value = _unwrap(pair.child_by_field_name("value"))
            if key == "theme" and value is not None and value.type == "object":
                for path, section in self._theme_sections(doc, value):
                    data = value_of(doc, section.child_by_field_name("value"))
                    meta = {
                        "section": path.rsplit(".", 1)[-1],
                        "extend": path.startswith("theme.extend."),
                        "values": flatten(data),
                    }
                    out.extend(self._chunk(doc, section, path, "theme_section", meta, settings))
            elif key == "content":
                meta = {"content": self._content(doc, value)}
                out.extend(self._chunk(doc, pair, key, "content_paths", meta, settings))
        return out

    def _theme_sections(
        self, doc: SourceDocument, theme: tree_sitter.Node
    ) -> list[tuple[str, tree_sitter.Node]]:
        found = []
        for key, _, pair in _pairs(doc, theme):
            value = _unwrap(pair.child_by_field_name("value"))
            if key == "extend" and value is not None and value.type == "object":
                found.extend((f"theme.extend.{k}", p) for k, _, p in _pairs(doc, value))
            else:
                found.append((f"theme.{key}", pair))
        return found

    def _content(self, doc: SourceDocument, value: tree_sitter.Node | None) -> list[str]:
        """`content: [globs]` or v3's `content: { files: [globs], … }`."""
        data = value_of(doc, value)
        if isinstance(data, dict):
            data = data.get("files", [])
        return [g for g in data if isinstance(g, str)] if isinstance(data, list) else []

    def _plugins(
        self, doc: SourceDocument, config: tree_sitter.Node, imports: dict[str, str]
    ) -> tuple[tree_sitter.Node | None, list[str]]:
        for key, _, pair in _pairs(doc, config):
            value = _unwrap(pair.child_by_field_name("value"))
            if key == "plugins" and value is not None and value.type == "array":
                return pair, [
                    plugin_name(doc, n, imports)
                    for n in value.named_children
                    if n.type != "comment"
                ]
        return None, []

    def _chunk(
        self,
        doc: SourceDocument,
        node: tree_sitter.Node,
        name: str,
        symbol_type: str,
        metadata: dict[str, Any],
        settings: ChunkSettings,
    ) -> list[Chunk]:
        first, last = node.start_point[0], node.end_point[0]
        chunk = Chunk(
            path=doc.path,
            language=doc.language,
            symbol_name=name,
            symbol_type=symbol_type,
            start_line=first,
            end_line=last,
            content=doc.lines_text(first, last),
            metadata=metadata,
        )
        return split_oversized(chunk, settings)

    def _summary(
        self,
        doc: SourceDocument,
        config: tree_sitter.Node,
        imports: dict[str, str],
        sections: list[Chunk],
        settings: ChunkSettings,
    ) -> list[Chunk]:
        """Plugins get their own chunk; the summary is the file with every section
        folded to its first line, and the facts a UI change needs in its metadata."""
        plugins_pair, plugins = self._plugins(doc, config, imports)
        out: list[Chunk] = []
        if plugins_pair is not None:
            out.extend(
                self._chunk(doc, plugins_pair, "plugins", "plugins", {"plugins": plugins}, settings)
            )
        data = value_of(doc, config)
        data = data if isinstance(data, dict) else {}
        theme = data.get("theme") if isinstance(data.get("theme"), dict) else {}
        extend = theme.get("extend") if isinstance(theme.get("extend"), dict) else {}
        meta: dict[str, Any] = {
            "content": next(
                (c.metadata["content"] for c in sections if c.symbol_type == "content_paths"), []
            ),
            "plugins": plugins,
            "sections": [c.symbol_name for c in sections if c.symbol_type == "theme_section"],
        }
        for key, label in _SUMMARY_KEYS.items():
            merged = {**flatten(theme.get(key, {})), **flatten(extend.get(key, {}))}
            if merged:
                meta[label] = merged
        for key in ("darkMode", "prefix", "important", "presets"):
            if key in data:
                meta["dark_mode" if key == "darkMode" else key] = data[key]
        last = max(len(doc.lines) - 1, 0)
        folded = [(c.start_line, c.end_line) for c in sections + out]
        chunk = Chunk(
            path=doc.path,
            language=doc.language,
            symbol_name=doc.path.rsplit("/", 1)[-1],
            symbol_type="tailwind_config",
            start_line=0,
            end_line=last,
            content=skeleton(doc, 0, last, folded),
            metadata=meta,
        )
        return out + split_oversized(chunk, settings)


def _inner_string(node: tree_sitter.Node) -> tree_sitter.Node:
    fragment = next((c for c in node.named_children if c.type == "string_fragment"), None)
    return fragment or node
