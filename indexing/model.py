"""Records the indexer produces and the store, CLI and language server consume.

Positions are LSP-shaped (0-based line, UTF-16 column) so the language server can hand
them to editors without a second conversion, and the CLI adds 1 for humans.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple


class SymbolKind(StrEnum):
    """Closed set of definition kinds; names follow LSP's SymbolKind where one exists.

    The indexer's hot loops read a kind's text as `kind._value_` (the member's own
    attribute): `.value` is a Python-level property of `enum`, ~0.4 us a read, and
    sympy's rows and chunks read it ~110k times."""

    MODULE = "module"
    NAMESPACE = "namespace"
    PACKAGE = "package"
    CLASS = "class"
    INTERFACE = "interface"
    TRAIT = "trait"
    ENUM = "enum"
    STRUCT = "struct"
    TYPE = "type"
    FUNCTION = "function"
    METHOD = "method"
    CONSTRUCTOR = "constructor"
    PROPERTY = "property"
    FIELD = "field"
    CONSTANT = "constant"
    VARIABLE = "variable"
    ENUM_MEMBER = "enum_member"
    COMPONENT = "component"
    ELEMENT = "element"
    SELECTOR = "selector"
    SECTION = "section"
    TABLE = "table"
    KEY = "key"
    ROUTE = "route"


# Position, Range, Symbol and Chunk are frozen, and a frozen dataclass's own __init__
# assigns each field through `object.__setattr__`, looked up anew per field and call. The
# indexer builds seven of them per definition (2-3 % of a PHP or Python file's analysis),
# so their __init__s assign through the slots' own setters, bound once below each class:
# 230 -> 145 ns a Position. Still frozen: assignment after __init__ raises
# FrozenInstanceError. `test_model_records` checks each __init__ against the fields.


@dataclass(frozen=True, slots=True)
class Position:
    line: int
    character: int

    def __init__(self, line: int, character: int) -> None:
        _position_line(self, line)
        _position_character(self, character)


_position_line, _position_character = Position.line.__set__, Position.character.__set__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Range:
    start: Position
    end: Position

    def __init__(self, start: Position, end: Position) -> None:
        _range_start(self, start)
        _range_end(self, end)

    def contains_line(self, line: int) -> bool:
        return self.start.line <= line <= self.end.line


_range_start, _range_end = Range.start.__set__, Range.end.__set__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition: what `textDocument/definition`, outlines and ctags parity rest on."""

    name: str
    kind: SymbolKind
    range: Range
    selection_range: Range
    qualified_name: str
    container: str | None = None
    signature: str | None = None
    doc: str | None = None

    def __init__(
        self,
        name: str,
        kind: SymbolKind,
        range: Range,
        selection_range: Range,
        qualified_name: str,
        container: str | None = None,
        signature: str | None = None,
        doc: str | None = None,
    ) -> None:
        _symbol_name(self, name)
        _symbol_kind(self, kind)
        _symbol_range(self, range)
        _symbol_selection_range(self, selection_range)
        _symbol_qualified_name(self, qualified_name)
        _symbol_container(self, container)
        _symbol_signature(self, signature)
        _symbol_doc(self, doc)


(_symbol_name, _symbol_kind, _symbol_range, _symbol_selection_range, _symbol_qualified_name,
 _symbol_container, _symbol_signature, _symbol_doc) = (
    getattr(Symbol, f).__set__ for f in Symbol.__slots__
)


class Reference(NamedTuple):
    """An identifier occurrence outside a definition's name.

    A flat tuple rather than a dataclass holding a Range: a large repository has
    millions of these, and they cross a process boundary on every sync, where a
    tuple of ints pickles some thirty times faster than nested dataclasses.
    """

    name: str
    start_line: int
    start_character: int
    end_line: int
    end_character: int
    container: str | None = None

    @classmethod
    def at(cls, name: str, range: Range, container: str | None = None) -> Reference:
        return cls(
            name,
            range.start.line,
            range.start.character,
            range.end.line,
            range.end.character,
            container,
        )

    @property
    def range(self) -> Range:
        return Range(
            Position(self.start_line, self.start_character),
            Position(self.end_line, self.end_character),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "range": {
                "start": {"line": self.start_line, "character": self.start_character},
                "end": {"line": self.end_line, "character": self.end_character},
            },
            "container": self.container,
        }


@dataclass(frozen=True, slots=True)
class Chunk:
    """A syntactic unit of a file, the thing that is embedded and searched ("forest")."""

    path: str
    language: str
    symbol_name: str
    symbol_type: str
    start_line: int
    end_line: int
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        path: str,
        language: str,
        symbol_name: str,
        symbol_type: str,
        start_line: int,
        end_line: int,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        _chunk_path(self, path)
        _chunk_language(self, language)
        _chunk_symbol_name(self, symbol_name)
        _chunk_symbol_type(self, symbol_type)
        _chunk_start_line(self, start_line)
        _chunk_end_line(self, end_line)
        _chunk_content(self, content)
        _chunk_metadata(self, {} if metadata is None else metadata)

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(self.content.encode("utf-8", "surrogatepass")).hexdigest()  # sha256_text

    @property
    def id(self) -> str:
        key = f"{self.path}\0{self.start_line}\0{self.symbol_type}\0{self.symbol_name}"
        return hashlib.sha1(key.encode()).hexdigest()


(_chunk_path, _chunk_language, _chunk_symbol_name, _chunk_symbol_type, _chunk_start_line,
 _chunk_end_line, _chunk_content, _chunk_metadata) = (getattr(Chunk, f).__set__ for f in Chunk.__slots__)


#: Joins a file's distinct reference containers (ASCII unit separator: never part of a
#: qualified name); see `FileAnalysis.packed_references` and `store.pack_references`.
REFERENCE_CONTAINER_SEP = "\x1f"
#: A file's references as the store packs them: its (path, name, count, positions) rows
#: and its containers joined by REFERENCE_CONTAINER_SEP (see `store.pack_references`).
PackedReferences = tuple[list[tuple], str]


@dataclass(slots=True)
class FileAnalysis:
    """Everything one strategy extracted from one file."""

    path: str
    language: str
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    # local name -> qualified target, from `use` / `import` statements
    imports: dict[str, str] = field(default_factory=dict)
    syntax_errors: int = 0
    notes: list[str] = field(default_factory=list)
    # An editor's buffer is analysed after every edit but asked for definitions far more
    # often than for references or chunks: those passes can wait until someone asks.
    pending_references: Callable[[], list[Reference]] | None = field(default=None, repr=False, compare=False)
    pending_chunks: Callable[[], FileAnalysis] | None = field(default=None, repr=False, compare=False)
    # The index's sync asks for its reference rows already packed (`store.pack_references`'s
    # rows and containers) where the compiled pass can pack them as it finds them: no
    # Reference per occurrence, `references` stays empty.
    packed_references: PackedReferences | None = field(default=None, repr=False, compare=False)

    def complete_references(self) -> list[Reference]:
        """The references, running the pass that was left for later if there is one."""
        if self.pending_references is not None:
            self.references[:0] = self.pending_references()
            self.pending_references = None
        return self.references

    def complete_chunks(self) -> list[Chunk]:
        """The chunks, from a full analysis of the same tree if they were left for later."""
        if self.pending_chunks is not None:
            full = self.pending_chunks()
            self.pending_chunks = None
            self.chunks = full.chunks
            if self.pending_references is not None:
                self.references[:0] = full.references
                self.pending_references = None
        return self.chunks


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8", "surrogatepass"))
