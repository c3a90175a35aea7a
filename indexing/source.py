"""A file's text as the strategies see it: bytes, str, lines, its tree, and positions.

tree-sitter reports byte columns; editors want UTF-16 columns. The conversion lives
here so every strategy produces LSP-ready ranges.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, compress, count
from operator import not_

import tree_sitter

from .model import Position, Range

_NON_ASCII = re.compile(rb"[\x80-\xff]+")


def line_starts(data: bytes) -> list[int]:
    """Byte offset of each line start (split and accumulate run in C: twice as fast
    as a find loop, and an open buffer recomputes this on every keystroke)."""
    return list(accumulate([len(line) + 1 for line in data.split(b"\n")], initial=0))[:-1]


@dataclass
class SourceDocument:
    path: str  # workspace-relative, POSIX separators
    language: str
    data: bytes
    tree: tree_sitter.Tree | None = None
    _line_starts: list[int] | None = field(default=None, repr=False)
    _utf16_mark: tuple[int, int, int] | None = field(default=None, repr=False)  # row, byte, unit

    @cached_property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @property
    def line_starts(self) -> list[int]:
        """Byte offset of each line start."""
        if self._line_starts is None:
            self._line_starts = line_starts(self.data)
        return self._line_starts

    @cached_property
    def ascii(self) -> bool:
        """Whether the file is all ASCII (byte and UTF-16 columns agree everywhere): asked
        by several passes, each `bytes.isascii` a read of the whole file."""
        return self.data.isascii()

    @cached_property
    def first_non_ascii(self) -> dict[int, int]:
        """Row -> byte column of its first non-ASCII byte, for the rows that have one.
        Left of that column byte and UTF-16 columns agree, which keeps the conversion
        off the hot path for almost every position (a line with a `'…'` string at its
        end converts none of its identifiers).
        The rows are picked by `bytes.isascii` per line, in C, and only theirs searched:
        a `finditer` over the whole file stepped the regex engine through every byte
        between two non-ASCII runs (sympy's test_pretty.py, 1,402 such rows: 39 M
        instructions, a tenth of the definitions walk)."""
        if self.ascii:
            return {}
        lines = self.data.split(b"\n")
        search = _NON_ASCII.search
        return {row: search(lines[row]).start() for row in compress(count(), map(not_, map(bytes.isascii, lines)))}

    @cached_property
    def non_ascii_rows(self) -> frozenset[int]:
        """Rows where byte and UTF-16 columns can differ."""
        return frozenset(self.first_non_ascii)

    def utf16_column(self, row: int, col: int) -> int:
        """A byte column of `row` as a UTF-16 column: only the bytes right of the row's
        first non-ASCII byte are decoded, and a later column on the same row continues
        from the last one converted. Identifiers come in document order, so one long
        non-ASCII line with many names costs one pass over it, not one per name."""
        first = self.first_non_ascii.get(row)
        if first is None or col <= first:
            return col
        begin = self.line_starts[row]
        from_byte, from_unit = first, first
        mark = self._utf16_mark
        if mark is not None and mark[0] == row and first < mark[1] <= col:
            from_byte, from_unit = mark[1], mark[2]
        tail = self.data[begin + from_byte : begin + col].decode("utf-8", errors="replace")
        units = from_unit + len(tail.encode("utf-16-le")) // 2
        if col < len(self.data) - begin and not 0x80 <= self.data[begin + col] < 0xC0:
            self._utf16_mark = (row, col, units)  # only a character boundary resumes cleanly
        return units

    def position(self, point: tuple[int, int]) -> Position:
        """tree-sitter (row, byte column) -> LSP position (line, UTF-16 column)."""
        row, col = point
        return Position(row, self.utf16_column(row, col))

    def node_range(self, node: tree_sitter.Node) -> Range:
        return Range(self.position(node.start_point), self.position(node.end_point))

    def node_text(self, node: tree_sitter.Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def byte_range(self, start_byte: int, end_byte: int) -> Range:
        """Range of an arbitrary byte span (used by regex-based extractors)."""
        return Range(self._point(start_byte), self._point(end_byte))

    def spans_in_order(self, spans: list[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
        """(start line, column, end line, column) of each byte span, as `byte_range`
        places it. An ASCII file (byte and UTF-16 columns agree) whose table of line
        starts is not built yet is counted from one span to the next instead, when they
        come in file order: a file's few quoted Python type names then do not build a
        table of every line (33 of sympy core/ + printing/'s 162 files, for ~470 names)."""
        if self._line_starts is not None or not self.ascii:
            out = []
            for start, end in spans:
                r = self.byte_range(start, end)
                out.append((r.start.line, r.start.character, r.end.line, r.end.character))
            return out
        data = self.data
        placed: list[tuple[int, int, int, int]] = []
        row = at = 0
        for start, end in spans:
            if start < at:  # not in file order: count from the top again
                row = at = 0
            row += data.count(b"\n", at, start)
            line_start = data.rfind(b"\n", 0, start) + 1
            at = start
            end_row = row + data.count(b"\n", start, end)
            end_start = data.rfind(b"\n", 0, end) + 1 if end_row != row else line_start
            placed.append((row, start - line_start, end_row, end - end_start))
        return placed

    def _point(self, offset: int) -> Position:
        starts = self.line_starts
        row = bisect_right(starts, offset) - 1
        return self.position((row, offset - starts[row]))

    def line_of(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset) - 1

    def lines_text(self, start_line: int, end_line: int) -> str:
        """Text of 0-based lines start..end inclusive."""
        return "\n".join(self.lines[start_line : end_line + 1])


def nearest_ancestor(node: tree_sitter.Node, types: frozenset[str]) -> tree_sitter.Node | None:
    """The closest node above `node` whose type is one of `types`."""
    cur = node.parent
    while cur is not None and cur.type not in types:
        cur = cur.parent
    return cur
