"""An editor buffer as the index sees it: bytes, an incrementally edited tree, and its
analysis, recomputed only when a request needs it.

Edits arrive as LSP ranges (line, UTF-16 column). Each is turned into byte offsets
against the text as it is at that moment, applied to the bytes and announced to the
old tree with `Tree.edit`, so the next parse reuses every untouched subtree.
Keystrokes between two requests cost a few slices; the parse and the analysis run
once, when a request asks.
"""

from __future__ import annotations

import logging
import threading
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

import tree_sitter
from code_intel.indexing.analyze import analyze_source, parse
from code_intel.indexing.chunking import ChunkSettings, strategy_for
from code_intel.indexing.languages import detect_language
from code_intel.indexing.model import FileAnalysis
from code_intel.indexing.source import SourceDocument, line_starts

log = logging.getLogger(__name__)


def utf16_to_byte(line_text: bytes, character: int) -> int:
    """Byte offset within a line of the given UTF-16 column (clamped to the line)."""
    if line_text.isascii():
        return min(character, len(line_text))
    text = line_text.decode("utf-8", errors="replace")
    units = 0
    for i, ch in enumerate(text):
        if units >= character:
            return len(text[:i].encode("utf-8"))
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


@dataclass
class OpenDocument:
    path: str  # workspace-relative
    uri: str
    version: int
    data: bytes
    language: str = ""
    _tree: tree_sitter.Tree | None = None
    _analysis: FileAnalysis | None = None
    _line_starts: list[int] = field(default_factory=list)
    # the previous analysis by top-level statement, for strategies that re-read only
    # what an edit changed (`analyze_buffer`); it belongs to `_tree`
    _memo: Any = None
    # Edits arrive on the event loop while long requests read on worker threads.
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.language = self.language or detect_language(self.path)
        self._reset_lines()

    # ---- edits ------------------------------------------------------------------

    def replace_all(self, text: str, version: int) -> None:
        with self._lock:
            self._replace_all(text, version)

    def _replace_all(self, text: str, version: int) -> None:
        self.data = text.encode("utf-8")
        self.version = version
        self._tree = None
        self._analysis = None
        self._memo = None
        self._reset_lines()

    def apply_edit(self, start: tuple[int, int], end: tuple[int, int], text: str, version: int) -> None:
        """Apply one incremental change; positions are (line, UTF-16 character)."""
        with self._lock:
            self._apply_edit(start, end, text, version)

    def _apply_edit(self, start: tuple[int, int], end: tuple[int, int], text: str, version: int) -> None:
        start_byte = self._offset(*start)
        old_end_byte = max(self._offset(*end), start_byte)
        new_bytes = text.encode("utf-8")
        start_point = self._point(start_byte)
        old_end_point = self._point(old_end_byte)
        self.data = self.data[:start_byte] + new_bytes + self.data[old_end_byte:]
        self._splice_lines(start_byte, old_end_byte, new_bytes)
        new_end_byte = start_byte + len(new_bytes)
        if self._tree is not None:
            self._tree.edit(
                start_byte=start_byte,
                old_end_byte=old_end_byte,
                new_end_byte=new_end_byte,
                start_point=start_point,
                old_end_point=old_end_point,
                new_end_point=self._point(new_end_byte),
            )
        self.version = version
        self._analysis = None

    # ---- analysis ---------------------------------------------------------------

    def analysis(self, settings: ChunkSettings) -> FileAnalysis:
        with self._lock:
            if self._analysis is None:
                old = self._tree
                self._tree = parse(self.language, self.data, old)
                self._analysis = self._analyze(settings, old)
            return self._analysis

    def _analyze(self, settings: ChunkSettings, old: tree_sitter.Tree | None) -> FileAnalysis:
        """Statement by statement where the strategy can (what the last analysis read
        from unchanged statements is kept), else the whole file, lazily."""
        incremental = getattr(strategy_for(self.language), "analyze_buffer", None)
        if incremental is not None and self._tree is not None:
            memo = self._memo if old is not None else None
            changed = [(r.start_byte, r.end_byte) for r in old.changed_ranges(self._tree)] if memo else []
            doc = SourceDocument(self.path, self.language, self.data, self._tree, _line_starts=self._line_starts)
            try:
                analysis, self._memo = incremental(doc, settings, memo, changed)
                return analysis
            except Exception as exc:  # noqa: BLE001 - the whole-file analysis below still answers
                log.warning("%s: statement-by-statement analysis failed (%s)", self.path, exc)
                self._memo = None
        return analyze_source(self.path, self.data, settings, self.language, tree=self._tree, lazy=True)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")

    def line(self, n: int) -> str:
        if not 0 <= n < len(self._line_starts):
            return ""
        start = self._line_starts[n]
        end = self._line_starts[n + 1] - 1 if n + 1 < len(self._line_starts) else len(self.data)
        return self.data[start:end].decode("utf-8", errors="replace").rstrip("\r")

    # ---- positions --------------------------------------------------------------

    def _reset_lines(self) -> None:
        self._line_starts = line_starts(self.data)

    def _splice_lines(self, start: int, old_end: int, new: bytes) -> None:
        """The line table after bytes start..old_end became `new`: lines that start up
        to `start` stay, those that started inside the replaced bytes go, the new
        text's lines come in, and the rest move by the change in length. A new list:
        analyses of the previous text may still hold the old one."""
        starts = self._line_starts
        keep = bisect_right(starts, start)
        after = bisect_right(starts, old_end)
        added = []
        at = new.find(b"\n")
        while at != -1:
            added.append(start + at + 1)
            at = new.find(b"\n", at + 1)
        delta = len(new) - (old_end - start)
        tail = starts[after:]
        self._line_starts = starts[:keep] + added + ([s + delta for s in tail] if delta else tail)

    def _offset(self, line: int, character: int) -> int:
        if line >= len(self._line_starts):
            return len(self.data)
        start = self._line_starts[line]
        end = self._line_starts[line + 1] - 1 if line + 1 < len(self._line_starts) else len(self.data)
        return start + utf16_to_byte(self.data[start:end], character)

    def _point(self, offset: int) -> tuple[int, int]:
        row = bisect_right(self._line_starts, offset) - 1
        return (row, offset - self._line_starts[row])
