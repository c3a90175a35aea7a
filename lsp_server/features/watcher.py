"""Files changed outside the editor: the client's watcher when it offers dynamic
registration, else our own (watchdog). Either way events only request a debounced
sync, which applies the workspace's ignore rules and fingerprints."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from code_intel.indexing.config import CONFIG_DIR
from lsprotocol import types

if TYPE_CHECKING:
    from ..server import CodeIntelServer

log = logging.getLogger(__name__)
REGISTRATION_ID = "code-intel-watch"


def _client_watches(ls: CodeIntelServer) -> bool:
    ws = ls.client_capabilities.workspace
    dyn = ws.did_change_watched_files if ws else None
    return bool(dyn and dyn.dynamic_registration)


async def start_watching(ls: CodeIntelServer) -> None:
    hub = ls.hub
    if _client_watches(ls):
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id=REGISTRATION_ID,
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                            ),
                        )
                    ]
                )
            )
            return
        except Exception as exc:  # noqa: BLE001 - fall back to our own watcher
            log.info("client refused file watching (%s); watching the workspace ourselves", exc)
    hub.watcher = _WatchdogWatcher(hub, asyncio.get_running_loop())


def register(server: CodeIntelServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: CodeIntelServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(ls.live.rel_path(c.uri) for c in params.changes):
            ls.hub.request_sync()


class _WatchdogWatcher:
    def __init__(self, hub, loop: asyncio.AbstractEventLoop) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        root = str(hub.live.root)
        skip = (f"/{CONFIG_DIR}/", "/.git/")

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event) -> None:
                if event.event_type in ("opened", "closed_no_write"):
                    return
                paths = [event.src_path, getattr(event, "dest_path", "") or ""]
                if all(not p or any(s in p + "/" for s in skip) for p in paths):
                    return
                loop.call_soon_threadsafe(hub.request_sync)

        self.observer = Observer()
        self.observer.daemon = True
        self.observer.schedule(Handler(), root, recursive=True)
        self.observer.start()

    def stop(self) -> None:
        self.observer.stop()
