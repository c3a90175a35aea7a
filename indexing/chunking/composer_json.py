"""composer.json: what a PHP project depends on and where its namespaces live.

Chunks: `require` and `require-dev` (metadata `packages`, `versions`), `autoload` and
`autoload-dev` (metadata `namespaces`, `psr4`: namespace -> directories), and one
`package` summary of everything else (name, description, scripts, config). Every
package and PSR-4 namespace is also a `key` symbol, so `defs laravel/framework` or
`defs App\\` lands on its line. The file is parsed with `json` (no grammar); a broken
file degrades to line windows with a note instead of raising.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from ..model import Chunk, FileAnalysis, Position, Range, Symbol, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings, line_windows, split_oversized

_WS = re.compile(r"[ \t\r\n]*")
_DEPENDENCY_SECTIONS = {"require": "production", "require-dev": "development"}
_AUTOLOAD_SECTIONS = ("autoload", "autoload-dev")


@dataclass(frozen=True)
class _Member:
    """One `"key": value` of a JSON object with its character offsets."""

    key: str
    key_start: int
    key_end: int
    value: Any
    value_start: int
    value_end: int


def _skip(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]


def object_members(text: str, start: int) -> list[_Member]:
    """Members of the (already validated) JSON object that opens at `start`, in file
    order with offsets: `json.loads` gives values, this gives where they are."""
    decoder = json.JSONDecoder()
    i = _skip(text, start + 1)
    out: list[_Member] = []
    if text[i] == "}":
        return out
    while True:
        key, key_end = decoder.raw_decode(text, i)
        key_start = i
        i = _skip(text, key_end)
        i = _skip(text, i + 1)  # past ':'
        value, value_end = decoder.raw_decode(text, i)
        out.append(_Member(key, key_start, key_end, value, i, value_end))
        i = _skip(text, value_end)
        if text[i] != ",":
            return out
        i = _skip(text, i + 1)


class _Positions:
    """Character offsets -> LSP positions (line, UTF-16 column) over the decoded text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def position(self, offset: int) -> Position:
        line = self.line(offset)
        prefix = self.text[self.starts[line] : offset]
        return Position(line, len(prefix.encode("utf-16-le", "surrogatepass")) // 2)

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))


