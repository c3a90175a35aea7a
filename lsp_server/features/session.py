"""`codeIntel/session/<tool>` for every gating tool, the gate around agents' index
requests, and what editors see of it: `codeIntel/sessionChanged` and a Warning
diagnostic on each file whose write the gate refused.

The engine enforces the rules; this module only moves JSON in and out, turns its
refusals into error code -32001 (`GatingRefused`) with the engine's details as
`data`, and runs it off the event loop (similarity needs the embedding model).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from .. import protocol as p

if TYPE_CHECKING:
    from code_intel.gating import GatingEngine, GatingError

    from ..server import CodeIntelServer, WorkspaceHub

SESSION_TOOLS = (
    "start_session",
    "get_session_status",
    "set_query_frame",
    "submit_understanding",
    "validate_symbol_relevance",
    "submit_semantic",
    "submit_verification",
    "check_write_target",
    "add_explored_files",
    "revert_to_exploration",
    "record_outcome",
    "end_session",
    "get_session_analysis",
    "get_improvement_insights",
    "list_sessions",
    "record_agent_reads",
)
# Answers that do not change a session: no sessionChanged, no diagnostics refresh.
_READ_ONLY = {"get_session_status", "get_session_analysis", "get_improvement_insights", "list_sessions"}
DIAGNOSTIC_SOURCE = "code-intel"


def check_arguments(tool: str, method: Callable[..., Any], args: Any) -> dict[str, Any]:
    """Params must be an object of the engine method's arguments, no more, no fewer."""
    if args is None or args == []:  # no params; Lua clients send an empty object as []
        args = {}
    if not isinstance(args, dict):
        raise JsonRpcInvalidParams(f"params of {tool} must be a JSON object, got {type(args).__name__}")
    sig = inspect.signature(method)
    accepted = [n for n in sig.parameters if n != "self"]
    unknown = sorted(set(args) - set(accepted))
    if unknown:
        raise JsonRpcInvalidParams(
            f"{tool} has no parameter {', '.join(unknown)}; it takes {', '.join(accepted) or 'none'}"
        )
    missing = [
        n for n, prm in sig.parameters.items()
        if prm.default is inspect.Parameter.empty and n not in args and n != "self"
    ]
    if missing:
        raise JsonRpcInvalidParams(f"{tool} needs {', '.join(missing)}")
    return args


def _gating_error() -> type[Exception]:
    """The engine's error class. The gating package loads with the engine (on the first
    session request, off the event loop), not with the server: an `except` clause
    evaluates this only when something was raised, by which time it is loaded."""
    from code_intel.gating import GatingError

    return GatingError


def refusal(exc: GatingError) -> JsonRpcException:
    """Bad arguments are InvalidParams; everything else the engine refuses is -32001."""
    if exc.code == "invalid_params":
        return JsonRpcInvalidParams(exc.message, data=exc.to_dict())
    return JsonRpcException(exc.message, p.GATING_REFUSED, exc.to_dict())


async def call_engine(hub: WorkspaceHub, tool: str, args: dict[str, Any]) -> Any:
    engine = await hub.services.ready("gating")
    method = getattr(engine, tool)
    if tool == "check_write_target" and isinstance(args, dict):
        args = {"session_id": None, **args}  # none: the most recently active session
    args = check_arguments(tool, method, args)
    try:
        return await asyncio.get_running_loop().run_in_executor(None, lambda: method(**args))
    except _gating_error() as exc:
        if exc.code == "initializing":
            return exc.to_dict()  # like semantic search: an answer to retry, not a failure
        raise refusal(exc) from None


def _session_request(tool: str) -> Callable[..., Awaitable[Any]]:
    async def handler(ls: CodeIntelServer, raw: Any) -> Any:
        hub = ls.hub
        answer = await call_engine(hub, tool, raw)
        if tool not in _READ_ONLY:
            sid = (raw or {}).get("session_id") or (answer or {}).get("session_id")
            # After the answer is sent (a timer runs after the callbacks already queued,
            # the response's among them): the write hook waits for this answer before
            # every Edit, the editor's notifications need not hold it up.
            asyncio.get_running_loop().call_later(0, publish_session, hub, sid)
        return answer

    return handler


