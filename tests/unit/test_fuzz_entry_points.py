"""Property-based fuzzing of the entry points a client reaches: generated params for
LSP requests (standard and `codeIntel/*`) against the real `code-intel lsp`, and
generated tool arguments against the real `code-intel mcp` bridge. Whatever comes
in, every request gets its reply, no traceback reaches the client, and the server
still answers a normal request afterwards. (The hook's payloads are fuzzed with the
hook, tests/e2e/test_hook.py.)"""

from __future__ import annotations

import asyncio
import json
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from code_intel.mcp_bridge.tools import TOOLS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES

CODE_INTEL = str(Path(sys.executable).parent / "code-intel")
REPLY_TIMEOUT = 60.0
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,  # the same examples in CI every time
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.sampled_from(["", "\x00", "a\x00b", "../../etc/passwd", "x" * 5000, "file:///\x00", "🙂"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
PARAM_KEYS = [
    "textDocument", "position", "uri", "line", "character", "context", "includeDeclaration", "query",
    "pattern", "path", "name", "text", "limit", "max_results", "glob", "kind", "exact", "force", "top",
    "collection", "n_results", "session_id", "intent", "slots", "fusion", "ignore_case", "fixed_strings",
]
shaped_params = st.fixed_dictionaries(
    {},
    optional={key: json_values for key in PARAM_KEYS},
) | st.builds(
    lambda uri, line, char: {"textDocument": {"uri": uri}, "position": {"line": line, "character": char}},
    st.sampled_from(["file:///nowhere.py", "file:///tmp/\x00.py", "not a uri", "file://" + "x" * 5000]) | st.text(),
    st.integers(min_value=-5, max_value=2**40) | json_values,
    st.integers(min_value=-5, max_value=2**40) | json_values,
)
params = shaped_params | json_values

LSP_METHODS = [
    "textDocument/definition", "textDocument/references", "textDocument/hover", "textDocument/documentSymbol",
    "workspace/symbol", "codeIntel/searchText", "codeIntel/findDefinitions", "codeIntel/findReferences",
    "codeIntel/analyzeStructure", "codeIntel/getFunctionAtLine", "codeIntel/getSymbols", "codeIntel/indexStatus",
    "codeIntel/query", "codeIntel/session/start_session", "codeIntel/session/get_session_status",
    "codeIntel/session/check_write_target",
]


def _assert_clean(text: str) -> None:
    assert "Traceback" not in text and 'File "/' not in text, text[:2000]


# ---- the language server -------------------------------------------------------------


class LspPipe:
    """A blocking JSON-RPC peer over the server's stdio; a thread reads replies."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [CODE_INTEL, "lsp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.replies: queue.Queue[dict] = queue.Queue()
        self._next = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif not line.strip() and length is not None:
                    break
            message = json.loads(out.read(length))
            if "method" in message and "id" in message:  # a server request: accept it
                self._write({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" not in message:
                self.replies.put(message)

    def _write(self, message: dict) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def call(self, method: str, params: Any) -> dict:
        self._next += 1
        msg_id = self._next
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not ...:
            message["params"] = params
        self._write(message)
        while True:
            try:
                reply = self.replies.get(timeout=REPLY_TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no reply to {method} with {str(params)[:300]}") from None
            if reply.get("id") == msg_id:
                return reply

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="module")
def lsp(tmp_path_factory) -> Iterator[LspPipe]:
    root = tmp_path_factory.mktemp("fuzz") / "shop"
    shutil.copytree(FIXTURES / "python_pkg", root)
    pipe = LspPipe(root)
    reply = pipe.call("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
    assert "result" in reply, reply
    pipe._write({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield pipe
    pipe.close()


@FUZZ
@given(method=st.sampled_from(LSP_METHODS), params=params | st.just(...))
def test_generated_lsp_params_get_a_clean_reply(lsp: LspPipe, method: str, params: Any):
    reply = lsp.call(method, params)
    assert ("result" in reply) != ("error" in reply), reply
    _assert_clean(json.dumps(reply))
    assert lsp.proc.poll() is None


def test_the_server_still_answers_after_the_fuzzing(lsp: LspPipe):
    reply = lsp.call("codeIntel/findDefinitions", {"name": "OrderService"})
    assert "result" in reply, reply


# ---- the MCP bridge ---------------------------------------------------------------------


class McpBridge:
    """The real `code-intel mcp` driven by the MCP SDK's client on a background loop."""

    def __init__(self, root: Path, log: Path) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self._ready: asyncio.Future | None = None
        self._stop = threading.Event()
        self.session = self.run(self._open(root, log), 120)

    async def _open(self, root: Path, log: Path) -> Any:
        from mcp import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        opened: asyncio.Future = self.loop.create_future()
        self._closed = asyncio.Event()

        async def hold() -> None:
            params = StdioServerParameters(command=CODE_INTEL, args=["mcp", "--workspace", str(root)])
            with log.open("a") as errlog:
                async with (
                    stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    opened.set_result(session)
                    await self._closed.wait()

        self._task = asyncio.ensure_future(hold())
        return await opened

    def run(self, coro: Any, timeout: float = REPLY_TIMEOUT) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, tool: str, args: Any) -> Any:
        return self.run(self.session.call_tool(tool, args))

    def close(self) -> None:
        async def stop() -> None:
            self._closed.set()
            await asyncio.wait_for(self._task, 30)

        try:
            self.run(stop(), 40)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture(scope="module")
def bridge(tmp_path_factory) -> Iterator[McpBridge]:
    base = tmp_path_factory.mktemp("fuzzmcp")
    root = base / "laravel_app"
    shutil.copytree(FIXTURES / "laravel_app", root)
    bridge = McpBridge(root, base / "mcp.log")
    yield bridge
    bridge.close()


def _tool_args(name: str) -> st.SearchStrategy:
    keys = list(TOOLS[name].properties) or PARAM_KEYS
    return st.fixed_dictionaries({}, optional={k: json_values for k in keys}) | st.dictionaries(
        st.text(max_size=10), json_values, max_size=3
    )


@FUZZ
@given(data=st.data())
def test_generated_mcp_arguments_get_a_clean_tool_answer(bridge: McpBridge, data: st.DataObject):
    tool = data.draw(st.sampled_from(sorted(TOOLS)), label="tool")
    args = data.draw(_tool_args(tool), label="args")
    result = bridge.call(tool, args)
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    _assert_clean(text)
    _assert_clean(json.dumps(result.structured_content or {}, default=str))


def test_the_bridge_still_answers_after_the_fuzzing(bridge: McpBridge):
    result = bridge.call("search_text", {"pattern": "function login"})
    assert not result.is_error, result.content
