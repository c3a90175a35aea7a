"""Laravel migrations (`database/migrations/*.php`): the database schema as chunks.

Each `Schema::create('orders', fn (Blueprint $table) => ...)` becomes a `table_schema`
chunk and each `Schema::table(...)` a `table_alter` chunk, with the columns, indexes
and foreign keys read from the Blueprint calls, so "where are orders stored?" finds the
table and its relations without reading PHP. The file's PHP symbols (the migration
class, `up`/`down`) are kept by reusing the PHP strategy; created tables become
`table` symbols and their columns `field` symbols (`orders.user_id`).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

import tree_sitter

from ..model import Chunk, FileAnalysis, Symbol, SymbolKind
from ..source import SourceDocument
from .base import ChunkSettings, FileWork, _Def, split_oversized
from .php import (
    PhpStrategy,
    call_arguments,
    class_constant_target,
    literal_value,
    resolve_name,
    string_list,
    string_value,
)

_DATE_PREFIX = re.compile(r"^\d{4}_\d{2}_\d{2}_\d{6}_")
_INDEX_METHODS = frozenset({"index", "unique", "primary", "fullText", "spatialIndex", "rawIndex"})
_TABLE_OPTIONS = frozenset({"engine", "charset", "collation", "comment", "temporary"})
_DROP_COLUMN_METHODS = frozenset({"dropColumn", "dropColumns", "dropConstrainedForeignId"})
_OTHER_OPERATIONS = frozenset(
    {
        "dropForeign",
        "dropIndex",
        "dropUnique",
        "dropPrimary",
        "dropFullText",
        "dropSpatialIndex",
        "dropTimestamps",
        "dropTimestampsTz",
        "dropSoftDeletes",
        "dropSoftDeletesTz",
        "dropRememberToken",
        "dropMorphs",
        "dropForeignIdFor",
        "dropConstrainedForeignIdFor",
        "renameColumn",
        "renameIndex",
        "rename",
        "drop",
        "dropIfExists",
    }
)
_ON_DELETE = {
    "cascadeOnDelete": "cascade",
    "restrictOnDelete": "restrict",
    "nullOnDelete": "set null",
    "noActionOnDelete": "no action",
}
_ON_UPDATE = {
    "cascadeOnUpdate": "cascade",
    "restrictOnUpdate": "restrict",
    "nullOnUpdate": "set null",
    "noActionOnUpdate": "no action",
}


def migration_class_name(path: str) -> str:
    """`2024_01_01_000000_create_users_table.php` -> `CreateUsersTable` (the class name
    Laravel generated before anonymous migrations, so old and new files read alike)."""
    stem = _DATE_PREFIX.sub("", PurePosixPath(path).stem)
    return "".join(part[:1].upper() + part[1:] for part in stem.split("_") if part) or stem


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def plural(word: str) -> str:
    """English plural as Laravel's `Str::plural` gives it for ordinary table names."""
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", word):
        return word + "es"
    return word + "s"


