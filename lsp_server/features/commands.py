"""`workspace/executeCommand` for editors that bind commands rather than custom
requests (SPEC §5.1): re-index, search and show the active session. Each is a thin
alias of the matching `codeIntel/*` request; arguments are positional.

Handlers carry no annotations: pygls resolves them at run time to convert
arguments, and the server class is only importable for type checking here."""

from __future__ import annotations

import asyncio
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from .session import call_engine

REINDEX = "codeIntel.reindex"
SEARCH = "codeIntel.search"
SHOW_SESSION = "codeIntel.showSession"


def _arg(args: tuple[Any, ...], index: int, kind: type, name: str, default: Any = None) -> Any:
    if len(args) <= index or args[index] is None:
        return default
    if not isinstance(args[index], kind) or (kind is int and isinstance(args[index], bool)):
        raise JsonRpcInvalidParams(f"argument {index + 1} ({name}) must be a {kind.__name__}")
    return args[index]


def register(server: Any) -> None:
    @server.command(REINDEX)
    async def reindex(ls, *args):
        """[force: bool] → the sync summary."""
        force = _arg(args, 0, bool, "force", False)
        await ls.hub.wait_for_sync()
        report = await ls.hub.run_sync(force, progress_owner=ls)
        return {"ok": report is not None, **ls.live.status.last_report}

    @server.command(SEARCH)
    async def search(ls, *args):
        """[text: str, top: int] → ranked files and symbols, as `codeIntel/query`."""
        text = _arg(args, 0, str, "text")
        if not text:
            raise JsonRpcInvalidParams("argument 1 (text) is required: what to search for")
        top = _arg(args, 1, int, "top", 20)
        service = await ls.hub.services.ready("search")
        loop = asyncio.get_running_loop()
        try:
            result = await loop.run_in_executor(None, service.query, text, top)
        except ValueError as exc:  # SearchError: an empty, huge or malformed query
            raise JsonRpcInvalidParams(str(exc)) from None
        return result.to_json()

    @server.command(SHOW_SESSION)
    async def show_session(ls, *args):
        """[session_id: str] → that session's status, else the latest active one's."""
        sid = _arg(args, 0, str, "session_id")
        if sid is None:
            active = await call_engine(ls.hub, "list_sessions", {})
            if not active:
                return {"active": False, "message": "no active agent session"}
            sid = active[0]["session_id"]
        return {"active": True, **await call_engine(ls.hub, "get_session_status", {"session_id": sid})}
