"""Lifecycle and wiring: one LanguageServer per connection, one WorkspaceHub per
workspace shared by all of them.

The editor's stdio connection is the primary: it picks the workspace, starts the first
sync, the file watcher and the local endpoint. Clients on the endpoint (the MCP bridge,
a second editor) get their own LanguageServer object bound to the same hub, so they
see the same index, the same unsaved buffers and, later, the same sessions.
Each feature module registers its handlers; this file only fans out.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import logging
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from code_intel.indexing.config import (
    Config,
    ConfigError,
    config_to_dict,
    load_config,
    parse_config,
)
from code_intel.indexing.private import tighten
from lsprotocol import types
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import lsp_method

from . import endpoint
from .framing import serve_frames
from .live_index import LiveIndex
from .protocol import CodeIntelProtocol
from .services import Services

log = logging.getLogger(__name__)

VERSION = "0.1.0"
SYNC_DEBOUNCE_SECONDS = 0.3
# How long a navigation request waits for the first build of an empty index: what the
# MCP bridge waits too (`INDEX_WAIT_SECONDS`).
FIRST_BUILD_WAIT_SECONDS = 20.0


class ServerProtocol(CodeIntelProtocol):
    @lsp_method(types.EXIT)
    def lsp_exit(self, *args):
        """A client of the endpoint leaving must not take the owner process with it."""
        server: CodeIntelServer = self._server  # type: ignore[assignment]
        if server.primary:
            yield from super().lsp_exit(*args)
            return
        if (user_handler := self.fm.features.get(types.EXIT)) is not None:
            yield user_handler, args, None
        server.disconnect()

    def handle_message(self, message: Any) -> None:
        """Before anything an authenticated client asks: is the store still there?"""
        server: CodeIntelServer = self._server  # type: ignore[assignment]
        admitted = self.required_token is None or self._authenticated
        if admitted and server.hub is not None and getattr(message, "method", None) not in _NO_STORE_NEEDED:
            server.hub.recover_store()
        super().handle_message(message)


_NO_STORE_NEEDED = frozenset({types.INITIALIZE, types.SHUTDOWN, types.EXIT, types.CANCEL_REQUEST})


class WorkspaceHub:
    """What all connections to one workspace share."""

    def __init__(self, live: LiveIndex) -> None:
        self.live = live
        self.servers: list[CodeIntelServer] = []
        self.info: endpoint.ServerInfo | None = None
        self.endpoint_server: asyncio.AbstractServer | None = None
        self.watcher: Any = None
        self._sync_task: asyncio.Task | None = None
        self._sync_again = False
        self._debounce: asyncio.TimerHandle | None = None
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # built outside the server (tests)
            self._loop = None
        self.services = Services(live, notify=self.show_to_clients)
        # Stores create files with the umask: keep them private after every sync.
        self.sync_listeners: list[Callable[[], None]] = [
            lambda: self.services.after_sync(),
            lambda: tighten(live.store.path.parent),
        ]
        self.diagnosed_paths: set[str] = set()  # files showing a blocked-write warning
        self._told_store_gone = False
        # Set once the store holds a finished build (or the first sync ended anyway):
        # until then, an empty answer would say "nothing there" when it means "not yet".
        self.built = asyncio.Event()
        if live.store.get_meta("sync_count"):
            self.built.set()
        self._told_building = False

    # ---- a store removed under the server ---------------------------------------------

    def recover_store(self) -> bool:
        """`rm -rf .code-intel` while the server runs: open connections still read the
        unlinked files, new ones fail (`unable to open database file`). A stat of the
        index per message notices; then the store is recreated (index, lexical index,
        vectors and sessions open fresh, the endpoint is recorded again), a full sync
        refills it, and the clients are told. Returns whether it had to."""
        live = self.live
        if live.store.path.exists():
            return False
        from code_intel.indexing.store import IndexStore

        try:
            live.store = IndexStore.for_workspace(live.root)
        except OSError as exc:  # cannot be recreated (made read-only meanwhile): say so, once
            if not self._told_store_gone:
                self._told_store_gone = True
                self.show_to_clients(
                    f"code-intel: the store {live.store.path.parent} was removed and cannot be recreated: {exc}"
                )
            return False
        old, self.services = self.services, Services(live, notify=self.show_to_clients)
        # Workers may still be reading the old stores: closed off the loop, not under them.
        threading.Thread(target=old.close, name="old-store-close", daemon=True).start()
        message = (
            f"the store {live.store.path.parent} was removed while the server ran; it was recreated and "
            "the workspace is being indexed again (sessions and learned agreements kept in it are gone)"
        )
        log.warning(message)
        live.store.messages.append(message)
        self.show_to_clients(f"code-intel: {message}")
        if self.endpoint_server is not None:  # server.json and the socket went with it
            self.endpoint_server.close()
            self.endpoint_server, self.info = None, None
            asyncio.ensure_future(_claim_endpoint(self))
        self.built.clear()
        self.request_sync(0)
        return True

    # ---- syncing ---------------------------------------------------------------

    def request_sync(self, delay: float = SYNC_DEBOUNCE_SECONDS) -> None:
        """Debounced background sync; a burst of file events costs one sync."""
        loop = asyncio.get_running_loop()
        if self._debounce is not None:
            self._debounce.cancel()
        self._debounce = loop.call_later(delay, self._start_sync)

    def _start_sync(self) -> None:
        self._debounce = None
        if self._sync_task is not None and not self._sync_task.done():
            self._sync_again = True
            return
        self._sync_task = asyncio.ensure_future(self.run_sync())

    async def run_sync(self, force: bool = False, progress_owner: CodeIntelServer | None = None):
        """Sync on a worker thread; progress goes to `progress_owner`'s client."""
        loop = asyncio.get_running_loop()
        self.recover_store()  # a file event may be the first sign of a removed store
        reporter = await _ProgressReporter.start(progress_owner, loop) if progress_owner else None
        try:
            report = await loop.run_in_executor(
                None, self.live.sync, force, reporter.on_progress if reporter else None
            )
        except Exception as exc:
            log.exception("sync failed")
            self.log_to_clients(f"code-intel: sync failed: {exc}", types.MessageType.Error)
            report = None
        finally:
            if reporter:
                reporter.end()
            self.built.set()
        for listener in self.sync_listeners:
            listener()
        # What survives a sync lives long: keep it out of the collector's scans, so the
        # objects a keystroke's re-analysis allocates are collected without walking it
        # (the sync's own garbage is collected first, not frozen with it).
        gc.collect()
        gc.freeze()
        if self._sync_again:
            self._sync_again = False
            self.request_sync(0)
        return report

    async def first_build(self, ls: CodeIntelServer) -> None:
        """Before a navigation answer on an index that was never built: wait for its
        first build (pyright and tsserver also answer after their first analysis), at
        most `FIRST_BUILD_WAIT_SECONDS`; after that, answer from what is there and tell
        the user once that answers may be incomplete."""
        if self.built.is_set():
            return
        try:
            await asyncio.wait_for(self.built.wait(), FIRST_BUILD_WAIT_SECONDS)
        except TimeoutError:
            if not self._told_building:
                self._told_building = True
                st = self.live.status
                ls.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Info,
                    message=f"code-intel is still building the index ({st.done}/{st.total or '?'} files); "
                    "definitions and references may be incomplete until it finishes.",
                ))

    async def wait_for_sync(self) -> None:
        while self._debounce is not None or (self._sync_task and not self._sync_task.done()):
            if self._sync_task and not self._sync_task.done():
                await asyncio.shield(self._sync_task)
            else:
                await asyncio.sleep(0.05)

    def show_to_clients(self, message: str) -> None:
        """A warning the user must see (window/showMessage), e.g. lost sessions; safe
        from a worker thread."""
        if self._loop is not None and not self._in_loop():
            self._loop.call_soon_threadsafe(self.show_to_clients, message)
            return
        for server in list(self.servers):
            with contextlib.suppress(Exception):
                server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def _in_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    def log_to_clients(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        for server in list(self.servers):
            server.safe_log(message, kind)

    # ---- shutdown ---------------------------------------------------------------

    def close(self) -> None:
        self.built.set()  # a request still waiting for the first build answers now, from what is there
        self.services.close()
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        if self.endpoint_server is not None:
            self.endpoint_server.close()
            self.endpoint_server = None
        if self.info is not None:
            endpoint.remove_info(self.live.root, self.info)
            self.info = None


class _ProgressReporter:
    """`$/progress` begin / report (percentage) / end, throttled to a few per second."""

    def __init__(self, server: CodeIntelServer, loop: asyncio.AbstractEventLoop, token: str | None):
        self.server, self.loop, self.token = server, loop, token
        self._last = 0.0

    @classmethod
    async def start(cls, server: CodeIntelServer, loop: asyncio.AbstractEventLoop) -> _ProgressReporter:
        token = None
        caps = server.client_capabilities.window
        if caps and caps.work_done_progress:
            token = f"code-intel-sync-{time.monotonic_ns()}"
            try:
                await server.work_done_progress.create_async(token)
                server.work_done_progress.begin(
                    token,
                    types.WorkDoneProgressBegin(
                        title="Indexing", message="scanning files", percentage=0, cancellable=False
                    ),
                )
            except Exception:  # noqa: BLE001 - a client that refuses progress still gets answers
                token = None
        return cls(server, loop, token)

    def on_progress(self, done: int, total: int, path: str) -> None:
        now = time.monotonic()
        if self.token is None or (now - self._last < 0.2 and done != total):
            return
        self._last = now
        pct = int(100 * done / total) if total else 100
        report = types.WorkDoneProgressReport(message=f"{done}/{total} {path}", percentage=pct)
        self.loop.call_soon_threadsafe(self.server.work_done_progress.report, self.token, report)

    def end(self) -> None:
        if self.token is not None:
            status = self.server.hub.live.status if self.server.hub else None
            summary = status.last_report if status else {}
            message = ", ".join(f"{k} {v}" for k, v in summary.items() if k != "elapsed_seconds")
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message or "done"))


