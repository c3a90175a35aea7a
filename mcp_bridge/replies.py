"""Answers and failures as MCP tool replies: structured content plus a readable text
block, always within the reply bound (bounds.py), errors with `is_error` and a text
that says what to do next.

Pure: the server turns a `ToolReply` into a `CallToolResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import bounds
from .render import hints, one_line, render, render_truncation
from .tools import SessionArg, ToolSpec

GATING_REFUSED = -32001
INVALID_PARAMS = -32602
RESERVE = 1_500  # room for the truncation note added after fitting


@dataclass(frozen=True)
class ToolReply:
    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False


# ---- answers --------------------------------------------------------------------------------


def success(spec: ToolSpec, answer: Any, args: Mapping[str, Any], notes: tuple[str, ...] = ()
            ) -> ToolReply:
    """An answer of the server, compacted (index tools), fitted and rendered."""
    if isinstance(answer, Mapping) and answer.get("status") == "initializing":
        return initializing(spec, answer)
    data: Any = dict(answer) if isinstance(answer, Mapping) else {"result": answer}
    if spec.session is SessionArg.GATED:
        data = bounds.compact(data)
    data, cuts = bounds.fit(data, bounds.MAX_STRUCTURED_CHARS - RESERVE)
    text = render(spec.name, data, args)
    advice = [*notes, *hints(spec.name, data, args)]
    if advice:  # the model sees only the structured result: the advice goes in it too
        data["hints"] = advice
    if cuts:
        listed = [c.to_json() for c in cuts]
        data["truncated"] = True
        data["truncation"] = {
            "max_chars": bounds.MAX_STRUCTURED_CHARS,
            "cuts": listed,
            "how_to_get_more": spec.narrow_hint,
        }
        note = render_truncation(listed, spec.narrow_hint)
        text = bounds.cap_text(text, bounds.MAX_TEXT_CHARS - len(note) - 2, spec.narrow_hint)
        text = f"{text}\n{note}"
    else:
        text = bounds.cap_text(text, bounds.MAX_TEXT_CHARS, spec.narrow_hint)
    if notes:
        text = "\n".join(notes) + "\n" + text
    return ToolReply(text, data)


def initializing(spec: ToolSpec, answer: Mapping[str, Any]) -> ToolReply:
    """Not a failure: the embedding model is loading; the agent should call again."""
    retry = answer.get("retry_after_seconds", 5)
    text = (
        f"code-intel is still loading its embedding model ({spec.name} needs it): call "
        f"{spec.name} again in {retry} seconds with the same arguments. Meanwhile the index "
        "tools (find_definitions, find_references, search_text, get_symbols, "
        "analyze_structure) answer at once."
    )
    if answer.get("message"):
        text += f"\n{one_line(answer['message'])}"
    return ToolReply(text, {**answer, "next_step": text.split("\n", 1)[0]})


# ---- failures -------------------------------------------------------------------------------


def from_rpc_error(spec: ToolSpec, code: int, message: str, data: Any) -> ToolReply:
    """An error answer of the language server."""
    details = dict(data) if isinstance(data, Mapping) else {}
    if code == GATING_REFUSED:
        return refused(spec, message, details)
    if code == INVALID_PARAMS:
        return invalid(spec, message, details)
    retry = "If it persists, call sync_index or get_session_status and try again."
    return ToolReply(
        f"code-intel could not run {spec.name}: {message} (error {code}). {retry}",
        {"error": "server_error", "code": code, "message": message, "tool": spec.name,
         "next_step": retry},
        is_error=True,
    )


def refused(spec: ToolSpec, message: str, data: Mapping[str, Any]) -> ToolReply:
    """A gating refusal: which phase allows the tool, and what to call next."""
    code = str(data.get("error") or "refused")
    text = str(data.get("message") or message)
    next_step = data.get("next_step")
    if next_step:  # said once, on its own line
        text = text.replace(f" Next: {next_step}", "")
    lines = [f"code-intel refused {spec.name} ({code}): {text}"]
    phase, allowed = data.get("phase"), data.get("allowed_phases")
    if phase or allowed:
        where = f"Current phase: {phase}." if phase else ""
        if allowed:
            where += f" {spec.name} is allowed in: {', '.join(map(str, allowed))}."
        lines.append(where.strip())
    skip = {"error", "message", "phase", "allowed_phases", "next_step", "allowed", "tool"}
    for key, value in data.items():
        if key not in skip and value not in (None, "", [], {}):
            lines.append(f"{key}: {one_line(value, 1500)}")
    if next_step:
        lines.append(f"Next: {next_step}")
    elif code in ("unknown_session", "session_expired", "session_ended"):
        next_step = "call start_session to begin a new session."
        lines.append(f"Next: {next_step}")
    structured = {"error": code, "message": data.get("message") or message, "tool": spec.name,
                  **{k: v for k, v in data.items() if k not in ("error", "message")}}
    if next_step:
        structured["next_step"] = next_step
    return _bounded_error("\n".join(lines), structured)


def invalid(spec: ToolSpec, message: str, data: Mapping[str, Any] | None = None) -> ToolReply:
    """Arguments the bridge or the server rejected; the message names the field."""
    fix = f"Fix the named argument(s) and call {spec.name} again (see its input schema)."
    text = f"Invalid arguments for {spec.name}: {message}\n{fix}"
    structured = {"error": "invalid_params", "message": message, "tool": spec.name,
                  "next_step": fix}
    for key, value in (data or {}).items():
        structured.setdefault(key, value)
    structured["error"] = "invalid_params"
    return _bounded_error(text, structured)


def no_session(spec: ToolSpec) -> ToolReply:
    return ToolReply(
        f"{spec.name} needs a session and none was started in this conversation: call "
        "start_session first (or pass session_id).",
        {"error": "no_session", "tool": spec.name,
         "message": "no session: call start_session first",
         "next_step": "call start_session first (or pass session_id)"},
        is_error=True,
    )


def unavailable(spec: ToolSpec, detail: str) -> ToolReply:
    advice = ("Check the workspace and `code-intel lsp` (e.g. run `code-intel index` in a "
              "terminal); the next call tries to start it again.")
    return ToolReply(
        f"code-intel's language server is not available, so {spec.name} did not run: "
        f"{detail}. {advice}",
        {"error": "server_unavailable", "tool": spec.name, "message": detail,
         "next_step": advice},
        is_error=True,
    )


def interrupted(spec: ToolSpec, detail: str) -> ToolReply:
    """A state-changing call whose connection broke: it may or may not have happened."""
    advice = (f"The call may or may not have been applied: call get_session_status to check, "
              f"then repeat {spec.name} if needed.")
    return ToolReply(
        f"The language server stopped while handling {spec.name} ({detail}); it has been "
        f"restarted. {advice}",
        {"error": "connection_lost", "tool": spec.name, "message": detail, "next_step": advice},
        is_error=True,
    )


def timed_out(spec: ToolSpec, seconds: float) -> ToolReply:
    advice = f"{spec.narrow_hint[0].upper()}{spec.narrow_hint[1:]}, or try again."
    return ToolReply(
        f"{spec.name} got no answer within {seconds:g} seconds. {advice}",
        {"error": "timeout", "tool": spec.name, "timeout_seconds": seconds, "next_step": advice},
        is_error=True,
    )


def internal(spec: ToolSpec, exc: BaseException) -> ToolReply:
    return ToolReply(
        f"code-intel's MCP bridge failed on {spec.name}: {type(exc).__name__}: {exc}",
        {"error": "internal_error", "tool": spec.name, "message": str(exc)},
        is_error=True,
    )


def unknown_tool(name: str, known: list[str]) -> ToolReply:
    return ToolReply(
        f"There is no code-intel tool {name!r}. The tools are: {', '.join(known)}.",
        {"error": "unknown_tool", "tool": name, "tools": list(known)},
        is_error=True,
    )


def _bounded_error(text: str, structured: dict[str, Any]) -> ToolReply:
    data, _ = bounds.fit(structured, bounds.MAX_STRUCTURED_CHARS)
    return ToolReply(bounds.cap_text(text), data, is_error=True)
