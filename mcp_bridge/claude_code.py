"""Claude Code integration: `code-intel init` prepares a repository.

Every file is merged, never clobbered: entries the user already has are kept, ours are
added once, and a second run changes nothing.

The files init writes are meant to be committed, so they carry no machine paths: the
MCP server is `code-intel mcp` from the PATH (it finds the workspace itself, from
`CLAUDE_PROJECT_DIR` or by walking up to `.code-intel/`), and the hook command is a
small shell guard that runs `code-intel hook pre-tool-use` when code-intel is
installed and otherwise denies code writes with an install hint (documentation stays
writable); a PostToolUse hook on Read/Grep/Glob records the files the agent reads itself,
so they count as explored (it never blocks, and does nothing without code-intel). `.claude/settings.json` also approves this repository's `code-intel` server
and makes Claude Code wait for MCP servers before the first turn
(`MCP_CONNECTION_NONBLOCKING=0`), for up to 30 s (`MCP_CONNECT_TIMEOUT_MS`): Claude Code
2.1.330 gives up after about 5 s by default, and on a loaded machine the bridge's imports
alone (the mcp SDK builds its pydantic models, 1.3-2 s quiet) can take longer, which left
the first turn without the code-intel tools. The rule that lets the code-intel MCP tools run
without a prompt per call (`mcp__code-intel`) goes to `.claude/settings.local.json`,
which is personal and gitignored: Claude Code does not honour it from the shared
settings.json (checked with Claude Code 2.1.330), so each machine runs `code-intel
init` once. Remove those keys to undo any of it.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from code_intel.indexing.config import (
    CONFIG_DIR,
    Config,
    config_path,
    config_to_dict,
    parse_config,
    write_json_atomic,
)

from .templates import CODE_COMMAND, OUTCOME_COMMAND

HOOK_MATCHER = "Edit|Write|MultiEdit|NotebookEdit"
SERVER_NAME = "code-intel"
MCP_PERMISSION = "mcp__code-intel"
MCP_CONNECT_TIMEOUT_MS = "30000"  # how long the first turn waits for MCP servers (default ~5 s)
HOOK_SUFFIX = "hook pre-tool-use"
READ_MATCHER = "Read|Grep|Glob|NotebookRead"
READ_HOOK_SUFFIX = "hook post-tool-use"
# The agent's own reads count as exploring: recorded after the fact, never blocking
# (a PostToolUse hook cannot undo a read; without code-intel it does nothing).
READ_HOOK_COMMAND = (
    "command -v code-intel >/dev/null 2>&1 && exec code-intel " + READ_HOOK_SUFFIX + "; exit 0"
)
INSTALL_HINT = (
    "code-intel is not installed on this machine (no code-intel on the PATH), so code "
    "writes in this repository are blocked. Ask the user to install code-intel as its "
    "README says and put code-intel on the PATH, then retry. Documentation (*.md, *.rst, "
    "*.txt, docs/) stays writable."
)
DENY_JSON = json.dumps({"hookSpecificOutput": {
    "hookEventName": "PreToolUse", "permissionDecision": "deny",
    "permissionDecisionReason": INSTALL_HINT}})
# POSIX sh, run by Claude Code through the shell: code-intel decides when it is
# installed; without it, only documentation may be written (fail closed).
HOOK_COMMAND = (
    "if command -v code-intel >/dev/null 2>&1; then exec code-intel " + HOOK_SUFFIX + "; fi; "
    "p=$(tr -d '\\n' | grep -o '\"\\(file\\|notebook\\)_path\" *: *\"[^\"]*\"' | head -n 1); "
    "case \"$p\" in *.md\\\"|*.rst\\\"|*.txt\\\"|*/docs/*|*\\\"docs/*) exit 0;; esac; "
    "printf '%s\\n' '" + DENY_JSON.replace("'", "") + "'"
)


class InitError(ValueError):
    """An existing file cannot be merged (not JSON, wrong shape); nothing was written."""


@dataclass
class InitReport:
    root: Path
    actions: dict[str, str] = field(default_factory=dict)  # rel path -> created/updated/unchanged/kept
    warnings: list[str] = field(default_factory=list)


def _is_ours(hook: Any, suffix: str = HOOK_SUFFIX) -> bool:
    """Our hook entry, including one an older init wrote with an absolute path."""
    return isinstance(hook, dict) and suffix in str(hook.get("command", ""))


def _merge_hook(hooks: dict[str, Any], event: str, entry: dict[str, Any], suffix: str,
                path: Path) -> None:
    """Our one entry for `event` (an older one of ours replaced), the user's kept."""
    listed = hooks.setdefault(event, [])
    if not isinstance(listed, list):
        raise InitError(f"{path}: 'hooks.{event}' must be a list")
    kept = [e for e in listed if not (isinstance(e, dict) and isinstance(e.get("hooks"), list)
                                      and any(_is_ours(h, suffix) for h in e["hooks"]))]
    if [e for e in listed if e not in kept] != [entry]:
        listed[:] = [*kept, entry]


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InitError(f"{path} is not valid JSON ({exc}); fix or remove it, then run init again") from None
    if not isinstance(data, dict):
        raise InitError(f"{path} must hold a JSON object; fix or remove it, then run init again")
    return data


