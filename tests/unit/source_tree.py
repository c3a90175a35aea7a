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


def definitions_at(live: LiveIndex, files: Mapping[str, str], rel: str, needle: str, word: str) -> list[StoredSymbol]:
    """What a definition request answers on `word`, on the first line of `files[rel]`
    holding `needle` (the first `word` from `needle` on)."""
    lines = files[rel].splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    _, found = live.resolve(rel, n, lines[n].index(word, lines[n].index(needle)) + 1)
    return found
