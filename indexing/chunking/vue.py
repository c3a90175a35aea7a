"""Vue single-file components: one component, three blocks.

The component is a `component` symbol named after the file (`UserProfile.vue` ->
`UserProfile`, `user-card.vue` -> `UserCard`) and qualified like the JavaScript module
it compiles to (`components/UserProfile.vue` -> `components.UserProfile`), so the
script's top-level functions (`components.UserProfile.save`) nest under it.

- `<script>` / `<script setup>` is analysed by the registered JavaScript/TypeScript
  strategy (`lang="ts"` -> TypeScript) *in place*: the file is blanked outside the
  block, so every position is the `.vue` file's own. Without such a strategy a small
  built-in query still finds functions, constants and classes. The block is a
  `script` chunk (function chunks folded), with `props`, `emits` (from
  `defineProps`/`defineEmits`, type-based or runtime, or the Options API's
  `props`/`emits`), `setup`, `lang` and `imports` in its metadata; props are
  `property` symbols of the component.
- `<template>` is a `template` chunk listing the `components` it renders (PascalCase
  or kebab-case tags) and the script names it uses; both are references, so
  `refs UserAvatar` and `refs save` find the template.
- `<style>` goes to the CSS/SCSS strategy (`lang="scss"`), `scoped` is in metadata.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

import tree_sitter

from ..languages import GRAMMARS, query
from ..model import FileAnalysis, Position, Range, Reference, Symbol, SymbolKind
from ..source import SourceDocument
from .base import (
    ChunkSettings,
    LineWindowStrategy,
    ParsedStrategy,
    TreeSitterStrategy,
)
from .html import (
    Element,
    Region,
    RegionChunker,
    collect_elements,
    embedded_document,
    merge_embedded,
    nest_regions,
    script_language,
    style_language,
)

# Tags that are HTML/SVG or Vue built-ins, not components of the project.
_HTML_TAGS = frozenset(
    """a abbr address area article aside audio b base bdi bdo blockquote body br button
    canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt
    em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr
    html i iframe img input ins kbd label legend li link main map mark menu meta meter nav
    noscript object ol optgroup option output p picture pre progress q rp rt ruby s samp
    script search section select slot small source span strong style sub summary sup table
    tbody td template textarea tfoot th thead time title tr track u ul var video wbr svg
    path circle rect g line polyline polygon defs use component transition
    transition-group keep-alive teleport suspense router-view router-link""".split()  # noqa: SIM905
)
_IDENTIFIER = re.compile(r"(?<![\w$.])[A-Za-z_$][\w$]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_TEMPLATE_EXPRESSIONS = """
(interpolation (raw_text) @expression)
(directive_attribute (quoted_attribute_value (attribute_value) @expression))
"""
_SCRIPT_EXTENSIONS = {"typescript": ".ts", "tsx": ".tsx", "jsx": ".jsx", "javascript": ".js"}


def component_name(path: str) -> str:
    """`components/UserProfile.vue` -> `UserProfile`; `user-card.vue` -> `UserCard`."""
    stem = PurePosixPath(path).stem
    if stem == "index":
        stem = PurePosixPath(path).parent.name or stem
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[-_.\s]+", stem) if p)


def module_name(path: str) -> str:
    """The module the component compiles to, named like the JavaScript strategy names
    modules (`src/` dropped): `src/components/UserProfile.vue` -> `components.UserProfile`."""
    parts = [p for p in path.removesuffix(".vue").split("/") if p and p != "."]
    if parts and parts[0] in {"src", "lib"} and len(parts) > 1:
        parts = parts[1:]
    if len(parts) > 1 and parts[-1] == "index":
        parts = parts[:-1]
    return ".".join(parts)


def pascal(tag: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in tag.split("-") if p)


# ---- script facts (props, emits) ---------------------------------------------------------


def _string(doc: SourceDocument, node: tree_sitter.Node) -> str | None:
    if node.type != "string":
        return None
    return doc.node_text(node)[1:-1]


def _key(doc: SourceDocument, node: tree_sitter.Node | None) -> str | None:
    if node is None:
        return None
    if node.type == "string":
        return _string(doc, node)
    return doc.node_text(node)


def _calls(root: tree_sitter.Node, doc: SourceDocument, name: str) -> list[tree_sitter.Node]:
    cursor = tree_sitter.QueryCursor(query(_grammar(doc), "(call_expression) @call"))
    return [
        n
        for ns in cursor.captures(root).values()
        for n in ns
        if (f := n.child_by_field_name("function")) is not None and doc.node_text(f) == name
    ]


def _grammar(doc: SourceDocument) -> str:
    return GRAMMARS.get(doc.language) or "javascript"


def _members(
    doc: SourceDocument, root: tree_sitter.Node, node: tree_sitter.Node | None
) -> list[tuple[str, tree_sitter.Node]]:
    """Names declared by a props/emits definition: an object type or interface (its
    property names), an object literal (its keys) or an array of strings."""
    if node is None:
        return []
    if node.type in ("type_identifier", "identifier"):
        node = _interface(doc, root, doc.node_text(node)) or node
    if node.type in ("object_type", "interface_body", "object"):
        out = []
        for m in node.named_children:
            if m.type in ("property_signature", "pair", "method_signature"):
                name = _key(doc, m.child_by_field_name("name") or m.child_by_field_name("key"))
                if name:
                    out.append((name, m))
            elif m.type == "shorthand_property_identifier":
                out.append((doc.node_text(m), m))
        return out
    if node.type == "array":
        return [(s, n) for n in node.named_children if (s := _string(doc, n)) is not None]
    return []


def _interface(doc: SourceDocument, root: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    """Body of `interface Name { … }` or `type Name = { … }` declared in the script."""
    for n in root.named_children:
        decl = n.named_children[0] if n.type == "export_statement" and n.named_child_count else n
        name_node = decl.child_by_field_name("name")
        if name_node is None or doc.node_text(name_node) != name:
            continue
        if decl.type == "interface_declaration":
            return decl.child_by_field_name("body")
        if decl.type == "type_alias_declaration":
            return decl.child_by_field_name("value")
    return None


def _type_argument(call: tree_sitter.Node) -> tree_sitter.Node | None:
    args = call.child_by_field_name("type_arguments")
    return args.named_children[0] if args is not None and args.named_child_count else None


def _first_argument(call: tree_sitter.Node) -> tree_sitter.Node | None:
    args = call.child_by_field_name("arguments")
    return args.named_children[0] if args is not None and args.named_child_count else None


def script_props(doc: SourceDocument, root: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """`defineProps<{…}>()`, `defineProps<Props>()`, `defineProps({…})`,
    `defineProps([...])`, or the Options API's `props:`."""
    for call in _calls(root, doc, "defineProps"):
        found = _members(doc, root, _type_argument(call)) or _members(
            doc, root, _first_argument(call)
        )
        if found:
            return found
    return _members(doc, root, _options_member(doc, root, "props"))


