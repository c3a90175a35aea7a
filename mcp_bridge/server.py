"""`code-intel mcp`: the MCP stdio server that gives an agent the code-intel tools.

Every tool call becomes the matching `codeIntel/*` request to the workspace's
language server (docs/protocol.md), so the agent and the editor share one index and
one gate. The bridge itself decides nothing about phases; it

* checks the arguments against the tool's schema (a typo gets a precise answer),
* fills in the session it remembers (start_session's `session_id`) so the server
  gates and counts the agent's index requests,
* waits (briefly) for the first index sync, so early answers are not silently empty,
* reports progress while `sync_index` runs, when the client asked for it,
* and turns every answer or failure into a bounded reply (replies.py).

Only the MCP protocol goes to stdout; logs go to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from . import replies
from .requests import ArgumentError, SessionMemory, validate_arguments
from .tools import TOOLS, SessionArg, ToolSpec

if TYPE_CHECKING:
    from .connection import LanguageServerLink

log = logging.getLogger("code_intel.mcp")

VERSION = "0.1.0"
INDEX_STATUS = "codeIntel/indexStatus"
INDEX_WAIT_SECONDS = 20.0  # how long a first index request waits for the first sync
REQUEST_TIMEOUT = 120.0
SYNC_TIMEOUT = 1800.0
PROGRESS_INTERVAL = 0.5

Progress = Callable[[float, float | None, str | None], Awaitable[None]]

INSTRUCTIONS = """\
code-intel indexes this workspace and gates edits: Edit/Write on code files is blocked \
until a session is READY. Workflow: start_session (intent + the request verbatim) → \
set_query_frame (slots quoted from the request) → explore with query, find_definitions, \
find_references, search_text, get_symbols, analyze_structure, get_function_at_line → \
submit_understanding (→ validate_symbol_relevance when asked; SEMANTIC → submit_semantic → \
VERIFICATION → submit_verification) → READY → check_write_target before each edit → \
record_outcome. A refused call says which phase allows it and what to call next. The \
session started here is used by default; you need not pass session_id."""


def workspace_root(cwd: Path, environ: Mapping[str, str]) -> Path:
    """The workspace the bridge serves when no --workspace is given. `.mcp.json` is
    committed, so it names no path: Claude Code's `CLAUDE_PROJECT_DIR` when set, else
    the nearest ancestor of `cwd` holding `.code-intel/` (a session started in a
    subdirectory still serves the whole repository), else `cwd`."""
    project = environ.get("CLAUDE_PROJECT_DIR", "").strip()
    if project and Path(project).is_dir():
        return Path(project)
    for candidate in (cwd, *cwd.parents):
        if (candidate / ".code-intel").is_dir():
            return candidate
    return cwd


def agent_session_of(environ: Mapping[str, str]) -> str | None:
    """Claude Code's id of the conversation that started this bridge (checked with
    Claude Code 2.1.330: CLAUDE_CODE_SESSION_ID, equal to the hooks' `session_id`)."""
    value = environ.get("CLAUDE_CODE_SESSION_ID", "").strip()
    return value if value and len(value) <= 200 else None


# Claude Code defers MCP tools behind its ToolSearch (names only) unless a tool asks to
# be always loaded: the tools the /code workflow starts with are in the prompt from the
# first turn; the rest are found by name when needed, so every request pays less.
FIRST_TURN_TOOLS = frozenset({
    "start_session", "set_query_frame", "get_session_status", "submit_understanding",
    "query", "find_definitions", "search_text", "check_write_target",
})
ALWAYS_LOAD = "anthropic/alwaysLoad"