class LaravelMigrationStrategy(PhpStrategy):
    language = "laravel_migration"
    grammar_name = "php"
    chunks_can_wait = False  # table and column symbols come from `finish`

    def anonymous_class_name(self, doc: SourceDocument, node: tree_sitter.Node) -> str:
        return migration_class_name(doc.path)

    def finish(self, work: FileWork) -> None:
        super().finish(work)
        doc, analysis, defs, settings = work.doc, work.analysis, work.defs, work.settings
        root = doc.tree.root_node  # type: ignore[union-attr]
        tables: dict[str, list[str]] = {"created": [], "altered": [], "dropped": []}
        for call, operation, args in _schema_calls(doc, root, analysis.imports):
            if operation in ("drop", "dropIfExists"):
                name = string_value(doc, args[0]) if args else None
                if name:
                    tables["dropped"].append(name)
                continue
            schema = self._table(doc, call, operation, args, defs)
            if schema is None:
                continue
            tables["created" if operation == "create" else "altered"].append(schema.table)
            self._emit(doc, analysis, call, operation, schema, settings)
        classes = {d.symbol.qualified_name for d in defs if d.symbol.kind is SymbolKind.CLASS}
        for chunk in analysis.chunks:
            if chunk.symbol_type == "method" and chunk.symbol_name in ("up", "down"):
                # Same Blueprint calls as the table chunks, minus the structure: left to
                # those for semantic search, where they would outrank them.
                chunk.metadata["embed"] = False
            if chunk.symbol_type == "class" and chunk.metadata.get("qualified_name") in classes:
                chunk.metadata["tables"] = {
                    k: list(dict.fromkeys(v)) for k, v in tables.items() if v
                }

    # ---- one Schema call -------------------------------------------------------------

    def _table(
        self,
        doc: SourceDocument,
        call: tree_sitter.Node,
        operation: str,
        args: list[tree_sitter.Node],
        defs: list[_Def],
    ) -> _Blueprint | None:
        """Read the Blueprint closure of one `Schema::create/table` call."""
        if len(args) < 2:
            return None
        name_arg = args[0]
        table_name = string_value(doc, name_arg) or doc.node_text(name_arg)
        closure = args[1].named_children[-1] if args[1].named_child_count else None
        if closure is None or closure.type not in ("anonymous_function", "arrow_function"):
            return None
        params = closure.child_by_field_name("parameters")
        first = next(
            (
                p
                for p in (params.named_children if params is not None else [])
                if p.type == "simple_parameter"
            ),
            None,
        )
        var_node = first.child_by_field_name("name") if first is not None else None
        blueprint = doc.node_text(var_node) if var_node is not None else "$table"
        schema = _Blueprint(doc, table_name, name_arg)
        schema.var = blueprint
        body = closure.child_by_field_name("body")
        if body is not None:
            for stmt in _statements(body):
                chain = _chain(doc, stmt, blueprint)
                if chain:
                    schema.apply(chain, stmt)
        schema.migration = next(
            (
                d.symbol.name
                for d in defs
                if d.symbol.kind is SymbolKind.CLASS
                and d.node.start_byte <= call.start_byte < d.node.end_byte
            ),
            None,
        )
        return schema

    def _emit(
        self,
        doc: SourceDocument,
        analysis: FileAnalysis,
        call: tree_sitter.Node,
        operation: str,
        schema: _Blueprint,
        settings: ChunkSettings,
    ) -> None:
        """The chunk, plus `table`/`field` symbols for what the call declares."""
        table = schema.metadata(operation)
        stmt = (
            call.parent
            if call.parent is not None and call.parent.type == "expression_statement"
            else call
        )
        start, end = stmt.start_point[0], stmt.end_point[0]
        chunk = Chunk(
            path=doc.path,
            language=doc.language,
            symbol_name=table["table"],
            symbol_type="table_schema" if operation == "create" else "table_alter",
            start_line=start,
            end_line=end,
            content=doc.lines_text(start, end),
            metadata=table,
        )
        analysis.chunks.extend(split_oversized(chunk, settings))
        if operation == "create":
            analysis.symbols.append(
                Symbol(
                    name=table["table"],
                    kind=SymbolKind.TABLE,
                    range=doc.node_range(stmt),
                    selection_range=doc.node_range(schema.name_node),
                    qualified_name=table["table"],
                    signature=f"Schema::create('{table['table']}')",
                )
            )
        for column in table["columns"]:
            stmt_node, sel_node = schema.positions[column["name"]]
            analysis.symbols.append(
                Symbol(
                    name=column["name"],
                    kind=SymbolKind.FIELD,
                    range=doc.node_range(stmt_node),
                    selection_range=doc.node_range(sel_node),
                    qualified_name=f"{table['table']}.{column['name']}",
                    container=table["table"],
                    signature=" ".join(doc.node_text(stmt_node).split())[:200],
                )
            )


# One fluent call: (method name, argument nodes, node of the method name).
_Call = tuple[str, list[tree_sitter.Node], tree_sitter.Node]


