"""The owner's local endpoint and `.code-intel/server.json`, the note that says where it is.

A Unix socket in `.code-intel/` (mode 0600) when the path fits the OS limit, else
127.0.0.1 on a free port. Either way the client must present the token from
server.json (mode 0600) in `initializationOptions`, so only the user who can read
the workspace's `.code-intel/` can attach. A server.json left by a dead process is
detected (pid gone or endpoint refusing) and replaced.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from code_intel.indexing.config import write_json_atomic
from code_intel.indexing.private import private_dir, store_dir
from code_intel.indexing.processes import pid_alive

INFO_FILE = "server.json"
SOCKET_FILE = "server.sock"
UNIX_PATH_MAX = 100  # sun_path is 104–108 bytes depending on the OS; keep a margin
CONNECT_TIMEOUT = 2.0

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@dataclass(frozen=True)
class ServerInfo:
    pid: int
    endpoint: str  # "unix:/abs/path" or "tcp:127.0.0.1:PORT"
    token: str
    workspace: str
    started_at: float


def info_path(root: Path) -> Path:
    return store_dir(root) / INFO_FILE


def read_info(root: Path) -> ServerInfo | None:
    """The recorded owner, or None when absent or unreadable (treated as no owner)."""
    try:
        data = json.loads(info_path(root).read_text(encoding="utf-8"))
        return ServerInfo(
            pid=int(data["pid"]),
            endpoint=str(data["endpoint"]),
            token=str(data["token"]),
            workspace=str(data["workspace"]),
            started_at=float(data.get("started_at", 0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


async def open_connection(info: ServerInfo) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    kind, _, where = info.endpoint.partition(":")
    if kind == "unix":
        coro = asyncio.open_unix_connection(where)
    elif kind == "tcp":
        host, _, port = where.rpartition(":")
        coro = asyncio.open_connection(host, int(port))
    else:
        raise ConnectionError(f"unknown endpoint kind in server.json: {info.endpoint!r}")
    return await asyncio.wait_for(coro, CONNECT_TIMEOUT)


async def is_alive(info: ServerInfo) -> bool:
    if not pid_alive(info.pid):
        return False
    try:
        _, writer = await open_connection(info)
    except (TimeoutError, OSError, ConnectionError):
        return False
    writer.close()
    return True


async def serve(root: Path, handler: Handler) -> tuple[asyncio.AbstractServer, ServerInfo]:
    """Listen, then record the endpoint; server.json never names a dead socket."""
    state_dir = private_dir(store_dir(root))
    sock_path = state_dir / SOCKET_FILE
    if hasattr(socket, "AF_UNIX") and len(str(sock_path).encode()) <= UNIX_PATH_MAX:
        sock_path.unlink(missing_ok=True)
        old_umask = os.umask(0o177)
        try:
            server = await asyncio.start_unix_server(handler, path=str(sock_path))
        finally:
            os.umask(old_umask)
        os.chmod(sock_path, 0o600)
        where = f"unix:{sock_path}"
    else:
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        where = f"tcp:127.0.0.1:{port}"
    info = ServerInfo(os.getpid(), where, secrets.token_urlsafe(24), str(root), time.time())
    write_json_atomic(info_path(root), asdict(info), mode=0o600)
    return server, info


def remove_info(root: Path, info: ServerInfo) -> None:
    """Remove server.json and the socket, but only if they are still ours."""
    current = read_info(root)
    if current is not None and current.pid == info.pid and current.token == info.token:
        info_path(root).unlink(missing_ok=True)
    if info.endpoint.startswith("unix:") and (current is None or current.token == info.token):
        Path(info.endpoint[5:]).unlink(missing_ok=True)
