"""`initialize` answered by the stdio front end before pygls is imported: the editor
gets the capabilities pygls computes, messages pipelined behind it are all answered
in order, and the endpoint still refuses a wrong token before answering anything."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest
from code_intel.lsp_server import endpoint, front
from code_intel.lsp_server.front import CACHE_FILE
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.e2e.lsp_helpers import SERVER_COMMAND, make_mixed_workspace, wait_ready
from tests.e2e.wire import Wire, frame, initialize, notification, request

LOGIN_PY = "backend/shop/auth/login.py"
CAPABILITIES = {
    "vscode": lambda: client_capabilities("visual-studio-code"),
    "neovim": lambda: client_capabilities("neovim"),
    "none": types.ClientCapabilities,
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_mixed_workspace(tmp_path / "repo")


@pytest.fixture
def server_env(tmp_path: Path) -> dict[str, str]:
    """A private start-up cache, empty at first."""
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}


async def _initialize_with(env: dict[str, str], root: Path, capabilities: types.ClientCapabilities):
    """A real client's initialize → (result, seconds from spawn to the answer)."""
    client = LanguageClient()
    start = time.perf_counter()
    await client.start_io(*SERVER_COMMAND, env=env)
    result = await client.initialize_session(
        types.InitializeParams(capabilities=capabilities, root_uri=root.as_uri(), process_id=os.getpid())
    )
    elapsed = time.perf_counter() - start
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    await client.shutdown_session()
    return result, elapsed, errors


async def _spawn(env: dict[str, str]) -> Wire:
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env, limit=64 * 1024 * 1024,
    )
    return Wire(proc.stdout, proc.stdin, proc)  # type: ignore[arg-type]


@pytest.mark.parametrize("preset", sorted(CAPABILITIES))
async def test_the_early_answer_is_the_capabilities_pygls_computes(workspace, server_env, tmp_path, preset):
    capabilities = CAPABILITIES[preset]()
    computed, _, _ = await _initialize_with(server_env, workspace, capabilities)  # pygls answers, remembered
    cache = json.loads((tmp_path / "cache/code-intel" / CACHE_FILE).read_text())
    assert len(cache["entries"]) == 1
    early, _, errors = await _initialize_with(server_env, workspace, capabilities)
    assert early == computed
    assert errors == []  # the hand-over found pygls' own answer equal to the one sent


async def test_initialize_is_answered_before_the_protocol_library_could_load(workspace, server_env):
    """Faster than `import lsprotocol.types` alone, measured in the same test: the
    answer cannot have waited for pygls."""
    capabilities = types.ClientCapabilities()
    await _initialize_with(server_env, workspace, capabilities)
    answers = [(await _initialize_with(server_env, workspace, capabilities))[1] for _ in range(3)]
    floors = []
    for _ in range(3):
        start = time.perf_counter()
        importer = await asyncio.create_subprocess_exec(sys.executable, "-c", "import lsprotocol.types")
        assert await importer.wait() == 0
        floors.append(time.perf_counter() - start)
    assert min(answers) < min(floors), f"initialize answered in {answers}, lsprotocol imports in {floors}"


@pytest.mark.parametrize("cache", ["warm", "cold"])
async def test_messages_pipelined_behind_initialize_are_all_answered(workspace, server_env, cache):
    if cache == "warm":
        await _initialize_with(server_env, workspace, types.ClientCapabilities())
    doc = (workspace / LOGIN_PY).as_uri()
    text_document = {"uri": doc}
    position = {"line": 0, "character": 0}
    wire = await _spawn(server_env)
    try:
        await wire.send(
            initialize(1, workspace),
            notification("initialized"),
            notification("textDocument/didOpen", {"textDocument": {
                "uri": doc, "languageId": "python", "version": 1,
                "text": (workspace / LOGIN_PY).read_text(encoding="utf-8"),
            }}),
            request(2, "textDocument/documentSymbol", {"textDocument": text_document}),
            request(3, "textDocument/hover", {"textDocument": text_document, "position": position}),
            request(4, "codeIntel/indexStatus", {}),
            notification("$/cancelRequest", {"id": 4}),
            request(5, "textDocument/documentSymbol", {"textDocument": text_document}),
            request(6, "shutdown"),
            notification("exit"),
        )
        replies = [m for m in await wire.everything(timeout=30) if "id" in m and "method" not in m]
        # the hover waits for the workspace's first build (a navigation answer from an
        # index not built yet would say "nothing there"): the others keep their order
        assert [m["id"] for m in replies if m["id"] != 3] == [1, 2, 4, 5, 6]
        assert sorted(m["id"] for m in replies) == [1, 2, 3, 4, 5, 6]
        by_id = {m["id"]: m for m in replies}
        assert "capabilities" in by_id[1]["result"]
        assert [s["name"] for s in by_id[2]["result"]] == [s["name"] for s in by_id[5]["result"]]
        assert any(s["name"] == "LoginService" for s in by_id[2]["result"])
        assert all("error" not in m for m in replies if m["id"] != 4), replies
        assert await asyncio.wait_for(wire.proc.wait(), 10) == 0  # `exit` after `shutdown`
    finally:
        await wire.close()


async def test_a_cached_answer_that_differs_from_the_servers_is_reported_and_replaced(
    workspace, server_env, tmp_path
):
    """A cache entry that no longer matches what pygls computes (edited by hand, or a
    change the fingerprint cannot see) is sent once, shown as an error, and replaced."""
    cache = tmp_path / "cache/code-intel" / CACHE_FILE
    stale = {"capabilities": {}, "serverInfo": {"name": "stale"}}
    front.store_result(str(cache), front.fingerprint(), {}, stale)
    wire = await _spawn(server_env)
    try:
        await wire.send(initialize(1, workspace))
        assert (await wire.reply_to(1))["result"] == stale
        await wire.send(notification("initialized"))
        shown = []
        while (message := await wire.receive(timeout=15)) is not None:
            if message.get("method") == "window/showMessage":
                shown.append(message["params"])
                break
        assert shown and shown[0]["type"] == 1 and "initialize" in shown[0]["message"], shown
        assert await wire.call(2, "shutdown") is not None
    finally:
        await wire.close()
    (entry,) = json.loads(cache.read_text())["entries"]
    assert entry["result"]["serverInfo"]["name"] == "code-intel"
    assert entry["result"]["capabilities"]["definitionProvider"]


async def test_a_wrong_token_on_the_endpoint_gets_no_capabilities(workspace, server_env):
    """The primary came up through the front end with a warm cache; a stranger on its
    endpoint is refused before anything is answered."""
    await _initialize_with(server_env, workspace, types.ClientCapabilities())
    editor = LanguageClient()
    await editor.start_io(*SERVER_COMMAND, env=server_env)
    await editor.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=workspace.as_uri())
    )
    try:
        await wait_ready(editor)
        info = endpoint.read_info(workspace)
        assert info is not None
        stranger = await Wire.connect(info.endpoint)
        await stranger.send(
            initialize(1, workspace, token="wrong-token"),
            frame(request(2, "workspace/symbol", {"query": "login"})),
        )
        seen = await stranger.everything(timeout=5)
        await stranger.close()
        assert [m.get("id") for m in seen] == [1]
        assert "token" in seen[0]["error"]["message"] and "result" not in seen[0]
        assert "capabilities" not in json.dumps(seen)
    finally:
        await editor.shutdown_session()
