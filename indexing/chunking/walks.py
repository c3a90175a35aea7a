"""Walks the grammar strategies share: doc comments, signatures, containers and the
file summary. Each language keeps its own module and says only what differs (which
comment is a doc comment, which statements make the header); the walking is here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import tree_sitter

from ..model import Chunk, FileAnalysis, Symbol
from ..source import SourceDocument
from .base import (
    ChunkSettings,
    _Def,
    comment_prose,
    lines_without,
    members_by_container,
    members_within,
    split_oversized,
)


def collapse(text: str, limit: int = 300, trailing: str = " {;") -> str:
    """A declaration on one line, without the body's opening punctuation."""
    return " ".join(text.split()).rstrip(trailing)[:limit]


def clean_block_comment(text: str) -> str | None:
    """The prose of a `/** ... */` (or `//`) comment, markers stripped."""
    return comment_prose(text.removesuffix("*/"))


def top_level(root: tree_sitter.Node, types: Iterable[str]) -> list[tree_sitter.Node]:
    """The root's statements of the given types (package, imports: the file header)."""
    wanted = frozenset(types)
    return [n for n in root.named_children if n.type in wanted]


def defines_line(symbols: list[Symbol], name: Callable[[Symbol], str] = lambda s: s.name) -> str:
    """What a file defines, as its summary chunk lists it."""
    return "defines: " + ", ".join(f"{s.kind._value_} {name(s)}" for s in symbols)


def attach_leading_lines(
    doc: SourceDocument,
    analysis: FileAnalysis,
    defs: list[_Def],
    settings: ChunkSettings,
    first_line: Callable[[_Def], int | None],
) -> None:
    """Start each (unsplit) chunk at its doc comment, decorators or annotations
    (`first_line` of its definition, None for none): the doc comment is the prose that
    says what the code is for, which is what semantic search matches on. Symbol ranges
    keep starting at the declaration. Chunks are built directly: `dataclasses.replace`
    re-reads the class's fields on every call (2 % of a PHP file's analysis)."""
    first_lines: dict[tuple[str, int], int] = {}
    for d in defs:
        line = first_line(d)
        if line is not None:
            first_lines[(d.symbol.qualified_name, d.symbol.range.start.line)] = line
    if not first_lines:
        return
    out: list[Chunk] = []
    for c in analysis.chunks:
        first = first_lines.get((c.metadata.get("qualified_name", ""), c.start_line))
        if first is None or first >= c.start_line or "split" in c.metadata:
            out.append(c)
            continue
        head = doc.lines_text(first, c.start_line - 1)
        out.extend(
            split_oversized(Chunk(c.path, c.language, c.symbol_name, c.symbol_type, first, c.end_line,
                                  f"{head}\n{c.content}", c.metadata), settings)
        )
    analysis.chunks = out


def header_skeletons(
    doc: SourceDocument,
    chunks: list[Chunk],
    chunked: list[_Def],
    settings: ChunkSettings,
) -> list[Chunk]:
    """Container chunks as skeletons that keep each member's whole header, up to the
    line its body opens on, not just its first line: a Java method's first line is
    often an annotation, a TypeScript signature often spans several lines."""
    children = members_by_container(chunked)
    by_key = {(d.symbol.qualified_name, d.symbol.range.start.line): d for d in chunked}
    out: list[Chunk] = []
    for c in chunks:
        d = by_key.get((c.metadata.get("qualified_name", ""), c.start_line))
        inner = members_within(d, children) if d is not None else []
        if not inner or "split" in c.metadata:
            out.append(c)
            continue
        skips = []
        for m in inner:
            first, last = m.symbol.range.start.line, m.symbol.range.end.line
            body = m.node.child_by_field_name("body")
            header_end = body.start_point[0] if body is not None else first
            skips.append((max(header_end, first) + 1, last))
        content = lines_without(doc.lines, c.start_line, c.end_line, skips)
        out.extend(split_oversized(
            Chunk(c.path, c.language, c.symbol_name, c.symbol_type, c.start_line, c.end_line, content, c.metadata),
            settings,
        ))
    return out

