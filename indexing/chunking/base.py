"""The strategy interface and the machinery shared by every tree-sitter strategy.

A language module declares *what* a definition is (a tree-sitter query whose captures
follow the tags.scm convention: `@definition.<kind>` plus `@name`), and the base class
does the rest: nesting and qualified names, references, chunks, signatures, splitting.
Queries run in C, so no Python walk over every node is needed on the hot path.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import islice, pairwise
from operator import attrgetter
from typing import Any, ClassVar, Protocol

import tree_sitter

from ..chunk_metadata import definition_metadata
from ..languages import parser_for, query
from ..model import (
    Chunk,
    FileAnalysis,
    PackedReferences,
    Reference,
    Symbol,
    SymbolKind,
)
from ..records import builder, new_chunk, new_position, new_range, new_symbol
from ..source import SourceDocument
from . import defscan, refscan

WINDOW_LINES = 50
MIN_WINDOW_LINES = 5  # fewer non-blank lines outside every chunk are not worth a window
CONTAINER_KINDS = frozenset(
    {
        SymbolKind.CLASS,
        SymbolKind.INTERFACE,
        SymbolKind.TRAIT,
        SymbolKind.STRUCT,
        SymbolKind.ENUM,
    }
)
#: Read per definition: a module global is ~0.3 us faster than `SymbolKind.FUNCTION`
#: (an attribute of the enum's class, looked up through its metaclass).
_FUNCTION, _METHOD = SymbolKind.FUNCTION, SymbolKind.METHOD
DEFAULT_CHUNK_KINDS = frozenset(
    CONTAINER_KINDS
    | {SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CONSTRUCTOR, SymbolKind.TYPE}
)


@dataclass(frozen=True)
class ChunkSettings:
    chunk_max_tokens: int = 512
    window_lines: int = WINDOW_LINES


class ChunkStrategy(Protocol):
    """One per language; registered in `indexing.chunking.STRATEGIES`."""

    language: str

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis: ...


def estimate_tokens(text: str) -> int:
    """About four characters per token for code, the usual rule of thumb for BPE models."""
    return (len(text) + 3) // 4


def signature_text(data: bytes, start: int, end: int, body: int) -> str:
    """A definition's signature: its bytes from `start` to its body's start (`body`; -1
    when it has none: to the end of its first line, at most 200 bytes), on one line."""
    if body < 0:
        body = min(end, start + 200)
        nl = data.find(b"\n", start, body)
        if nl != -1:
            body = nl
    return " ".join(data[start:body].decode("utf-8", errors="replace").split()).rstrip(" {:")[:300]


def split_oversized(chunk: Chunk, settings: ChunkSettings) -> list[Chunk]:
    """Split a chunk over the token budget into line windows; the first keeps the head.

    A window takes whole lines while they fit in the budget (each line counted with its
    newline), at least one. Its end is the last newline within the budget of its start
    (`rfind`), or the end of its first line when that line alone is over it, so the
    windows are cut without a Python step per line."""
    budget_chars = settings.chunk_max_tokens * 4
    if len(chunk.content) <= budget_chars:  # estimate_tokens() <= budget
        return [chunk]
    text = chunk.content + "\n"  # every line ends with a newline, the last one too
    parts: list[tuple[int, int, str]] = []  # (first line, line count, text)
    at = line = 0
    while at < len(text):
        # a negative end would count from the text's end: no budget, one line a window
        end = text.rfind("\n", at, at + budget_chars) if budget_chars > 0 else -1
        if end == -1:  # the first line alone is over the budget: it is a window
            end = text.index("\n", at)
        part = text[at:end]
        count = part.count("\n") + 1
        parts.append((line, count, part))
        line += count
        at = end + 1
    out = []
    for n, (offset, count, part) in enumerate(parts):
        meta = dict(chunk.metadata)
        meta["split"] = {"part": n + 1, "parts": len(parts)}
        out.append(
            Chunk(
                path=chunk.path,
                language=chunk.language,
                symbol_name=chunk.symbol_name,
                symbol_type=chunk.symbol_type,
                start_line=chunk.start_line + offset,
                end_line=chunk.start_line + offset + count - 1,
                content=part,
                metadata=meta,
            )
        )
    return out


def line_windows(
    doc: SourceDocument,
    settings: ChunkSettings,
    first: int = 0,
    last: int | None = None,
    symbol_type: str = "lines",
) -> list[Chunk]:
    """Fixed windows over lines first..last (0-based, inclusive), skipping blank windows."""
    lines = doc.lines
    last = len(lines) - 1 if last is None else last
    chunks = []
    for start in range(first, last + 1, settings.window_lines):
        end = min(start + settings.window_lines - 1, last)
        content = "\n".join(lines[start : end + 1])
        if not content.strip():
            continue
        chunks.append(
            Chunk(
                path=doc.path,
                language=doc.language,
                symbol_name=f"{doc.path}:{start + 1}-{end + 1}",
                symbol_type=symbol_type,
                start_line=start,
                end_line=end,
                content=content,
            )
        )
    return chunks


def uncovered_windows(
    doc: SourceDocument, spans: list[tuple[int, int]], settings: ChunkSettings
) -> list[Chunk]:
    """Line windows over runs of (five non-blank or more) lines that no span of
    (first, last) lines covers, so nothing is silently left out of search. The runs are
    the gaps between the spans, sorted and merged: nested chunks cover the same lines
    many times, which a loop per line paid for, and a byte per line marked by slices
    cost more than the spans (sympy's core/+printing/: 5,100 runs, nearly all the one
    or two blank lines between two definitions, which are too short to be read)."""
    lines = doc.lines
    n = len(lines)
    out: list[Chunk] = []
    at = 0  # the first line not known to be covered
    for start, stop in sorted([(s, min(e, n - 1) + 1) for s, e in spans if min(e, n - 1) + 1 > s]) + [(n, n)]:
        if start - at >= MIN_WINDOW_LINES:  # lines at..start-1 are free; fewer than five have too few
            first, last = at, start - 1
            if len(list(islice(filter(str.strip, lines[first : last + 1]), MIN_WINDOW_LINES))) >= MIN_WINDOW_LINES:
                out.extend(
                    c
                    for w in line_windows(doc, settings, first, last, "block")
                    for c in split_oversized(w, settings)
                )
        at = max(at, stop)
    return out


class ParsedStrategy:
    """Base of the strategies that walk their tree themselves (markup, stylesheets,
    single-file components) rather than TreeSitterStrategy's definitions query."""

    language: ClassVar[str]
    grammar_name: ClassVar[str]
    queries: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        # Compile once so a bad query fails at registration, not mid-index.
        for text in self.queries:
            query(self.grammar_name, text)

    def parse(self, doc: SourceDocument) -> tree_sitter.Tree:
        """The buffer's own tree if it has one (kept incrementally), else a parse."""
        if doc.tree is not None:
            return doc.tree
        return parser_for(self.grammar_name).parse(doc.data)

    def begin(self, doc: SourceDocument) -> tuple[tree_sitter.Node, FileAnalysis]:
        """The tree's root and an empty analysis that already counts its errors."""
        root = self.parse(doc).root_node
        return root, new_analysis(doc, self.grammar_name, root)


