"""HTML: a page is chunked the way a reader scans it, by landmark.

Landmarks are the semantic sectioning elements (`<header> <nav> <main> <section>
<article> <aside> <footer> <form> <template>`) and multi-line elements with an `id`;
each becomes an `element` symbol named like a CSS selector (`form#signup`,
`section.hero`, `nav`) and a chunk whose content folds nested landmark chunks to their
first line, the way a class chunk folds its methods. Landmarks shorter than
`MIN_NESTED_CHUNK_LINES` stay inside their parent's chunk instead of becoming tiny
chunks of their own.

Every `id="…"` and named anchor (`<a name="…">`) is also a `key` symbol named by the
bare id (qualified `#id`), which is what Universal Ctags reports and what `href="#id"`
and `<label for>` point at; headings are `section` symbols named by their text.
`<script>` and `<style>` bodies are analysed by the JavaScript and CSS strategies *in
place* (see `analyze_embedded`), so their symbols, references and chunks carry the
page's real positions. Lines no chunk covers become line windows.

References: `href="#id"`, `for`, `aria-*` id lists (-> the id) and every token of a
`class` attribute (-> the class name without its dot, which is how the store keys
`.hero`), so `refs .hero` finds the markup that uses a CSS class.

The Blade and Vue strategies build on the helpers here.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace
from typing import Any

import tree_sitter

from ..languages import GRAMMARS, parser_for, query
from ..model import Chunk, FileAnalysis, Range, Reference, Symbol, SymbolKind
from ..source import SourceDocument
from .base import (
    ChunkSettings,
    LineWindowStrategy,
    ParsedStrategy,
    split_oversized,
    uncovered_windows,
)

SEMANTIC_TAGS = frozenset(
    {"header", "nav", "main", "section", "article", "aside", "footer", "form", "template"}
)
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
FIELD_TAGS = frozenset({"input", "select", "textarea", "button"})
# A nested landmark shorter than this stays in its parent's chunk.
MIN_NESTED_CHUNK_LINES = 4
_ID_LIST_ATTRIBUTES = frozenset(
    {"aria-labelledby", "aria-describedby", "aria-controls", "aria-owns"}
)
_CSS_IDENT = re.compile(r"-?[A-Za-z_][\w-]*")
_TOKEN = re.compile(r"\S+")
_TAGS = re.compile(r"<[^>]*>")
# Headings whose text is computed (`{{ $product->name }}`) name nothing stable.
_TEMPLATE_EXPRESSION = re.compile(r"\{\{|\{!!|<\?")
# Tags left open at the end of a file come back as bare start tags inside an ERROR;
# they still carry ids and names worth keeping.
_ELEMENTS_QUERY = """
[(element) (script_element) (style_element)] @element
(ERROR (start_tag) @element)
"""
_EMBEDDED_WINDOW_TYPES = frozenset({"block", "lines"})
_SCRIPT_TYPES = frozenset({"", "module", "text/javascript", "application/javascript"})


# ---- parsed markup ------------------------------------------------------------------


@dataclass(frozen=True)
class Attribute:
    name: str
    value: str | None
    node: tree_sitter.Node
    value_node: tree_sitter.Node | None


@dataclass
class Element:
    """An element with its start tag already picked apart (tag, attributes)."""

    node: tree_sitter.Node
    tag: str
    tag_node: tree_sitter.Node
    attrs: dict[str, Attribute]
    # Copied from the node once: region metadata compares them many times.
    start_byte: int = 0
    end_byte: int = 0

    def __post_init__(self) -> None:
        self.start_byte, self.end_byte = self.node.start_byte, self.node.end_byte

    @property
    def first_line(self) -> int:
        return self.node.start_point[0]

    @property
    def last_line(self) -> int:
        """Void elements end with their tag (the grammar lets them run on over the
        text that follows)."""
        if self.tag in VOID_TAGS:
            return last_line(self.tag_node.parent or self.node)
        return last_line(self.node)

    @property
    def lines(self) -> int:
        return self.last_line - self.first_line + 1

    def attr(self, name: str) -> str | None:
        a = self.attrs.get(name)
        return a.value if a is not None else None

    def classes(self) -> list[str]:
        value = self.attr("class") or ""
        return [c for c in value.split() if _CSS_IDENT.fullmatch(c)]

    def raw_text(self) -> tree_sitter.Node | None:
        """The body of a `<script>`/`<style>` element."""
        return next((c for c in self.node.named_children if c.type == "raw_text"), None)


VOID_TAGS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }
)


def last_line(node: tree_sitter.Node) -> int:
    """The node's last line, not counting a trailing newline the grammar swallowed
    (void elements like `<input>` end at column 0 of the next line)."""
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


def collect_elements(
    doc: SourceDocument, root: tree_sitter.Node, grammar_name: str = "html"
) -> list[Element]:
    """Every element of the tree in document order. Attribute values are read from
    `doc` (the original bytes), so a strategy may parse a masked copy of the file."""
    cursor = tree_sitter.QueryCursor(query(grammar_name, _ELEMENTS_QUERY))
    nodes = [n for ns in cursor.captures(root).values() for n in ns]
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    out = []
    for node in nodes:
        tag = (
            node
            if node.type == "start_tag"
            else next(
                (c for c in node.children if c.type in ("start_tag", "self_closing_tag")), None
            )
        )
        if tag is None:
            continue
        tag_name = next((c for c in tag.named_children if c.type == "tag_name"), None)
        if tag_name is None:
            continue
        attrs = {}
        for a in tag.named_children:
            if a.type not in ("attribute", "directive_attribute"):
                continue
            parsed = _attribute(doc, a)
            if parsed is not None:
                attrs.setdefault(parsed.name, parsed)
        out.append(Element(node, doc.node_text(tag_name).lower(), tag_name, attrs))
    return out


def _attribute(doc: SourceDocument, node: tree_sitter.Node) -> Attribute | None:
    name_node = next(
        (c for c in node.named_children if c.type in ("attribute_name", "directive_name")), None
    )
    if name_node is None:
        return None
    value_node = None
    for c in node.named_children:
        if c.type == "attribute_value":
            value_node = c
        elif c.type == "quoted_attribute_value":
            value_node = next((v for v in c.named_children if v.type == "attribute_value"), None)
    value = doc.node_text(value_node) if value_node is not None else None
    return Attribute(doc.node_text(name_node).lower(), value, node, value_node)


def elements_within(elements: list[Element], lo: int, hi: int) -> list[Element]:
    """Elements inside bytes [lo, hi) of a start-ordered list, found by bisection: a
    page with hundreds of landmarks must not cost landmarks x elements."""
    first = bisect_left(elements, lo, key=lambda e: e.start_byte)
    last = bisect_left(elements, hi, lo=first, key=lambda e: e.start_byte)
    return [e for e in elements[first:last] if e.end_byte <= hi]


def element_text(doc: SourceDocument, el: Element) -> str:
    """Text content with tags dropped and whitespace collapsed (`<h1>Acme  Store</h1>`
    -> `Acme Store`, as ctags names headings)."""
    start = next((c for c in el.node.children if c.type == "start_tag"), None)
    end = next((c for c in el.node.children if c.type == "end_tag"), None)
    lo = start.end_byte if start is not None else el.start_byte
    hi = end.start_byte if end is not None else el.end_byte
    text = doc.data[lo:hi].decode("utf-8", errors="replace")
    return " ".join(_TAGS.sub(" ", text).split())


def selector_name(el: Element) -> str:
    """`form#login`, `section.hero` (first class only: utility-class lists would make
    unreadable names), or the bare tag."""
    element_id = el.attr("id")
    if element_id and is_static(element_id):
        return f"{el.tag}#{element_id}"
    classes = el.classes()
    return f"{el.tag}.{classes[0]}" if classes else el.tag


def is_static(value: str) -> bool:
    """A literal attribute value, not a template expression (`{{ $id }}`, `<?= ?>`)."""
    return bool(value) and not any(ch in value for ch in "{}<>$ \t\n")


def start_tag_text(doc: SourceDocument, el: Element) -> str:
    tag = next((c for c in el.node.children if c.type in ("start_tag", "self_closing_tag")), None)
    text = doc.node_text(tag if tag is not None else el.node)
    return " ".join(text.split())[:200]


def form_info(doc: SourceDocument, el: Element, elements: list[Element]) -> dict[str, Any]:
    """What a form submits and where: action, method, field names."""
    inner = elements_within(elements, el.start_byte + 1, el.end_byte)
    fields = []
    for e in inner:
        name = e.attr("name")
        is_field = e.tag in FIELD_TAGS or (
            e.tag.startswith("x-") and not e.tag.startswith("x-slot")
        )
        if is_field and name and name not in fields:
            fields.append(name)
    info: dict[str, Any] = {
        "name": selector_name(el),
        "line": el.node.start_point[0],
        "method": (el.attr("method") or "GET").upper(),
        "action": el.attr("action"),
        "fields": fields,
    }
    return info


# ---- definitions and scopes ------------------------------------------------------------


@dataclass
class Def:
    """A definition before its container is known. `qualified` fixes the qualified name;
    otherwise it is `<container> > <name>` (a selector-like path)."""

    start_byte: int
    end_byte: int
    name: str
    kind: SymbolKind
    range: Range
    selection_range: Range
    signature: str | None = None
    qualified: str | None = None
    is_scope: bool = False
    symbol: Symbol | None = None


def resolve_definitions(defs: list[Def], prefix: str | None = None) -> list[Symbol]:
    """Nest definitions by byte range (scopes only) and fill in containers and
    qualified names; the same walk as the tree-sitter base, over computed names."""
    ordered = sorted(defs, key=lambda d: (d.start_byte, -d.end_byte))
    stack: list[Def] = []
    out = []
    for d in ordered:
        while stack and stack[-1].end_byte <= d.start_byte:
            stack.pop()
        container = stack[-1].symbol.qualified_name if stack and stack[-1].symbol else prefix
        qualified = d.qualified or (f"{container} > {d.name}" if container else d.name)
        d.symbol = Symbol(
            name=d.name,
            kind=d.kind,
            range=d.range,
            selection_range=d.selection_range,
            qualified_name=qualified,
            container=container,
            signature=d.signature,
        )
        out.append(d.symbol)
        if d.is_scope:
            stack.append(d)
    return out


class Scopes:
    """Innermost-scope lookup for references: bisect to the last scope starting at or
    before the offset, then climb its parents (O(depth), not O(scopes))."""

    def __init__(self, defs: list[Def]) -> None:
        self.defs = sorted(
            (d for d in defs if d.is_scope), key=lambda d: (d.start_byte, -d.end_byte)
        )
        self.starts = [d.start_byte for d in self.defs]
        self.parents: list[int] = []
        stack: list[int] = []
        for i, d in enumerate(self.defs):
            while stack and self.defs[stack[-1]].end_byte <= d.start_byte:
                stack.pop()
            self.parents.append(stack[-1] if stack else -1)
            stack.append(i)

    def at(self, offset: int, default: str | None = None) -> str | None:
        """Qualified name of the innermost scope holding `offset`."""
        i = bisect_right(self.starts, offset) - 1
        while i >= 0 and offset >= self.defs[i].end_byte:
            i = self.parents[i]
        symbol = self.defs[i].symbol if i >= 0 else None
        return symbol.qualified_name if symbol is not None else default


# ---- regions: the spans that become chunks ------------------------------------------------


@dataclass
class Region:
    """A span that becomes a chunk: a landmark, a Blade block, the whole view, or an
    embedded `<script>`/`<style>` body (whose chunks come from its own strategy)."""

    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    name: str
    symbol_type: str
    metadata: dict[str, Any] = field(default_factory=dict)
    always_chunk: bool = False
    embedded: FileAnalysis | None = None
    # An embedded block keeps its own chunk even when definition chunks cover it
    # (a Vue script's props and emits live in that chunk's metadata).
    keep_block: bool = False
    children: list[Region] = field(default_factory=list)

    @property
    def lines(self) -> int:
        return self.end_line - self.start_line + 1


def nest_regions(regions: list[Region]) -> list[Region]:
    """Arrange regions into a containment forest; returns the roots."""
    ordered = sorted(regions, key=lambda r: (r.start_byte, -r.end_byte))
    roots: list[Region] = []
    stack: list[Region] = []
    for r in ordered:
        r.children = []
        while stack and stack[-1].end_byte <= r.start_byte:
            stack.pop()
        if stack and r.end_byte <= stack[-1].end_byte:
            stack[-1].children.append(r)
        else:
            roots.append(r)
        stack.append(r)
    return roots


def skeleton(doc: SourceDocument, start: int, end: int, folded: list[tuple[int, int]]) -> str:
    """Lines start..end with each folded span reduced to its first line."""
    skip: set[int] = set()
    for s, e in folded:
        skip.update(range(s + 1, e + 1))
    return "\n".join(doc.lines[i] for i in range(start, end + 1) if i not in skip)


class RegionChunker:
    """Turns a region forest into chunks: a region is chunked when it is a root, marked
    `always_chunk`, or long enough; otherwise it stays in its parent's content."""

    def __init__(self, doc: SourceDocument, settings: ChunkSettings, metadata) -> None:
        self.doc = doc
        self.settings = settings
        self.metadata = metadata  # Region -> extra metadata (the strategy's hook)
        self._prefix: list[int] | None = None

    def chunks(self, roots: list[Region]) -> list[Chunk]:
        out: list[Chunk] = []
        for r in roots:
            self._emit(r, out, is_root=True)
        out.sort(key=lambda c: (c.start_line, -c.end_line))
        return out

    def _separate(self, r: Region) -> bool:
        return r.always_chunk or r.embedded is not None or r.lines >= MIN_NESTED_CHUNK_LINES

    def _emit(self, r: Region, out: list[Chunk], is_root: bool = False) -> None:
        if r.embedded is not None:
            self._emit_embedded(r, out)
            return
        folded: list[tuple[int, int]] = []
        for child in self._chunked_descendants(r):
            self._emit(child, out)
            folded.append((child.start_line, child.end_line))
        content = skeleton(self.doc, r.start_line, r.end_line, folded)
        own_lines = sum(1 for line in content.split("\n") if line.strip()) - len(folded)
        if not is_root and folded and own_lines <= 2:
            return  # only a wrapper around chunks of its own (`@push` around a script)
        out.extend(self._region_chunks(r, content))

    def _region_chunks(self, r: Region, content: str) -> list[Chunk]:
        """The region's chunk (split when oversized) with its metadata."""
        meta = dict(r.metadata)
        meta.update(self.metadata(r))
        chunk = Chunk(
            path=self.doc.path,
            language=self.doc.language,
            symbol_name=r.name,
            symbol_type=r.symbol_type,
            start_line=r.start_line,
            end_line=r.end_line,
            content=content,
            metadata=meta,
        )
        return split_oversized(chunk, self.settings)

    def _wraps(self, parent: Region, child: Region) -> bool:
        """A child holding nearly all of its parent (`@section` around one `<section>`,
        a component view that is one `<article>`) stays in the parent: two chunks
        would repeat each other."""
        if child.embedded is not None:
            return False
        outside = self._non_blank(parent.start_line, parent.end_line) - self._non_blank(
            max(child.start_line, parent.start_line), min(child.end_line, parent.end_line)
        )
        return outside <= 2

    def _non_blank(self, first: int, last: int) -> int:
        """Non-blank lines in first..last, from a prefix count built once."""
        if self._prefix is None:
            counts = [0]
            for line in self.doc.lines:
                counts.append(counts[-1] + (1 if line.strip() else 0))
            self._prefix = counts
        last = min(last, len(self._prefix) - 2)
        return self._prefix[last + 1] - self._prefix[first] if last >= first else 0

    def _chunked_descendants(self, r: Region) -> list[Region]:
        """Children that get their own chunk; the children of folded-in children are
        considered in turn (a long section inside a short wrapper still stands alone)."""
        found = []
        for child in r.children:
            if self._separate(child) and not self._wraps(r, child):
                found.append(child)
            else:
                found.extend(self._chunked_descendants(child))
        return found

    def _emit_embedded(self, r: Region, out: list[Chunk]) -> None:
        """The embedded strategy's definition chunks, plus one chunk for the block when
        they leave real code uncovered (a `<script setup>` is mostly top-level code)."""
        assert r.embedded is not None
        # Windows are replaced by the block chunk, and summaries spanning the whole
        # (blanked) file, like the JavaScript module chunk, mean nothing here.
        inner = [
            c
            for c in r.embedded.chunks
            if c.symbol_type not in _EMBEDDED_WINDOW_TYPES
            and r.start_line <= c.start_line
            and c.end_line <= r.end_line
        ]
        language = r.metadata.get("lang") or r.embedded.language
        for c in inner:
            meta = dict(c.metadata)
            meta.setdefault("embedded", language)
            out.append(replace(c, path=self.doc.path, language=self.doc.language, metadata=meta))
        covered: set[int] = set()
        for c in inner:
            covered.update(range(c.start_line, c.end_line + 1))
        body = range(r.start_line + 1, r.end_line)
        if not r.keep_block and not any(
            self.doc.lines[i].strip() for i in body if i not in covered
        ):
            return
        tops = _outermost([(c.start_line, c.end_line) for c in inner])
        out.extend(self._region_chunks(r, skeleton(self.doc, r.start_line, r.end_line, tops)))


