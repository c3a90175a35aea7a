"""What the PreToolUse hook decides, without any I/O: which payloads concern the gate,
where the workspace is, and the exit code and message for each answer.

A refusal is Claude Code's decision JSON on stdout with exit 0
(`hookSpecificOutput.permissionDecision: "deny"` and a `permissionDecisionReason`):
the model then reads only the reason, not a "hook error" wrapped around a command
line. Allowed writes exit 0 silently. Only input that is not a hook payload at all is
a non-blocking error (exit 1, one line on stderr). Every message is written for the
agent to act on: what was refused, the phase, and the one next step.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

CONFIG_DIR = ".code-intel"  # code_intel.indexing.config.CONFIG_DIR, not imported: lean
WRITE_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
ALLOW, ERROR, BLOCK = "allow", "error", "deny"
MAX_MESSAGE = 3_000
MAX_PAYLOAD = 10_000_000  # a Write payload carries the whole file
MAX_PATH = 4096  # PATH_MAX: nothing longer can be written, and it must not cost time
MAX_NAME = 255  # NAME_MAX for one path component


class Verdict(NamedTuple):
    """`decision` is ALLOW, BLOCK (deny) or ERROR (not a usable hook payload).
    (NamedTuples, not dataclasses, here: importing dataclasses costs the hook — which
    runs before every write — more than everything else it decides with.)"""

    decision: str
    message: str = ""

    def render(self, event: str = "PreToolUse") -> tuple[int, str, str]:
        """(exit code, stdout, stderr) as Claude Code expects them."""
        if self.decision == BLOCK:
            out = {"hookSpecificOutput": {"hookEventName": event,
                                          "permissionDecision": "deny",
                                          "permissionDecisionReason": self.message}}
            return 0, json.dumps(out, ensure_ascii=False), ""
        if self.decision == ERROR:
            return 1, "", self.message
        return 0, "", ""


class WriteCall(NamedTuple):
    """A write the gate must judge: the tool and the absolute path it writes."""

    tool: str
    file_path: Path
    cwd: Path
    agent_session: str | None = None  # Claude Code's session_id: whose session judges

    @property
    def creates_files(self) -> bool:
        """Write is how Claude Code creates a file, so it asks with allow_new_files:
        a new file then needs only an explored directory (SPEC §4.8)."""
        return self.tool == "Write"


def parse_payload(raw: str, fallback_cwd: str) -> WriteCall | Verdict:
    """Claude Code's PreToolUse JSON → the write to check, or the verdict right away
    (not a write tool → allow; unusable input → non-blocking error)."""
    if len(raw) > MAX_PAYLOAD:
        return Verdict(ERROR, "code-intel hook: the hook input is too large to read; not checked")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return Verdict(ERROR, f"code-intel hook: stdin is not JSON ({exc.msg} at line "
                              f"{exc.lineno} column {exc.colno}); expected Claude Code's "
                              "PreToolUse payload")
    if not isinstance(data, Mapping):
        return Verdict(ERROR, "code-intel hook: expected a JSON object with tool_name and "
                              "tool_input on stdin")
    tool = data.get("tool_name")
    if not isinstance(tool, str) or not tool:
        return Verdict(ERROR, "code-intel hook: the payload has no tool_name")
    if tool not in WRITE_TOOLS:
        return Verdict(ALLOW)
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, Mapping):
        return Verdict(ERROR, f"code-intel hook: {tool} payload has no tool_input object")
    keys = ("notebook_path", "file_path") if tool == "NotebookEdit" else ("file_path",
                                                                          "notebook_path")
    path = next((tool_input[k] for k in keys if isinstance(tool_input.get(k), str)
                 and tool_input[k].strip()), None)
    if path is None:
        return Verdict(ERROR, f"code-intel hook: {tool} payload has no tool_input.{keys[0]}")
    if len(path) > MAX_PATH or any(len(part) > MAX_NAME for part in path.split("/")):
        return Verdict(BLOCK, f"code-intel blocked {tool}: the file path is {len(path)} "
                              f"characters long (at most {MAX_PATH}, {MAX_NAME} per name); "
                              "no such file can be written. Use a real path.")
    if "\x00" in path:
        return Verdict(BLOCK, f"code-intel blocked {tool}: the file path contains a NUL "
                              "character; use a real path.")
    cwd_value = data.get("cwd")
    cwd = Path(cwd_value if isinstance(cwd_value, str) and cwd_value else fallback_cwd)
    return WriteCall(tool, _absolute(path, cwd), cwd, _agent_session(data))


def _absolute(path: str, cwd: Path) -> Path:
    target = Path(os.path.expanduser(path))
    return Path(os.path.normpath(target if target.is_absolute() else cwd / target))


def _agent_session(data: Mapping[str, Any]) -> str | None:
    """Claude Code's `session_id` (every hook payload carries it): the conversation."""
    value = data.get("session_id")
    return value.strip() if isinstance(value, str) and value.strip() and len(value) <= 200 \
        else None


