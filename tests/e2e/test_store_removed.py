"""`rm -rf .code-intel` while `code-intel lsp` runs: the server keeps answering (never
an `sqlite3.OperationalError`), recreates the store, indexes the workspace again and
records its endpoint anew, so other clients can still attach."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path

from tests.conftest import FIXTURES
from tests.e2e.wire import Wire, initialize, notification


async def _ready(wire: Wire, root: Path) -> None:
    assert await wire.call(0, "initialize", initialize(0, root)["params"], timeout=60)
    await wire.send(notification("initialized"))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = (await wire.call(1, "codeIntel/indexStatus", {}) or {}).get("result") or {}
        if status.get("state") == "ready" and status.get("sync_count", 0) >= 1 and (root / ".code-intel/server.json").exists():
            return
        await asyncio.sleep(0.2)
    raise AssertionError("the server never became ready")


async def test_a_store_removed_under_the_server_is_recreated(tmp_path: Path):
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "python_pkg", root)
    wire = await Wire.spawn(cwd=root)
    try:
        await _ready(wire, root)
        assert "result" in await wire.call(9, "codeIntel/query", {"text": "hash password"}, timeout=120)
        # moved away first, so it vanishes at once even while the server is still writing
        # into it (a plain rmtree could then fail with "Directory not empty")
        (root / ".code-intel").rename(root.parent / "removed-store")
        shutil.rmtree(root.parent / "removed-store")

        status = await wire.call(10, "codeIntel/indexStatus", {})
        assert "result" in status, status  # was: -32603 sqlite3.OperationalError
        assert any("was removed" in m and "recreated" in m for m in status["result"]["messages"]), status
        assert "result" in await wire.call(11, "codeIntel/getSymbols", {"query": "hash"})

        found: list = []
        deadline = time.monotonic() + 120
        n = 20
        while not found and time.monotonic() < deadline:
            n += 1
            reply = await wire.call(n, "codeIntel/findDefinitions", {"name": "hash_password"})
            assert "result" in reply, reply
            found = reply["result"]["definitions"]
            await asyncio.sleep(0.2)
        assert found and found[0]["path"] == "shop/auth/login.py"
        store = root / ".code-intel"
        assert (store / "index.db").is_file() and store.stat().st_mode & 0o777 == 0o700

        # The endpoint is recorded again: a second client attaches with the new token.
        info = json.loads((store / "server.json").read_text())
        other = await Wire.connect(info["endpoint"])
        try:
            reply = await other.call(1, "initialize", initialize(1, root, info["token"])["params"])
            assert reply is not None and "result" in reply, reply
            await other.send(notification("initialized"))
            reply = await other.call(2, "codeIntel/findDefinitions", {"name": "hash_password"})
            assert reply["result"]["definitions"], reply
        finally:
            await other.close()
    finally:
        await wire.close()