def _outermost(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans, key=lambda t: (t[0], -t[1])):
        if out and s >= out[-1][0] and e <= out[-1][1]:
            continue
        out.append((s, e))
    return out


# ---- embedded languages -------------------------------------------------------------------


_NOT_NEWLINE = re.compile(rb"[^\n]")


def blank_outside(data: bytes, start: int, end: int) -> bytes:
    """The file with every byte outside [start, end) turned into a space (newlines
    kept): the block parses at its real lines and columns, so nothing needs shifting."""
    return (
        _NOT_NEWLINE.sub(b" ", data[:start]) + data[start:end] + _NOT_NEWLINE.sub(b" ", data[end:])
    )


def embedded_document(
    doc: SourceDocument, start: int, end: int, language: str, path: str | None = None
) -> SourceDocument | None:
    """Bytes start..end of `doc` as a document of `language`, in place (see
    `blank_outside`), parsed; `path` is the name its strategy sees (module names derive
    from it). None when the language has no grammar."""
    grammar_name = GRAMMARS.get(language)
    if grammar_name is None:
        return None
    data = blank_outside(doc.data, start, end)
    sub = SourceDocument(path=path or doc.path, language=language, data=data)
    sub.tree = parser_for(grammar_name).parse(data)
    return sub


def analyze_embedded(
    doc: SourceDocument,
    start: int,
    end: int,
    language: str,
    settings: ChunkSettings,
    path: str | None = None,
) -> FileAnalysis | None:
    """Run `language`'s registered strategy over bytes start..end of `doc` in place.
    None when that language has no real strategy (yet): the caller keeps a plain chunk."""
    from . import strategy_for  # the registry imports this module lazily

    strategy = strategy_for(language)
    if isinstance(strategy, LineWindowStrategy):
        return None
    sub = embedded_document(doc, start, end, language, path)
    return strategy.analyze(sub, settings) if sub is not None else None


