"""A chunk's metadata as the store keeps it: without what its definition's symbol row holds.

A definition's chunk starts its metadata with the definition's qualified name, signature,
docstring and container (`definition_metadata`, what `ChunkStrategy._chunks` builds); the
`symbols` table holds the same four. On sympy they were 17 of the chunks' 19 MB of
metadata JSON (a docstring repeated in every part of a split chunk), which the worker
encoded, SQLite inserted, the parent copied and the store kept.

So a chunk's row keeps the rest of its metadata and the ordinal of the symbol row those
leading keys came from among its file's symbol rows (`StoredMetadata.encode`); reading
the chunk joins them back (`joined`): the same dict, key order included. A chunk whose
metadata does not start with exactly a symbol's keys (a module summary, a Blade view, a
chunk whose chunker changed them) keeps all of it, as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from .model import Symbol


def definition_metadata(
    qualified_name: str, signature: str | None, doc: str | None, container: str | None
) -> dict[str, Any]:
    """The metadata a definition's chunk starts with; `joined` rebuilds it from the
    symbol row by this same rule."""
    meta: dict[str, Any] = {"qualified_name": qualified_name}
    if signature:
        meta["signature"] = signature
    if doc:
        meta["docstring"] = doc
    if container:
        meta["container"] = container
    return meta


class StoredMetadata:
    """Encodes the metadata of one file's chunks against that file's symbols (in the
    order of its symbol rows): `encode` gives (symbol ordinal or None, JSON of the rest)."""

    __slots__ = ("_by_name", "_dumps", "_symbols")

    def __init__(self, symbols: Sequence[Symbol], dumps: Callable[[dict[str, Any]], str]) -> None:
        self._symbols = symbols
        self._by_name: dict[str, int] | None = None  # qualified name -> an ordinal, built on first use
        self._dumps = dumps

    def encode(self, metadata: dict[str, Any]) -> tuple[int | None, str]:
        qualified_name = metadata.get("qualified_name")
        if qualified_name is not None and self._symbols:
            by_name = self._by_name
            if by_name is None:
                by_name = self._by_name = {s.qualified_name: i for i, s in enumerate(self._symbols)}
            ordinal = by_name.get(qualified_name)
            if ordinal is not None:
                items = list(metadata.items())
                n = _leading(self._symbols[ordinal], items)
                if n < 0:  # another definition of that name (a property's setter)?
                    ordinal, n = self._search(qualified_name, items)
                if n > 0:
                    return ordinal, self._dumps(dict(items[n:])) if n < len(items) else "{}"
        return None, self._dumps(metadata)

    def _search(self, qualified_name: str, items: list[tuple[str, Any]]) -> tuple[int | None, int]:
        for i, s in enumerate(self._symbols):
            if s.qualified_name == qualified_name:
                n = _leading(s, items)
                if n > 0:
                    return i, n
        return None, -1


def _leading(symbol: Symbol, items: list[tuple[str, Any]]) -> int:
    """How many of `items` (a chunk's metadata, its first key `qualified_name` with the
    symbol's value) are `definition_metadata` of `symbol`; -1 when they are not. Compared
    in place: building that dict for every chunk cost a third of what leaving the JSON
    out saved."""
    n = 1
    end = len(items)
    value = symbol.signature
    if value:
        if n == end or items[n] != ("signature", value):
            return -1
        n += 1
    value = symbol.doc
    if value:
        if n == end or items[n] != ("docstring", value):
            return -1
        n += 1
    value = symbol.container
    if value:
        if n == end or items[n] != ("container", value):
            return -1
        n += 1
    return n if items[0] == ("qualified_name", symbol.qualified_name) else -1


def joined(text: str, qualified_name: str | None, signature: str | None, doc: str | None,
           container: str | None) -> dict[str, Any]:
    """A stored chunk's metadata: its symbol row's leading keys (when it has a symbol:
    `qualified_name` is not None) and then the rest it stored (most often nothing: no
    JSON to decode)."""
    if qualified_name is None:
        return _loads(text)
    meta = definition_metadata(qualified_name, signature, doc, container)
    if text != "{}":
        meta.update(_loads(text))
    return meta


_loads = json.JSONDecoder().decode  # `json.loads` without its per-call checks