class _Blueprint:
    """Accumulates what one Blueprint closure declares."""

    def __init__(self, doc: SourceDocument, table: str, name_node: tree_sitter.Node) -> None:
        self.doc = doc
        self.table = table
        self.name_node = name_node
        self.columns: list[dict[str, Any]] = []
        self.indexes: list[dict[str, Any]] = []
        self.foreign_keys: list[dict[str, Any]] = []
        self.dropped: list[str] = []
        self.operations: list[dict[str, Any]] = []
        self.options: dict[str, Any] = {}
        self.migration: str | None = None
        self.var = "$table"  # the closure's Blueprint variable
        self.positions: dict[str, tuple[tree_sitter.Node, tree_sitter.Node]] = {}

    def _column(
        self,
        name: str,
        type_: str,
        stmt: tree_sitter.Node,
        sel: tree_sitter.Node,
        **extra: Any,
    ) -> dict[str, Any]:
        column: dict[str, Any] = {"name": name, "type": type_, "modifiers": [], **extra}
        self.columns.append(column)
        self.positions[name] = (stmt, sel)
        return column

    def apply(self, chain: list[_Call], stmt: tree_sitter.Node) -> None:
        doc = self.doc
        method, args, name_node = chain[0]
        modifiers = chain[1:]
        first = string_value(doc, args[0]) if args else None
        sel = args[0] if args else name_node
        columns: list[dict[str, Any]] = []
        if method == "after" and len(args) == 2:
            self._after_closure(first, args[1])
            return
        if method in _INDEX_METHODS:
            index: dict[str, Any] = {
                "type": method,
                "columns": string_list(doc, args[0]) if args else [],
            }
            if len(args) > 1 and string_value(doc, args[1]):
                index["name"] = string_value(doc, args[1])
            self.indexes.append(index)
            return
        if method == "foreign":
            cols = string_list(doc, args[0]) if args else []
            self._foreign_key({"column": cols[0] if len(cols) == 1 else cols}, modifiers)
            return
        if method in _TABLE_OPTIONS:
            self.options[method] = literal_value(doc, args[0]) if args else True
            return
        if method in _DROP_COLUMN_METHODS:
            for arg in args:
                self.dropped.extend(string_list(doc, arg))
            return
        if method in _OTHER_OPERATIONS:
            self.operations.append({"op": method, "args": [literal_value(doc, a) for a in args]})
            return
        if method == "id":
            columns.append(self._column(first or "id", "id", stmt, sel))
            self.indexes.append({"type": "primary", "columns": [first or "id"]})
        elif method in ("timestamps", "timestampsTz", "nullableTimestamps"):
            for name in ("created_at", "updated_at"):
                columns.append(self._column(name, "timestamp", stmt, sel, nullable=True))
        elif method in ("softDeletes", "softDeletesTz"):
            columns.append(
                self._column(first or "deleted_at", "timestamp", stmt, sel, nullable=True)
            )
        elif method == "rememberToken":
            columns.append(self._column("remember_token", "string", stmt, sel, nullable=True))
        elif method.endswith("orphs") and first:
            nullable = method.startswith("nullable")
            id_type = (
                "uuid" if "Uuid" in method else "ulid" if "Ulid" in method else "unsignedBigInteger"
            )
            columns.append(self._column(f"{first}_type", "string", stmt, sel, nullable=nullable))
            columns.append(self._column(f"{first}_id", id_type, stmt, sel, nullable=nullable))
            self.indexes.append({"type": "index", "columns": [f"{first}_type", f"{first}_id"]})
        elif method == "foreignIdFor" and args:
            model = class_constant_target(args[0], doc) or (string_value(doc, args[0]) or "")
            base = model.rsplit("\\", 1)[-1]
            name = (string_value(doc, args[1]) if len(args) > 1 else None) or f"{snake(base)}_id"
            columns.append(self._column(name, "foreignId", stmt, sel, model=model))
        elif first is not None:
            extra = [literal_value(doc, a) for a in args[1:]]
            columns.append(
                self._column(first, method, stmt, sel, **({"args": extra} if extra else {}))
            )
        else:
            self.operations.append({"op": method, "args": [literal_value(doc, a) for a in args]})
            return
        for column in columns:
            self._modifiers(column, modifiers, model_hint=columns[0].get("model"))

    def _modifiers(
        self,
        column: dict[str, Any],
        modifiers: list[_Call],
        model_hint: str | None,
    ) -> None:
        doc = self.doc
        fk: dict[str, Any] | None = None
        for name, args, _ in modifiers:
            column["modifiers"].append(name)
            if name == "nullable":
                column["nullable"] = not args or literal_value(doc, args[0]) is not False
            elif name == "default" and args:
                column["default"] = literal_value(doc, args[0])
            elif name == "comment" and args:
                column["comment"] = literal_value(doc, args[0])
            elif name in ("unique", "index", "primary", "fullText", "spatialIndex"):
                self.indexes.append({"type": name, "columns": [column["name"]]})
            elif name == "constrained":
                table = string_value(doc, args[0]) if args else None
                ref = string_value(doc, args[1]) if len(args) > 1 else None
                if table is None:
                    if model_hint:
                        table = plural(snake(model_hint.rsplit("\\", 1)[-1]))
                    else:
                        table = plural(re.sub(r"_id$", "", column["name"]))
                fk = {"column": column["name"], "references": ref or "id", "on": table}
        if fk is None and any(m[0] in ("references", "on") for m in modifiers):
            fk = {"column": column["name"]}
        if fk is not None:
            self._foreign_key(fk, [m for m in modifiers if m[0] != "constrained"])

    def _after_closure(self, anchor: str | None, arg: tree_sitter.Node) -> None:
        """`$table->after('hero_image', function (Blueprint $table) { ... })`: the
        closure's columns are added after `hero_image`, in order."""
        closure = arg.named_children[-1] if arg.type == "argument" and arg.named_child_count else arg
        if closure.type not in ("anonymous_function", "arrow_function"):
            return
        params = closure.child_by_field_name("parameters")
        first = next(
            (p for p in (params.named_children if params is not None else [])
             if p.type == "simple_parameter"),
            None,
        )
        var_node = first.child_by_field_name("name") if first is not None else None
        body = closure.child_by_field_name("body")
        if body is None:
            return
        # `function (Blueprint $table)` or `function () use ($table)`.
        blueprint = self.doc.node_text(var_node) if var_node is not None else self.var
        before = len(self.columns)
        for stmt in _statements(body):
            chain = _chain(self.doc, stmt, blueprint)
            if chain:
                self.apply(chain, stmt)
        previous = anchor
        for column in self.columns[before:]:
            if previous and "after" not in column:
                column["modifiers"].append("after")
                column["after"] = previous
            previous = column["name"]

    def _foreign_key(self, fk: dict[str, Any], modifiers: list[_Call]) -> None:
        doc = self.doc
        fk.setdefault("references", None)
        fk.setdefault("on", None)
        fk["on_delete"] = None
        for name, args, _ in modifiers:
            value = literal_value(doc, args[0]) if args else None
            if name == "references":
                refs = string_list(doc, args[0]) if args else []
                fk["references"] = refs[0] if len(refs) == 1 else refs or value
            elif name in ("on", "inTable"):
                fk["on"] = value
            elif name == "onDelete":
                fk["on_delete"] = value
            elif name == "onUpdate":
                fk["on_update"] = value
            elif name in _ON_DELETE:
                fk["on_delete"] = _ON_DELETE[name]
            elif name in _ON_UPDATE:
                fk["on_update"] = _ON_UPDATE[name]
        self.foreign_keys.append(fk)

    def metadata(self, operation: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "table": self.table,
            "operation": "create" if operation == "create" else "alter",
            "columns": self.columns,
            "indexes": self.indexes,
            "foreign_keys": self.foreign_keys,
        }
        if self.dropped:
            out["dropped_columns"] = self.dropped
        if self.operations:
            out["operations"] = self.operations
        if self.options:
            out["options"] = self.options
        if self.migration:
            out["migration"] = self.migration
        related = [fk["on"] for fk in self.foreign_keys if isinstance(fk.get("on"), str)]
        if related:
            out["related_tables"] = list(dict.fromkeys(related))
        return out