def script_language(lang: str | None, default: str = "javascript") -> str:
    lang = (lang or "").lower()
    if lang in ("ts", "typescript"):
        return "typescript"
    if lang == "tsx":
        return "tsx"
    if lang == "jsx":
        return "jsx"
    return default


def style_language(lang: str | None) -> str:
    return "scss" if (lang or "").lower() in ("scss", "sass") else "css"


def merge_embedded(analysis: FileAnalysis, sub: FileAnalysis) -> None:
    analysis.symbols.extend(sub.symbols)
    analysis.references.extend(sub.references)
    analysis.syntax_errors += sub.syntax_errors
    analysis.imports.update(sub.imports)


# ---- the strategy -------------------------------------------------------------------------


class HtmlStrategy(ParsedStrategy):
    language = "html"
    grammar_name = "html"
    queries = (_ELEMENTS_QUERY,)

    # ---- entry point ---------------------------------------------------------------

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        root, analysis = self.begin(doc)
        elements = collect_elements(doc, root, self.grammar_name)
        defs = self.element_definitions(doc, elements)
        regions = self.element_regions(doc, elements, analysis, settings)
        self.extend(doc, defs, regions)
        analysis.symbols[0:0] = resolve_definitions(defs)
        scopes = Scopes(defs)
        analysis.references.extend(self.markup_references(doc, elements, scopes))
        self.references(doc, analysis, scopes)
        chunker = RegionChunker(doc, settings, lambda r: self.region_metadata(doc, r, elements))
        analysis.chunks = chunker.chunks(nest_regions(regions))
        self.finish(doc, analysis, settings)
        analysis.references.sort(key=lambda r: (r.start_line, r.start_character))
        return analysis

    # ---- hooks ---------------------------------------------------------------------

    def extend(self, doc: SourceDocument, defs: list[Def], regions: list[Region]) -> None:
        """Add language-specific definitions and regions (Blade directives)."""

    def references(self, doc: SourceDocument, analysis: FileAnalysis, scopes: Scopes) -> None:
        """Add language-specific references."""

    def region_metadata(
        self, doc: SourceDocument, region: Region, elements: list[Element]
    ) -> dict[str, Any]:
        """Facts about the markup inside a region: forms, headings, ids."""
        inside = elements_within(elements, region.start_byte, region.end_byte)
        meta: dict[str, Any] = {}
        forms = [form_info(doc, e, elements) for e in inside if e.tag == "form"]
        if forms:
            meta["forms"] = forms
        headings = [
            element_text(doc, e)
            for e in inside
            if e.tag in HEADING_TAGS and not _TEMPLATE_EXPRESSION.search(element_text(doc, e))
        ]
        if any(headings):
            meta["headings"] = [h for h in headings if h]
        ids = [e.attr("id") for e in inside if is_static(e.attr("id") or "")]
        if ids:
            meta["ids"] = ids
        return meta

    def finish(self, doc: SourceDocument, analysis: FileAnalysis, settings: ChunkSettings) -> None:
        """Last step: plain HTML windows the lines outside every chunk."""
        analysis.chunks.extend(
            uncovered_windows(doc, [(c.start_line, c.end_line) for c in analysis.chunks], settings)
        )
        analysis.chunks.sort(key=lambda c: (c.start_line, -c.end_line))

    # ---- definitions -----------------------------------------------------------------

    def is_landmark(self, el: Element) -> bool:
        """Semantic sectioning elements, and multi-line elements with an id (an
        `<input id>` is a key symbol, not a section of the page)."""
        if el.tag in SEMANTIC_TAGS:
            return True
        return el.tag not in VOID_TAGS and el.lines > 1 and is_static(el.attr("id") or "")

    def element_definitions(self, doc: SourceDocument, elements: list[Element]) -> list[Def]:
        defs: list[Def] = []
        for el in elements:
            if self.is_landmark(el):
                defs.append(
                    Def(
                        el.start_byte,
                        el.end_byte,
                        selector_name(el),
                        SymbolKind.ELEMENT,
                        doc.node_range(el.node),
                        doc.node_range(el.tag_node),
                        signature=start_tag_text(doc, el),
                        is_scope=True,
                    )
                )
            if el.tag in HEADING_TAGS:
                text = element_text(doc, el)
                if text and not _TEMPLATE_EXPRESSION.search(text):
                    defs.append(
                        Def(
                            el.start_byte,
                            el.end_byte,
                            text[:80],
                            SymbolKind.SECTION,
                            doc.node_range(el.node),
                            doc.node_range(el.tag_node),
                            signature=f"<{el.tag}> {text[:120]}",
                        )
                    )
            defs.extend(self._anchor_definitions(doc, el))
        return defs

    def _anchor_definitions(self, doc: SourceDocument, el: Element) -> list[Def]:
        """`id="x"` anywhere and `<a name="x">`: fragment targets, named by the bare id.
        They sit just inside their element so it contains them."""
        out = []
        for attr_name in ("id", "name") if el.tag == "a" else ("id",):
            a = el.attrs.get(attr_name)
            if a is None or a.value_node is None or not is_static(a.value or ""):
                continue
            value = a.value or ""
            out.append(
                Def(
                    a.node.start_byte,
                    a.node.end_byte,
                    value,
                    SymbolKind.KEY,
                    doc.node_range(a.node),
                    doc.node_range(a.value_node),
                    signature=start_tag_text(doc, el),
                    qualified=f"#{value}",
                )
            )
        return out

    # ---- regions -------------------------------------------------------------------------

    def element_regions(
        self,
        doc: SourceDocument,
        elements: list[Element],
        analysis: FileAnalysis,
        settings: ChunkSettings,
    ) -> list[Region]:
        regions = []
        for el in elements:
            if el.tag in ("script", "style") or el.node.type in ("script_element", "style_element"):
                region = self.embedded_region(doc, el, analysis, settings)
                if region is not None:
                    regions.append(region)
            elif self.is_landmark(el):
                meta: dict[str, Any] = {"tag": el.tag}
                if el.attr("id"):
                    meta["id"] = el.attr("id")
                if el.classes():
                    meta["classes"] = el.classes()
                regions.append(
                    Region(
                        el.start_byte,
                        el.end_byte,
                        el.first_line,
                        el.last_line,
                        selector_name(el),
                        "element",
                        meta,
                    )
                )
        return regions

    def embedded_region(
        self,
        doc: SourceDocument,
        el: Element,
        analysis: FileAnalysis,
        settings: ChunkSettings,
    ) -> Region | None:
        """A `<script>`/`<style>` body: analysed by its own strategy when there is one,
        otherwise one plain chunk. Scripts with only a `src` are not chunks."""
        raw = el.raw_text()
        if raw is None or not doc.node_text(raw).strip():
            return None
        kind = "script" if el.node.type == "script_element" or el.tag == "script" else "style"
        language: str | None
        if kind == "style":
            language = style_language(el.attr("lang"))
        elif (el.attr("type") or "").lower() in _SCRIPT_TYPES:
            language = script_language(el.attr("lang"))
        else:
            language = None  # JSON, templates, ...: text, not code
        meta: dict[str, Any] = {"block": kind}
        if language:
            meta["lang"] = language
        sub = (
            analyze_embedded(doc, raw.start_byte, raw.end_byte, language, settings)
            if language
            else None
        )
        if sub is not None:
            merge_embedded(analysis, sub)
            if sub.imports:
                meta["imports"] = dict(sub.imports)
        return Region(
            el.start_byte,
            el.end_byte,
            el.first_line,
            el.last_line,
            kind,
            kind,
            meta,
            always_chunk=True,
            embedded=sub,
        )

    # ---- references ----------------------------------------------------------------------

    def markup_references(
        self, doc: SourceDocument, elements: list[Element], scopes: Scopes
    ) -> list[Reference]:
        """Ids used by `href="#x"`, `<label for>` and aria attributes, and the classes of
        `class` attributes (without the dot, as the store keys `.hero`)."""
        refs: list[Reference] = []
        for el in elements:
            for a in el.attrs.values():
                if a.value_node is None or not a.value:
                    continue
                if a.name == "class":
                    refs.extend(self._token_refs(doc, a, scopes, lambda t: t))
                elif a.name == "href" and a.value.startswith("#") and len(a.value) > 1:
                    refs.extend(self._token_refs(doc, a, scopes, lambda t: t[1:]))
                elif a.name == "for" or a.name in _ID_LIST_ATTRIBUTES:
                    refs.extend(self._token_refs(doc, a, scopes, lambda t: t))
        return refs

    def _token_refs(
        self, doc: SourceDocument, a: Attribute, scopes: Scopes, to_name
    ) -> list[Reference]:
        assert a.value_node is not None and a.value is not None
        out = []
        base = a.value_node.start_byte
        raw = doc.data[a.value_node.start_byte : a.value_node.end_byte]
        for m in re.finditer(rb"\S+", raw):
            token = m.group().decode("utf-8", errors="replace")
            name = to_name(token)
            if not _CSS_IDENT.fullmatch(name):
                continue
            start = base + m.start() + (len(token) - len(name))
            r = doc.byte_range(start, base + m.end())
            out.append(Reference.at(name, r, scopes.at(start)))
        return out
