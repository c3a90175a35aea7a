"""A workspace written from a dict of sources, indexed: the shape most navigation tests
start from (the code as real projects write it, inline next to the assertions)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from code_intel.lsp_server.live_index import LiveIndex


def indexed_tree(root: Path, files: Mapping[str, str]) -> LiveIndex:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    index = LiveIndex(root)
    index.sync()
    return index