class LineWindowStrategy:
    """Anything without a grammar: 50-line windows, no symbols."""

    def __init__(self, language: str = "text") -> None:
        self.language = language

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        analysis = FileAnalysis(path=doc.path, language=doc.language)
        analysis.chunks = [
            c for w in line_windows(doc, settings) for c in split_oversized(w, settings)
        ]
        return analysis


@dataclass(slots=True)
class _Def:
    """One definition in the later passes. `start`, `end` (the node's bytes) and
    `name_start` (its name's) come from the definitions pass (`defscan.Where`): the
    reference pass and the chunks' nesting read them per definition, where each
    `Node.start_byte` is a call into the binding. A strategy that swaps `node` for a
    wider one does so through `widen`, which keeps them in step."""

    node: tree_sitter.Node
    name_node: tree_sitter.Node
    symbol: Symbol
    start: int
    end: int
    name_start: int

    def widen(self, node: tree_sitter.Node) -> None:
        self.node = node
        self.start, self.end = node.start_byte, node.end_byte


_new_def = builder(_Def)


@dataclass(frozen=True)
class FileWork:
    """One file in the later passes (`_chunks`, `finish`): what they all work on."""

    doc: SourceDocument
    analysis: FileAnalysis
    defs: list[_Def]
    settings: ChunkSettings


