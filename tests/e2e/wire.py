"""A raw JSON-RPC peer for the security tests: it writes exactly the bytes a test
wants (broken frames, pipelined messages, no `initialize`) and reads what comes back,
which a well-behaved LSP client library cannot be made to do."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

SERVER = str(Path(sys.executable).parent / "code-intel")


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id: Any, method: str, params: Any = None) -> dict:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Any = None) -> dict:
    return {"jsonrpc": "2.0", "method": method, "params": params if params is not None else {}}


def initialize(msg_id: Any, root: Path, token: str | None = None) -> dict:
    options = {"token": token} if token is not None else None
    return request(
        msg_id,
        "initialize",
        {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}, "initializationOptions": options},
    )


class Wire:
    """One connection: `send` raw bytes or messages, `receive` the next message."""

    def __init__(self, reader: asyncio.StreamReader, writer: Any, proc: Any = None) -> None:
        self.reader, self.writer, self.proc = reader, writer, proc

    @classmethod
    async def spawn(cls, *args: str, cwd: Path | None = None) -> Wire:
        proc = await asyncio.create_subprocess_exec(
            SERVER, "lsp", *args, cwd=cwd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, limit=64 * 1024 * 1024,
        )
        return cls(proc.stdout, proc.stdin, proc)  # type: ignore[arg-type]

    @classmethod
    async def connect(cls, endpoint: str) -> Wire:
        kind, _, where = endpoint.partition(":")
        if kind == "unix":
            reader, writer = await asyncio.open_unix_connection(where, limit=64 * 1024 * 1024)
        else:
            host, _, port = where.rpartition(":")
            reader, writer = await asyncio.open_connection(host, int(port), limit=64 * 1024 * 1024)
        return cls(reader, writer)

    async def send(self, *messages: Any) -> None:
        """Everything in one write: the server sees the messages pipelined."""
        self.writer.write(b"".join(m if isinstance(m, bytes) else frame(m) for m in messages))
        await self.writer.drain()

    async def receive(self, timeout: float = 10) -> dict | None:
        """The next message, or None when the connection closed or nothing came."""
        try:
            return await asyncio.wait_for(self._read(), timeout)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            return None

    async def _read(self) -> dict:
        length = 0
        while True:
            line = await self.reader.readline()
            if not line:
                raise asyncio.IncompleteReadError(b"", None)
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif not line.strip():
                return json.loads(await self.reader.readexactly(length))

    async def reply_to(self, msg_id: Any, timeout: float = 30) -> dict | None:
        """The reply to `msg_id`, skipping notifications and server requests."""
        deadline = asyncio.get_running_loop().time() + timeout
        while (left := deadline - asyncio.get_running_loop().time()) > 0:
            message = await self.receive(left)
            if message is None:
                return None
            if message.get("id") == msg_id and "method" not in message:
                return message
            if "method" in message and "id" in message:  # a server request: accept it
                await self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        return None

    async def call(self, msg_id: Any, method: str, params: Any = None, timeout: float = 30) -> dict | None:
        await self.send(request(msg_id, method, params))
        return await self.reply_to(msg_id, timeout)

    async def everything(self, timeout: float = 3) -> list[dict]:
        """All messages until the connection closes or is quiet for `timeout`."""
        seen = []
        while (message := await self.receive(timeout)) is not None:
            seen.append(message)
        return seen

    async def closed(self, timeout: float = 5) -> bool:
        try:
            return await asyncio.wait_for(self.reader.read(), timeout) == b""
        except (TimeoutError, ConnectionError):
            return False

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # already closed by the other side
            self.writer.close()
        if self.proc is not None:
            if self.proc.returncode is None:
                self.proc.kill()
            await self.proc.wait()
