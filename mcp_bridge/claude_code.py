"""Claude Code integration: `code-intel init` prepares a repository.

Every file is merged, never clobbered: entries the user already has are kept, ours are
added once, and a second run changes nothing.
"""

from __future__ import annotations

import json
import shutil
import sys
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


class InitError(ValueError):
    """An existing file cannot be merged (not JSON, wrong shape); nothing was written."""


@dataclass
class InitReport:
    root: Path
    actions: dict[str, str] = field(default_factory=dict)  # rel path -> created/updated/unchanged/kept


def executable() -> str:
    """The `code-intel` that is running now, so the hook works without the venv on PATH."""
    beside = Path(sys.executable).parent / "code-intel"
    if beside.exists():
        return str(beside)
    return shutil.which("code-intel") or "code-intel"


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
    exe = executable()
    # Read everything first so a malformed file stops init before anything is written.
    cfg_path = config_path(root)
    mcp_path = root / ".mcp.json"
    settings_path = root / ".claude" / "settings.json"
    cfg, mcp, settings = _read_json(cfg_path), _read_json(mcp_path), _read_json(settings_path)
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
    servers[SERVER_NAME] = {"type": "stdio", "command": exe, "args": ["mcp", "--workspace", str(root)]}
    report.actions[".mcp.json"] = _write_if_changed(mcp_path, mcp, new_mcp)

    new_settings = json.loads(json.dumps(settings or {}))
    hooks = new_settings.setdefault("hooks", {})
    pre = hooks.setdefault("PreToolUse", []) if isinstance(hooks, dict) else None
    if not isinstance(pre, list):
        raise InitError(f"{settings_path}: 'hooks.PreToolUse' must be a list")
    command = f"{_quote(exe)} hook pre-tool-use"
    ours = {"type": "command", "command": command, "timeout": 10}
    present = any(
        isinstance(entry, dict)
        and any(
            isinstance(h, dict) and str(h.get("command", "")).endswith("hook pre-tool-use")
            for h in entry.get("hooks", [])
        )
        for entry in pre
    )
    if not present:
        pre.append({"matcher": HOOK_MATCHER, "hooks": [ours]})
    report.actions[".claude/settings.json"] = _write_if_changed(settings_path, settings, new_settings)

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
    if not any(line.strip().rstrip("/") in {".code-intel", "/.code-intel"} for line in text.splitlines()):
        with gitignore.open("a", encoding="utf-8") as fh:
            fh.write(("\n" if text and not text.endswith("\n") else "") + f"{CONFIG_DIR}/\n")
        report.actions[".gitignore"] = "updated" if text else "created"
    else:
        report.actions[".gitignore"] = "unchanged"
    return report


def _quote(text: str) -> str:
    return f'"{text}"' if " " in text else text
