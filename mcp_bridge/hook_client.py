"""A minimal, blocking JSON-RPC client for the hook's one question to the live server.

The hook runs before every Edit/Write, so it cannot pay for pygls, lsprotocol or
asyncio start-up: this speaks LSP's framing (`Content-Length` headers) over the
endpoint named in `.code-intel/server.json` with plain sockets, initializes with the
token, asks one request and hangs up. Every wait is bounded by one deadline.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from code_intel.indexing.private import store_dir  # stdlib only
from code_intel.indexing.processes import pid_alive  # stdlib only

INFO_FILE = "server.json"
MAX_FRAME = 8_000_000


class RpcError(Exception):
    """The server answered the request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class Unreachable(Exception):
    """No live server, or it did not answer before the deadline."""


def server_info(root: Path) -> Mapping[str, Any] | None:
    """server.json when it names a live process, else None."""
    try:
        info = json.loads((store_dir(root) / INFO_FILE).read_text(encoding="utf-8"))
        pid, endpoint, token = int(info["pid"]), str(info["endpoint"]), str(info["token"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not pid_alive(pid):
        return None
    return {"pid": pid, "endpoint": endpoint, "token": token}


def request(root: Path, method: str, params: Mapping[str, Any], deadline: float) -> Any:
    """Ask the live server of `root` one request; RpcError for an error answer,
    Unreachable when there is no server or no answer before `deadline` (monotonic)."""
    info = server_info(root)
    if info is None:
        raise Unreachable("no live code-intel server")
    try:
        with _connect(str(info["endpoint"]), deadline) as sock:
            channel = _Channel(sock, deadline)
            # Pipelined, one write: the server handles a connection's messages in order
            # and authenticates on `initialize` before it reads the next one, so waiting
            # for the initialize answer first would only add a round trip per write.
            channel.send(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {},
                    "initializationOptions": {"token": info["token"]}}},
                {"jsonrpc": "2.0", "method": "initialized", "params": {}},
                {"jsonrpc": "2.0", "id": 2, "method": method, "params": dict(params)},
            )
            channel.answer(1)
            return channel.answer(2)
    except (OSError, ValueError) as exc:
        raise Unreachable(f"{type(exc).__name__}: {exc}") from None


def _connect(endpoint: str, deadline: float) -> socket.socket:
    kind, _, where = endpoint.partition(":")
    if kind == "unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address: Any = where
    elif kind == "tcp":
        host, _, port = where.rpartition(":")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        address = (host, int(port))
    else:
        raise ValueError(f"unknown endpoint kind {endpoint!r}")
    try:
        sock.settimeout(_remaining(deadline))
        sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return sock


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no answer in time")
    return left


class _Channel:
    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock, self.deadline, self.buffer = sock, deadline, b""

    def send(self, *messages: Mapping[str, Any]) -> None:
        frames = b""
        for message in messages:
            body = json.dumps(message).encode("utf-8")
            frames += b"Content-Length: %d\r\n\r\n" % len(body) + body
        self.sock.settimeout(_remaining(self.deadline))
        self.sock.sendall(frames)

    def answer(self, request_id: int) -> Any:
        """The result of `request_id`; notifications and server requests are skipped."""
        while True:
            message = self._read()
            if message.get("id") != request_id or "method" in message:
                continue
            error = message.get("error")
            if isinstance(error, Mapping):
                raise RpcError(int(error.get("code", 0)), str(error.get("message", "")),
                               error.get("data"))
            return message.get("result")

    def _read(self) -> Mapping[str, Any]:
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), None)
        if length is None or not 0 <= length <= MAX_FRAME:
            raise ValueError("bad frame from the server")
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        message = json.loads(body)
        if not isinstance(message, Mapping):
            # a protocol fault, reported as Unreachable like any other
            raise ValueError("the server sent a message that is not an object")  # noqa: TRY004
        return message

    def _fill(self) -> None:
        self.sock.settimeout(_remaining(self.deadline))
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buffer += chunk