def script_emits(doc: SourceDocument, root: tree_sitter.Node) -> list[str]:
    """`defineEmits<{ (e: 'save'): void }>()`, `defineEmits<{ save: [] }>()`,
    `defineEmits(['save'])`, or the Options API's `emits:`."""
    for call in _calls(root, doc, "defineEmits"):
        t = _type_argument(call)
        names: list[str] = []
        if t is not None and t.type == "object_type":
            for m in t.named_children:
                if m.type == "call_signature":
                    names.extend(_event_literals(doc, m) if _grammar(doc) != "javascript" else [])
                elif m.type == "property_signature":
                    key = _key(doc, m.child_by_field_name("name"))
                    if key:
                        names.append(key)
        names = names or [n for n, _ in _members(doc, root, _first_argument(call))]
        if names:
            return list(dict.fromkeys(names))
    return [n for n, _ in _members(doc, root, _options_member(doc, root, "emits"))]


def _event_literals(doc: SourceDocument, signature: tree_sitter.Node) -> list[str]:
    params = signature.child_by_field_name("parameters")
    first = params.named_children[0] if params is not None and params.named_child_count else None
    if first is None:
        return []
    cursor = tree_sitter.QueryCursor(query(_grammar(doc), "(literal_type (string) @s)"))
    return [
        s
        for ns in cursor.captures(first).values()
        for n in ns
        if (s := _string(doc, n)) is not None
    ]


def _options_member(
    doc: SourceDocument, root: tree_sitter.Node, key: str
) -> tree_sitter.Node | None:
    """`export default { props: … }` / `export default defineComponent({ props: … })`."""
    for n in root.named_children:
        if n.type != "export_statement":
            continue
        value = n.child_by_field_name("value") or (
            n.named_children[-1] if n.named_child_count else None
        )
        if value is not None and value.type == "call_expression":
            value = _first_argument(value)
        if value is None or value.type != "object":
            continue
        for pair in value.named_children:
            if pair.type == "pair" and _key(doc, pair.child_by_field_name("key")) == key:
                return pair.child_by_field_name("value")
    return None