def members_by_container(defs: list[_Def]) -> dict[str, list[_Def]]:
    """Definitions by the qualified name of their container."""
    children: dict[str, list[_Def]] = {}
    for d in defs:
        if d.symbol.container:
            children.setdefault(d.symbol.container, []).append(d)
    return children


def members_within(d: _Def, children: dict[str, list[_Def]]) -> list[_Def]:
    """`d`'s members that sit inside its node (not a same-named container elsewhere)."""
    return [
        m
        for m in children.get(d.symbol.qualified_name, ())
        if m is not d
        and m.start >= d.start
        and m.end <= d.end
    ]


def comments_above(node: tree_sitter.Node, types: frozenset[str]) -> list[tree_sitter.Node]:
    """The comment block right above `node`, nearest first; a blank line ends it."""
    comments = []
    prev = node.prev_sibling
    expected_row = node.start_point[0]
    while prev is not None and prev.type in types and prev.end_point[0] >= expected_row - 1:
        comments.append(prev)
        expected_row = prev.start_point[0]
        prev = prev.prev_sibling
    return comments


_START_BYTE = attrgetter("start_byte")


def _reference_name(raw: bytes, sigil: bool) -> tuple[str, int] | None:
    """(name, byte length; -1 when it spans lines) of an identifier's text, or None when
    the text does not start like a name."""
    name = raw.decode("utf-8", errors="replace")
    if not name or not (name[0].isalpha() or name[0] in "_$\\#"):
        return None
    return (name.lstrip("$") if sigil else name), (-1 if b"\n" in raw else len(raw))


#: (definition node, name node, kind, `defscan.Where`): one definition as the pass reads it.
DefinitionMatch = tuple[tree_sitter.Node, tree_sitter.Node, SymbolKind, defscan.Where]
_KINDS = {k.value: k for k in SymbolKind}


@functools.cache
def _capture_kind(capture: str) -> SymbolKind | None:
    """The kind a `definition.<kind>` capture names (None: no kind of ours), asked once
    per capture name rather than split per definition."""
    return _KINDS.get(capture.partition(".")[2])


def _outermost_first(m: DefinitionMatch) -> tuple[int, int]:
    return m[3][0], -m[3][1]


def _where(node: tree_sitter.Node, name: tree_sitter.Node) -> defscan.Where:
    """`defscan.Where` of a match the query engine found."""
    (sr, sc), (er, ec) = node.start_point, node.end_point
    (nsr, nsc), (ner, nec) = name.start_point, name.end_point
    return (node.start_byte, node.end_byte, sr, sc, er, ec,
            name.start_byte, name.end_byte, nsr, nsc, ner, nec)


#: Where the definitions walk leaves, on the document, the reference pass's nodes it
#: recorded on its way ((root, handle): valid for that tree only); `_references` takes
#: them. Kept on the document because the two passes meet only there (an open buffer's
#: references run later, from the same document and tree).
_REFERENCE_NODES = "_recorded_reference_nodes"
#: Likewise the quoted names the walk met, for a strategy with `recorded_strings`.
RECORDED_STRINGS = "_recorded_strings"


def comment_prose(text: str) -> str | None:
    """A comment's lines without their markers, blank lines dropped (None: no prose).
    Each line loses what `^\\s*(/\\*\\*?|\\*/|\\*|//+|#+|--)\\s?` matches, by
    string methods: that regex's `sub` per line was half of PHP's docstring hook (16,830
    Laravel docblocks: 57 -> 28 ms), most lines being `<indent>* text`."""
    out = []
    for line in text.splitlines():
        rest = line.lstrip()
        if rest[:1] == "*" and rest[1:2] != "/":  # the common ` * text`
            rest = rest[2:] if rest[1:2].isspace() else rest[1:]
        else:
            rest = _unmarked(line, rest)
        rest = rest.rstrip()
        if rest:
            out.append(rest)
    return "\n".join(out).strip() or None


def _unmarked(line: str, rest: str) -> str:
    """`line` without its comment marker and one whitespace after it; `rest` is the
    line without its leading whitespace. A line without a marker keeps its indent."""
    first = rest[:1]
    if first == "*":  # `*/`
        end = 2
    elif first == "/" and rest[1:2] == "*":
        end = 3 if rest[2:3] == "*" else 2
    elif first == "/" and rest[1:2] == "/":
        end = len(rest) - len(rest.lstrip("/"))
    elif first == "#":
        end = len(rest) - len(rest.lstrip("#"))
    elif rest[:2] == "--":
        end = 2
    else:
        return line
    return rest[end + 1 :] if rest[end : end + 1].isspace() else rest[end:]


