"""`code-intel mcp` end to end, driven by real MCP clients: the SDK's stdio client and
the MCP Inspector CLI. The bridge runs as Claude Code runs it (a subprocess on
stdio) over the Laravel fixture, with its own language server child or attached to
an editor's server; nothing is mocked.

Covered: the tool list and schemas; a session walk to READY in which the bridge
supplies the session it started; phase refusals and bad arguments as tool errors
that say what to do next; a huge search reply truncated within the bound; sync
progress; a killed language server restarted by the next call and the child stopped
on exit; and one index and one gate shared with an editor (its unsaved edit is
visible to the agent, the agent's blocked write is a diagnostic in the editor)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from code_intel.lsp_server import endpoint
from code_intel.lsp_server.client import WorkspaceClient
from code_intel.mcp_bridge.tools import SPEC_TOOLS
from lsprotocol import types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import FIXTURES
from tests.e2e.lsp_helpers import uri

CODE_INTEL = str(Path(sys.executable).parent / "code-intel")
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"
AUTH = "app/Services/AuthService.php"
USER = "app/Models/User.php"
PRODUCT = "app/Models/Product.php"
DETAILED = (
    "ログイン画面で間違ったパスワードを5回入力したときにアカウントがロックされないので、"
    "ロックするように修正して"
)
DETAILED_SLOTS = {
    "target_feature": {"value": "ログイン画面", "quote": "ログイン画面で"},
    "trigger_condition": {"value": "間違ったパスワードを5回入力したとき",
                          "quote": "間違ったパスワードを5回入力したときに"},
    "observed_issue": {"value": "アカウントがロックされない", "quote": "アカウントがロックされないので"},
    "desired_action": {"value": "ロックするように修正", "quote": "ロックするように修正して"},
}
SYMBOLS = ["LoginController", "LoginController::login", "AuthService::isLockedOut"]
REPLY_BOUND = 40_000


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "laravel_app"
    shutil.copytree(FIXTURES / "laravel_app", root)
    return root


@asynccontextmanager
async def mcp_client(workspace: Path, log: Path) -> AsyncIterator[ClientSession]:
    """`code-intel mcp --workspace …` as a stdio subprocess, its stderr to `log`."""
    params = StdioServerParameters(command=CODE_INTEL, args=["mcp", "--workspace", str(workspace)])
    with log.open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **args: Any):
    """A tool call, repeated as its answer says while the embedding model loads."""
    for _ in range(300):
        result = await session.call_tool(tool, args)
        data = result.structured_content or {}
        if result.is_error or data.get("status") != "initializing":
            return result
        await asyncio.sleep(min(float(data.get("retry_after_seconds", 1)), 0.5))
    raise AssertionError(f"{tool}: the model never finished loading")


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def reply_size(result) -> tuple[int, int]:
    return len(text_of(result)), len(json.dumps(result.structured_content, ensure_ascii=False))


async def walk_to_ready(session: ClientSession) -> str:
    """The detailed request of the seed's walkthrough: LOW risk, READY with little.
    No session_id is ever passed: the bridge supplies the one it started."""
    started = await call(session, "start_session", intent="MODIFY", query=DETAILED)
    assert not started.is_error, text_of(started)
    sid = started.structured_content["session_id"]
    assert "set_query_frame" in text_of(started) and "Extract the slots" in text_of(started)
    frame = await call(session, "set_query_frame", slots=DETAILED_SLOTS)
    assert frame.structured_content["success"], text_of(frame)
    assert frame.structured_content["risk"] == "LOW"
    defs = await call(session, "find_definitions", name="LoginController")
    assert text_of(defs).splitlines()[:2] == [
        "1 definition of LoginController:",
        (f"{CONTROLLER}:18 class App\\Http\\Controllers\\Auth\\LoginController  class "
         "LoginController extends Controller"),
    ]
    refs = await call(session, "find_references", name="isLockedOut")
    assert "reference" in text_of(refs) and CONTROLLER in text_of(refs)
    outline = await call(session, "analyze_structure", path=AUTH)
    assert "method isLockedOut" in text_of(outline)
    answer = await call(session, "submit_understanding", symbols_identified=SYMBOLS,
                        entry_points=["LoginController::login"], files_analyzed=[CONTROLLER, AUTH],
                        existing_patterns=["RateLimiter::tooManyAttempts keyed by the e-mail"])
    assert not answer.is_error, text_of(answer)
    if answer.structured_content["phase"] != "READY":  # the real model may say grey zone
        answer = await call(session, "validate_symbol_relevance", target_feature="ログイン画面",
                            symbols=SYMBOLS, code_evidence="LoginController::login calls "
                            "AuthService::isLockedOut before attempting the login")
        assert not answer.is_error, text_of(answer)
    assert answer.structured_content["phase"] == "READY", text_of(answer)
    return sid


async def wait_for(predicate, timeout: float = 15.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


# ---- the SDK client ------------------------------------------------------------------------


async def test_every_tool_is_listed_with_a_schema_and_a_description(workspace: Path, tmp_path):
    async with mcp_client(workspace, tmp_path / "mcp.log") as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
    assert set(SPEC_TOOLS) <= set(listed)
    for tool in listed.values():
        assert tool.input_schema["type"] == "object" and "properties" in tool.input_schema
        assert "Phases:" in tool.description and len(tool.description) > 40
    assert listed["find_definitions"].input_schema["required"] == ["name"]
    assert listed["start_session"].input_schema["properties"]["intent"]["enum"] == [
        "IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION"]
    assert listed["search_text"].annotations.read_only_hint is True


QUALIFIED = {  # Class::method and Class.method, per language → the file that defines it
    "python_pkg/shop/auth/login.py": ("LoginService", "login"),
    "ts_app/src/auth/login.ts": ("AuthService", "login"),
    "laravel_app/app/Http/Controllers/Auth/LoginController.php": ("LoginController", "login"),
    "go_service/internal/auth/service.go": ("Service", "Login"),
    "java_app/src/main/java/com/example/shop/service/OrderServiceImpl.java": (
        "OrderServiceImpl", "place"),
}


async def test_class_member_names_find_definitions_in_every_language(tmp_path: Path):
    """Issue 14: `LoginController::login` returned nothing through MCP, though the tool
    description promised the form. Both separators, five languages."""
    root = tmp_path / "mixed"
    for fixture in ("python_pkg", "ts_app", "laravel_app", "go_service", "java_app"):
        shutil.copytree(FIXTURES / fixture, root / fixture)
    async with mcp_client(root, tmp_path / "mcp.log") as session:
        for path, (cls, member) in QUALIFIED.items():
            for name in (f"{cls}::{member}", f"{cls}.{member}"):
                result = await call(session, "find_definitions", name=name)
                found = result.structured_content["definitions"]
                assert [d["path"] for d in found] == [path], (name, found)
                assert found[0]["name"] == member
        missing = await call(session, "find_definitions", name="LoginController::logn")
        assert any("exact=false" in h for h in missing.structured_content["hints"])
        partial = await call(session, "find_definitions", name="LoginController::log", exact=False)
        assert "login" in {d["name"] for d in partial.structured_content["definitions"]}


async def test_a_session_walk_reaches_ready_with_the_remembered_session(workspace: Path, tmp_path):
    async with mcp_client(workspace, tmp_path / "mcp.log") as session:
        sid = await walk_to_ready(session)
        status = await call(session, "get_session_status")
        # the server counted the calls the bridge made under the remembered session
        assert {"find_definitions", "find_references", "analyze_structure"} <= set(
            status.structured_content["tools_used"])
        assert status.structured_content["session_id"] == sid
        assert f"Session {sid}: phase READY" in text_of(status)
        allowed = await call(session, "check_write_target", file_path=AUTH)
        assert allowed.structured_content["allowed"] is True
        assert text_of(allowed).startswith(f"ALLOWED: {AUTH}")
        refused = await call(session, "check_write_target", file_path=USER)
        assert not refused.is_error and refused.structured_content["allowed"] is False
        assert text_of(refused).startswith(f"REFUSED: {USER}")
        assert f'analyze_structure({{"path":"{USER}"}})' in text_of(refused)
        outcome = await call(session, "record_outcome", outcome="success",
                             analysis="the lockout check was in AuthService")
        assert not outcome.is_error, text_of(outcome)
        # an explicit session_id is honoured
        other = await call(session, "get_session_status", session_id="sess_nonexistent")
        assert other.is_error and "call start_session" in text_of(other)


async def test_phase_refusals_and_bad_arguments_say_what_to_do(workspace: Path, tmp_path):
    async with mcp_client(workspace, tmp_path / "mcp.log") as session:
        early = await call(session, "submit_understanding", symbols_identified=["X"])
        assert early.is_error and "call start_session first" in text_of(early)
        await call(session, "start_session", intent="MODIFY", query=DETAILED)
        for tool, args, allowed in (
            ("submit_verification", {"results": [{"id": "h1", "confirmed": True}]}, "VERIFICATION"),
            ("add_explored_files", {"paths": [USER]}, "READY"),
            ("semantic_search", {"query": "ログイン", "collection": "forest"}, "SEMANTIC, READY"),
        ):
            refused = await call(session, tool, **args)
            text = text_of(refused)
            assert refused.is_error, text
            assert refused.structured_content["error"] == "wrong_phase"
            assert "Current phase: EXPLORATION." in text and f"is allowed in: {allowed}." in text
            assert "Next: explore with query, find_definitions" in text
            assert "submit_understanding" in text
        bad = await call(session, "start_session", intent="DANCE", query="x")
        assert bad.is_error and "intent: 'DANCE' is not one of" in text_of(bad)
        typo = await call(session, "find_definitions", symbol="LoginController")
        assert typo.is_error and "'symbol' was unexpected" in text_of(typo)
        outside = await call(session, "analyze_structure", path="../../etc/passwd")
        assert outside.is_error and "outside the workspace" in text_of(outside)


async def test_a_huge_search_reply_is_truncated_within_the_bound(workspace: Path, tmp_path):
    generated = workspace / "storage" / "generated"
    generated.mkdir(parents=True)
    for n in range(40):
        lines = [f"// generated line {i} of file {n}: lorem ipsum dolor sit amet" for i in range(300)]
        (generated / f"data_{n}.php").write_text("\n".join(lines) + "\n")
    async with mcp_client(workspace, tmp_path / "mcp.log") as session:
        result = await call(session, "search_text", pattern=".", max_results=1000, context=3)
        text_len, json_len = reply_size(result)
        assert not result.is_error
        assert text_len + json_len <= REPLY_BOUND
        data = result.structured_content
        assert data["truncated"] is True and data["total"] > 12_000
        cut = data["truncation"]["cuts"][0]
        assert cut["path"] == "matches" and cut["total"] == 1000 and cut["shown"] == len(data["matches"])
        text = text_of(result)
        assert text.startswith(f"{data['total']} matches for '.'")
        assert "[truncated to fit the reply: matches:" in text
        assert "narrow with path or glob" in text
        # narrowing as told gives a complete answer
        narrow = await call(session, "search_text", pattern="generated line 7 of file 3:",
                            path="storage/generated", fixed_strings=True)
        assert narrow.structured_content["total"] == 1 and "truncation" not in narrow.structured_content


async def test_sync_index_reports_progress(workspace: Path, tmp_path):
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async with mcp_client(workspace, tmp_path / "mcp.log") as session:
        await call(session, "get_symbols", path="app/Models")  # the first sync is done
        result = await session.call_tool("sync_index", {"force": True}, progress_callback=progress)
    assert not result.is_error and text_of(result).startswith("Index synced in")
    assert seen and seen[-1] == (1.0, 1.0, "done")


async def test_a_killed_language_server_is_restarted_and_the_child_stopped_on_exit(
    workspace: Path, tmp_path
):
    log = tmp_path / "mcp.log"
    async with mcp_client(workspace, log) as session:
        first = await call(session, "find_definitions", name="AuthService")
        assert not first.is_error
        info = endpoint.read_info(workspace)
        assert info is not None  # the bridge's child owns the workspace now
        os.kill(info.pid, signal.SIGKILL)
        await wait_for(lambda: not endpoint.pid_alive(info.pid))
        again = await call(session, "find_definitions", name="AuthService")
        assert not again.is_error, text_of(again)
        assert again.structured_content["definitions"][0]["path"] == AUTH
        second = endpoint.read_info(workspace)
        assert second is not None and second.pid != info.pid
    await wait_for(lambda: not endpoint.pid_alive(second.pid))
    assert "connected: language server child" in log.read_text()


def test_stdout_carries_nothing_but_the_protocol(workspace: Path, tmp_path: Path):
    """What Claude Code reads: every stdout line is a JSON-RPC message, even while the
    language server child starts, indexes and logs."""
    proc = subprocess.Popen(
        [CODE_INTEL, "mcp", "--workspace", str(workspace)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=(tmp_path / "mcp.log").open("w"), text=True,
    )
    lines: list[str] = []

    def send(message: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        proc.stdin.flush()

    def answer(msg_id: int) -> dict[str, Any]:
        while True:
            line = proc.stdout.readline()
            assert line, "the server closed stdout early"
            lines.append(line)
            message = json.loads(line)
            if message.get("id") == msg_id:
                return message

    try:
        send({"id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}})
        assert answer(1)["result"]["serverInfo"]["name"] == "code-intel"
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call", "params": {
            "name": "find_definitions", "arguments": {"name": "OrderController"}}})
        result = answer(2)["result"]
        assert result["isError"] is False and "OrderController" in result["content"][0]["text"]
        proc.stdin.close()
        lines += proc.stdout.readlines()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    for line in lines:
        assert json.loads(line)["jsonrpc"] == "2.0", line


def test_sigterm_stops_the_bridge_and_its_language_server(workspace: Path, tmp_path: Path):
    proc = subprocess.Popen(
        [CODE_INTEL, "mcp", "--workspace", str(workspace)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=(tmp_path / "mcp.log").open("w"), text=True,
    )
    try:
        for message in (
            {"id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}}},
            {"method": "notifications/initialized"},
            {"id": 2, "method": "tools/call", "params": {"name": "get_symbols",
                                                         "arguments": {"path": "app/Models"}}},
        ):
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            proc.stdin.flush()
        while json.loads(proc.stdout.readline()).get("id") != 2:
            pass
        child = endpoint.read_info(workspace)
        assert child is not None and endpoint.pid_alive(child.pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        for _ in range(100):
            if not endpoint.pid_alive(child.pid):
                break
            time.sleep(0.05)
        assert not endpoint.pid_alive(child.pid)
        assert endpoint.read_info(workspace) is None  # the child removed its record
    finally:
        if proc.poll() is None:
            proc.kill()


# ---- the MCP Inspector CLI, an independent client ----------------------------------------------


def inspector(workspace: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not on PATH: the MCP Inspector CLI cannot run")
    cache = Path.home() / ".cache" / "code-intel-tests" / "npm"  # installed once, reused
    env = {**os.environ, "npm_config_cache": str(cache), "npm_config_update_notifier": "false",
           "MCP_CATALOG_PATH": str(tmp_path / "inspector-catalog.json")}
    return subprocess.run(
        [npx, "-y", INSPECTOR, "--cli", CODE_INTEL, "mcp", "--workspace", str(workspace), *args],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path, check=False,
    )


def test_the_mcp_inspector_lists_and_calls_the_tools(workspace: Path, tmp_path: Path):
    listed = inspector(workspace, tmp_path, "--method", "tools/list", "--strict")
    assert listed.returncode == 0, listed.stderr[-2000:]
    tools = {t["name"]: t for t in json.loads(listed.stdout)["tools"]}
    assert set(SPEC_TOOLS) <= set(tools)
    assert all(t["inputSchema"]["type"] == "object" for t in tools.values())
    assert "Warning:" not in listed.stderr  # --strict: the schemas are portable

    called = inspector(workspace, tmp_path, "--method", "tools/call", "--tool-name",
                       "find_definitions", "--tool-arg", "name=LoginController")
    assert called.returncode == 0, called.stderr[-2000:]
    answer = json.loads(called.stdout)
    assert answer["isError"] is False
    assert answer["structuredContent"]["definitions"][0]["path"] == CONTROLLER
    assert answer["content"][0]["text"].startswith("1 definition of LoginController:")


# ---- one index and one gate shared with an editor ----------------------------------------------


class Editor:
    """The editor: owns the workspace's server and records the diagnostics it is sent."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = WorkspaceClient(root, "editor")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}

        @self.client.lsp.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)

        @self.client.lsp.feature("codeIntel/sessionChanged")
        def on_session(params: Any) -> None:
            pass

    def warnings(self, rel: str) -> list[types.Diagnostic] | None:
        return self.diagnostics.get(uri(self.root, rel))


