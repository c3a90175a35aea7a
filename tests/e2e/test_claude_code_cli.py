"""The real Claude Code CLI (npm `@anthropic-ai/claude-code`, pinned below) driven
offline through `ANTHROPIC_BASE_URL` by a scripted stand-in of the Messages API
(tests/e2e/fake_anthropic.py), on a workspace made by `code-intel init`, committed and
cloned to another path. Run as root, `--dangerously-skip-permissions` is refused, so
the run uses `--permission-mode acceptEdits` with the rules init wrote.

The CLI is taken from CLAUDE_CODE_BIN, else installed from npm into `.ci/peers` (git-ignored)
on first use; only where npm cannot install it is the test skipped, with that reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.e2e.fake_anthropic import FakeAnthropic

CODE_INTEL_BIN = Path(sys.executable).parent
CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"
QUESTION = "How many login attempts are allowed before the account is throttled?"
CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.330"  # pinned: the test checks its behaviour
PEERS = Path(__file__).resolve().parents[2] / ".ci/peers"


def _claude_cli() -> str | None:
    """The pinned CLI: CLAUDE_CODE_BIN, else the project-local copy, installed from npm
    on first use so the README's test command needs nothing installed by hand."""
    given = os.environ.get("CLAUDE_CODE_BIN")
    if given:
        return given if Path(given).exists() else None
    local = PEERS / "node_modules/.bin/claude"
    if not local.exists() and shutil.which("npm"):
        subprocess.run(["npm", "install", "--prefix", str(PEERS), "--no-audit", "--no-fund",
                        "--no-save", CLAUDE_CODE], capture_output=True, timeout=300, check=False)
    return str(local) if local.exists() else None


pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def claude() -> str:
    cli = _claude_cli()
    if cli is None:
        pytest.skip(f"the Claude Code CLI ({CLAUDE_CODE}) could not be installed with npm into "
                    ".ci/peers, and CLAUDE_CODE_BIN is not set")
    return cli