class TreeSitterStrategy:
    """Base for grammar-backed strategies. Subclasses set the class attributes and may
    override the hooks (`qualify`, `adjust_kind`, `docstring`, `signature`,
    `symbol_metadata`, `finish`)."""

    language: ClassVar[str]
    grammar_name: ClassVar[str]
    definitions_query: ClassVar[str]
    references_query: ClassVar[str] = "(identifier) @reference"
    separator: ClassVar[str] = "."
    chunk_kinds: ClassVar[frozenset[SymbolKind]] = DEFAULT_CHUNK_KINDS
    comment_types: ClassVar[frozenset[str]] = frozenset({"comment"})
    body_fields: ClassVar[tuple[str, ...]] = ("body",)
    # Top-level statements the module summary chunk holds (package, imports).
    header_types: ClassVar[frozenset[str]] = frozenset()
    # Keep chunks for code outside any definition (scripts, route files, config).
    chunk_uncovered_code: ClassVar[bool] = True
    # False when `finish` adds symbols or imports (the migration strategy's tables):
    # an open buffer's lazy analysis skips the chunk work, `finish` included.
    chunks_can_wait: ClassVar[bool] = True
    # PHP's `$` marks a variable and is not part of the name; in JS/TS it is a letter
    # (`$ZodEmoji` and `ZodEmoji` are different classes).
    dollar_is_sigil: ClassVar[bool] = False
    # Quoted names the definitions walk records for the reference pass (`defscan.StringsSpec`)
    recorded_strings: ClassVar[defscan.StringsSpec | None] = None

    def __init__(self) -> None:
        # Compile once so a bad query fails at registration, not mid-index. Neither query
        # where the compiled walks run it (they read the query's text themselves): a
        # binding Query of Python's definitions costs 0.02-0.03 s, of PHP's 0.007 s, of
        # every index's start, before any worker, and a first build of sympy or Laravel
        # never used it. The engine compiles one on first need (a definition the walk
        # matches in two ways); tests compile every strategy's queries.
        if not defscan.walks(self.definitions_query):
            query(self.grammar_name, self.definitions_query)
        if not refscan.AVAILABLE:
            query(self.grammar_name, self.references_query)

    # ---- entry point -------------------------------------------------------------

    def analyze_packed(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        """`analyze` for the index's sync, which only stores the references packed: the
        compiled pass packs them as it finds them (`FileAnalysis.packed_references`)
        instead of building a Reference per occurrence that the store would only pack.
        A strategy with its own `analyze` may add references to the list: it runs as is."""
        if type(self).analyze is not TreeSitterStrategy.analyze:
            return self.analyze(doc, settings)
        return self.analyze(doc, settings, pack=True)

    def analyze(
        self, doc: SourceDocument, settings: ChunkSettings, lazy: bool = False, *, pack: bool = False
    ) -> FileAnalysis:
        """`lazy` (an open buffer) leaves the reference pass to `complete_references()`
        and, where `chunks_can_wait`, the chunks to `complete_chunks()`; the tree must
        then stay unedited until they run (a buffer's analysis is dropped on its next
        edit). `pack`: see `analyze_packed`."""
        assert doc.tree is not None, "tree-sitter strategies need a parsed document"
        root = doc.tree.root_node
        analysis = new_analysis(doc, self.grammar_name, root)
        prefix = self.module_prefix(doc, analysis)
        defs = self._definitions(doc, root, prefix)
        analysis.symbols = [d.symbol for d in defs]
        if lazy:
            analysis.pending_references = lambda: self._references(doc, root, defs)
            if self.chunks_can_wait:
                analysis.pending_chunks = lambda: self.analyze(doc, settings)
                return analysis
        elif pack:
            analysis.packed_references = self._packed_references(doc, root, defs)
        if not lazy and analysis.packed_references is None:
            analysis.references = self._references(doc, root, defs)
        work = FileWork(doc, analysis, defs, settings)
        analysis.chunks = self._chunks(work)
        self.finish(work)
        if self.chunk_uncovered_code:
            analysis.chunks.extend(self._uncovered(doc, analysis.chunks, settings))
        if analysis.packed_references is not None and analysis.references:
            # a `finish` added references after the packing: the list it is, in order
            analysis.packed_references = None
            analysis.references[:0] = self._references(doc, root, defs)
        return analysis

    # ---- hooks -------------------------------------------------------------------

    def module_prefix(self, doc: SourceDocument, analysis: FileAnalysis) -> str | None:
        """Qualifier for top-level names (package, namespace, module path)."""
        return None

    def qualify(self, container: str | None, name: str, kind: SymbolKind) -> str:
        return f"{container}{self.separator}{name}" if container else name

    def adjust_kind(self, kind: SymbolKind, container: Symbol | None) -> SymbolKind:
        if kind is _FUNCTION and container and container.kind in CONTAINER_KINDS:
            return _METHOD
        return kind

    def docstring(self, doc: SourceDocument, node: tree_sitter.Node) -> str | None:
        """Default: the comment block right above the definition."""
        comments = comments_above(node, self.comment_types)
        if not comments:
            return None
        return comment_prose("\n".join(doc.node_text(c) for c in reversed(comments)))

    def signature(self, doc: SourceDocument, node: tree_sitter.Node) -> str:
        """Text from the definition's start to its body, on one line."""
        for field_name in self.body_fields:
            body = node.child_by_field_name(field_name)
            if body is not None:
                return signature_text(doc.data, node.start_byte, node.end_byte, body.start_byte)
        return signature_text(doc.data, node.start_byte, node.end_byte, -1)

    def definition_texts(
        self, doc: SourceDocument, nodes: list[tree_sitter.Node]
    ) -> list[tuple[str, str | None]] | None:
        """(signature, docstring) of every definition node at once, or None to ask
        `signature` and `docstring` node by node. A strategy whose hooks only read a few
        fixed nodes answers here from one compiled call (Python), where each hook's
        question to the binding makes a Node object per definition."""
        return None

    def symbol_metadata(
        self, doc: SourceDocument, d: _Def, analysis: FileAnalysis
    ) -> dict[str, Any]:
        """Extra chunk metadata for a definition (Eloquent relations, DI, …)."""
        return {}

    def finish(self, work: FileWork) -> None:
        """Last hook: module summary chunks, imports, cross-language links."""

    def header_nodes(self, doc: SourceDocument) -> list[tree_sitter.Node]:
        """Top-level package / import statements the module summary chunk covers:
        by default the root's statements of the `header_types`."""
        if not self.header_types:  # PHP: no Node objects for the root's statements
            return []
        root = doc.tree.root_node  # type: ignore[union-attr]
        return [n for n in root.named_children if n.type in self.header_types]

    def add_module_chunk(
        self,
        doc: SourceDocument,
        analysis: FileAnalysis,
        name: str,
        parts: list[str],
        metadata: dict[str, Any],
    ) -> None:
        """The file summary (docstring, imports, what it defines) as the first chunk."""
        analysis.chunks.insert(
            0,
            Chunk(
                path=doc.path,
                language=doc.language,
                symbol_name=name,
                symbol_type="module",
                start_line=0,
                end_line=max(len(doc.lines) - 1, 0),
                content="\n".join(parts),
                metadata=metadata,
            ),
        )

    # ---- machinery ---------------------------------------------------------------

    def _definitions(
        self, doc: SourceDocument, root: tree_sitter.Node, prefix: str | None,
        span: tuple[int, int] | None = None,
    ) -> list[_Def]:
        """`span` (bytes lo..hi, whole top-level statements) limits the pass to the
        definitions inside it: an edited buffer re-reads only the statements it changed.
        Ranges and names come from each match's bytes and points (`defscan.Where`), so
        the pass asks the binding nothing about the two nodes."""
        ordered = (self._definition_nodes_compiled(doc, root) if span is None else None)
        if ordered is None:
            ordered = self._definition_nodes(doc, root, span)
        data = doc.data
        non_ascii = doc.first_non_ascii
        utf16 = doc.utf16_column
        texts = self.definition_texts(doc, [m[0] for m in ordered]) if ordered else None
        stack: list[tuple[int, Symbol]] = []  # (end byte, symbol) of the open definitions
        defs: list[_Def] = []
        # the base hooks, inlined where a strategy keeps them (two calls per definition)
        own_kinds = type(self).adjust_kind is not TreeSitterStrategy.adjust_kind
        own_qualify = type(self).qualify is not TreeSitterStrategy.qualify
        separator = self.separator
        for i, (node, name_node, kind, where) in enumerate(ordered):
            sb, eb, sr, sc, er, ec, nsb, neb, nsr, nsc, ner, nec = where
            while stack and stack[-1][0] <= sb:
                stack.pop()
            parent = stack[-1][1] if stack else None
            if own_kinds:
                kind = self.adjust_kind(kind, parent)
            elif kind is _FUNCTION and parent is not None and parent.kind in CONTAINER_KINDS:
                kind = _METHOD
            name = data[nsb:neb].decode("utf-8", errors="replace")
            container = parent.qualified_name if parent else prefix
            if non_ascii:
                sc, ec, nsc, nec = (
                    utf16(sr, sc) if sr in non_ascii else sc,
                    utf16(er, ec) if er in non_ascii else ec,
                    utf16(nsr, nsc) if nsr in non_ascii else nsc,
                    utf16(ner, nec) if ner in non_ascii else nec,
                )
            signature, docstring = (
                texts[i] if texts is not None else (self.signature(doc, node), self.docstring(doc, node))
            )
            symbol = new_symbol(  # the records built in one call each: see `records`
                name,
                kind,
                new_range(new_position(sr, sc), new_position(er, ec)),
                new_range(new_position(nsr, nsc), new_position(ner, nec)),
                self.qualify(container, name, kind) if own_qualify else
                f"{container}{separator}{name}" if container else name,
                container,
                signature,
                docstring,
            )
            defs.append(_new_def(node, name_node, symbol, sb, eb, nsb))
            stack.append((eb, symbol))
        return defs

    def _definition_nodes(
        self, doc: SourceDocument, root: tree_sitter.Node, span: tuple[int, int] | None
    ) -> list[DefinitionMatch]:
        """(definition, name, kind, where) from the query engine, outermost first at a
        start."""
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, self.definitions_query))
        if span is not None:
            cursor.set_byte_range(*span)
        lo, hi = span or (0, len(doc.data))
        found: dict[int, tuple[tree_sitter.Node, tree_sitter.Node, SymbolKind]] = {}
        for _, captures in cursor.matches(root):
            def_key = next((k for k in captures if k.startswith("definition.")), None)
            if def_key is None or "name" not in captures:
                continue
            node = captures[def_key][0]
            if node.id in found:
                continue
            # patterns anchored at the root match outside a span too
            if span is not None and (node.start_byte < lo or node.end_byte > hi):
                continue
            try:
                kind = SymbolKind(def_key.split(".", 1)[1])
            except ValueError:
                continue
            found[node.id] = (node, captures["name"][0], kind)
        return [
            (node, name, kind, _where(node, name))
            for node, name, kind in sorted(found.values(), key=lambda t: (t[0].start_byte, -t[0].end_byte))
        ]

    def _definition_nodes_compiled(
        self, doc: SourceDocument, root: tree_sitter.Node
    ) -> list[DefinitionMatch] | None:
        """`_definition_nodes` from the compiled walk (`defscan`), or None where its
        answer could differ from the engine's: one node matched as two definitions, or
        two definitions over the same bytes (their order would be the engine's)."""
        collect = refscan.kinds_handle(root, self.grammar_name, self.references_query)
        matches, nodes, quoted = defscan.definitions_collecting(
            root, self.grammar_name, self.definitions_query, doc.data, collect,
            self.recorded_strings if collect is not None else None,
        )
        if nodes is not None:  # the reference pass reads them instead of walking again
            doc.__dict__[_REFERENCE_NODES] = (root, nodes)
        if quoted is not None:
            doc.__dict__[RECORDED_STRINGS] = (root, quoted)
        if matches is None:
            return None
        found: dict[int, DefinitionMatch] = {}
        keys: dict[int, tuple[str, int]] = {}  # definition id -> (capture, name id)
        for def_key, node, name_node, (node_id, name_id), where in matches:
            seen = keys.get(node_id)
            if seen is not None:
                if seen != (def_key, name_id):
                    return None
                continue
            keys[node_id] = (def_key, name_id)
            kind = _capture_kind(def_key)
            if kind is not None:
                found[node_id] = (node, name_node, kind, where)
        ordered = sorted(found.values(), key=_outermost_first)
        for a, b in pairwise(ordered):
            if a[3][0] == b[3][0] and a[3][1] == b[3][1]:
                return None
        return ordered

    def _references(
        self, doc: SourceDocument, root: tree_sitter.Node, defs: list[_Def]
    ) -> list[Reference]:
        """Every identifier the `references_query` captures, outside definition names,
        with its innermost enclosing definition, then the `_appended_references`. The
        compiled pass (`native/refscan.c`) when it is built for this tree-sitter; the
        Python loop otherwise, same output."""
        refs = self._compiled_references(doc, root, defs, None)
        if refs is None:
            refs = self._references_py(doc, root, defs)
        refs.extend(Reference(*r, None) for r in self._appended_references(doc, root))
        return refs

    def _packed_references(
        self, doc: SourceDocument, root: tree_sitter.Node, defs: list[_Def]
    ) -> PackedReferences | None:
        """`_references` as the store packs them, straight from the compiled pass; None
        where it cannot run or the strategy has a reference pass of its own."""
        if not refscan.AVAILABLE or type(self)._references is not TreeSitterStrategy._references:
            return None
        return self._compiled_references(doc, root, defs, (doc.path, self._appended_references(doc, root)))

    def _appended_references(self, doc: SourceDocument, root: tree_sitter.Node) -> list[refscan.Extra]:
        """References besides the query's identifiers, appended after them in this order
        without a container: (name, start line, start column, end line, end column)."""
        return []

    def _compiled_references(
        self,
        doc: SourceDocument,
        root: tree_sitter.Node,
        defs: list[_Def],
        pack: tuple[str, list[refscan.Extra]] | None,
    ) -> Any:
        """The compiled pass's references, or with `pack` (path, appended references)
        its packed rows; None where it cannot run here."""
        if not refscan.AVAILABLE:
            return None
        recorded = doc.__dict__.pop(_REFERENCE_NODES, None)
        return refscan.scan(
            root,
            self.grammar_name,
            self.references_query,
            doc.data,
            sorted({d.name_start for d in defs}),
            (
                [d.start for d in defs],
                [d.end for d in defs],
                [d.symbol.qualified_name for d in defs],
            ),
            self.dollar_is_sigil,
            None if doc.ascii else doc.utf16_column,
            recorded[1] if recorded is not None and recorded[0] == root else None,
            pack,
        )

    def _references_py(
        self, doc: SourceDocument, root: tree_sitter.Node, defs: list[_Def]
    ) -> list[Reference]:
        # The hottest loop of the indexer (one pass per identifier in the workspace):
        # plain tuples, local names and as few calls into the binding per node as
        # possible (an identifier is one line, so its end column is start + length).
        # A name's text is decoded and checked once per file (`names`: most
        # identifiers repeat), and a Reference is built with tuple.__new__, a third of
        # the cost of the namedtuple's Python-level constructor.
        cursor = tree_sitter.QueryCursor(query(self.grammar_name, self.references_query))
        nodes = [n for ns in cursor.captures(root).values() for n in ns]
        nodes.sort(key=_START_BYTE)
        skip = {d.name_start for d in defs}  # definition names, then seen
        non_ascii = doc.non_ascii_rows
        utf16 = doc.utf16_column if non_ascii else None
        data = doc.data
        names: dict[bytes, tuple[str, int] | None] = {}  # raw text -> (name, length) or None: not a name
        refs: list[Reference] = []
        append = refs.append
        new = tuple.__new__
        stack: list[_Def] = []
        i = 0
        n_defs = len(defs)
        next_def = defs[0].start if defs else -1
        scope_end = -1  # end of the innermost open definition; -1: none open
        container: str | None = None
        sigil = self.dollar_is_sigil
        for node in nodes:
            start = node.start_byte
            if start in skip:
                continue
            raw = data[start : node.end_byte]
            known = names.get(raw, False)
            if known is False:
                known = names[raw] = _reference_name(raw, sigil)
            if known is None:  # not a name (e.g. an empty MISSING node): not `seen` either
                continue
            skip.add(start)
            if 0 <= next_def <= start or 0 <= scope_end <= start:
                while i < n_defs and defs[i].start <= start:
                    while stack and stack[-1].end <= defs[i].start:
                        stack.pop()
                    stack.append(defs[i])
                    i += 1
                while stack and stack[-1].end <= start:
                    stack.pop()
                next_def = defs[i].start if i < n_defs else -1
                scope_end = stack[-1].end if stack else -1
                container = stack[-1].symbol.qualified_name if stack else None
            sr, sc = node.start_point
            if known[1] < 0:  # spans lines
                er, ec = node.end_point
            else:
                er, ec = sr, sc + known[1]
            if utf16 is not None and (sr in non_ascii or er in non_ascii):
                sc = utf16(sr, sc)
                ec = utf16(er, ec)
            append(new(Reference, (known[0], sr, sc, er, ec, container)))
        return refs

    def _chunks(self, work: FileWork) -> list[Chunk]:
        doc, analysis, settings = work.doc, work.analysis, work.settings
        chunked = [d for d in work.defs if d.symbol.kind in self.chunk_kinds]
        children = members_by_container(chunked)
        chunks: list[Chunk] = []
        max_chars = settings.chunk_max_tokens * 4
        own_metadata = type(self).symbol_metadata is not TreeSitterStrategy.symbol_metadata  # else {}
        for d in chunked:
            s = d.symbol
            start, end = s.range.start.line, s.range.end.line
            inner = members_within(d, children)
            content = _skeleton(doc, start, end, inner) if inner else doc.lines_text(start, end)
            meta = definition_metadata(s.qualified_name, s.signature, s.doc, s.container)
            if own_metadata:
                meta.update(self.symbol_metadata(doc, d, analysis))
            chunk = new_chunk(doc.path, doc.language, s.name, s.kind._value_, start, end, content, meta)
            if len(content) <= max_chars:  # most chunks: no split_oversized call to say so
                chunks.append(chunk)
            else:
                chunks.extend(split_oversized(chunk, settings))
        return chunks

    def _uncovered(
        self, doc: SourceDocument, chunks: list[Chunk], settings: ChunkSettings
    ) -> list[Chunk]:
        """Windows over top-level code no chunk covers, so nothing is silently dropped.
        `header_nodes` (package and import lines) count as covered: the module summary
        chunk carries them."""
        spans = [(c.start_line, c.end_line) for c in chunks if c.symbol_type != "module"]
        spans += [(n.start_point[0], n.end_point[0]) for n in self.header_nodes(doc)]
        return uncovered_windows(doc, spans, settings)