@pytest.fixture
async def editor(workspace: Path):
    ed = Editor(workspace)
    await ed.client.connect()
    for _ in range(600):
        if (await ed.client.request("codeIntel/indexStatus"))["state"] == "ready":
            break
        await asyncio.sleep(0.1)
    yield ed
    await ed.client.close()


async def test_the_agent_shares_the_editors_index_and_gate(editor: Editor, workspace: Path, tmp_path):
    owner = endpoint.read_info(workspace)
    assert owner is not None
    # the editor types a new method into AuthService without saving
    doc = uri(workspace, AUTH)
    text = (workspace / AUTH).read_text()
    lsp = editor.client.lsp
    lsp.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(doc, "php", 1, text)))
    anchor = text.index("    public function logout")
    line = text[:anchor].count("\n")
    lsp.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version=2, uri=doc),
        [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            text="    public function unlockAccount(User $user): void\n    {\n    }\n\n")],
    ))

    log = tmp_path / "mcp.log"
    async with mcp_client(workspace, log) as session:
        found = await call(session, "find_definitions", name="unlockAccount")
        assert text_of(found).startswith("1 definition of unlockAccount:")
        assert found.structured_content["definitions"][0]["path"] == AUTH
        assert not (workspace / AUTH).read_text().count("unlockAccount")  # never saved

        # the agent's blocked write is a warning in the editor until it is allowed
        sid = await walk_to_ready(session)
        refused = await call(session, "check_write_target", file_path=USER)
        assert refused.structured_content["allowed"] is False
        await wait_for(lambda: bool(editor.warnings(USER)))
        warning = editor.warnings(USER)[0]
        assert warning.source == "code-intel"
        assert warning.severity == types.DiagnosticSeverity.Warning and sid in warning.message
        unseen = await call(session, "add_explored_files", paths=[USER])
        assert unseen.is_error and "has not been seen" in text_of(unseen)  # read it first
        read = await call(session, "analyze_structure", path=USER)
        assert not read.is_error, text_of(read)
        allowed = await call(session, "check_write_target", file_path=USER)
        assert allowed.structured_content["allowed"] is True
        await wait_for(lambda: editor.warnings(USER) == [])

        # … or until the session ends
        await call(session, "check_write_target", file_path=PRODUCT)
        await wait_for(lambda: bool(editor.warnings(PRODUCT)))
        ended = await call(session, "end_session")
        assert not ended.is_error, text_of(ended)
        await wait_for(lambda: editor.warnings(PRODUCT) == [])
    assert f"attached to the language server pid {owner.pid}" in log.read_text()
    assert endpoint.read_info(workspace).pid == owner.pid  # the editor still owns it
