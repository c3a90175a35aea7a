"""The `codeIntel/*` requests: names, typed params and results.

Params are attrs classes structured strictly from the raw JSON (pygls would hand us
namedtuples, which lose keys that are not identifiers and accept anything), so a bad
field becomes `InvalidParams` naming that field. Results are attrs classes unstructured
with a plain converter, so LSP types (Range) nest inside them in their usual shape.

Keys are snake_case on the wire, params and results alike, because these requests
map one-to-one onto the MCP tools an agent calls. Lines in params and results are 1-based (`line`), because these requests serve
agents and people reading files; every result also carries the 0-based LSP `range`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import cattrs
from code_intel.indexing.validation import InvalidInput, strict_converter, structure
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol

PREFIX = "codeIntel/"
SEARCH_TEXT = "codeIntel/searchText"
FIND_DEFINITIONS = "codeIntel/findDefinitions"
FIND_REFERENCES = "codeIntel/findReferences"
ANALYZE_STRUCTURE = "codeIntel/analyzeStructure"
GET_FUNCTION_AT_LINE = "codeIntel/getFunctionAtLine"
GET_SYMBOLS = "codeIntel/getSymbols"
SYNC_INDEX = "codeIntel/syncIndex"
INDEX_STATUS = "codeIntel/indexStatus"
SEMANTIC_SEARCH = "codeIntel/semanticSearch"
QUERY = "codeIntel/query"
SESSION_PREFIX = "codeIntel/session/"
SESSION_CHANGED = "codeIntel/sessionChanged"
GATING_REFUSED = -32001  # error code of a request the gating engine refuses
_EXPECTED_ERRORS = (JsonRpcInvalidParams.CODE, GATING_REFUSED)

T = TypeVar("T")
_converter = strict_converter()


def _limit(maximum: int):
    def check(instance: Any, attribute: attrs.Attribute, value: int) -> None:
        if not 1 <= value <= maximum:
            raise ValueError(f"{attribute.name} must be between 1 and {maximum}, got {value}")

    return check


def _non_empty(instance: Any, attribute: attrs.Attribute, value: str) -> None:
    if not value.strip():
        raise ValueError(f"{attribute.name} is empty")


def _positive_line(instance: Any, attribute: attrs.Attribute, value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} is 1-based and must be at least 1, got {value}")


# ---- params ---------------------------------------------------------------------


@attrs.frozen
class SearchTextParams:
    """Regex (or literal) search over the workspace with ripgrep."""

    pattern: str = attrs.field(validator=_non_empty)
    path: str | None = None  # file or directory, workspace-relative
    glob: str | None = None
    ignore_case: bool = False
    fixed_strings: bool = False
    context: int = 0
    max_results: int = attrs.field(default=100, validator=_limit(1000))


@attrs.frozen
class FindDefinitionsParams:
    name: str = attrs.field(validator=_non_empty)
    exact: bool = True  # False: case-insensitive substring of the short name
    language: str | None = None
    limit: int = attrs.field(default=50, validator=_limit(500))


@attrs.frozen
class FindReferencesParams:
    name: str = attrs.field(validator=_non_empty)
    include_declaration: bool = False
    limit: int = attrs.field(default=200, validator=_limit(5000))


@attrs.frozen
class AnalyzeStructureParams:
    path: str = attrs.field(validator=_non_empty)


@attrs.frozen
class GetFunctionAtLineParams:
    path: str = attrs.field(validator=_non_empty)
    line: int = attrs.field(validator=_positive_line)


@attrs.frozen
class GetSymbolsParams:
    """Symbols of a file or a directory (prefix), optionally one kind or a fuzzy query."""

    path: str | None = None
    kind: str | None = None
    query: str | None = None
    limit: int = attrs.field(default=200, validator=_limit(5000))


@attrs.frozen
class SyncIndexParams:
    force: bool = False


@attrs.frozen
class IndexStatusParams:
    pass


@attrs.frozen
class SemanticSearchParams:
    """Vector search; `collection` auto tries the learned map first (short circuit)."""

    query: str
    collection: str = "auto"
    n_results: int = 10


@attrs.frozen
class QueryParams:
    """Hybrid search: lexical, vector, definition and reference signals fused."""

    text: str
    top: int = 10
    fusion: str = "rrf"
    include_prose: bool = False  # rank docs, changelogs, translations and lock files like code


# ---- results --------------------------------------------------------------------


@attrs.frozen
class SymbolInfo:
    name: str
    kind: str
    qualified_name: str
    path: str
    uri: str
    line: int
    range: types.Range
    selection_range: types.Range
    language: str
    container: str | None = None
    signature: str | None = None
    doc: str | None = None


@attrs.frozen
class ReferenceInfo:
    name: str
    path: str
    uri: str
    line: int
    range: types.Range
    container: str | None = None
    is_declaration: bool = False


@attrs.frozen
class TextMatchInfo:
    path: str
    line: int
    column: int
    content: str
    before: list[str] = attrs.field(factory=list)
    after: list[str] = attrs.field(factory=list)


@attrs.frozen
class SearchTextResult:
    matches: list[TextMatchInfo]
    total: int
    truncated: bool


@attrs.frozen
class FindDefinitionsResult:
    name: str
    definitions: list[SymbolInfo]
    truncated: bool


@attrs.frozen
class PossibleReferenceInfo:
    """A same-named occurrence that may or may not mean the symbol, and why."""

    name: str
    path: str
    uri: str
    line: int
    range: types.Range
    reason: str
    container: str | None = None


@attrs.frozen
class FindReferencesResult:
    name: str
    references: list[ReferenceInfo]
    files: int
    truncated: bool
    # occurrences nothing decides (an untyped receiver): listed apart, with the reason
    possible: list[PossibleReferenceInfo] = attrs.field(factory=list)


@attrs.frozen
class OutlineNode:
    name: str
    kind: str
    qualified_name: str
    line: int
    end_line: int
    signature: str | None = None
    children: list[OutlineNode] = attrs.field(factory=list)


@attrs.frozen
class ChunkSummary:
    symbol_name: str
    symbol_type: str
    line: int
    end_line: int


@attrs.frozen
class AnalyzeStructureResult:
    path: str
    language: str
    symbols: list[OutlineNode]
    imports: dict[str, str]
    chunks: list[ChunkSummary]
    unsaved: bool  # answered from an open editor buffer, not the disk


@attrs.frozen
class GetFunctionAtLineResult:
    path: str
    line: int
    symbol: SymbolInfo | None
    content: str | None


@attrs.frozen
class GetSymbolsResult:
    symbols: list[SymbolInfo]
    truncated: bool


@attrs.frozen
class SyncIndexResult:
    added: list[str]
    modified: list[str]
    deleted: list[str]
    unchanged: int
    skipped: dict[str, str]
    elapsed_seconds: float


@attrs.frozen
class SyncProgress:
    done: int
    total: int
    percent: int


@attrs.frozen
class IndexStatusResult:
    """`state` is starting | indexing | ready | error; `sync_count` and
    `last_sync_time` move with every sync, incremental ones included."""

    state: str
    workspace: str
    progress: SyncProgress
    last_sync_time: float | None
    sync_count: int
    last_sync: dict[str, float]
    counts: dict[str, Any]
    open_documents: list[str]
    messages: list[str]
    error: str | None = None
    search: dict[str, Any] | None = None  # lexical and vector sync, model loading


# ---- wire -----------------------------------------------------------------------


def structure_params(raw: Any, cls: type[T]) -> T:
    """Strictly structure raw JSON params, or raise InvalidParams naming the field.
    No params may come as null or as `[]` (Lua clients cannot tell an empty object
    from an empty list)."""
    try:
        return structure(_converter, {} if raw is None or raw == [] else raw, cls, "params")
    except InvalidInput as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


_wire = cattrs.Converter()


def to_wire(result: Any) -> Any:
    return _wire.unstructure(result)


def tool_name(method: str) -> str:
    """`codeIntel/findDefinitions` → `find_definitions`, the agent's name for it."""
    name = method.removeprefix(PREFIX)
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def custom_request(server: Any, method: str, params_cls: type[T]) -> Callable:
    """Register `fn(ls, params: params_cls) -> attrs result` as a `codeIntel/*` handler.

    Params may carry `session_id`: the call is then an agent's tool call, checked and
    logged by the gating engine (`ls.gated`) around `fn`; editors send none.
    """

    def decorate(fn: Callable) -> Callable:
        async def run(ls: Any, params: Any) -> Any:
            result = fn(ls, params)
            return to_wire(await result if inspect.isawaitable(result) else result)

        async def handler(ls: Any, raw: Any) -> Any:
            args = dict(raw) if isinstance(raw, dict) else raw
            session_id = args.pop("session_id", None) if isinstance(args, dict) else None
            params = structure_params(args, params_cls)
            if session_id is None:
                return await run(ls, params)
            return await ls.gated(tool_name(method), session_id, args, lambda: run(ls, params))

        server.feature(method)(handler)
        return fn

    return decorate


class CodeIntelProtocol(LanguageServerProtocol):
    """Keeps `codeIntel/*` params as the raw JSON object for `structure_params`, and
    answers bad params and gating refusals without logging them as internal errors:
    they are answers the caller acts on."""

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        exc = None if future.cancelled() else future.exception()
        if isinstance(exc, JsonRpcException) and exc.code in _EXPECTED_ERRORS:
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, error=exc.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def structure_message(self, data: dict[str, Any]):
        method = data.get("method")
        if "jsonrpc" in data and isinstance(method, str) and method.startswith(PREFIX):
            if "id" in data:
                return JsonRPCRequestMessage(
                    id=data["id"], method=method, params=data.get("params"), jsonrpc=data["jsonrpc"]
                )
            return JsonRPCNotification(method=method, params=data.get("params"), jsonrpc=data["jsonrpc"])
        return super().structure_message(data)
