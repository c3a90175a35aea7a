"""One owner per workspace: a second client attaches through `.code-intel/server.json`
and sees the editor's unsaved buffer; strangers and stale records are handled."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import pytest_lsp
from code_intel.lsp_server import endpoint
from code_intel.lsp_server.client import WorkspaceClient
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.e2e.lsp_helpers import SERVER_COMMAND, make_mixed_workspace, uri, wait_ready

SERVICE_PY = "backend/shop/orders/service.py"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = make_mixed_workspace(tmp_path / "repo")
    # A record left by a process that no longer exists must not stop the new owner.
    (root / ".code-intel").mkdir()
    (root / ".code-intel/server.json").write_text(
        json.dumps({"pid": 999999, "endpoint": "unix:/nonexistent.sock", "token": "old", "workspace": str(root)})
    )
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def editor(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            root_uri=workspace.as_uri(),
        )
    )
    lsp_client.workspace_root = workspace
    await wait_ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_second_client_sees_the_editors_unsaved_buffer(editor: LanguageClient):
    root = editor.workspace_root
    info = endpoint.read_info(root)
    assert info is not None and info.token != "old" and info.pid != 999999
    assert stat.S_IMODE(os.stat(root / ".code-intel/server.json").st_mode) == 0o600
    if info.endpoint.startswith("unix:"):
        assert stat.S_IMODE(os.stat(info.endpoint[5:]).st_mode) == 0o600

    doc = uri(root, SERVICE_PY)
    text = (root / SERVICE_PY).read_text()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(doc, "python", 1, text)))
    editor.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=doc),
            [types.TextDocumentContentChangeWholeDocument(text=text + "\n\ndef refund_order(order_id: int) -> None:\n    pass\n")],
        )
    )
    # The change is a notification on the editor's own pipe and the agent asks on another
    # connection: the editor's next answer marks the change as applied (on a loaded
    # machine the agent's request could otherwise be read first).
    symbols = await editor.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(doc))
    )
    assert "refund_order" in [s.name for s in symbols]

    agent = WorkspaceClient(root, "agent")
    await agent.connect(spawn=False)
    try:
        assert agent.attached is not None and agent.attached.pid == info.pid
        found = await agent.request("codeIntel/findDefinitions", {"name": "refund_order"})
        assert [d["path"] for d in found["definitions"]] == [SERVICE_PY]
        status = await agent.request("codeIntel/indexStatus")
        assert status["open_documents"] == [SERVICE_PY]
    finally:
        await agent.close()

    # The agent leaving does not stop the editor's server.
    status = await editor.protocol.send_request_async("codeIntel/indexStatus", {})
    assert status.state == "ready"


async def test_a_client_without_the_token_is_refused(editor: LanguageClient):
    root = editor.workspace_root
    info = endpoint.read_info(root)
    assert info is not None
    stranger = WorkspaceClient(root, "stranger")
    forged = endpoint.ServerInfo(
        info.pid, info.endpoint, "wrong-token", info.workspace, info.started_at
    )
    with pytest.raises(JsonRpcException, match="token"):
        await stranger.attach(forged)
    await stranger.close()