def git(*args: str) -> None:
    subprocess.run(["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args],
                   check=True, capture_output=True, timeout=60)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    made = tmp_path / "made"
    shutil.copytree(FIXTURES / "laravel_app", made)
    (made / "README.md").write_text("# Laravel app\n")
    done = subprocess.run([str(CODE_INTEL_BIN / "code-intel"), "init", str(made)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    git("init", "-q", str(made))
    git("-C", str(made), "add", "-A")
    git("-C", str(made), "commit", "-qm", "code-intel init")
    target = tmp_path / "another" / "place" / "app"
    git("clone", "-q", str(made), str(target))
    shutil.rmtree(made)  # nothing may still point at the original
    # On the new machine: `code-intel init` once writes the personal allow rule
    # (.claude/settings.local.json) and changes no committed file.
    again = subprocess.run([str(CODE_INTEL_BIN / "code-intel"), "init", str(target)],
                           capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    status = subprocess.run(["git", "-C", str(target), "status", "--porcelain"],
                            capture_output=True, text=True, check=True).stdout
    assert status == "", status
    return target


def run_claude(claude: str, root: Path, prompt: str, fake: FakeAnthropic, home: Path,
               path_first: Path | None = None) -> dict[str, Any]:
    path = f"{CODE_INTEL_BIN}:/usr/local/bin:/usr/bin:/bin"
    env = {
        "PATH": f"{path_first}:{path}" if path_first else path,
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MCP_TIMEOUT": "120000",
        "MCP_TOOL_TIMEOUT": "180000",
    }
    done = subprocess.run([claude, "-p", prompt, "--output-format", "json",
                           "--permission-mode", "acceptEdits"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=500,
                          check=False)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    return json.loads(done.stdout)


def tool_results(fake: FakeAnthropic) -> dict[str, tuple[str, str, bool]]:
    """tool_use id → (tool name, result text, is_error) from what Claude Code sent."""
    names: dict[str, str] = {}
    results: dict[str, tuple[str, str, bool]] = {}
    for request in fake.main_requests:
        for message in request.get("messages", []):
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if block.get("type") == "tool_use":
                    names[block["id"]] = block["name"]
                elif block.get("type") == "tool_result":
                    text = block.get("content")
                    if isinstance(text, list):
                        text = "\n".join(str(b.get("text", "")) for b in text)
                    results[block["tool_use_id"]] = (names.get(block["tool_use_id"], "?"),
                                                     str(text), bool(block.get("is_error")))
    return results


def test_claude_code_is_gated_from_its_first_turn_in_a_fresh_clone(claude: str, clone: Path,
                                                                    tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    controller = clone / CONTROLLER
    before = controller.read_text()
    edit = {"file_path": str(controller), "old_string": "<?php",
            "new_string": "<?php\n// reviewed"}
    after_denial: list[str] = []
    script: list[Any] = [
        [("mcp__code-intel__start_session", {"intent": "QUESTION", "query": QUESTION})],
        [("Read", {"file_path": str(controller)})],
        [("Edit", edit)],  # before READY: denied, the file unchanged
        lambda body: after_denial.append(controller.read_text()) or [
            ("mcp__code-intel__query", {"text": "login throttle attempts"})],
        [("mcp__code-intel__submit_understanding", {"files_analyzed": [CONTROLLER]})],
        [("Edit", edit)],  # READY and explored: lands
        [("Write", {"file_path": str(clone / "NOTES.md"), "content": "notes\n"})],
        [("Write", {"file_path": str(clone / "app/Jobs/LockAccount.php"),
                    "content": "<?php\n"})],
        "done",
    ]
    with FakeAnthropic(script) as fake:
        run_claude(claude, clone, "Answer with code-intel: " + QUESTION, fake, home)

    first = fake.main_requests[0]
    names = {tool["name"] for tool in first["tools"]}
    # first-turn tools: the /code workflow's first tools are loaded, not deferred
    assert "mcp__code-intel__start_session" in names, [
        (len(r.get("tools") or []), json.dumps(r).count("mcp__code-intel")) for r in fake.requests]
    results = list(tool_results(fake).values())
    by_step = list(results)
    assert len(by_step) >= 8, by_step
    start, _read, denied_edit, query, understood, edit_ok, notes, new_file = by_step[:8]
    assert start[0] == "mcp__code-intel__start_session" and not start[2], start
    assert "session_id" in start[1]
    assert query[0] == "mcp__code-intel__query" and not query[2], query
    assert "LoginController" in query[1], query
    assert denied_edit[0] == "Edit" and "code-intel blocked Edit" in denied_edit[1], denied_edit
    # the model reads the reason (Claude Code 2.1.330 prefixes "PreToolUse:Edit hook
    # error: "), not the hook's command line
    assert "pre-tool-use" not in denied_edit[1] and "command -v" not in denied_edit[1]
    assert "writes are allowed only in READY" in denied_edit[1]
    assert after_denial == [before]  # the denied Edit left the file unchanged
    assert "READY" in understood[1], understood
    assert edit_ok[0] == "Edit" and "code-intel blocked" not in edit_ok[1], edit_ok
    assert controller.read_text() != before and "// reviewed" in controller.read_text()
    assert notes[0] == "Write" and (clone / "NOTES.md").exists(), notes
    assert new_file[0] == "Write" and "code-intel blocked Write" in new_file[1], new_file
    assert not (clone / "app/Jobs/LockAccount.php").exists()
    # the served workspace is the clone, not the directory init ran in
    assert (clone / ".code-intel").is_dir()

    with FakeAnthropic(["done"]) as fake:
        run_claude(claude, clone, "/code list the login routes", fake, home)
    sent = json.dumps(fake.main_requests[0]["messages"])
    assert "Work on this request with the code-intel tools" in sent
    assert "list the login routes" in sent


def test_each_conversation_has_its_own_session_and_its_reads_count(claude: str, clone: Path,
                                                                    tmp_path: Path):
    """Deliver 4 and 5 on the real CLI: the agent's own Read (PostToolUse hook) counts as
    exploring the file; a second conversation in the same workspace is not let through
    by the first one's READY session; advice reaches the model in the tool result."""
    home = tmp_path / "home"
    home.mkdir()
    user = clone / "app/Models/User.php"
    before = user.read_text()
    edit = {"file_path": str(user), "old_string": "<?php", "new_string": "<?php\n// read"}
    script: list[Any] = [
        [("mcp__code-intel__start_session", {"intent": "QUESTION", "query": QUESTION})],
        [("Read", {"file_path": str(user)})],
        [("mcp__code-intel__find_definitions", {"name": "LoginControler"})],
        [("mcp__code-intel__submit_understanding", {})],
        [("Edit", edit)],  # READY, and explored only by the agent's own Read: lands
        "done",
    ]
    with FakeAnthropic(script) as fake:
        run_claude(claude, clone, "Answer with code-intel: " + QUESTION, fake, home)
    start, _read, missing, understood, edited = list(tool_results(fake).values())[:5]
    assert "session_id" in start[1] and "READY" in understood[1], (start, understood)
    # the model reads the advice, not only the empty list
    assert missing[0] == "mcp__code-intel__find_definitions" and "exact=false" in missing[1]
    assert edited[0] == "Edit" and "code-intel blocked" not in edited[1], edited
    assert "// read" in user.read_text() and user.read_text() != before

    controller = clone / CONTROLLER
    unchanged = controller.read_text()
    other: list[Any] = [
        [("Read", {"file_path": str(controller)})],
        [("Edit", {"file_path": str(controller), "old_string": "<?php",
                   "new_string": "<?php\n// other"})],
        "done",
    ]
    with FakeAnthropic(other) as fake:
        run_claude(claude, clone, "Change the login controller", fake, home)
    _read, denied = list(tool_results(fake).values())[:2]
    # the first conversation's READY session does not decide for this one
    assert denied[0] == "Edit" and "code-intel blocked Edit" in denied[1], denied
    assert "this Claude Code conversation" in denied[1]
    assert controller.read_text() == unchanged


def test_a_slow_starting_bridge_still_serves_the_first_turn(claude: str, clone: Path,
                                                            tmp_path: Path):
    """On a loaded machine the bridge's imports can take longer than Claude Code's default
    wait for MCP servers (about 5 s in 2.1.330), which left the first turn without the
    code-intel tools; the connect timeout init writes makes the first turn wait. The
    bridge is started 8 s late by a `code-intel` earlier on the PATH."""
    home = tmp_path / "home"
    home.mkdir()
    slow = tmp_path / "slow-bin"
    slow.mkdir()
    wrapper = slow / "code-intel"
    wrapper.write_text('#!/bin/sh\n[ "$1" = mcp ] && sleep 8\n'
                       f'exec "{CODE_INTEL_BIN / "code-intel"}" "$@"\n')
    wrapper.chmod(0o755)
    with FakeAnthropic(["done"]) as fake:
        run_claude(claude, clone, "hello", fake, home, path_first=slow)
    names = {tool["name"] for tool in fake.main_requests[0]["tools"]}
    assert "mcp__code-intel__start_session" in names, sorted(names)
