"""A workspace written from a dict of sources, indexed: the shape most navigation tests
start from (the code as real projects write it, inline next to the assertions)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from code_intel.indexing.store import StoredSymbol
from code_intel.lsp_server.live_index import LiveIndex


def indexed_tree(root: Path, files: Mapping[str, str]) -> LiveIndex:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    index = LiveIndex(root)
    index.sync()
    return index


def position_of(files: Mapping[str, str], rel: str, needle: str, word: str) -> tuple[int, int]:
    """(line, column) inside `word`, on the first line of `files[rel]` holding `needle`
    (the first `word` from `needle` on)."""
    lines = files[rel].splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    return n, lines[n].index(word, lines[n].index(needle)) + 1


def definitions_at(live: LiveIndex, files: Mapping[str, str], rel: str, needle: str, word: str) -> list[StoredSymbol]:
    """What a definition request answers on `word` (see `position_of`)."""
    _, found = live.resolve(rel, *position_of(files, rel, needle, word))
    return found


def target_lines(live: LiveIndex, files: Mapping[str, str], rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    """The definitions' (path, name line) for `word` (see `position_of`)."""
    return [(s.path, s.symbol.selection_range.start.line) for s in definitions_at(live, files, rel, needle, word)]
