"""The Claude Code PreToolUse hook as Claude Code runs it: `code-intel hook
pre-tool-use` as a subprocess, real hook payloads on stdin, exit code and stderr
asserted. With a live language server (it decides and the editor sees the blocked
write) and without one (the persisted sessions.db decides), plus the edge cases:
other tools, documentation, malformed input, no workspace, a server that hangs."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from code_intel.gating.workspace import open_engine
from code_intel.indexing.config import Config
from code_intel.indexing.embeddings.lazy import LazyEmbedder
from code_intel.lsp_server.client import WorkspaceClient
from lsprotocol import types

from tests.conftest import FIXTURES
from tests.e2e.lsp_helpers import uri

CODE_INTEL = str(Path(sys.executable).parent / "code-intel")
CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"
USER = "app/Models/User.php"
QUESTION = "ログインの試行回数の上限はいくつ?"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "laravel_app"
    shutil.copytree(FIXTURES / "laravel_app", root)
    (root / ".code-intel").mkdir()
    (root / "analysis.ipynb").write_text(json.dumps({"cells": [], "nbformat": 4,
                                                     "nbformat_minor": 5, "metadata": {}}))
    return root


def payload(root: Path, tool: str, tool_input: dict[str, Any],
            conversation: str = "5f1c8c1e-2b7a-4a53-9d0e-claude") -> str:
    """What Claude Code sends on stdin for PreToolUse."""
    return json.dumps({
        "session_id": conversation,
        "transcript_path": str(Path.home() / ".claude/projects/x/5f1c8c1e.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    })


def edit(root: Path, rel: str) -> str:
    return payload(root, "Edit", {"file_path": str(root / rel), "old_string": "<?php",
                                  "new_string": "<?php\n", "replace_all": False})


def write(root: Path, rel: str) -> str:
    return payload(root, "Write", {"file_path": str(root / rel), "content": "<?php\n"})


def multi_edit(root: Path, rel: str) -> str:
    return payload(root, "MultiEdit", {"file_path": str(root / rel), "edits": [
        {"old_string": "class", "new_string": "class", "replace_all": False}]})


def notebook_edit(root: Path, rel: str) -> str:
    return payload(root, "NotebookEdit", {"notebook_path": str(root / rel), "cell_id": "c1",
                                          "new_source": "print(1)", "cell_type": "code",
                                          "edit_mode": "replace"})


class Outcome:
    """The hook's answer as Claude Code reads it: exit 0 + decision JSON = denied with
    the reason; exit 0 and nothing on stdout = allowed; exit 1 = non-blocking error."""

    def __init__(self, done: subprocess.CompletedProcess[str]) -> None:
        self.returncode, self.stderr, self.stdout = done.returncode, done.stderr, done.stdout
        self.reason = ""
        if done.stdout.strip():
            decision = json.loads(done.stdout)["hookSpecificOutput"]
            assert decision["hookEventName"] == "PreToolUse"
            assert decision["permissionDecision"] == "deny"
            self.reason = decision["permissionDecisionReason"]

    @property
    def denied(self) -> bool:
        return self.returncode == 0 and bool(self.reason)

    @property
    def allowed(self) -> bool:
        return self.returncode == 0 and self.stdout == "" and self.stderr == ""


def hook(stdin: str, cwd: Path) -> Outcome:
    started = time.monotonic()
    done = subprocess.run([CODE_INTEL, "hook", "pre-tool-use"], input=stdin, text=True,
                          capture_output=True, cwd=cwd, timeout=30, check=False)
    assert time.monotonic() - started < 10, "the hook must answer within Claude Code's 10 s"
    assert "Traceback" not in done.stderr + done.stdout
    return Outcome(done)


def persisted_engine(root: Path):
    """The sessions.db a language server would leave behind, written by the same engine."""
    return open_engine(root, Config(), LazyEmbedder())


def read_payload(root: Path, rel: str, conversation: str) -> str:
    """Claude Code 2.1.330's PostToolUse payload for a Read (as captured from the CLI)."""
    path = str(root / rel)
    return json.dumps({
        "session_id": conversation, "transcript_path": "/tmp/t.jsonl", "cwd": str(root),
        "permission_mode": "acceptEdits", "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": path}, "tool_use_id": "toolu_1", "duration_ms": 3,
        "tool_response": {"type": "text", "file": {"filePath": path, "content": "<?php",
                                                   "numLines": 1, "startLine": 1,
                                                   "totalLines": 1}}})