def _schema_calls(
    doc: SourceDocument, root: tree_sitter.Node, imports: dict[str, str]
) -> list[tuple[tree_sitter.Node, str, list[tree_sitter.Node]]]:
    """(call node, operation, arguments) for `Schema::create/table/drop...(...)` and
    `Schema::connection('x')->create(...)`, in source order."""
    stack = [root]
    found: list[tuple[tree_sitter.Node, str, list[tree_sitter.Node]]] = []
    while stack:
        node = stack.pop()
        if node.type in ("scoped_call_expression", "member_call_expression"):
            name_node = node.child_by_field_name("name")
            op = doc.node_text(name_node) if name_node is not None else ""
            if op in ("create", "table", "drop", "dropIfExists") and _is_schema(doc, node, imports):
                found.append((node, op, call_arguments(node)))
        stack.extend(reversed(node.named_children))
    found.sort(key=lambda t: t[0].start_byte)
    return found


def _is_schema(doc: SourceDocument, node: tree_sitter.Node, imports: dict[str, str]) -> bool:
    if node.type == "member_call_expression":
        obj = node.child_by_field_name("object")
        if obj is None or obj.type != "scoped_call_expression":
            return False
        conn = obj.child_by_field_name("name")
        if conn is None or doc.node_text(conn) != "connection":
            return False
        node = obj
    scope = node.child_by_field_name("scope")
    if scope is None:
        return False
    target = resolve_name(doc.node_text(scope), None, imports)
    return target.rsplit("\\", 1)[-1] == "Schema"


def _statements(body: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Expression statements of the closure, including those under `if`/loops, but not
    inside nested closures."""
    if body.type != "compound_statement":
        return [body]  # arrow function: the expression itself
    out = []
    stack = [body]
    while stack:
        node = stack.pop()
        for child in reversed(node.named_children):
            if child.type == "expression_statement":
                out.append(child)
            elif child.type not in ("anonymous_function", "arrow_function"):
                stack.append(child)
    out.sort(key=lambda n: n.start_byte)
    return out


def _chain(doc: SourceDocument, stmt: tree_sitter.Node, blueprint: str) -> list[_Call]:
    """`$table->string('email')->unique()` -> [(string, args), (unique, args)], or []
    when the statement is not a call chain on the Blueprint variable."""
    node: tree_sitter.Node | None = (
        stmt.named_children[0]
        if stmt.type == "expression_statement" and stmt.named_child_count
        else stmt
    )
    calls: list[_Call] = []
    while node is not None and node.type in (
        "member_call_expression",
        "nullsafe_member_call_expression",
    ):
        name = node.child_by_field_name("name")
        calls.append(
            (doc.node_text(name) if name is not None else "", call_arguments(node), name or node)
        )
        node = node.child_by_field_name("object")
    if node is None or node.type != "variable_name" or doc.node_text(node) != blueprint:
        return []
    calls.reverse()
    return calls