class Bridge:
    """Tool calls → `codeIntel/*` requests over one language-server link."""

    def __init__(self, root: Path, link: LanguageServerLink | None = None,
                 agent_session: str | None = None) -> None:
        self.root = root.resolve()
        self._link = link
        self.memory = SessionMemory()
        self.index_ready = False
        # The agent conversation this bridge serves (Claude Code gives each conversation
        # its own MCP server process, with CLAUDE_CODE_SESSION_ID in its environment; its
        # hooks get the same id as `session_id`). start_session records it, so the hook
        # judges this conversation's writes by this conversation's session.
        self.agent_session = agent_session

    def tools(self) -> list[types.Tool]:
        return [
            types.Tool(
                name=spec.name,
                title=spec.name.replace("_", " "),
                description=spec.description,
                input_schema=spec.input_schema(),
                annotations=types.ToolAnnotations(
                    read_only_hint=spec.read_only,
                    destructive_hint=False,
                    idempotent_hint=spec.read_only,
                    open_world_hint=False,
                ),
                _meta={ALWAYS_LOAD: spec.name in FIRST_TURN_TOOLS},
            )
            for spec in TOOLS.values()
        ]

    @property
    def link(self) -> LanguageServerLink:
        """Made at the first tool call: pygls and lsprotocol cost seconds to import, and
        Claude Code waits only so long for `initialize` and `tools/list` before its first
        turn."""
        if self._link is None:
            from .connection import LanguageServerLink

            self._link = LanguageServerLink(self.root)
        return self._link

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, progress: Progress | None = None
    ) -> replies.ToolReply:
        from pygls.exceptions import JsonRpcException

        from .connection import ConnectionLost, ServerUnavailable

        spec = TOOLS.get(name)
        if spec is None:
            return replies.unknown_tool(name, list(TOOLS))
        try:
            args = validate_arguments(spec, arguments)
        except ArgumentError as exc:
            return replies.invalid(spec, str(exc))
        if self.memory.needs_session(spec, args):
            return replies.no_session(spec)
        params = self.memory.params_for(spec, args)
        if spec.name == "start_session" and self.agent_session:
            params["agent_session"] = self.agent_session
        timeout = SYNC_TIMEOUT if spec.name == "sync_index" else REQUEST_TIMEOUT
        try:
            notes = await self._index_notes(spec)
            if spec.name == "sync_index":
                answer = await self._sync(spec, params, progress)
            else:
                answer = await self.link.request(
                    spec.method, params, timeout=timeout, resend=not spec.changes_state
                )
        except JsonRpcException as exc:
            return replies.from_rpc_error(spec, exc.code, exc.message, exc.data)
        except ConnectionLost as exc:
            return replies.interrupted(spec, str(exc))
        except ServerUnavailable as exc:
            return replies.unavailable(spec, str(exc))
        except TimeoutError:
            return replies.timed_out(spec, timeout)
        except Exception as exc:
            log.exception("%s failed", spec.name)
            return replies.internal(spec, exc)
        self.memory.observe(spec, params, answer)
        return replies.success(spec, answer, args, notes)

    async def _index_notes(self, spec: ToolSpec) -> tuple[str, ...]:
        """Before the first index request: wait a little for the first sync, and say
        so when the index is still being built."""
        if self.index_ready or spec.session is not SessionArg.GATED:
            return ()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + INDEX_WAIT_SECONDS
        status: Any = {}
        while True:
            answer = await self.link.request(INDEX_STATUS, {}, timeout=10)
            status = answer if isinstance(answer, Mapping) else {}
            state = status.get("state")
            if state in ("ready", "error") or loop.time() >= deadline:
                break
            await asyncio.sleep(0.2)
        if status.get("state") == "ready":
            self.index_ready = True
            return ()
        if status.get("state") == "error":
            self.index_ready = True  # nothing to wait for; say it once
            return ((f"note: the last index sync failed ({status.get('error')}); answers come "
                    "from the index as it is. Try sync_index."),)
        p = status.get("progress") or {}
        return ((f"note: the index is still being built ({p.get('done', 0)}/{p.get('total', '?')}"
                " files); these results may be incomplete, call again shortly."),)

    async def _sync(self, spec: ToolSpec, params: dict[str, Any], progress: Progress | None) -> Any:
        """`codeIntel/syncIndex`, with `codeIntel/indexStatus` polled for progress."""
        task = asyncio.ensure_future(
            self.link.request(spec.method, params, timeout=SYNC_TIMEOUT)
        )
        if progress is not None:
            while not task.done():
                await asyncio.wait([task], timeout=PROGRESS_INTERVAL)
                if task.done():
                    break
                try:
                    status = await self.link.request(INDEX_STATUS, {}, timeout=5)
                    p = status.get("progress") or {}
                    total = p.get("total") or None
                    await progress(float(p.get("done", 0)), float(total) if total else None,
                                   f"{status.get('state', 'indexing')}: {p.get('done', 0)}/"
                                   f"{p.get('total', '?')} files")
                except Exception as exc:  # noqa: BLE001 - progress is best effort
                    log.debug("progress poll failed: %s", exc)
        answer = await task
        if progress is not None:
            await progress(1.0, 1.0, "done")
        return answer

    async def close(self) -> None:
        if self._link is not None:
            await self._link.close()


def to_result(reply: replies.ToolReply) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=reply.text)],
        structured_content=reply.structured,
        is_error=reply.is_error,
    )


def create_server(bridge: Bridge) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=bridge.tools())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        progress: Progress | None = None
        meta = ctx.meta or {}
        if meta.get("progress_token") is not None:
            async def progress(done: float, total: float | None, message: str | None) -> None:
                await ctx.session.report_progress(done, total, message)

        try:
            reply = await bridge.call(params.name, params.arguments, progress)
        except Exception as exc:
            log.exception("tool %s", params.name)
            reply = replies.ToolReply(f"internal error in {params.name}: {exc}", None, True)
        return to_result(reply)

    return Server(
        "code-intel",
        version=VERSION,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve(root: Path) -> None:
    """Serve until the client closes stdin; then stop the language server child.

    SIGTERM / SIGINT stop the child too, then end the process at once: the stdio
    transport reads stdin in a worker thread that no cancellation can interrupt."""
    bridge = Bridge(root, agent_session=agent_session_of(os.environ))
    server = create_server(bridge)
    try:
        async with anyio.create_task_group() as group:

            async def stop_on_signal() -> None:
                with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                    async for signum in signals:
                        log.info("signal %s: stopping", signum)
                        with anyio.CancelScope(shield=True):
                            await bridge.close()
                        os._exit(0)

            group.start_soon(stop_on_signal)
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
            group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await bridge.close()


def configure_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("code-intel mcp: %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("code_intel").setLevel(logging.INFO)


def main(workspace: Path) -> None:
    """Serve MCP on stdio for `workspace` until the client closes stdin."""
    configure_logging()
    log.info("serving %s", workspace)
    anyio.run(serve, workspace)
