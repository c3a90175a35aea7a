"""The compiled reference pass (`native/refscan.c`), used only where it is safe.

The extension links its own copy of tree-sitter's runtime and reads py-tree-sitter's
`Node` objects by their C layout, so it runs only when the installed binding is the
version it was vendored from and the root is a real `tree_sitter.Node`. Anything else
(no compiler at install time, another tree-sitter, a query predicate the C side does
not evaluate) returns None and the caller runs the Python loop: same output, slower.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import tree_sitter

from ..model import Reference

try:
    from .. import _refscan  # type: ignore[attr-defined]
except ImportError:  # not built (optional extension): the Python pass runs
    _refscan = None

AVAILABLE = _refscan is not None and tree_sitter.__version__ == _refscan.TREE_SITTER_VERSION

# `[(identifier) (type_identifier)] @reference`: nothing but node types, found by a
# plain tree walk in C (several times faster than the query engine); any other
# query runs on tree-sitter's query engine inside the extension.
_NODE_TYPES = re.compile(r"\s*\[?\s*(?:\(\w+\)\s*)+\]?\s*@\w+\s*")
_queries: dict[tuple[str, str], Any] = {}  # (grammar, query source) -> handle or None
_lock = threading.Lock()


def _compiled(root: tree_sitter.Node, grammar_name: str, source: str) -> Any:
    key = (grammar_name, source)
    try:
        return _queries[key]
    except KeyError:
        pass
    with _lock:
        if key not in _queries:
            if _NODE_TYPES.fullmatch(source):
                kinds = re.findall(r"\((\w+)\)", source)
                _queries[key] = _refscan.compile_kinds(root, kinds)  # type: ignore[union-attr]
            else:
                _queries[key] = _refscan.compile(root, source)  # type: ignore[union-attr]
        return _queries[key]


def scan(
    root: tree_sitter.Node,
    grammar_name: str,
    query_source: str,
    data: bytes,
    name_starts: list[int],
    defs: tuple[list[int], list[int], list[str]],
    sigil: bool,
    utf16: Callable[[int, int], int] | None,
) -> list[Reference] | None:
    """The file's references from the compiled pass, or None where it cannot run.
    `name_starts`: sorted start bytes of definition names; `defs`: the definitions'
    start bytes, end bytes and qualified names, in list order."""
    if not AVAILABLE or type(root) is not tree_sitter.Node:
        return None
    handle = _compiled(root, grammar_name, query_source)
    if handle is None:
        return None
    starts, ends, containers = defs
    return _refscan.scan(  # type: ignore[union-attr]
        root, handle, data, name_starts, starts, ends, containers, sigil, utf16, Reference
    )
