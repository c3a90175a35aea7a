"""A slow standard request does not freeze the others: references of a very common
name run off the event loop, so a definition sent meanwhile is answered first, and a
`$/cancelRequest` ends the slow one at once. Real server, driven over stdio."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.e2e.lsp_helpers import position_of, uri
from tests.e2e.wire import Wire, initialize, notification, request

FILES = 120
CALLS_PER_FILE = 150


def _busy_workspace(root: Path) -> Path:
    """`common` called everywhere (18,000 references), `rare` defined once."""
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text("def common(x):\n    return x\n\n\ndef rare(y):\n    return y\n")
    body = "".join(f"    total += common({i})\n" for i in range(CALLS_PER_FILE))
    for n in range(FILES):
        (pkg / f"user_{n}.py").write_text(
            f"from pkg.base import common, rare\n\n\ndef use_{n}():\n    total = rare(0)\n{body}    return total\n"
        )
    return root


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    return _busy_workspace(tmp_path_factory.mktemp("load") / "busy")


async def _ready_server(root: Path) -> Wire:
    wire = await Wire.spawn(cwd=root)
    assert await wire.call(0, "initialize", initialize(0, root)["params"], timeout=60)
    await wire.send(notification("initialized"))
    deadline = time.monotonic() + 240
    n = 1
    while time.monotonic() < deadline:
        n += 1
        status = (await wire.call(n, "codeIntel/indexStatus", {}, timeout=60) or {}).get("result") or {}
        if status.get("state") == "ready" and status.get("sync_count", 0) >= 1:
            return wire
        await asyncio.sleep(0.2)
    raise AssertionError(f"index not ready: {status}")


def _references(msg_id: int, root: Path) -> dict:
    pos = position_of(root, "pkg/base.py", "common")
    return request(msg_id, "textDocument/references", {
        "textDocument": {"uri": uri(root, "pkg/base.py")},
        "position": {"line": pos.line, "character": pos.character},
        "context": {"includeDeclaration": True},
    })


def _definition(msg_id: int, root: Path) -> dict:
    pos = position_of(root, "pkg/user_0.py", "rare(0)")
    return request(msg_id, "textDocument/definition", {
        "textDocument": {"uri": uri(root, "pkg/user_0.py")},
        "position": {"line": pos.line, "character": pos.character},
    })


async def _replies(wire: Wire, ids: set[int], timeout: float = 120) -> dict[int, tuple[float, dict]]:
    """Each awaited reply with the time it arrived, in arrival order."""
    got: dict[int, tuple[float, dict]] = {}
    while ids - set(got):
        message = await wire.receive(timeout)
        assert message is not None, f"no reply to {ids - set(got)}"
        if message.get("id") in ids and "method" not in message:
            got[message["id"]] = (time.monotonic(), message)
    return got


@pytest.mark.asyncio(loop_scope="function")
async def test_a_definition_is_answered_while_references_of_a_common_name_run(workspace: Path):
    wire = await _ready_server(workspace)
    try:
        started = time.monotonic()
        await wire.send(_references(100, workspace))
        alone = (await _replies(wire, {100}))[100][1]
        slow_alone = time.monotonic() - started
        assert len(alone["result"]) > 100, alone  # call sites of `common`, many files

        await wire.send(_references(101, workspace))
        # Sent at once: the server reads both in order, so the references are under way
        # when the definition arrives. A longer pause let a warm second search finish
        # first and its 18,000 locations be serialised on the loop ahead of the
        # definition, which is not what this test is about.
        await asyncio.sleep(0.01)
        await wire.send(_definition(102, workspace))
        got = await _replies(wire, {101, 102})
        assert got[102][1]["result"][0]["uri"].endswith("pkg/base.py")
        assert len(got[101][1]["result"]) == len(alone["result"])
        # On the event loop the definition could only start once the references had
        # been assembled and sent; off it, it is answered first.
        assert got[102][0] < got[101][0], f"definition queued behind references ({slow_alone:.2f}s alone)"
    finally:
        await wire.close()


@pytest.mark.asyncio(loop_scope="function")
async def test_cancelled_references_are_answered_at_once(workspace: Path):
    wire = await _ready_server(workspace)
    try:
        started = time.monotonic()
        await wire.send(_references(200, workspace))
        await _replies(wire, {200})
        slow_alone = time.monotonic() - started

        await wire.send(_references(201, workspace))
        await asyncio.sleep(min(0.1, slow_alone / 5))
        cancelled = time.monotonic()
        await wire.send(notification("$/cancelRequest", {"id": 201}))
        await wire.send(_definition(202, workspace))
        got = await _replies(wire, {201, 202})
        assert got[201][1].get("error", {}).get("code") == -32800, got[201][1]
        assert got[201][0] - cancelled < slow_alone / 2, (
            f"cancel answered after {got[201][0] - cancelled:.2f}s; references take {slow_alone:.2f}s"
        )
    finally:
        await wire.close()
