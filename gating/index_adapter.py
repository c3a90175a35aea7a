"""`SymbolIndex` over the project's index (`IndexStore`, or the language server's live
index, which has the same `find_definitions`/`definitions` shape).

Agents name symbols in many ways: `AuthService`, `App\\Services\\AuthService`,
`AuthService::attempt`, `AuthService.attempt`, `LoginController@login` (Laravel
routes). A short or fully qualified name is looked up as is; a member is found by
its last segment and kept when its qualified name ends with what was written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from code_intel.indexing.store import IndexStore, StoredSymbol

from .interfaces import SymbolLocation

_MEMBER_SEP = re.compile(r"::|->|[\\.#@]")


class _Definitions(Protocol):
    def __call__(self, name: str, exact: bool = True) -> Sequence[StoredSymbol]: ...


def _normal(name: str) -> str:
    return _MEMBER_SEP.sub(".", name).strip(".").lstrip("$")


class IndexSymbols:
    def __init__(self, definitions: _Definitions, file_exists: Callable[[str], bool]) -> None:
        self._definitions = definitions
        self._file_exists = file_exists

    @classmethod
    def for_store(cls, store: IndexStore) -> IndexSymbols:
        return cls(store.find_definitions, lambda rel: store.file_state(rel) is not None)

    def lookup(self, name: str) -> list[SymbolLocation]:
        name = name.strip()
        if not name:
            return []
        found = list(self._definitions(name, exact=True))
        if not found and _MEMBER_SEP.search(name):
            wanted = _normal(name)
            last = wanted.rsplit(".", 1)[-1]
            found = [
                s
                for s in self._definitions(last, exact=True)
                if (q := _normal(s.symbol.qualified_name)) == wanted or q.endswith("." + wanted)
            ]
        return [
            SymbolLocation(
                name=s.symbol.name,
                qualified_name=s.symbol.qualified_name,
                path=s.path,
                line=s.symbol.selection_range.start.line,
                kind=s.symbol.kind.value,
            )
            for s in found
        ]

    def file_exists(self, rel_path: str) -> bool:
        return self._file_exists(rel_path)