def post_hook(stdin: str, cwd: Path) -> None:
    """The PostToolUse hook only observes: exit 0 and silent, whatever happens."""
    done = subprocess.run([CODE_INTEL, "hook", "post-tool-use"], input=stdin, text=True,
                          capture_output=True, cwd=cwd, timeout=30, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


# ---- without a language server -----------------------------------------------------------------


def test_each_conversation_is_judged_by_its_own_session_and_its_reads_count(workspace: Path):
    """Issue 14 Deliver 4: two Claude Code conversations in one workspace are gated
    independently (the hook payload's session_id names the conversation, the MCP bridge
    tells start_session the same id), and the agent's own Read counts as exploring."""
    a, b = "conversation-a", "conversation-b"
    engine = persisted_engine(workspace)
    sid = engine.start_session("QUESTION", QUESTION, agent_session=a)["session_id"]
    assert engine.submit_understanding(sid, files_analyzed=[CONTROLLER])["phase"] == "READY"
    engine.store.close()

    assert hook(payload(workspace, "Edit", {"file_path": str(workspace / CONTROLLER)}, a),
                workspace).allowed
    other = hook(payload(workspace, "Edit", {"file_path": str(workspace / CONTROLLER)}, b),
                 workspace)
    assert other.denied and "in this Claude Code conversation" in other.reason
    assert "start_session" in other.reason

    engine = persisted_engine(workspace)
    engine.start_session("MODIFY", QUESTION, agent_session=b)
    engine.store.close()
    other = hook(payload(workspace, "Edit", {"file_path": str(workspace / CONTROLLER)}, b),
                 workspace)
    assert other.denied and "writes are allowed only in READY" in other.reason
    assert hook(payload(workspace, "Edit", {"file_path": str(workspace / CONTROLLER)}, a),
                workspace).allowed

    edit_user = payload(workspace, "Edit", {"file_path": str(workspace / USER)}, a)
    post_hook(read_payload(workspace, USER, b), workspace)  # b's read is not a's
    assert hook(edit_user, workspace).denied
    post_hook(read_payload(workspace, USER, a), workspace)
    assert hook(edit_user, workspace).allowed
    post_hook("not json", workspace)  # never a complaint


def test_no_session_blocks_code_but_not_documentation(workspace: Path):
    refused = hook(edit(workspace, CONTROLLER), workspace)
    assert refused.denied
    assert "no active code-intel session" in refused.reason and "start_session" in refused.reason
    docs = hook(write(workspace, "docs/notes.md"), workspace)
    assert docs.allowed
    readme = hook(edit(workspace, "README.md"), workspace)
    assert readme.allowed


def test_persisted_ready_session_allows_explored_files_only(workspace: Path):
    engine = persisted_engine(workspace)
    sid = engine.start_session("QUESTION", QUESTION)["session_id"]
    assert engine.submit_understanding(sid, files_analyzed=[CONTROLLER])["phase"] == "READY"
    engine.store.close()

    for make in (edit, multi_edit):
        allowed = hook(make(workspace, CONTROLLER), workspace)
        assert allowed.allowed
        refused = hook(make(workspace, USER), workspace)
        assert refused.denied
        assert f"code-intel blocked {'Edit' if make is edit else 'MultiEdit'} on {USER}" \
            in refused.reason
        assert "was not explored in this session" in refused.reason
        assert f'analyze_structure(path="{USER}")' in refused.reason
        assert "revert_to_exploration(keep_results=true)" in refused.reason

    notebook = hook(notebook_edit(workspace, "analysis.ipynb"), workspace)
    assert notebook.denied and "analysis.ipynb" in notebook.reason
    # Write creates files: a new file in the explored directory is fine, elsewhere not
    new_here = hook(write(workspace, "app/Http/Controllers/Auth/LogoutController.php"), workspace)
    assert new_here.allowed, new_here.reason
    new_there = hook(write(workspace, "app/Jobs/LockAccount.php"), workspace)
    assert new_there.denied and "directory" in new_there.reason
    assert 'add_explored_files(paths=["app/Jobs/LockAccount.php"])' in new_there.reason
    # the refusals are kept for the editor's diagnostics
    engine = persisted_engine(workspace)
    assert USER in {b["path"] for b in engine.blocked_writes(sid)}
    engine.store.close()


def test_session_not_ready_blocks_with_the_next_step(workspace: Path):
    engine = persisted_engine(workspace)
    engine.start_session("MODIFY", "ログイン画面を直して")
    engine.store.close()
    refused = hook(edit(workspace, CONTROLLER), workspace)
    assert refused.denied
    assert "writes are allowed only in READY" in refused.reason
    assert "Next: explore with" in refused.reason and "submit_understanding" in refused.reason


def test_other_tools_and_other_directories_pass_silently(workspace: Path, tmp_path: Path):
    for tool, tool_input in (("Bash", {"command": "rm -rf app", "description": "x"}),
                             ("Read", {"file_path": str(workspace / CONTROLLER)}),
                             ("Grep", {"pattern": "login"})):
        done = hook(payload(workspace, tool, tool_input), workspace)
        assert done.allowed
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    done = hook(edit(elsewhere, "main.py"), elsewhere)
    assert done.allowed


def test_malformed_input_is_a_one_line_non_blocking_error(workspace: Path):
    for stdin, words in (("{not json", "not JSON"), ("", "not JSON"), ("[1, 2]", "JSON object"),
                         (payload(workspace, "Edit", {"old_string": "a"}), "tool_input.file_path"),
                         (payload(workspace, "NotebookEdit", {}), "tool_input.notebook_path")):
        done = hook(stdin, workspace)
        assert done.returncode == 1, stdin
        assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_server_that_does_not_answer_falls_back_to_the_persisted_state(workspace: Path):
    engine = persisted_engine(workspace)
    sid = engine.start_session("QUESTION", QUESTION)["session_id"]
    engine.submit_understanding(sid, files_analyzed=[CONTROLLER])
    engine.store.close()
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # connections complete, nothing is ever answered
    try:
        info = {"pid": os.getpid(), "endpoint": f"tcp:127.0.0.1:{silent.getsockname()[1]}",
                "token": "t", "workspace": str(workspace), "started_at": time.time()}
        (workspace / ".code-intel/server.json").write_text(json.dumps(info))
        started = time.monotonic()
        assert hook(edit(workspace, CONTROLLER), workspace).allowed
        refused = hook(edit(workspace, USER), workspace)
        assert refused.denied and "was not explored" in refused.reason
        assert time.monotonic() - started < 16
    finally:
        silent.close()


# ---- with a live language server -------------------------------------------------------------


class Editor:
    """The workspace's owner (an editor's server) recording the diagnostics it gets."""

    def __init__(self, root: Path) -> None:
        self.client = WorkspaceClient(root, "editor")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}

        @self.client.lsp.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)

        @self.client.lsp.feature("codeIntel/sessionChanged")
        def on_session(params: Any) -> None:
            pass

    async def session(self, tool: str, **params: Any) -> dict[str, Any]:
        return await self.client.request(f"codeIntel/session/{tool}", params)


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