# ---- fallback script strategy ----------------------------------------------------------------


class _ScriptFallback(TreeSitterStrategy):
    """Top-level functions, classes and bindings of a `<script>` block, used only when
    no JavaScript/TypeScript strategy is registered."""

    language = "javascript"
    grammar_name = "javascript"
    definitions_query = """
    (function_declaration name: (identifier) @name) @definition.function
    (class_declaration name: (_) @name) @definition.class
    (method_definition name: (_) @name) @definition.method
    (program (lexical_declaration (variable_declarator
        name: (identifier) @name
        value: [(arrow_function) (function_expression)]) @definition.function))
    (program (lexical_declaration
        (variable_declarator name: (identifier) @name) @definition.variable))
    (program (export_statement
        (function_declaration name: (identifier) @name) @definition.function))
    """

    def __init__(self, grammar_name: str) -> None:
        self.grammar_name = grammar_name  # type: ignore[misc]
        self.language = grammar_name  # type: ignore[misc]
        super().__init__()

    def module_prefix(self, doc: SourceDocument, analysis: FileAnalysis) -> str | None:
        return module_name(doc.path.rsplit(".", 1)[0] + ".vue") or None


_FALLBACKS: dict[str, _ScriptFallback] = {}


def _script_strategy(language: str):
    from . import strategy_for  # the registry imports this module lazily

    strategy = strategy_for(language)
    if not isinstance(strategy, LineWindowStrategy):
        return strategy
    grammar = "typescript" if language in ("typescript", "tsx") else "javascript"
    if grammar not in _FALLBACKS:
        _FALLBACKS[grammar] = _ScriptFallback(grammar)
    return _FALLBACKS[grammar]


# ---- the strategy ------------------------------------------------------------------------------