def _skeleton(doc: SourceDocument, start: int, end: int, inner: list[_Def]) -> str:
    """A container's text with nested chunked definitions reduced to their first line:
    the class chunk shows fields and method signatures without repeating method bodies."""
    return lines_without(
        doc.lines, start, end, [(d.symbol.range.start.line + 1, d.symbol.range.end.line) for d in inner]
    )


def lines_without(lines: list[str], first: int, last: int, skips: list[tuple[int, int]]) -> str:
    """Lines first..last joined by newlines, leaving out the lines of every (lo, hi)
    span in `skips` (inclusive; spans may overlap or be empty). Kept runs are sliced:
    a container's lines one by one against a set of skipped ones were 2.6 % of a PHP
    file's analysis. A kept line past the end of `lines` raises IndexError, as an
    index per line did."""
    kept: list[str] = []
    at = first
    for lo, hi in sorted(skips):
        if hi < lo:  # a one-line member skips nothing
            continue
        if lo > at:
            _extend(kept, lines, at, min(lo, last + 1))
        at = max(at, hi + 1)
        if at > last:
            break
    else:
        _extend(kept, lines, at, last + 1)
    return "\n".join(kept)


def _extend(kept: list[str], lines: list[str], lo: int, hi: int) -> None:
    if hi > len(lines):
        raise IndexError("list index out of range")
    kept += lines[lo:hi]


def new_analysis(doc: SourceDocument, grammar_name: str, root: tree_sitter.Node) -> FileAnalysis:
    """An empty analysis of `doc` that already counts the tree's syntax errors."""
    analysis = FileAnalysis(path=doc.path, language=doc.language)
    if root.has_error:
        analysis.syntax_errors = count_errors(grammar_name, root)
    return analysis


def count_errors(grammar_name: str, root: tree_sitter.Node) -> int:
    """ERROR nodes in a tree that has errors (at least one: a MISSING node counts)."""
    cursor = tree_sitter.QueryCursor(query(grammar_name, "(ERROR) @error"))
    return sum(len(v) for v in cursor.captures(root).values()) or 1