async def run_hook(stdin: str, cwd: Path) -> Outcome:
    """The hook subprocess without blocking the loop the editor's client runs on."""
    return await asyncio.get_running_loop().run_in_executor(None, hook, stdin, cwd)


async def test_live_server_decides_and_the_editor_sees_the_blocked_write(editor: Editor,
                                                                       workspace: Path):
    # docs/protocol.md: check_write_target takes `session_id?`; the hook sends none
    docs = await editor.session("check_write_target", file_path="docs/plan.md")
    assert docs["allowed"] is True and docs["reason_code"] == "documentation"

    none = await run_hook(edit(workspace, CONTROLLER), workspace)
    assert none.denied and "no active code-intel session" in none.reason

    sid = (await editor.session("start_session", intent="QUESTION", query=QUESTION))["session_id"]
    ready = await editor.session("submit_understanding", session_id=sid,
                                 files_analyzed=[CONTROLLER])
    assert ready["phase"] == "READY"

    assert (await run_hook(edit(workspace, CONTROLLER), workspace)).allowed
    assert (await run_hook(write(workspace, "docs/plan.md"), workspace)).allowed
    refused = await run_hook(multi_edit(workspace, USER), workspace)
    assert refused.denied
    assert f"code-intel blocked MultiEdit on {USER}: session {sid}" in refused.reason
    assert f'analyze_structure(path="{USER}")' in refused.reason

    # the live server took the decision: the editor shows the blocked write
    target = uri(workspace, USER)
    for _ in range(200):
        if editor.diagnostics.get(target):
            break
        await asyncio.sleep(0.05)
    warning = editor.diagnostics[target][0]
    assert warning.source == "code-intel" and warning.severity == types.DiagnosticSeverity.Warning
    assert sid in warning.message

    # the agent reads the file itself (PostToolUse → the live server): now it is explored
    await asyncio.get_running_loop().run_in_executor(
        None, post_hook, read_payload(workspace, USER, "5f1c8c1e-2b7a-4a53-9d0e-claude"),
        workspace)
    assert USER in (await editor.session("get_session_status", session_id=sid))[
        "explored_files"]
    assert (await run_hook(edit(workspace, USER), workspace)).allowed
    for _ in range(200):
        if editor.diagnostics.get(target) == []:
            break
        await asyncio.sleep(0.05)
    assert editor.diagnostics[target] == []