class VueStrategy(ParsedStrategy):
    language = "vue"
    grammar_name = "vue"
    queries = (_TEMPLATE_EXPRESSIONS,)

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        root, analysis = self.begin(doc)
        name, module = component_name(doc.path), module_name(doc.path)
        component = self._component_symbol(doc, name, module)
        analysis.symbols.append(component)
        regions: list[Region] = []
        for block in root.named_children:
            if block.type == "script_element":
                regions.extend(self._script(doc, block, module, analysis, settings))
            elif block.type == "style_element":
                regions.extend(self._style(doc, block, analysis, settings))
        props = [p for r in regions for p in r.metadata.get("props", ())]
        for block in root.named_children:
            if block.type == "template_element":
                regions.append(self._template(doc, block, name, module, props, analysis))
        chunker = RegionChunker(doc, settings, lambda r: {"component": name})
        analysis.chunks = chunker.chunks(nest_regions(regions))
        analysis.references.sort(key=lambda r: (r.start_line, r.start_character))
        return analysis

    def _component_symbol(self, doc: SourceDocument, name: str, module: str) -> Symbol:
        end = doc.byte_range(len(doc.data), len(doc.data)).end
        return Symbol(
            name=name,
            kind=SymbolKind.COMPONENT,
            range=Range(Position(0, 0), end),
            selection_range=Range(Position(0, 0), Position(0, 0)),
            qualified_name=module or name,
            signature=f"<{name}>",
        )

    # ---- blocks ------------------------------------------------------------------------

    def _script(
        self,
        doc: SourceDocument,
        block: tree_sitter.Node,
        module: str,
        analysis: FileAnalysis,
        settings: ChunkSettings,
    ) -> list[Region]:
        el = _element(doc, block)
        raw = el.raw_text() if el is not None else None
        if el is None or raw is None:
            return []
        language = script_language(el.attr("lang"))
        path = doc.path.removesuffix(".vue") + _SCRIPT_EXTENSIONS[language]
        sub_doc = embedded_document(doc, raw.start_byte, raw.end_byte, language, path)
        if sub_doc is None or sub_doc.tree is None:
            return []
        sub = _script_strategy(language).analyze(sub_doc, settings)
        merge_embedded(analysis, sub)
        script_root = sub_doc.tree.root_node
        props = script_props(sub_doc, script_root)
        emits = script_emits(sub_doc, script_root)
        # The TypeScript strategy may already define type-literal members as properties.
        known = {(s.name, s.selection_range.start.line) for s in analysis.symbols}
        for prop, node in props:
            if (prop, node.start_point[0]) in known:
                continue
            analysis.symbols.append(
                Symbol(
                    name=prop,
                    kind=SymbolKind.PROPERTY,
                    range=doc.node_range(node),
                    selection_range=doc.node_range(
                        node.named_children[0] if node.named_child_count else node
                    ),
                    qualified_name=f"{module}.{prop}",
                    container=module,
                    signature=" ".join(doc.node_text(node).split()).rstrip(",;"),
                )
            )
        meta: dict[str, Any] = {"block": "script", "lang": language, "setup": "setup" in el.attrs}
        if props:
            meta["props"] = [p for p, _ in props]
        if emits:
            meta["emits"] = emits
        if sub.imports:
            meta["imports"] = dict(sub.imports)
        region = self._block_region(el, "script setup" if meta["setup"] else "script", meta, sub)
        region.keep_block = True
        return [region]

    def _style(
        self,
        doc: SourceDocument,
        block: tree_sitter.Node,
        analysis: FileAnalysis,
        settings: ChunkSettings,
    ) -> list[Region]:
        from . import strategy_for

        el = _element(doc, block)
        raw = el.raw_text() if el is not None else None
        if el is None or raw is None or not doc.node_text(raw).strip():
            return []
        language = style_language(el.attr("lang"))
        sub_doc = embedded_document(doc, raw.start_byte, raw.end_byte, language)
        sub = strategy_for(language).analyze(sub_doc, settings) if sub_doc is not None else None
        if sub is not None:
            merge_embedded(analysis, sub)
        meta = {"block": "style", "lang": language, "scoped": "scoped" in el.attrs}
        return [self._block_region(el, "style", meta, sub)]

    def _block_region(
        self, el: Element, kind: str, meta: dict[str, Any], sub: FileAnalysis | None
    ) -> Region:
        return Region(
            el.start_byte,
            el.end_byte,
            el.first_line,
            el.last_line,
            kind,
            meta["block"],
            meta,
            always_chunk=True,
            embedded=sub,
        )

    def _template(
        self,
        doc: SourceDocument,
        block: tree_sitter.Node,
        name: str,
        module: str,
        props: list[str],
        analysis: FileAnalysis,
    ) -> Region:
        """Components rendered and script names used; both become references."""
        elements = collect_elements(doc, block, self.grammar_name)
        components: list[str] = []
        for el in elements:
            raw_tag = doc.node_text(el.tag_node)
            if raw_tag.lower() in _HTML_TAGS:
                continue
            target = pascal(raw_tag) if "-" in raw_tag else raw_tag
            if not target[:1].isupper():
                continue
            components.append(target)
            analysis.references.append(Reference.at(target, doc.node_range(el.tag_node), module))
        used = self._template_names(doc, block, module, props, analysis)
        meta: dict[str, Any] = {"block": "template"}
        if components:
            meta["components"] = list(dict.fromkeys(components))
        if used:
            meta["uses"] = used
        last = block.end_point[0]
        return Region(
            block.start_byte,
            block.end_byte,
            block.start_point[0],
            last,
            name,
            "template",
            meta,
            always_chunk=True,
        )

    def _template_names(
        self,
        doc: SourceDocument,
        block: tree_sitter.Node,
        module: str,
        props: list[str],
        analysis: FileAnalysis,
    ) -> list[str]:
        """Identifiers in `{{ }}` and directive values that the script defines (its
        top-level names and the props)."""
        known = {s.name for s in analysis.symbols if s.container == module} | set(props)
        used: list[str] = []
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, _TEMPLATE_EXPRESSIONS))
        # In document order: the capture dict's order varies from run to run.
        nodes = sorted((n for ns in cursor.captures(block).values() for n in ns),
                       key=lambda n: n.start_byte)
        for n in nodes:
            text = doc.data[n.start_byte : n.end_byte].decode("utf-8", errors="replace")
            code = _QUOTED.sub(lambda q: " " * len(q.group()), text)
            for m in _IDENTIFIER.finditer(code):
                if m.group() not in known:
                    continue
                start = n.start_byte + len(text[: m.start()].encode())
                end = start + len(m.group().encode())
                analysis.references.append(
                    Reference.at(m.group(), doc.byte_range(start, end), module)
                )
                used.append(m.group())
        return list(dict.fromkeys(used))


def _element(doc: SourceDocument, block: tree_sitter.Node) -> Element | None:
    found = [e for e in collect_elements(doc, block, "vue") if e.node.id == block.id]
    return found[0] if found else None
