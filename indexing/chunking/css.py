"""CSS and SCSS: selectors, at-rule sections, variables, mixins and functions.

Definitions
- every complex selector of a rule set is a `selector` symbol named as written
  (`.card`, `#main-nav a:hover`, `%card-base`), which is what Universal Ctags reports;
  SCSS nesting is resolved into the qualified name (`.card .btn`), and a selector
  written with `&` is named by its resolved form (`&__title` -> `.card__title`), since
  `&__title` alone means nothing to someone searching for `.card__title`;
- `@media`, `@supports`, `@layer`, `@font-face`, `@container` blocks are `section`
  symbols named by their header; `@keyframes fade-in` is a `section` named `fade-in`
  (qualified `@keyframes fade-in`), the name `animation:` refers to;
- SCSS `$variables` are `variable` symbols named without the `$` (as ctags and the
  store's `$`-stripping lookups do; qualified `$brand`), custom properties `--x`
  are `variable` symbols named `--x`; `@mixin` and `@function` are `function` symbols.

Chunks: top-level statements in file order, small ones (rules under
`BIG_STATEMENT_LINES` lines, variables, imports, directives) grouped into one chunk of
up to `GROUP_MAX_LINES` lines so a stylesheet of one-line rules does not become a
hundred tiny chunks; a big rule set, `@media`/`@layer` block or keyframes, and every
mixin and function, is a chunk of its own. Comments stay with the statement after them.

References: `var(--x)`, SCSS `$x` uses, `@include x`, `@extend .x` / `%x`, function
calls, `@apply` classes and `animation` names. Class names are referenced without
their dot (`btn`), which is how the store keys `.btn`.

The SCSS grammar shipped with tree-sitter-language-pack misparses `@extend %x`,
`!default`, and `@use ... as x`; those spans are rewritten to equivalent text of the
same length before parsing, so every position still matches the file.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

import tree_sitter

from ..languages import parser_for, query
from ..model import Chunk, FileAnalysis, Reference, Symbol, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings, ParsedStrategy, estimate_tokens, split_oversized

BIG_STATEMENT_LINES = 8
GROUP_MAX_LINES = 30
_SECTION_AT_RULES = frozenset({"media_statement", "supports_statement"})
_CONTROL_STATEMENTS = frozenset(
    {
        "include_statement",
        "each_statement",
        "for_statement",
        "while_statement",
        "if_statement",
        "else_if_clause",
        "else_clause",
        "block",
    }
)
_GLOBAL_SCOPES = frozenset({":root", "html", ":host"})
# CSS functions that never name a user-defined SCSS function.
_CSS_FUNCTIONS = frozenset(
    {
        "var",
        "url",
        "calc",
        "min",
        "max",
        "clamp",
        "rgb",
        "rgba",
        "hsl",
        "hsla",
        "attr",
        "env",
        "translate",
        "translatex",
        "translatey",
        "translate3d",
        "rotate",
        "scale",
        "linear-gradient",
        "radial-gradient",
        "repeat",
        "minmax",
        "fit-content",
        "format",
        "local",
        "cubic-bezier",
        "steps",
        "theme",
        "screen",
    }
)
_ANIMATION_PROPERTIES = frozenset({"animation", "animation-name"})
_ANIMATION_KEYWORDS = frozenset(
    {
        "none",
        "infinite",
        "linear",
        "ease",
        "ease-in",
        "ease-out",
        "ease-in-out",
        "alternate",
        "alternate-reverse",
        "normal",
        "reverse",
        "forwards",
        "backwards",
        "both",
        "running",
        "paused",
        "step-start",
        "step-end",
        "initial",
        "inherit",
        "unset",
    }
)
_WS = re.compile(r"\s+")

_COMMON_REFERENCES = """
(call_expression (function_name) @function (arguments) @arguments)
(postcss_statement (at_keyword) @keyword (plain_value) @apply)
(declaration (property_name) @property (plain_value) @value)
"""
_SCSS_REFERENCES = """
(variable) @variable
(include_statement (identifier) @mixin)
(extend_statement) @extend
"""


def collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


def resolve_selector(parent: str | None, selector: str) -> str:
    """SCSS nesting: `&` is the parent selector, anything else is its descendant."""
    if parent is None:
        return selector
    if "&" in selector:
        return selector.replace("&", parent)
    return f"{parent} {selector}"


@dataclass
class _Unit:
    """One top-level statement (with the comments before it) on its way to a chunk."""

    start_line: int
    end_line: int
    node_type: str
    name: str
    own_chunk: bool
    text_tokens: int


@dataclass
class _Walk:
    """Definitions found while descending the stylesheet."""

    doc: SourceDocument
    symbols: list[Symbol] = field(default_factory=list)


class CssStrategy(ParsedStrategy):
    language = "css"
    grammar_name = "css"
    queries = (_COMMON_REFERENCES,)

    # ---- entry point ---------------------------------------------------------------

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        root, analysis = self.begin(doc)
        walk = _Walk(doc)
        for child in root.named_children:
            self.visit(walk, child, None, None)
        analysis.symbols = walk.symbols
        analysis.references = self.references(doc, root)
        analysis.chunks = self.chunks(doc, root, analysis.symbols, settings)
        return analysis

    # ---- definitions ---------------------------------------------------------------

    def visit(
        self, walk: _Walk, node: tree_sitter.Node, parent: str | None, container: str | None
    ) -> None:
        """Record the definitions in `node`; `parent` is the resolved selector that
        `&` stands for, `container` the qualified name of the enclosing symbol."""
        t = node.type
        if t == "rule_set":
            self._rule_set(walk, node, parent, container)
        elif t in _SECTION_AT_RULES or (t == "at_rule" and _child(node, "block") is not None):
            self._section(walk, node, parent, container)
        elif t == "keyframes_statement":
            self._keyframes(walk, node, container)
        elif t in ("mixin_statement", "function_statement"):
            self._callable(walk, node, container)
        elif t == "declaration":
            self._declaration(walk, node, container)
        elif t == "ERROR":
            self._recover(walk, node, parent, container)
        elif t in _CONTROL_STATEMENTS:
            for child in node.named_children:
                self.visit(walk, child, parent, container)

    def _add(
        self,
        walk: _Walk,
        name: str,
        kind: SymbolKind,
        node: tree_sitter.Node,
        name_node: tree_sitter.Node,
        qualified: str,
        container: str | None,
        signature: str,
    ) -> Symbol:
        s = Symbol(
            name=name,
            kind=kind,
            range=walk.doc.node_range(node),
            selection_range=walk.doc.node_range(name_node),
            qualified_name=qualified,
            container=container,
            signature=signature[:300],
        )
        walk.symbols.append(s)
        return s

    def _rule_set(
        self, walk: _Walk, node: tree_sitter.Node, parent: str | None, container: str | None
    ) -> None:
        selectors = _child(node, "selectors")
        block = _child(node, "block")
        if selectors is None:
            for child in node.named_children:
                self.visit(walk, child, parent, container)
            return
        first = self._selectors(walk, node, selectors, parent, container)
        if block is not None and first is not None:
            for child in block.named_children:
                self.visit(walk, child, first.qualified_name, first.qualified_name)

    def _selectors(
        self,
        walk: _Walk,
        node: tree_sitter.Node,
        selectors: tree_sitter.Node,
        parent: str | None,
        container: str | None,
    ) -> Symbol | None:
        """One symbol per complex selector of the list; returns the first."""
        signature = collapse(walk.doc.node_text(selectors)) + " {"
        first: Symbol | None = None
        for sel in selectors.named_children:
            if sel.type.endswith("comment"):
                continue
            text = collapse(walk.doc.node_text(sel))
            resolved = resolve_selector(parent, text)
            name = resolved if "&" in text else text
            s = self._add(
                walk, name, SymbolKind.SELECTOR, node, sel, resolved, container, signature
            )
            first = first or s
        return first

    def _section(
        self, walk: _Walk, node: tree_sitter.Node, parent: str | None, container: str | None
    ) -> None:
        """`@media (…)`, `@supports`, `@layer x`, `@font-face`: named by their header."""
        block = _child(node, "block")
        end = block.start_byte if block is not None else node.end_byte
        header = collapse(walk.doc.data[node.start_byte : end].decode("utf-8", errors="replace"))
        qualified = f"{container} {header}" if container else header
        keyword = node.children[0] if node.children else node
        self._add(walk, header, SymbolKind.SECTION, node, keyword, qualified, container, header)
        if block is not None:
            for child in block.named_children:
                self.visit(walk, child, parent, qualified)

    def _keyframes(self, walk: _Walk, node: tree_sitter.Node, container: str | None) -> None:
        name_node = _child(node, "keyframes_name")
        if name_node is None:
            return
        name = walk.doc.node_text(name_node)
        self._add(
            walk,
            name,
            SymbolKind.SECTION,
            node,
            name_node,
            f"@keyframes {name}",
            container,
            f"@keyframes {name}",
        )

    def _callable(self, walk: _Walk, node: tree_sitter.Node, container: str | None) -> None:
        """`@mixin name(...)` / `@function name(...)`; their bodies may nest rules
        (`&:hover` there refers to wherever the mixin is included)."""
        name_node = _child(node, "identifier")
        if name_node is None:
            return
        name = walk.doc.node_text(name_node)
        block = _child(node, "block")
        end = block.start_byte if block is not None else node.end_byte
        signature = collapse(walk.doc.data[node.start_byte : end].decode("utf-8", errors="replace"))
        qualified = f"{container} {name}" if container else name
        self._add(walk, name, SymbolKind.FUNCTION, node, name_node, qualified, container, signature)
        if block is not None:
            for child in block.named_children:
                self.visit(walk, child, None, qualified)

    def _declaration(self, walk: _Walk, node: tree_sitter.Node, container: str | None) -> None:
        """`$brand: …` and `--brand: …` define variables; other properties do not."""
        first = node.named_children[0] if node.named_child_count else None
        if first is not None and first.type in ("property_name", "variable"):
            self._variable(walk, node, first, container)

    def _variable(
        self,
        walk: _Walk,
        node: tree_sitter.Node,
        name_node: tree_sitter.Node,
        container: str | None,
    ) -> None:
        text = walk.doc.node_text(name_node)
        if not (text.startswith(("$", "--"))):
            return
        name = text.removeprefix("$")
        is_global = container is None or container in _GLOBAL_SCOPES
        qualified = text if is_global else f"{container} {text}"
        if node is name_node:  # recovered from a parse error: the statement is its line
            line = walk.doc.lines[name_node.start_point[0]]
            signature = collapse(line[name_node.start_point[1] :].split(";", 1)[0])
        else:
            signature = collapse(walk.doc.node_text(node)).rstrip(";")
        self._add(walk, name, SymbolKind.VARIABLE, node, name_node, qualified, container, signature)

    def _recover(
        self, walk: _Walk, node: tree_sitter.Node, parent: str | None, container: str | None
    ) -> None:
        """Inside a parse error, keep what is still recognisable: a selector list whose
        block broke (it scopes what follows), `$x:` (SCSS maps are errors for this
        grammar), and whole statements."""
        children = node.children
        for i, child in enumerate(children):
            if child.type == "selectors":
                first = self._selectors(walk, node, child, parent, container)
                if first is not None:
                    parent = container = first.qualified_name
            elif (
                child.type in ("variable", "property_name")
                and walk.doc.node_text(child).startswith("$")
                and i + 1 < len(children)
                and children[i + 1].type == ":"
            ):
                self._variable(walk, child, child, container)
            elif child.is_named:
                self.visit(walk, child, parent, container)

    # ---- references ----------------------------------------------------------------

    def references(self, doc: SourceDocument, root: tree_sitter.Node) -> list[Reference]:
        refs: list[Reference] = []
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, _COMMON_REFERENCES))
        for _, caps in cursor.matches(root):
            if "function" in caps:
                refs.extend(self._call_refs(doc, caps["function"][0], caps["arguments"][0]))
            elif "apply" in caps and doc.node_text(caps["keyword"][0]) == "@apply":
                refs.extend(_ref(doc, n, doc.node_text(n)) for n in caps["apply"])
            elif (
                "value" in caps
                and doc.node_text(caps["property"][0]).lower() in _ANIMATION_PROPERTIES
            ):
                refs.extend(
                    _ref(doc, n, doc.node_text(n))
                    for n in caps["value"]
                    if doc.node_text(n).lower() not in _ANIMATION_KEYWORDS
                )
        refs.extend(self.extra_references(doc, root))
        refs.sort(key=lambda r: (r.start_line, r.start_character))
        return _dedupe(refs)

    def _call_refs(
        self, doc: SourceDocument, fn: tree_sitter.Node, args: tree_sitter.Node
    ) -> list[Reference]:
        name = doc.node_text(fn)
        if name == "var":
            return [
                _ref(doc, a, doc.node_text(a))
                for a in args.named_children
                if doc.node_text(a).startswith("--")
            ]
        if self.user_functions and name.lower() not in _CSS_FUNCTIONS:
            return [_ref(doc, fn, name.rsplit(".", 1)[-1])]
        return []

    # Plain CSS has no user-defined functions.
    user_functions = False

    def extra_references(self, doc: SourceDocument, root: tree_sitter.Node) -> list[Reference]:
        return []

    # ---- chunks --------------------------------------------------------------------

    def chunks(
        self,
        doc: SourceDocument,
        root: tree_sitter.Node,
        symbols: list[Symbol],
        settings: ChunkSettings,
    ) -> list[Chunk]:
        units = self._units(doc, root)
        groups = _group(units, settings)
        ordered = sorted(symbols, key=lambda s: s.selection_range.start.line)
        lines = [s.selection_range.start.line for s in ordered]
        out: list[Chunk] = []
        for group in groups:
            start, end = group[0].start_line, group[-1].end_line
            inside = ordered[bisect_left(lines, start) : bisect_right(lines, end)]
            out.extend(split_oversized(self._chunk(doc, group, inside), settings))
        return out

    def _units(self, doc: SourceDocument, root: tree_sitter.Node) -> list[_Unit]:
        units: list[_Unit] = []
        comment_start: int | None = None
        for node in root.named_children:
            first, last = node.start_point[0], _last_line(node)
            if node.type.endswith("comment"):
                comment_start = first if comment_start is None else comment_start
                continue
            start = comment_start if comment_start is not None else first
            comment_start = None
            lines = last - first + 1
            own = node.type in ("mixin_statement", "function_statement") or (
                lines >= BIG_STATEMENT_LINES and node.type != "declaration"
            )
            text = doc.lines_text(start, last)
            units.append(
                _Unit(start, last, node.type, _unit_name(doc, node), own, estimate_tokens(text))
            )
        if comment_start is not None:
            last = _last_line(root.named_children[-1])
            units.append(_Unit(comment_start, last, "comment", "comment", False, 0))
        return units

    def _chunk(self, doc: SourceDocument, group: list[_Unit], inside: list[Symbol]) -> Chunk:
        """One chunk for a group; `inside` are the symbols named within its lines."""
        start, end = group[0].start_line, group[-1].end_line
        selectors = [s.qualified_name for s in inside if s.kind is SymbolKind.SELECTOR]
        if len(group) == 1:
            symbol_type = _UNIT_TYPES.get(group[0].node_type, group[0].node_type)
            name = group[0].name
        else:
            types = {u.node_type for u in group}
            symbol_type = "rules" if "rule_set" in types else "declarations"
            names = [u.name for u in group if u.node_type != "comment"]
            name = ", ".join(names[:3]) + (f" (+{len(names) - 3})" if len(names) > 3 else "")
        meta: dict[str, Any] = {}
        if selectors:
            meta["selectors"] = selectors
        variables = [s.qualified_name for s in inside if s.kind is SymbolKind.VARIABLE]
        if variables:
            meta["variables"] = variables
        keyframes = [s.name for s in inside if s.qualified_name == f"@keyframes {s.name}"]
        sections = [
            s.name for s in inside if s.kind is SymbolKind.SECTION and s.name not in keyframes
        ]
        if sections:
            meta["sections"] = sections
        if keyframes:
            meta["keyframes"] = keyframes
        functions = [s.signature or s.name for s in inside if s.kind is SymbolKind.FUNCTION]
        if functions:
            meta["functions"] = functions
        return Chunk(
            path=doc.path,
            language=doc.language,
            symbol_name=name[:200],
            symbol_type=symbol_type,
            start_line=start,
            end_line=end,
            content=doc.lines_text(start, end),
            metadata=meta,
        )


_UNIT_TYPES = {
    "rule_set": "rule_set",
    "media_statement": "media",
    "supports_statement": "supports",
    "keyframes_statement": "keyframes",
    "mixin_statement": "mixin",
    "function_statement": "function",
    "declaration": "variables",
}


def _group(units: list[_Unit], settings: ChunkSettings) -> list[list[_Unit]]:
    """Consecutive small units share a chunk up to GROUP_MAX_LINES lines or half the
    token budget; big units and named callables stand alone."""
    groups: list[list[_Unit]] = []
    current: list[_Unit] = []
    tokens = 0
    budget = settings.chunk_max_tokens // 2
    for u in units:
        if u.own_chunk:
            if current:
                groups.append(current)
            groups.append([u])
            current, tokens = [], 0
            continue
        if current and (
            u.end_line - current[0].start_line + 1 > GROUP_MAX_LINES
            or tokens + u.text_tokens > budget
        ):
            groups.append(current)
            current, tokens = [], 0
        current.append(u)
        tokens += u.text_tokens
    if current:
        groups.append(current)
    return groups


def _unit_name(doc: SourceDocument, node: tree_sitter.Node) -> str:
    """What a statement is called in a chunk name: its selectors, its header, its name."""
    if node.type == "rule_set":
        selectors = _child(node, "selectors")
        if selectors is not None:
            return collapse(doc.node_text(selectors))
    if node.type in ("keyframes_statement", "mixin_statement", "function_statement"):
        name = _child(node, "keyframes_name") or _child(node, "identifier")
        if name is not None:
            return doc.node_text(name)
    block = _child(node, "block")
    end = block.start_byte if block is not None else node.end_byte
    text = collapse(doc.data[node.start_byte : end].decode("utf-8", errors="replace"))
    return text.rstrip(";")[:120]


def _child(node: tree_sitter.Node, node_type: str) -> tree_sitter.Node | None:
    return next((c for c in node.named_children if c.type == node_type), None)


def _last_line(node: tree_sitter.Node) -> int:
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


def _ref(doc: SourceDocument, node: tree_sitter.Node, name: str) -> Reference:
    return Reference.at(name, doc.node_range(node))


def _dedupe(refs: list[Reference]) -> list[Reference]:
    seen: set[tuple[str, int, int]] = set()
    out = []
    for r in refs:
        key = (r.name, r.start_line, r.start_character)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


# ---- SCSS ------------------------------------------------------------------------------

_EXTEND_PLACEHOLDER = re.compile(rb"@extend(\s+)%")
_FLAGS = re.compile(rb"!(?:default|global)\b")
_MODULE_TAIL = re.compile(rb"(@(?:use|forward)\s+([\"'])[^\"'\n]*\2)([^;\n]*)")
_NOT_NEWLINE = re.compile(rb"[^\n]")


def scss_for_parsing(data: bytes) -> bytes:
    """Same-length rewrites of what the SCSS grammar cannot parse: `@extend %x` ->
    `@extend .x`, `!default`/`!global` and `@use "m" as x` tails -> spaces."""
    data = _EXTEND_PLACEHOLDER.sub(lambda m: b"@extend" + m.group(1) + b".", data)
    data = _FLAGS.sub(lambda m: b" " * len(m.group()), data)
    return _MODULE_TAIL.sub(lambda m: m.group(1) + _NOT_NEWLINE.sub(b" ", m.group(3)), data)


class ScssStrategy(CssStrategy):
    language = "scss"
    grammar_name = "scss"
    user_functions = True
    queries = (_COMMON_REFERENCES, _SCSS_REFERENCES)

    def parse(self, doc: SourceDocument) -> tree_sitter.Tree:
        data = scss_for_parsing(doc.data)
        if data == doc.data and doc.tree is not None:
            return doc.tree
        return parser_for(self.grammar_name).parse(data)

    def extra_references(self, doc: SourceDocument, root: tree_sitter.Node) -> list[Reference]:
        """`$x` uses (not parameters), `@include x`, `@extend .x` / `%x`."""
        refs: list[Reference] = []
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, _SCSS_REFERENCES))
        for capture, nodes in cursor.captures(root).items():
            for n in nodes:
                if capture == "variable":
                    if n.parent is not None and n.parent.type == "parameter":
                        continue
                    refs.append(_ref(doc, n, doc.node_text(n).lstrip("$")))
                elif capture == "mixin":
                    refs.append(_ref(doc, n, doc.node_text(n)))
                elif capture == "extend":
                    refs.extend(self._extend_refs(doc, n))
        return refs

    def _extend_refs(self, doc: SourceDocument, node: tree_sitter.Node) -> list[Reference]:
        """`@extend %card-base` refers to `%card-base`, `@extend .btn` to `btn` (the
        parse saw `.card-base`; the file says which it was)."""
        out = []
        for sel in node.named_children:
            text = doc.node_text(sel).strip()
            if not text or " " in text:
                continue
            start = sel.start_byte
            if text.startswith("%"):
                name = text
            elif text.startswith("."):
                name = text[1:]
                start += 1
            else:
                continue
            out.append(Reference.at(name, doc.byte_range(start, sel.end_byte)))
        return out
