"""The bridge's one connection to the workspace's language server.

Lazy: nothing connects until the first tool call. Then `WorkspaceClient.connect`
attaches to the live owner named in `.code-intel/server.json` (an editor's server,
so the agent sees its unsaved buffers) or starts `code-intel lsp` as a child, which
becomes the owner for the hook and for later editors. A child is stopped on close.

A server that dies is noticed (its reader task ends, or the child exits) instead of
leaving a request waiting forever; the next call connects again once — attaching to
a newer owner or starting a new child — and fails with `ServerUnavailable` if that
does not work. A request that may have changed session state is not re-sent after a
lost connection: the caller is told to check the session instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from code_intel.lsp_server.client import WorkspaceClient
from lsprotocol import types
from pygls.exceptions import JsonRpcException

log = logging.getLogger("code_intel.mcp")
child_log = logging.getLogger("code_intel.mcp.lsp")

CONNECT_TIMEOUT = 60.0  # starting a child includes its initialize (opening the index)
CLOSE_TIMEOUT = 10.0

class ServerUnavailable(Exception):
    """The language server cannot be reached, even after connecting once more."""


class ConnectionLost(Exception):
    """The connection ended while a request was outstanding."""


class LanguageServerLink:
    def __init__(self, root: Path, *, spawn: bool = True) -> None:
        self.root = root.resolve()
        self.spawn = spawn
        self._client: WorkspaceClient | None = None
        self._lock = asyncio.Lock()
        self.connections = 0  # how many times a connection was made (tests, logs)

    # ---- state ------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._client is not None and _alive(self._client)

    def describe(self) -> str:
        client = self._client
        if client is None:
            return "not connected"
        if client.attached is not None:
            return f"attached to the language server pid {client.attached.pid}"
        proc = client.lsp._server
        return f"language server child pid {proc.pid if proc else '?'}"

    # ---- requests ---------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        resend: bool = True,
    ) -> Any:
        """Send one request; JsonRpcException for an error answer, TimeoutError when
        no answer came in `timeout`, ServerUnavailable when the server is gone.

        When the connection is lost mid-request the server is reconnected once; the
        request is sent again only if `resend` (it cannot have changed anything)."""
        for attempt in (1, 2):
            client = await self._ensure()
            try:
                return await self._send(client, method, params or {}, timeout)
            except ConnectionLost as exc:
                await self._discard()
                if attempt == 2:
                    raise ServerUnavailable(f"the language server connection was lost again: {exc}")
                if not resend:
                    await self._ensure()  # reconnect now, so the next call finds a server
                    raise
                log.warning("language server connection lost (%s); reconnecting once", exc)
        raise AssertionError("unreachable")

    async def _send(
        self, client: WorkspaceClient, method: str, params: dict[str, Any], timeout: float | None
    ) -> Any:
        watched = list(client.lsp._async_tasks)  # reader (and child-exit) tasks
        request = asyncio.ensure_future(client.request(method, params))
        done, _ = await asyncio.wait(
            [request, *watched], timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if request in done:
            try:
                return request.result()
            except JsonRpcException:
                raise
            except Exception as exc:  # the child exited: pygls fails pending requests
                if not _alive(client):
                    raise ConnectionLost(str(exc)) from None
                raise
        request.cancel()
        if not done:
            raise TimeoutError(f"{method} got no answer in {timeout:g} seconds")
        raise ConnectionLost("the language server closed the connection")

    # ---- connecting -------------------------------------------------------------------

    async def _ensure(self) -> WorkspaceClient:
        async with self._lock:
            if self._client is not None and _alive(self._client):
                return self._client
            if self._client is not None:
                await self._discard_locked()
            client = WorkspaceClient(self.root, "code-intel-mcp")
            client.lsp.feature(types.WINDOW_LOG_MESSAGE)(_log_message)
            client.lsp.feature(types.WINDOW_SHOW_MESSAGE)(_log_message)
            try:
                await asyncio.wait_for(client.connect(spawn=self.spawn), CONNECT_TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - every failure is "unavailable"
                await _close(client)
                raise ServerUnavailable(
                    f"cannot start or reach the code-intel language server for {self.root}: "
                    f"{type(exc).__name__}: {exc}"
                ) from None
            self._client = client
            self.connections += 1
            log.info("connected: %s", self.describe())
            return client

    async def _discard(self) -> None:
        async with self._lock:
            await self._discard_locked()

    async def _discard_locked(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await _close(client)

    async def close(self) -> None:
        """Leave the server: a child is shut down (killed if it does not exit)."""
        await self._discard()


def _alive(client: WorkspaceClient) -> bool:
    tasks = client.lsp._async_tasks
    return bool(tasks) and not client.lsp.stopped and not any(t.done() for t in tasks)


async def _close(client: WorkspaceClient) -> None:
    proc = client.lsp._server
    try:
        await asyncio.wait_for(client.close(), CLOSE_TIMEOUT)
    except Exception as exc:  # noqa: BLE001 - closing must not fail the caller
        log.warning("closing the language server connection: %s", exc)
    if proc is not None and proc.returncode is None:
        proc.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), CLOSE_TIMEOUT)
    for task in client.lsp._async_tasks:
        task.cancel()


def _log_message(params: Any) -> None:
    """The server's window/logMessage (its stderr is forwarded as well)."""
    child_log.debug("%s", getattr(params, "message", params))