class CodeIntelServer(LanguageServer):
    """One client connection's server; frames are read by `serve_frames` (a broken
    frame costs one message) and the protocol gates on the token and `initialize`."""

    def __init__(self, hub: WorkspaceHub | None = None, primary: bool = True) -> None:
        super().__init__(
            "code-intel",
            VERSION,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=ServerProtocol,
        )
        self.hub = hub
        self.primary = primary
        self._stop_event_secondary = threading.Event()
        self._writer: Any = None

    def start_io(self, stdin: Any = None, stdout: Any = None, replay: bytes = b"") -> None:  # type: ignore[override]
        """`replay`: the frame the stdio front end already read from `stdin`."""
        self._stop_event = threading.Event()
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(serve_frames(self._stop_event, reader, self.protocol, self.report_server_error, replay))
        except BrokenPipeError:
            log.error("the editor's connection is gone; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    @property
    def live(self) -> LiveIndex:
        if self.hub is None:
            raise RuntimeError("the workspace is not initialised yet; send `initialize` first")
        return self.hub.live

    def safe_log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        with contextlib.suppress(Exception):  # a gone client must not break the others
            self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.error("handler failed: %s", error)
        self.safe_log(f"code-intel internal error: {error}", types.MessageType.Error)

    async def gated(
        self, tool: str, session_id: Any, args: dict[str, Any], run: Callable[[], Any]
    ) -> Any:
        """An agent's tool call: checked and logged by the session's gate."""
        from .features.session import run_gated

        return await run_gated(self, tool, session_id, args, run)

    def disconnect(self) -> None:
        self._stop_event_secondary.set()
        if self.hub and self in self.hub.servers:
            self.hub.servers.remove(self)
        if self._writer is not None:
            self._writer.close()


def _workspace_root(params: types.InitializeParams) -> Path:
    from urllib.parse import unquote, urlparse

    if params.workspace_folders:
        return Path(unquote(urlparse(params.workspace_folders[0].uri).path))
    if params.root_uri:
        return Path(unquote(urlparse(params.root_uri).path))
    if params.root_path:
        return Path(params.root_path)
    return Path.cwd()


def _load_config(server: CodeIntelServer, root: Path, overrides: Any = None) -> Config:
    """The workspace's config with the editor's overrides (`initializationOptions.config`,
    e.g. VS Code settings) on top. Invalid values are reported and replaced by the
    defaults, never fatal."""
    try:
        config = load_config(root)
        if isinstance(overrides, dict) and overrides:
            config = parse_config({**config_to_dict(config), **overrides}, "initializationOptions.config")
        return config
    except ConfigError as exc:
        server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"code-intel: {exc}. Using the default configuration until it is fixed.",
            )
        )
        return Config()


