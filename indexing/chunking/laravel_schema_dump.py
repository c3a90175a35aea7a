"""Squashed schema dumps (`database/schema/*.sql`, written by `php artisan
schema:dump`): each `CREATE TABLE` becomes a `table_schema` chunk like a migration's.

After a squash the migrations that created the tables are gone; the dump is the only
place the schema is written down. Indexed as plain text windows, `defs articles` found
nothing; here every table is a `table` symbol with its columns as `field` symbols
(`articles.title`), and the chunk lists columns, indexes and foreign keys in the same
shape the migration strategy uses. MySQL, PostgreSQL and SQLite dump syntax.
"""

from __future__ import annotations

import re
from typing import Any

from ..model import Chunk, FileAnalysis, Symbol, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings, line_windows, split_oversized

_NAME = rb'(?:[`"\[]?\w+[`"\]]?\.)?[`"\[]?(\w+)[`"\]]?'
_CREATE = re.compile(
    rb"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?" + _NAME + rb"\s*\(", re.IGNORECASE
)
_COLUMN = re.compile(rb'^\s*[`"\[]?(\w+)[`"\]]?\s+([A-Za-z][\w ]*?(?:\([^)]*\))?)(?=[\s,]|$)')
_KEY_COLUMNS = re.compile(rb"\(([^)]*)\)")
_FOREIGN = re.compile(
    rb"FOREIGN\s+KEY\s*\(([^)]*)\)\s*REFERENCES\s+" + _NAME + rb"\s*\(([^)]*)\)"
    rb"(?:.*?ON\s+DELETE\s+(CASCADE|SET\s+NULL|RESTRICT|NO\s+ACTION|SET\s+DEFAULT))?",
    re.IGNORECASE,
)
_CONSTRAINT_WORDS = frozenset(
    {"primary", "unique", "key", "index", "constraint", "foreign", "check", "fulltext"}
)


def _names(raw: bytes) -> list[str]:
    return [n.strip(b' `"[]').decode() for n in raw.split(b",") if n.strip()]


def _body_end(data: bytes, open_index: int) -> int:
    """The index of the `)` closing the `(` at open_index (quotes respected)."""
    depth = 0
    quote = 0
    i = open_index
    while i < len(data):
        c = data[i]
        if quote:
            if c == quote:
                quote = 0
        elif c in b"'\"`":
            quote = c
        elif c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(data) - 1


def parse_tables(data: bytes) -> list[dict[str, Any]]:
    """Every `CREATE TABLE` with byte spans: {table, columns, indexes, foreign_keys,
    _start, _end, _name_span, _column_spans}."""
    tables = []
    for m in _CREATE.finditer(data):
        open_index = m.end() - 1
        close = _body_end(data, open_index)
        stmt_end = data.find(b";", close)
        stmt_end = len(data) if stmt_end < 0 else stmt_end + 1
        table: dict[str, Any] = {
            "table": m.group(1).decode(),
            "operation": "create",
            "columns": [],
            "indexes": [],
            "foreign_keys": [],
            "_start": m.start(),
            "_end": stmt_end,
            "_name_span": m.span(1),
            "_column_spans": {},
        }
        offset = open_index + 1
        for raw_line in data[open_index + 1 : close].split(b"\n"):
            line_start = offset
            offset += len(raw_line) + 1
            line = raw_line.strip().rstrip(b",")
            if not line:
                continue
            first = line.split(None, 1)[0].strip(b'`"[]').lower().decode(errors="replace")
            if first in _CONSTRAINT_WORDS:
                _constraint(table, line)
                continue
            col = _COLUMN.match(raw_line)
            if col is None:
                continue
            rest = raw_line[col.end() :].upper()
            modifiers = []
            if b"NOT NULL" not in rest and b"NULL" in rest:
                modifiers.append("nullable")
            if b"AUTO_INCREMENT" in rest or b"AUTOINCREMENT" in rest:
                modifiers.append("autoIncrement")
            if b"PRIMARY KEY" in rest:
                table["indexes"].append({"type": "primary", "columns": [col.group(1).decode()]})
            table["columns"].append(
                {
                    "name": col.group(1).decode(),
                    "type": col.group(2).decode().strip().lower(),
                    "modifiers": modifiers,
                }
            )
            table["_column_spans"][col.group(1).decode()] = (
                line_start + col.start(1),
                line_start + col.end(1),
            )
        related = [fk["on"] for fk in table["foreign_keys"]]
        if related:
            table["related_tables"] = list(dict.fromkeys(related))
        tables.append(table)
    return tables


def _constraint(table: dict[str, Any], line: bytes) -> None:
    upper = line.upper()
    fk = _FOREIGN.search(line)
    if fk is not None:
        cols = _names(fk.group(1))
        refs = _names(fk.group(3))
        on_delete = fk.group(4).decode().lower() if fk.group(4) else None
        table["foreign_keys"].append(
            {
                "column": cols[0] if len(cols) == 1 else cols,
                "references": refs[0] if len(refs) == 1 else refs,
                "on": fk.group(2).decode(),
                "on_delete": on_delete,
            }
        )
        return
    cols = _KEY_COLUMNS.search(line)
    columns = _names(cols.group(1)) if cols else []
    if upper.startswith(b"PRIMARY"):
        kind = "primary"
    elif b"UNIQUE" in upper.split(b"(")[0]:
        kind = "unique"
    elif upper.startswith(b"FULLTEXT"):
        kind = "fullText"
    else:
        kind = "index"
    table["indexes"].append({"type": kind, "columns": columns})


class LaravelSchemaDumpStrategy:
    language = "laravel_schema_dump"

    def analyze(self, doc: SourceDocument, settings: ChunkSettings) -> FileAnalysis:
        analysis = FileAnalysis(path=doc.path, language=doc.language)
        tables = parse_tables(doc.data)
        if not tables:
            analysis.chunks = line_windows(doc, settings)
            analysis.notes.append("no CREATE TABLE statement: indexed as text windows")
            return analysis
        for table in tables:
            start, end = table.pop("_start"), table.pop("_end")
            name_span = table.pop("_name_span")
            column_spans = table.pop("_column_spans")
            stmt_range = doc.byte_range(start, end)
            first, last = stmt_range.start.line, stmt_range.end.line
            analysis.chunks.extend(
                split_oversized(
                    Chunk(
                        path=doc.path,
                        language=doc.language,
                        symbol_name=table["table"],
                        symbol_type="table_schema",
                        start_line=first,
                        end_line=last,
                        content=doc.lines_text(first, last),
                        metadata={**table, "source": "schema_dump"},
                    ),
                    settings,
                )
            )
            analysis.symbols.append(
                Symbol(
                    name=table["table"],
                    kind=SymbolKind.TABLE,
                    range=stmt_range,
                    selection_range=doc.byte_range(*name_span),
                    qualified_name=table["table"],
                    signature=f"CREATE TABLE {table['table']}",
                )
            )
            for column in table["columns"]:
                span = column_spans[column["name"]]
                analysis.symbols.append(
                    Symbol(
                        name=column["name"],
                        kind=SymbolKind.FIELD,
                        range=doc.byte_range(*span),
                        selection_range=doc.byte_range(*span),
                        qualified_name=f"{table['table']}.{column['name']}",
                        container=table["table"],
                        signature=f"{column['name']} {column['type']}",
                    )
                )
        return analysis
