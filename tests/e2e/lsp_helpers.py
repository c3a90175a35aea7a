"""Shared pieces of the language-server end-to-end tests: a mixed workspace, the real
server command, and small waits on the real client."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pytest_lsp import client_capabilities

from tests.conftest import FIXTURES

SERVER_COMMAND = [str(Path(sys.executable).parent / "code-intel"), "lsp"]


def make_mixed_workspace(root: Path) -> Path:
    """Python package + Laravel app side by side: the mixed repository users have."""
    shutil.copytree(FIXTURES / "python_pkg", root / "backend")
    shutil.copytree(FIXTURES / "laravel_app", root / "web")
    return root


def uri(root: Path, rel: str) -> str:
    return (root / rel).as_uri()


def position_of(root: Path, rel: str, needle: str, occurrence: int = 0) -> types.Position:
    """0-based position of the n-th occurrence of `needle` in a fixture file."""
    lines = (root / rel).read_text(encoding="utf-8").splitlines()
    seen = 0
    for n, line in enumerate(lines):
        col = line.find(needle)
        while col != -1:
            if seen == occurrence:
                return types.Position(n, col)
            seen += 1
            col = line.find(needle, col + 1)
    raise AssertionError(f"{needle!r} not found in {rel}")


async def wait_ready(client: LanguageClient, min_syncs: int = 1, timeout: float = 60) -> dict:
    """Poll codeIntel/indexStatus until `min_syncs` syncs have finished."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        status = await client.protocol.send_request_async("codeIntel/indexStatus", {})
        if status.state == "ready" and status.sync_count >= min_syncs:
            return status
        assert asyncio.get_running_loop().time() < deadline, f"index not ready: {status}"
        await asyncio.sleep(0.1)


async def open_as_vscode(client: LanguageClient, workspace: Path) -> None:
    """Initialize as VS Code does on a one-folder workspace and wait for the first sync;
    the initialize result is kept as `client.init_result`."""
    client.init_result = await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(workspace.as_uri(), workspace.name)],
        )
    )
    client.workspace_root = workspace
    await wait_ready(client)


def as_dict(obj) -> object:
    """pygls hands custom results back as namedtuples; tests read them as dicts."""
    if hasattr(obj, "_asdict"):
        return {k: as_dict(v) for k, v in obj._asdict().items()}
    if isinstance(obj, list):
        return [as_dict(v) for v in obj]
    return obj