# ---- fail closed, bad paths, other workspaces ---------------------------------------------------


class Garbled:
    """A live server that answers every request with something that is not an answer."""

    def __init__(self, root: Path) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        info = {"pid": os.getpid(), "endpoint": f"tcp:127.0.0.1:{self.sock.getsockname()[1]}",
                "token": "t", "workspace": str(root), "started_at": time.time()}
        (root / ".code-intel/server.json").write_text(json.dumps(info))
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                for request_id in (1, 2):
                    while data.count(b"Content-Length") < request_id:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                    body = json.dumps({"jsonrpc": "2.0", "id": request_id,
                                       "result": {} if request_id == 1 else "weird"}).encode()
                    conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def test_a_gate_that_cannot_decide_blocks_code_but_not_documentation(workspace: Path):
    garbled = Garbled(workspace)
    refused = hook(edit(workspace, CONTROLLER), workspace)
    assert refused.denied and "could not decide" in refused.reason
    assert "get_session_status" in refused.reason
    assert hook(edit(workspace, "README.md"), workspace).allowed

    (workspace / ".code-intel/config.json").write_text(json.dumps({"hook_fail_open": True}))
    opted_out = hook(edit(workspace, CONTROLLER), workspace)
    assert opted_out.returncode == 1 and "hook_fail_open" in opted_out.stderr
    garbled.sock.close()


def test_a_100_kb_path_is_refused_at_once(workspace: Path):
    started = time.monotonic()
    long_path = str(workspace) + "/" + "a/" * 50_000 + "x.py"
    refused = hook(payload(workspace, "Write", {"file_path": long_path, "content": ""}), workspace)
    assert time.monotonic() - started < 5
    assert refused.denied and "characters long" in refused.reason


def test_a_write_into_another_workspace_is_outside_this_session(workspace: Path, tmp_path: Path):
    other = tmp_path / "other_app"
    shutil.copytree(FIXTURES / "laravel_app", other)
    (other / ".code-intel").mkdir()
    engine = persisted_engine(other)  # the other workspace is READY for this very file
    sid = engine.start_session("QUESTION", QUESTION)["session_id"]
    engine.submit_understanding(sid, files_analyzed=[CONTROLLER])
    engine.store.close()
    assert hook(edit(other, CONTROLLER), other).allowed  # a session there may write it

    from_here = hook(payload(workspace, "Edit", {"file_path": str(other / CONTROLLER),
                                                 "old_string": "a", "new_string": "b"}), workspace)
    assert from_here.denied and "outside this session's workspace" in from_here.reason