# ---- PostToolUse: the agent's own reads --------------------------------------------------------

READ_TOOLS = frozenset({"Read", "Grep", "Glob", "NotebookRead"})
MAX_READ_PATHS = 200


class ReadCall(NamedTuple):
    """Files the agent's own Read/Grep/Glob showed it, for the conversation's session."""

    tool: str
    paths: tuple[Path, ...]
    cwd: Path
    agent_session: str

    def as_write(self) -> WriteCall:
        """For find_workspace: the workspace is judged as for a write of the first file."""
        return WriteCall(self.tool, self.paths[0], self.cwd, self.agent_session)


def parse_read_payload(raw: str, fallback_cwd: str) -> ReadCall | None:
    """Claude Code's PostToolUse JSON for Read/Grep/Glob → the files the agent saw, or
    None when there is nothing to record (another tool, no conversation id, no files,
    input that is not a payload: a PostToolUse hook never blocks or complains)."""
    if len(raw) > MAX_PAYLOAD:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, Mapping) or data.get("tool_name") not in READ_TOOLS:
        return None
    agent = _agent_session(data)
    cwd_value = data.get("cwd")
    cwd = Path(cwd_value if isinstance(cwd_value, str) and cwd_value else fallback_cwd)
    found = [p for p in read_paths(str(data["tool_name"]), data.get("tool_input"),
                                   data.get("tool_response"))
             if len(p) <= MAX_PATH and "\x00" not in p]
    paths = tuple(dict.fromkeys(_absolute(p, cwd) for p in found[:MAX_READ_PATHS]))
    if agent is None or not paths:
        return None
    return ReadCall(str(data["tool_name"]), paths, cwd, agent)


def read_paths(tool: str, tool_input: Any, response: Any) -> list[str]:
    """The files a read showed: Read's file (the response's `file.filePath`, else the
    input's `file_path`); the `filenames` Grep and Glob list; for Grep in content mode,
    the `path:line:` prefixes of its output."""
    tool_input = tool_input if isinstance(tool_input, Mapping) else {}
    response = response if isinstance(response, Mapping) else {}
    if tool in ("Read", "NotebookRead"):
        file = response.get("file")
        given = file.get("filePath") if isinstance(file, Mapping) else None
        given = given or tool_input.get("file_path") or tool_input.get("notebook_path")
        return [given] if isinstance(given, str) and given else []
    names = response.get("filenames")
    paths = [n for n in names if isinstance(n, str) and n] if isinstance(names, list) else []
    content = response.get("content")
    if tool == "Grep" and isinstance(content, str):
        for line in content.splitlines()[:MAX_READ_PATHS * 10]:
            head, sep, _ = line.partition(":")
            if sep and head and not head[0].isspace():
                paths.append(head)
    return paths