async def run_gated(
    ls: CodeIntelServer,
    tool: str,
    session_id: Any,
    args: dict[str, Any],
    run: Callable[[], Awaitable[Any]],
) -> Any:
    """An agent's index request: the phase must allow it (SPEC §4.7); once it ran, it
    is logged with the files and symbols it returned, which is what counts as
    exploration evidence (SPEC §4.4, §4.8)."""
    hub = ls.hub
    engine: GatingEngine = await hub.services.ready("gating")
    try:
        verdict = engine.check_tool(session_id, tool, args)
    except _gating_error() as exc:
        raise refusal(exc) from None
    if not verdict["allowed"]:
        raise JsonRpcException(verdict["message"], p.GATING_REFUSED, {"error": "wrong_phase", **verdict})
    try:
        result = await run()
    except Exception:
        engine.record_tool_call(session_id, tool, args, ok=False)
        raise
    files, symbols = result_evidence(result)
    engine.record_tool_call(session_id, tool, args, result_files=files, result_symbols=symbols)
    publish_session(hub, session_id)
    return result


def result_evidence(result: Any) -> tuple[list[str], list[str]]:
    """Every `path` and `qualified_name` in an answer: the files and symbols it showed."""
    files: dict[str, None] = {}
    symbols: dict[str, None] = {}
    for key, value in _items(result):
        if key == "path" and isinstance(value, str) and value:
            files[value] = None
        elif key == "qualified_name" and isinstance(value, str) and value:
            symbols[value] = None
    return list(files), list(symbols)


def _items(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from _items(value)
    elif isinstance(node, list):
        for value in node:
            yield from _items(value)


# ---- what editors see --------------------------------------------------------------


def publish_session(hub: WorkspaceHub, session_id: Any) -> None:
    """`codeIntel/sessionChanged` for the session, then blocked-write diagnostics."""
    engine = hub.services.gating
    if isinstance(session_id, str):
        try:
            status = engine.get_session_status(session_id)
        except _gating_error():
            status = None
        if status is not None:
            notice = {
                "session_id": session_id,
                "phase": status.get("phase"),
                "risk": status.get("risk"),
                "intent": status.get("intent"),
                "query": status.get("query"),
                "ended": status.get("status") != "active",
                "blocked_writes": status.get("blocked_writes", []),
            }
            for server in list(hub.servers):
                with contextlib.suppress(Exception):
                    server.protocol.notify(p.SESSION_CHANGED, notice)
    publish_blocked_writes(hub)


def publish_blocked_writes(hub: WorkspaceHub) -> None:
    """One Warning per refused write of an active session; files no longer blocked
    get an empty list so the editor clears them."""
    engine = hub.services.gating
    active = {s["session_id"] for s in engine.list_sessions()}
    by_path: dict[str, list[types.Diagnostic]] = {}
    for blocked in engine.blocked_writes():
        if blocked["session_id"] not in active:
            continue
        by_path.setdefault(blocked["path"], []).append(
            types.Diagnostic(
                range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                message=f"code-intel blocked an agent's write: {blocked['reason']}",
                severity=types.DiagnosticSeverity.Warning,
                source=DIAGNOSTIC_SOURCE,
            )
        )
    for path in hub.diagnosed_paths - set(by_path):
        by_path[path] = []
    hub.diagnosed_paths = {path for path, diags in by_path.items() if diags}
    for path, diags in by_path.items():
        params = types.PublishDiagnosticsParams(uri=hub.live.uri(path), diagnostics=diags)
        for server in list(hub.servers):
            with contextlib.suppress(Exception):  # a gone client must not stop the others
                server.text_document_publish_diagnostics(params)


def register(server: CodeIntelServer) -> None:
    for tool in SESSION_TOOLS:
        server.feature(p.SESSION_PREFIX + tool)(_session_request(tool))
