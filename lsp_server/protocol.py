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

import asyncio
import functools
import inspect
import logging
import re
import secrets
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import attrs
import cattrs
from code_intel.indexing.paths import UnusablePath
from code_intel.indexing.validation import InvalidInput, strict_converter, structure
from lsprotocol import types
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

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
log = logging.getLogger(__name__)
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
    include_prose: bool = False  # rank docs, changelogs, translations, lock files, vendored files, stylesheets, config, migrations, seed data like code


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


def after_first_build(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Awaitable[Any]]:
    """A navigation handler that answers once the workspace's first build is done (at
    most `FIRST_BUILD_WAIT_SECONDS`, see `WorkspaceHub.first_build`); on a built index
    it runs at once. `fn` may be synchronous or a coroutine function."""

    @functools.wraps(fn)
    async def handler(ls: Any, params: Any) -> Any:
        if ls.hub is not None:
            await ls.hub.first_build(ls)
        result = fn(ls, params)
        return await result if inspect.isawaitable(result) else result

    return handler


def on_worker_thread(fn: Callable[[Any, Any], T]) -> Callable[[Any, Any], Awaitable[T]]:
    """A synchronous handler `fn(ls, params)` whose cost grows with the workspace, run
    on a worker thread: the event loop keeps serving the other requests meanwhile, and
    a `$/cancelRequest` cancels the awaiting task, so the caller is answered -32800 at
    once (the thread's result is then dropped)."""

    @functools.wraps(fn)
    async def handler(ls: Any, params: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(None, fn, ls, params)

    return handler


def custom_request(server: Any, method: str, params_cls: type[T], *, off_loop: bool = False) -> Callable:
    """Register `fn(ls, params: params_cls) -> attrs result` as a `codeIntel/*` handler.

    Params may carry `session_id`: the call is then an agent's tool call, checked and
    logged by the gating engine (`ls.gated`) around `fn`; editors send none.
    `off_loop`: a synchronous `fn` whose cost grows with the workspace (ripgrep, every
    reference of a name) runs on a worker thread, so the other clients are not kept
    waiting, and a `$/cancelRequest` answers the caller at once.
    """

    def decorate(fn: Callable) -> Callable:
        call = on_worker_thread(fn) if off_loop and not inspect.iscoroutinefunction(fn) else fn

        async def run(ls: Any, params: Any) -> Any:
            result = call(ls, params)
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


@attrs.frozen
class UnreadableRequest:
    """A request whose params did not structure; answered `InvalidParams` with its id
    (pygls would raise while parsing, before the id is known, and never answer)."""

    id: Any
    method: str
    problem: str
    jsonrpc: str = "2.0"


def _structure_problem(exc: BaseException) -> str:
    """`params.textDocument.uri: expected str` from cattrs' nested validation errors."""
    cause = exc.__cause__ or exc
    if isinstance(cause, cattrs.BaseValidationError):
        parts = []
        for message in cattrs.transform_error(cause, path="$"):
            text, _, where = message.rpartition(" @ ")
            parts.append(f"{_camel(where.removeprefix('$.')) or 'message'}: {text}")
        return "; ".join(parts)
    return str(cause) or type(cause).__name__


def _camel(path: str) -> str:
    """`params.text_document.uri` → `params.textDocument.uri`: the names on the wire."""
    return ".".join(re.sub(r"_([a-z])", lambda m: m.group(1).upper(), part) for part in path.split("."))


def _token_of(params: Any) -> Any:
    options = getattr(params, "initialization_options", None)
    if isinstance(options, dict):
        return options.get("token")
    return getattr(options, "token", None)


class CodeIntelProtocol(LanguageServerProtocol):
    """Keeps `codeIntel/*` params as the raw JSON object for `structure_params`, and
    answers bad params and gating refusals without logging them as internal errors:
    they are answers the caller acts on.

    It is also the connection's gatekeeper. With `required_token` set (every endpoint
    connection, `lsp --tcp`), nothing is handled before an `initialize` carrying that
    token; anything else, or a wrong token, ends the connection (`on_refused`) and
    every message already queued behind it is dropped. Without it (the editor's stdio)
    requests before `initialize` get -32002, as the protocol says.
    """

    required_token: str | None = None
    on_refused: Callable[[], None] | None = None
    _authenticated = False
    _refused = False
    _initialize_seen = False

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        exc = None if future.cancelled() else future.exception()
        if isinstance(exc, UnusablePath):  # a NUL byte, a symlink loop, an over-long name
            exc = JsonRpcInvalidParams(str(exc))
        if isinstance(exc, JsonRpcException) and exc.code in _EXPECTED_ERRORS:
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, error=exc.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _send_data(self, data: Any) -> None:
        """A result that cannot be encoded (nested too deep, say) still gets a reply:
        pygls would log the failure and leave the client waiting."""
        if hasattr(data, "result") and getattr(data, "id", None) is not None and attrs.has(type(data)):
            try:
                data = self._converter.unstructure(data)
            except (RecursionError, TypeError, ValueError) as exc:
                log.error("cannot encode the result of request %s: %r", data.id, exc)
                data = ResponseErrorMessage(
                    id=data.id,
                    error=types.ResponseError(
                        code=types.ErrorCodes.InternalError,
                        message=f"code-intel internal error: the result could not be encoded ({type(exc).__name__})",
                    ),
                )
        super()._send_data(data)

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        """No traceback reaches a client: pygls puts one in an internal error's data;
        it goes to the server's log instead."""
        data = getattr(error, "data", None)
        if isinstance(data, dict) and "traceback" in data:
            log.error("request %s failed: %s\n%s", msg_id, error.message, "".join(data["traceback"]))
            error = types.ResponseError(
                code=error.code,
                message=f"code-intel internal error: {error.message} (details are in the server's log)",
            )
        super()._send_response(msg_id, result, error)

    def structure_message(self, data: dict[str, Any]):
        method = data.get("method")
        if "jsonrpc" in data and isinstance(method, str) and method.startswith(PREFIX):
            if "id" in data:
                return JsonRPCRequestMessage(
                    id=data["id"], method=method, params=data.get("params"), jsonrpc=data["jsonrpc"]
                )
            return JsonRPCNotification(method=method, params=data.get("params"), jsonrpc=data["jsonrpc"])
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(method, str) and "id" in data:
                return UnreadableRequest(_plain_id(data["id"]), method, _structure_problem(exc))
            log.warning("dropping an unreadable message (%s): %s", method, _structure_problem(exc))
            return _DROPPED

    # ---- open documents ---------------------------------------------------------------
    # The buffers live in LiveIndex (`OpenDocument`: bytes, an edited tree, the
    # analysis). pygls would also keep its own copy of each and rewrite it line by line
    # on every keystroke (~1 ms on a 4,000-line file) although nothing reads it: these
    # replace its built-in handlers and only run ours.

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Iterator[Any]:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Iterator[Any]:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Iterator[Any]:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    def _user_handler(self, method: str, params: Any) -> Iterator[Any]:
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    # ---- gatekeeping ------------------------------------------------------------------

    def handle_message(self, message: Any) -> None:
        if self._refused or message is _DROPPED:
            return
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        is_request = method is not None and hasattr(message, "id")
        if self.required_token is not None and not self._authenticated:
            if method == types.INITIALIZE and not isinstance(message, UnreadableRequest) and (
                _tokens_match(_token_of(message.params), self.required_token)
            ):
                self._authenticated = True
            else:
                self._refuse(msg_id if method == types.INITIALIZE else None)
                return
        if not hasattr(message, "jsonrpc"):  # valid JSON, but not a JSON-RPC message
            request_id = message.get("id") if isinstance(message, dict) else None
            self._reply_error(_plain_id(request_id), types.ErrorCodes.InvalidRequest, "not a JSON-RPC 2.0 message")
            return
        if not self._initialize_seen and method not in (types.INITIALIZE, types.EXIT):
            if is_request:
                self._reply_error(
                    msg_id, types.ErrorCodes.ServerNotInitialized, "send `initialize` before any other request"
                )
            return
        if isinstance(message, UnreadableRequest):
            self._reply_error(message.id, types.ErrorCodes.InvalidParams, f"{message.method}: {message.problem}")
            return
        if method == types.INITIALIZE:
            self._initialize_seen = True
        super().handle_message(message)

    def _refuse(self, msg_id: Any) -> None:
        """Answer a refused `initialize` (so an honest client learns why), then hang up."""
        self._refused = True
        if msg_id is not None:
            self._reply_error(
                msg_id,
                types.ErrorCodes.InvalidRequest,
                "wrong or missing token in initializationOptions (read it from .code-intel/server.json)",
            )
        log.warning("refused a connection without the right token")
        if self.on_refused is not None:
            self.on_refused()

    def _reply_error(self, msg_id: Any, code: int, message: str) -> None:
        self._send_response(msg_id, error=types.ResponseError(code=int(code), message=message))

    def reply_parse_error(self, problem: str) -> None:
        """A frame that is not JSON: answered with id null, as JSON-RPC says."""
        if self._refused or (self.required_token is not None and not self._authenticated):
            self._refuse(None)
            return
        self._reply_error(None, types.ErrorCodes.ParseError, problem)


_DROPPED = object()  # an unreadable notification: nothing to answer


def _plain_id(value: Any) -> Any:
    """A reply may only echo an id that is a string or an integer."""
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _tokens_match(given: Any, expected: str) -> bool:
    return isinstance(given, str) and secrets.compare_digest(given.encode(), expected.encode())
