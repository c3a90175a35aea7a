"""A navigation request sent while the workspace's first index is being built waits
for the build instead of answering an empty list (which an editor shows as "no
definition found"); with `sync_on_start` off nothing is built, and nothing waits.
Real server over stdio, requests pipelined right behind `initialized`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.lsp_helpers import position_of, uri
from tests.e2e.wire import Wire, initialize, notification, request

FILES = 400


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """Many modules; `zz_target.py` (last in path order) defines what the first one calls."""
    root = tmp_path_factory.mktemp("first") / "ws"
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    body = "".join(f"\n\ndef helper_{i}(value):\n    return value + {i}\n" for i in range(40))
    for n in range(FILES):
        (pkg / f"mod_{n:03}.py").write_text(f'"""Module {n}."""\n{body}')
    (pkg / "aa_caller.py").write_text("from pkg.zz_target import far_away\n\n\ndef go():\n    return far_away(1)\n")
    (pkg / "zz_target.py").write_text("def far_away(x):\n    return x\n")
    return root


def _definition(msg_id: int, root: Path) -> dict:
    pos = position_of(root, "pkg/aa_caller.py", "far_away(1)")
    return request(msg_id, "textDocument/definition", {
        "textDocument": {"uri": uri(root, "pkg/aa_caller.py")},
        "position": {"line": pos.line, "character": pos.character},
    })


async def _start(root: Path, options: dict | None = None) -> Wire:
    wire = await Wire.spawn(cwd=root)
    init = initialize(0, root)
    init["params"]["initializationOptions"] = options
    await wire.send(init)
    assert (await wire.reply_to(0, timeout=60) or {}).get("result"), "no initialize result"
    return wire


@pytest.mark.asyncio
async def test_definition_during_the_first_build_waits_for_it(workspace: Path) -> None:
    wire = await _start(workspace)
    try:
        await wire.send(notification("initialized"), _definition(1, workspace))
        reply = await wire.reply_to(1, timeout=60)
        assert reply is not None and "result" in reply, reply
        targets = [loc["uri"] for loc in reply["result"] or []]
        assert targets == [uri(workspace, "pkg/zz_target.py")], json.dumps(reply)[:500]
    finally:
        await wire.close()


@pytest.mark.asyncio
async def test_without_sync_on_start_nothing_is_built_and_nothing_waits(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("from pkg.b import f\n\nf(1)\n")
    (root / "pkg" / "b.py").write_text("def f(x):\n    return x\n")
    wire = await _start(root, {"config": {"sync_on_start": False}})
    try:
        await wire.send(notification("initialized"))
        pos = position_of(root, "pkg/a.py", "f(1)")
        reply = await wire.call(1, "textDocument/definition", {
            "textDocument": {"uri": uri(root, "pkg/a.py")},
            "position": {"line": pos.line, "character": pos.character},
        }, timeout=10)  # well under the first-build wait: it must not wait for a build that never comes
        assert reply is not None and reply.get("result") == [], reply
        status = (await wire.call(2, "codeIntel/indexStatus", {}) or {}).get("result") or {}
        assert status.get("sync_count") == 0, status
        synced = await wire.call(3, "codeIntel/syncIndex", {}, timeout=60)
        assert synced and "result" in synced, synced
        reply = await wire.call(4, "textDocument/definition", {
            "textDocument": {"uri": uri(root, "pkg/a.py")},
            "position": {"line": pos.line, "character": pos.character},
        })
        assert [loc["uri"] for loc in reply["result"]] == [uri(root, "pkg/b.py")], reply
    finally:
        await wire.close()
