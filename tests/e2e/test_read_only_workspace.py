"""A workspace its user cannot write (another user's checkout, `chmod -w`): `index`,
`defs`, `search`, `lsp` and `mcp` keep the store in a per-user cache directory
(`$XDG_CACHE_HOME/code-intel/<hash of the real path>`, 0700) and work as usual, with
one note saying where the index is; nothing is written into the workspace.

As root (CI) the commands run with the DAC-override capabilities dropped, so file
modes bind them as they bind any other owner; as another user `chmod -w` is enough.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from code_intel.indexing.private import cache_store_dir
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import FIXTURES
from tests.e2e.wire import Wire, initialize, notification

CLI = str(Path(sys.executable).parent / "code-intel")


def _unprivileged() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: root writes into any read-only directory")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def _snapshot(root: Path) -> set[tuple[str, int]]:
    return {(str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*")}


@pytest.fixture
def read_only(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURES / "python_pkg", root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    yield root
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*_unprivileged(), CLI, *args], capture_output=True, text=True, timeout=600, check=False)


async def test_a_read_only_checkout_is_indexed_into_the_user_cache(read_only: Path):
    before = _snapshot(read_only)
    cache = cache_store_dir(read_only)

    index = _run("index", str(read_only))
    assert index.returncode == 0, index.stderr
    assert f"its index is kept in {cache}" in index.stderr.replace("\n", ""), index.stderr
    assert (cache / "index.db").is_file()
    assert cache.stat().st_mode & 0o777 == 0o700

    defs = _run("defs", "hash_password", "-w", str(read_only))
    assert defs.returncode == 0 and "shop/auth/login.py:18" in defs.stdout, defs.stderr

    search = _run("search", "hash password", "--json", "-n", "1", "--wait-model", "0", "-w", str(read_only))
    assert search.returncode == 0, search.stderr
    assert '"hash_password"' in search.stdout

    # The language server, and the MCP bridge attaching to it through the cached endpoint.
    proc = await asyncio.create_subprocess_exec(
        *_unprivileged(), CLI, "lsp", cwd=read_only, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    wire = Wire(proc.stdout, proc.stdin, proc)  # type: ignore[arg-type]
    try:
        assert "result" in await wire.call(0, "initialize", initialize(0, read_only)["params"], timeout=60)
        await wire.send(notification("initialized"))
        deadline = time.monotonic() + 120
        while not (cache / "server.json").exists():
            assert time.monotonic() < deadline, "the endpoint was never recorded"
            await asyncio.sleep(0.2)
        reply = await wire.call(1, "codeIntel/findDefinitions", {"name": "hash_password"}, timeout=60)
        assert reply["result"]["definitions"][0]["path"] == "shop/auth/login.py", reply

        prefix = _unprivileged()
        params = StdioServerParameters(
            command=(prefix or [CLI])[0], args=[*prefix[1:], *([CLI] if prefix else []), "mcp", "--workspace",
                                             str(read_only)],
            env={**os.environ},
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("find_definitions", {"name": "hash_password"})
            assert not result.is_error and "shop/auth/login.py" in str(result.content), result
    finally:
        await wire.close()

    assert _snapshot(read_only) == before, "something was written into the read-only checkout"