def find_workspace(
    call: WriteCall, has_state: Callable[[Path], bool] | None = None,
    project_dir: str | None = None,
) -> Path | None:
    """The workspace this Claude Code session belongs to: Claude Code's project
    (`CLAUDE_PROJECT_DIR`, set for hooks; the hook runs there only because init
    registered it, so a fresh clone without `.code-intel/` yet is gated too), else the
    nearest ancestor of `cwd` holding `.code-intel/`, and only when `cwd` is in none,
    the file's. A file in another workspace is then judged as outside this one (never
    by that workspace's own sessions, which belong to somebody else)."""
    if project_dir and os.path.isabs(project_dir) and os.path.isdir(project_dir):
        return Path(os.path.normpath(project_dir))
    has_state = has_state or _has_state
    for start in (call.cwd, call.file_path.parent):
        for candidate in (start, *start.parents):
            if has_state(candidate):
                return candidate
    return None


def _has_state(path: Path) -> bool:
    try:
        return (path / CONFIG_DIR).is_dir()
    except OSError:
        return False


def outside(call: WriteCall, root: Path) -> Verdict | None:
    """A write outside the session's workspace is refused in every phase (SPEC §4.8)."""
    if call.file_path == root or root in call.file_path.parents:
        return None
    return Verdict(BLOCK, f"code-intel blocked {call.tool} on {call.file_path}: it is outside "
                          f"this session's workspace {root}. Write only inside the workspace "
                          "(start Claude Code in the other project to work there).")


def undecided(call: WriteCall, why: str, fail_open: bool) -> Verdict:
    """The gate could not decide: block (fail closed) with how to fix it, unless the
    workspace opted out with `hook_fail_open: true` in .code-intel/config.json."""
    if fail_open:
        return Verdict(ERROR, f"code-intel hook: could not check {call.file_path} ({why}); "
                              "not blocking because hook_fail_open is true")
    return Verdict(BLOCK, _bounded(
        f"code-intel blocked {call.tool} on {call.file_path}: the write gate could not decide "
        f"({why}). Next: call the code-intel MCP tool get_session_status; if code-intel "
        "itself fails, ask the user to check that `code-intel index .` runs in this "
        "workspace."))


# ---- verdicts ----------------------------------------------------------------------------------


def from_answer(call: WriteCall, answer: Any) -> Verdict:
    """A `check_write_target` answer → allow, or block with the reason and the way out."""
    if not isinstance(answer, Mapping) or "allowed" not in answer:
        return Verdict(ERROR, "code-intel hook: unexpected answer from check_write_target; "
                              "not checked")
    if answer["allowed"] is True:
        return Verdict(ALLOW)
    path = answer.get("relative_path") or str(call.file_path)
    lines = [f"code-intel blocked {call.tool} on {path}: {answer.get('reason', 'refused')}"]
    options = [o for o in answer.get("recovery_options") or [] if isinstance(o, Mapping)]
    if options:
        lines.append("To proceed, use the code-intel MCP tools:")
        for option in options:
            params = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}"
                               for k, v in (option.get("params") or {}).items())
            lines.append(f"- {option.get('tool')}({params}): {option.get('description', '')}")
    if answer.get("next_step"):
        lines.append(f"Next: {answer['next_step']}")
    return Verdict(BLOCK, _bounded("\n".join(lines)))


def from_refusal(call: WriteCall, code: str, message: str, details: Mapping[str, Any]) -> Verdict:
    """A gating error instead of an answer (`no_session`, bad input …)."""
    if code == "invalid_params":
        return Verdict(ERROR, f"code-intel hook: {message}")
    lines = [f"code-intel blocked {call.tool} on {call.file_path}: {message}"]
    if details.get("next_step"):
        lines.append(f"Next: {details['next_step']}")
    if code == "no_session":
        lines.append("Use the code-intel MCP tools: start_session, set_query_frame, explore, "
                     "submit_understanding until the phase is READY, then check_write_target.")
    return Verdict(BLOCK, _bounded("\n".join(lines)))


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"