def create_server(hub: WorkspaceHub | None = None, primary: bool = True) -> CodeIntelServer:
    from .features import FEATURES

    server = CodeIntelServer(hub, primary)

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: CodeIntelServer, params: types.InitializeParams) -> None:
        if not ls.primary:  # the endpoint's token was checked before this ran (protocol)
            return
        root = _workspace_root(params).resolve()
        options = params.initialization_options
        overrides = options.get("config") if isinstance(options, dict) else None
        ls.hub = WorkspaceHub(LiveIndex(root, _load_config(ls, root, overrides)))
        ls.hub.servers.append(ls)
        for message in ls.hub.live.store.messages:
            ls.safe_log(f"code-intel: {message}", types.MessageType.Warning)

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: CodeIntelServer, params: types.InitializedParams) -> None:
        if not ls.primary or ls.hub is None:
            return
        hub = ls.hub
        await _claim_endpoint(hub)
        from .features.watcher import start_watching

        await start_watching(ls)
        if hub.live.config.sync_on_start:
            hub._sync_task = asyncio.ensure_future(hub.run_sync(progress_owner=ls))
        else:  # the user syncs (codeIntel/syncIndex, `code-intel index`): answer from the store as it is
            hub.live.status.state = "ready"  # idle: no sync is coming, nothing to wait for
            hub.built.set()

    @server.feature(types.SHUTDOWN)
    def on_shutdown(ls: CodeIntelServer, params: Any) -> None:
        if ls.primary and ls.hub is not None:
            ls.hub.close()

    for register in FEATURES:
        register(server)
    return server


