"""`code-intel search` while a language server owns the workspace: the CLI asks the
server (which sees the editor's unsaved buffers and keeps the model loaded) instead of
loading everything itself; `codeIntel/query` accepts a whole pasted issue."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from code_intel.lsp_server import endpoint
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.e2e.lsp_helpers import SERVER_COMMAND, make_mixed_workspace, wait_ready

EXE = str(Path(sys.executable).parent / "code-intel")
SERVICE_PY = "backend/shop/orders/service.py"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_mixed_workspace(tmp_path / "repo")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def editor(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("neovim"), root_uri=workspace.as_uri())
    )
    lsp_client.workspace_root = workspace
    await wait_ready(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_cli_search_answers_through_the_owning_server(editor: LanguageClient):
    root = editor.workspace_root
    info = endpoint.read_info(root)
    assert info is not None
    proc = await asyncio.to_thread(
        subprocess.run, [EXE, "search", "place an order", "--json", "--top", "3"],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert f"answered by the language server that owns this workspace (pid {info.pid})" in answer["notes"]
    assert answer["status"] in ("ok", "partial")
    # the server is still there for the editor
    status = await editor.protocol.send_request_async("codeIntel/indexStatus", {})
    assert status.state == "ready"


async def test_query_accepts_a_pasted_issue_with_a_traceback(editor: LanguageClient):
    issue = (
        "Refunds fail for cancelled orders\n\n"
        "Traceback (most recent call last):\n"
        f'  File "/srv/app/{SERVICE_PY}", line 5, in place_order\n'
        "ValueError: order already cancelled\n"
    ) + "request log line with nothing useful in it\n" * 1500
    assert len(issue) > 50_000
    answer = await editor.protocol.send_request_async("codeIntel/query", {"text": issue, "top": 5})
    files = [f.path for f in answer.files]
    assert files[0] == SERVICE_PY
