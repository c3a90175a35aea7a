"""A client of the workspace's language server: attach to the live owner through
`.code-intel/server.json`, or start a server child on stdio when none runs.

Used by the MCP bridge, the Claude Code hook and tests. `codeIntel/*` results come
back as plain JSON (dicts), not the namedtuples pygls builds for unknown methods,
which would drop keys that are not identifiers (PHP namespaces, paths).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient
from pygls.protocol import JsonRPCNotification, JsonRPCResponseMessage
from pygls.protocol.language_server import LanguageServerProtocol

from . import endpoint

log = logging.getLogger(__name__)
server_log = logging.getLogger("code-intel.server")  # a spawned server's stderr


# Server → client notifications a client that is not an editor may have no use for.
QUIET_NOTIFICATIONS = frozenset(
    {types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.PROGRESS, "codeIntel/sessionChanged"}
)


class _RawResultProtocol(LanguageServerProtocol):
    """`codeIntel/*` results and notifications stay plain JSON."""

    def _handle_notification(self, method_name: str, params: Any) -> None:
        if method_name in QUIET_NOTIFICATIONS and method_name not in self.fm.features:
            return  # unhandled on purpose: pygls would log "unknown method" for each
        super()._handle_notification(method_name, params)

    def structure_message(self, data: dict[str, Any]):
        method = data.get("method")
        if isinstance(method, str) and method.startswith("codeIntel/") and "id" not in data:
            return JsonRPCNotification(method=method, params=data.get("params"), jsonrpc=data["jsonrpc"])
        if (
            "jsonrpc" in data
            and "id" in data
            and "method" not in data
            and "error" not in data
            and self._result_types.get(data["id"]) is None
        ):
            return JsonRPCResponseMessage(id=data["id"], jsonrpc=data["jsonrpc"], result=data.get("result"))
        return super().structure_message(data)


MAX_LINE_BYTES = 1 << 16


async def drain_lines(stream: asyncio.StreamReader, emit: Callable[[str], None]) -> None:
    """Pass a stream's lines to `emit` until EOF. Reads chunks, not `readline()`: one
    line over the reader's limit would end a readline loop, and a child whose stderr
    nobody drains blocks forever on its next write. Over-long lines go out in pieces."""
    pending = b""
    while chunk := await stream.read(MAX_LINE_BYTES):
        *lines, pending = (pending + chunk).split(b"\n")
        if len(pending) > MAX_LINE_BYTES:  # no newline in sight: pass it on as it is
            lines.append(pending)
            pending = b""
        for line in lines:
            for start in range(0, max(len(line), 1), MAX_LINE_BYTES):
                emit(line[start : start + MAX_LINE_BYTES].decode("utf-8", "replace").rstrip())
    if pending:
        emit(pending.decode("utf-8", "replace").rstrip())


class WorkspaceClient:
    """One connection to the server that owns a workspace."""

    def __init__(self, root: Path, name: str = "code-intel-client") -> None:
        self.root = root.resolve()
        self.lsp = LanguageClient(name, "1", protocol_cls=_RawResultProtocol)
        self.attached: endpoint.ServerInfo | None = None  # None: we spawned the server
        self._stderr_task: asyncio.Task[None] | None = None

    async def connect(
        self,
        spawn: bool = True,
        capabilities: types.ClientCapabilities | None = None,
        config: dict[str, Any] | None = None,
    ) -> None:
        """Attach to the live owner, else (when `spawn`) start a server child, with
        `config` overriding the workspace's `.code-intel/config.json`."""
        info = endpoint.read_info(self.root)
        if info is not None and await endpoint.is_alive(info):
            await self.attach(info, capabilities)
        elif spawn:
            exe = Path(sys.executable).parent / "code-intel"
            cmd = [str(exe), "lsp"] if exe.exists() else [sys.executable, "-m", "code_intel", "lsp"]
            await self.lsp.start_io(*cmd, cwd=str(self.root))
            self._forward_stderr()
            await self._initialize(capabilities, {"config": config} if config else None)
        else:
            raise ConnectionError(f"no language server owns {self.root}")

    def _forward_stderr(self) -> None:
        """The child's stderr is a pipe: read it so the child never blocks on a full
        pipe, and pass its lines on to our log."""
        proc = self.lsp._server
        if proc is None or proc.stderr is None:
            return
        self._stderr_task = asyncio.ensure_future(
            drain_lines(proc.stderr, lambda line: server_log.info("%s", line))
        )

    async def attach(
        self, info: endpoint.ServerInfo, capabilities: types.ClientCapabilities | None = None
    ) -> None:
        """Connect to the endpoint `info` names and initialize with its token."""
        reader, writer = await endpoint.open_connection(info)
        self.lsp.protocol.set_writer(writer)  # type: ignore[arg-type]
        task = asyncio.create_task(
            run_async(
                stop_event=self.lsp._stop_event,
                reader=reader,
                protocol=self.lsp.protocol,
                logger=log,
                error_handler=self.lsp.report_server_error,
            )
        )
        self.lsp._async_tasks.append(task)
        self.attached = info
        await self._initialize(capabilities, {"token": info.token})

    async def _initialize(
        self, capabilities: types.ClientCapabilities | None, options: dict[str, Any] | None
    ) -> None:
        await self.lsp.initialize_async(
            types.InitializeParams(
                capabilities=capabilities or types.ClientCapabilities(),
                root_uri=self.root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(self.root.as_uri(), self.root.name)],
                initialization_options=options,
            )
        )
        self.lsp.initialized(types.InitializedParams())

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.lsp.protocol.send_request_async(method, params or {})

    async def close(self) -> None:
        """Shut down politely, but never wait forever: a server too busy to answer
        `shutdown` in time still gets `exit`, and one that does not go is killed."""
        with contextlib.suppress(Exception):  # the server may already be gone
            await asyncio.wait_for(self.lsp.shutdown_async(None), 5)
        with contextlib.suppress(Exception):
            self.lsp.exit(None)
        try:
            with contextlib.suppress(ConnectionError):  # a server that hung up (a refused token)
                await asyncio.wait_for(self.lsp.stop(), 10)
        except TimeoutError:
            server = self.lsp._server  # spawned by this client, else None (attached)
            if server is not None and server.returncode is None:
                server.kill()
                await server.wait()
            writer = getattr(self.lsp.protocol, "_writer", None)
            if writer is not None:
                writer.close()
            for task in self.lsp._async_tasks:
                task.cancel()
        if self._stderr_task is not None:
            self._stderr_task.cancel()
            self._stderr_task = None