async def _claim_endpoint(hub: WorkspaceHub) -> None:
    """Become the workspace's owner unless a live server already is."""
    existing = endpoint.read_info(hub.live.root)
    if existing is not None and existing.pid != os.getpid() and await endpoint.is_alive(existing):
        hub.log_to_clients(
            f"code-intel: workspace already served by pid {existing.pid}; "
            "this editor gets its own index view without the shared endpoint"
        )
        return

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        client = create_server(hub, primary=False)
        client._writer = writer
        client.protocol.set_writer(writer)  # type: ignore[arg-type]
        # An unguessable stand-in until the endpoint is recorded: nobody can match it.
        client.protocol.required_token = hub.info.token if hub.info else secrets.token_hex(32)
        client.protocol.on_refused = client.disconnect
        hub.servers.append(client)
        try:
            await serve_frames(
                client._stop_event_secondary, reader, client.protocol, client.report_server_error
            )
        finally:
            client.disconnect()

    hub.endpoint_server, hub.info = await endpoint.serve(hub.live.root, on_connection)


def main(tcp: str | None = None, token: str | None = None) -> None:
    """Serve the editor on stdio, or on TCP (`--tcp`) where only a client presenting
    `token` is served (None: `--insecure`, anyone who can connect)."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="code-intel: %(message)s")
    # The server writes nothing but its private store: every file it creates is 0600.
    os.umask(0o077)
    if tcp:
        host, _, port = tcp.rpartition(":")
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve_tcp(host or "127.0.0.1", int(port), token))
        return
    server = create_server()
    server.start_io()
    if server.hub is not None:
        server.hub.close()


async def _serve_tcp(host: str, port: int, token: str | None) -> None:
    """One editor session over TCP. A connection refused for its token is closed and
    the server keeps listening; the session that got in ends the server when it ends."""
    done = asyncio.Event()

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server = create_server()
        server.protocol.set_writer(writer)  # type: ignore[arg-type]
        server.protocol.required_token = token
        server.protocol.on_refused = writer.close
        stop = threading.Event()
        server._stop_event = stop
        try:
            await serve_frames(stop, reader, server.protocol, server.report_server_error)
        finally:
            writer.close()
            if server.protocol._initialize_seen:
                if server.hub is not None:
                    server.hub.close()
                done.set()

    listener = await asyncio.start_server(on_connection, host, port)
    log.info("listening on %s:%s%s", host, port, "" if token else " without a token (--insecure)")
    async with listener:
        await done.wait()


__all__ = ["CodeIntelServer", "WorkspaceHub", "create_server", "inspect", "main"]