class ComposerJsonStrategy:
    language = "composer_json"

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        analysis = FileAnalysis(path=doc.path, language=doc.language)
        text = doc.text
        start = 1 if text.startswith("\ufeff") else 0
        problem: str | None = None
        try:
            data = json.loads(text[start:])
            if isinstance(data, dict):
                members = object_members(text, _skip(text, start))
            else:
                problem = "the top level is not a JSON object"
        except (ValueError, IndexError) as exc:
            problem = str(exc)
        if problem is not None:
            analysis.syntax_errors = 1
            analysis.notes.append(
                f"composer.json is not valid JSON ({problem}); indexed as line windows"
            )
            analysis.chunks = [
                c for w in line_windows(doc, settings) for c in split_oversized(w, settings)
            ]
            return analysis
        pos = _Positions(text)
        rest: list[_Member] = []
        for member in members:
            if member.key in _DEPENDENCY_SECTIONS and isinstance(member.value, dict):
                self._dependencies(doc, analysis, pos, member, settings)
            elif member.key in _AUTOLOAD_SECTIONS and isinstance(member.value, dict):
                self._autoload(doc, analysis, pos, member, settings)
            else:
                rest.append(member)
        self._package(doc, analysis, pos, data, rest, settings)
        analysis.chunks.sort(key=lambda c: (c.start_line, c.symbol_type != "package"))
        return analysis

    # ---- sections ------------------------------------------------------------------

    def _section_chunk(
        self,
        doc: SourceDocument,
        pos: _Positions,
        member: _Member,
        symbol_type: str,
        metadata: dict[str, Any],
        settings: ChunkSettings,
    ) -> list[Chunk]:
        first, last = pos.line(member.key_start), pos.line(member.value_end - 1)
        chunk = Chunk(
            path=doc.path,
            language=doc.language,
            symbol_name=member.key,
            symbol_type=symbol_type,
            start_line=first,
            end_line=last,
            content=doc.lines_text(first, last),
            metadata=metadata,
        )
        return split_oversized(chunk, settings)

    def _dependencies(
        self,
        doc: SourceDocument,
        analysis: FileAnalysis,
        pos: _Positions,
        member: _Member,
        settings: ChunkSettings,
    ) -> None:
        packages = object_members(doc.text, member.value_start)
        versions = {p.key: p.value for p in packages}
        metadata = {
            "packages": list(versions),
            "versions": versions,
            "type": _DEPENDENCY_SECTIONS[member.key],
        }
        analysis.chunks.extend(
            self._section_chunk(doc, pos, member, "dependencies", metadata, settings)
        )
        for p in packages:
            analysis.symbols.append(
                Symbol(
                    name=p.key,
                    kind=SymbolKind.KEY,
                    range=pos.range(p.key_start, p.value_end),
                    selection_range=pos.range(p.key_start + 1, p.key_end - 1),
                    qualified_name=f"{member.key}.{p.key}",
                    container=member.key,
                    signature=f'"{p.key}": {json.dumps(p.value)}',
                )
            )

    def _autoload(
        self,
        doc: SourceDocument,
        analysis: FileAnalysis,
        pos: _Positions,
        member: _Member,
        settings: ChunkSettings,
    ) -> None:
        metadata: dict[str, Any] = {"namespaces": [], "psr4": {}}
        for kind in object_members(doc.text, member.value_start):
            if kind.key in ("psr-4", "psr-0") and isinstance(kind.value, dict):
                mapping = {
                    ns.key: ns.value if isinstance(ns.value, list) else [ns.value]
                    for ns in object_members(doc.text, kind.value_start)
                }
                if kind.key == "psr-4":
                    metadata["psr4"] = mapping
                    metadata["namespaces"] = list(mapping)
                else:
                    metadata["psr0"] = mapping
                for ns in object_members(doc.text, kind.value_start):
                    qualified = f"{member.key}.{kind.key}.{ns.key}"
                    analysis.symbols.append(
                        Symbol(
                            name=ns.key,
                            kind=SymbolKind.KEY,
                            range=pos.range(ns.key_start, ns.value_end),
                            selection_range=pos.range(ns.key_start + 1, ns.key_end - 1),
                            qualified_name=qualified,
                            container=f"{member.key}.{kind.key}",
                            signature=f"{json.dumps(ns.key)}: {json.dumps(ns.value)}",
                        )
                    )
            elif kind.key in ("files", "classmap", "exclude-from-classmap") and isinstance(
                kind.value, list
            ):
                metadata[kind.key.replace("-", "_")] = kind.value
        metadata["paths"] = sorted({p for dirs in metadata["psr4"].values() for p in dirs})
        analysis.chunks.extend(
            self._section_chunk(doc, pos, member, "autoload", metadata, settings)
        )

    def _package(
        self,
        doc: SourceDocument,
        analysis: FileAnalysis,
        pos: _Positions,
        data: dict[str, Any],
        rest: list[_Member],
        settings: ChunkSettings,
    ) -> None:
        """Everything that is not dependencies or autoload, as one summary chunk: the
        package's identity, scripts and config are what "what is this project" needs."""
        name = data.get("name") if isinstance(data.get("name"), str) else None
        if not rest and not name:
            return
        content = "\n".join(doc.text[m.key_start : m.value_end] for m in rest)
        metadata: dict[str, Any] = {
            key: data[key]
            for key in ("name", "description", "type", "license", "keywords", "minimum-stability")
            if key in data
        }
        scripts = data.get("scripts")
        if isinstance(scripts, dict):
            metadata["scripts"] = list(scripts)
        require = data.get("require")
        if isinstance(require, dict) and isinstance(require.get("php"), str):
            metadata["php"] = require["php"]
        last = max(len(doc.lines) - 1, 0)
        chunk = Chunk(
            path=doc.path,
            language=doc.language,
            symbol_name=name or doc.path,
            symbol_type="package",
            start_line=0,
            end_line=last,
            content=content,
            metadata=metadata,
        )
        analysis.chunks.extend(split_oversized(chunk, settings))
        name_member = next((m for m in rest if m.key == "name"), None)
        if name and name_member is not None:
            analysis.symbols.insert(
                0,
                Symbol(
                    name=name,
                    kind=SymbolKind.PACKAGE,
                    range=pos.range(name_member.key_start, name_member.value_end),
                    selection_range=pos.range(
                        name_member.value_start + 1, name_member.value_end - 1
                    ),
                    qualified_name=name,
                    signature=f'"name": {json.dumps(name)}',
                ),
            )