def _write_if_changed(path: Path, before: dict[str, Any] | None, after: dict[str, Any]) -> str:
    if before == after:
        return "unchanged"
    write_json_atomic(path, after)
    return "created" if before is None else "updated"


def init_workspace(root: Path) -> InitReport:
    root = root.resolve()
    if not root.is_dir():
        raise InitError(f"{root} is not a directory")
    report = InitReport(root)
    # Read everything first so a malformed file stops init before anything is written.
    cfg_path = config_path(root)
    mcp_path = root / ".mcp.json"
    settings_path = root / ".claude" / "settings.json"
    local_path = root / ".claude" / "settings.local.json"
    cfg, mcp, settings = _read_json(cfg_path), _read_json(mcp_path), _read_json(settings_path)
    local = _read_json(local_path)
    if cfg is not None:
        try:
            parse_config(cfg, str(cfg_path))
        except ValueError as exc:
            raise InitError(f"{exc}; fix it, then run init again") from None

    merged_cfg = {**config_to_dict(Config()), **(cfg or {})}
    report.actions[f"{CONFIG_DIR}/config.json"] = _write_if_changed(cfg_path, cfg, merged_cfg)

    new_mcp = json.loads(json.dumps(mcp or {}))
    servers = new_mcp.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise InitError(f"{mcp_path}: 'mcpServers' must be an object")
    servers[SERVER_NAME] = {"type": "stdio", "command": "code-intel", "args": ["mcp"]}
    report.actions[".mcp.json"] = _write_if_changed(mcp_path, mcp, new_mcp)

    new_settings = merge_settings(settings or {}, settings_path)
    report.actions[".claude/settings.json"] = _write_if_changed(settings_path, settings, new_settings)
    new_local = merge_local_settings(local or {}, local_path)
    report.actions[".claude/settings.local.json"] = _write_if_changed(local_path, local, new_local)
    if shutil.which("code-intel") is None:
        report.warnings.append(
            "code-intel is not on the PATH: Claude Code will not find the MCP server, and the "
            "hook blocks code writes until it is (activate the virtual environment, or link "
            "its bin/code-intel into a directory on the PATH)")

    for name, text in (("code.md", CODE_COMMAND), ("outcome.md", OUTCOME_COMMAND)):
        path = root / ".claude" / "commands" / name
        rel = f".claude/commands/{name}"
        if path.exists():
            report.actions[rel] = "unchanged" if path.read_text(encoding="utf-8") == text else "kept"
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            report.actions[rel] = "created"

    gitignore = root / ".gitignore"
    text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    present = {line.strip().lstrip("/").rstrip("/") for line in text.splitlines()}
    missing = [entry for entry, key in ((f"{CONFIG_DIR}/", CONFIG_DIR),
                                        (".claude/settings.local.json",
                                         ".claude/settings.local.json"))
               if key not in present]
    if missing:
        with gitignore.open("a", encoding="utf-8") as fh:
            fh.write(("\n" if text and not text.endswith("\n") else "") + "".join(
                f"{entry}\n" for entry in missing))
        report.actions[".gitignore"] = "updated" if text else "created"
    else:
        report.actions[".gitignore"] = "unchanged"
    return report


def merge_settings(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    """`.claude/settings.json` with our hooks (an older absolute-path one replaced), the
    permission for the code-intel tools, the project server approved and MCP start-up
    awaited before the first turn; the user's own entries are kept."""
    new = json.loads(json.dumps(settings))
    hooks = new.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InitError(f"{path}: 'hooks' must be an object")
    _merge_hook(hooks, "PreToolUse", {"matcher": HOOK_MATCHER, "hooks": [
        {"type": "command", "command": HOOK_COMMAND, "timeout": 10}]}, HOOK_SUFFIX, path)
    _merge_hook(hooks, "PostToolUse", {"matcher": READ_MATCHER, "hooks": [
        {"type": "command", "command": READ_HOOK_COMMAND, "timeout": 10}]}, READ_HOOK_SUFFIX,
        path)
    enabled = new.setdefault("enabledMcpjsonServers", [])
    if not isinstance(enabled, list):
        raise InitError(f"{path}: 'enabledMcpjsonServers' must be a list")
    if SERVER_NAME not in enabled:
        enabled.append(SERVER_NAME)
    env = new.setdefault("env", {})
    if not isinstance(env, dict):
        raise InitError(f"{path}: 'env' must be an object")
    env.setdefault("MCP_CONNECTION_NONBLOCKING", "0")
    env.setdefault("MCP_CONNECT_TIMEOUT_MS", MCP_CONNECT_TIMEOUT_MS)
    return new


def merge_local_settings(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    """`.claude/settings.local.json` (personal, gitignored) with the rule that lets the
    code-intel tools run without a prompt per call; nothing else is loosened."""
    new = json.loads(json.dumps(settings))
    permissions = new.setdefault("permissions", {})
    allow = permissions.setdefault("allow", []) if isinstance(permissions, dict) else None
    if not isinstance(allow, list):
        raise InitError(f"{path}: 'permissions.allow' must be a list")
    if MCP_PERMISSION not in allow:
        allow.append(MCP_PERMISSION)
    return new
