"""Intelephense's indexing time, the PHP peer of the index benchmark.

Install it once (it is not a dependency of code-intel):

    npm install --prefix /work/peers/index intelephense
    # executable: /work/peers/index/node_modules/.bin/intelephense

The server is spawned on stdio with a fresh storage directory (`clearCache`), so the
time runs from spawn to its `indexingEnded` notification: a cold index, as ours is
measured. Requests it sends (configuration, registrations) get empty answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Any


def send_message(stream: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise RuntimeError("intelephense exited before it finished indexing")
        line = line.strip()
        if not line:
            break
        key, _, value = line.partition(b":")
        if key.lower() == b"content-length":
            length = int(value)
    if length is None:
        raise RuntimeError("intelephense sent a frame without Content-Length")
    return json.loads(stream.read(length))


def index_seconds(root: Path, exe: str, timeout: float = 600.0) -> float:
    """Seconds from spawning intelephense on `root` to its `indexingEnded`."""
    with tempfile.TemporaryDirectory(prefix="intelephense-") as storage:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [exe, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            send_message(proc.stdin, {
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "processId": os.getpid(),
                    "rootUri": root.as_uri(),
                    "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                    "capabilities": {"workspace": {"configuration": True}},
                    "initializationOptions": {"storagePath": storage, "clearCache": True},
                },
            })
            while time.perf_counter() - started < timeout:
                message = read_message(proc.stdout)
                method = message.get("method")
                if method is None and message.get("id") == 1:
                    send_message(proc.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
                elif method is not None and "id" in message:
                    items = (message.get("params") or {}).get("items", [])
                    result = [None] * len(items) if method == "workspace/configuration" else None
                    send_message(proc.stdin, {"jsonrpc": "2.0", "id": message["id"], "result": result})
                elif method == "indexingEnded":
                    return time.perf_counter() - started
            raise RuntimeError(f"intelephense did not finish indexing within {timeout:.0f} s")
        finally:
            proc.kill()
            proc.wait()
