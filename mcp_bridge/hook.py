"""`code-intel hook pre-tool-use`: Claude Code's PreToolUse hook that blocks Edit /
Write / MultiEdit / NotebookEdit until the code-intel gate allows the file.

It reads the hook payload (JSON) from stdin, finds the workspace this Claude Code
session belongs to (the nearest ancestor of `cwd` holding `.code-intel/`, else of the
file) and asks the gate `check_write_target` for the file without a session id, so
the most recently active session decides: first the live language server (through
`.code-intel/server.json`, so the editor sees the blocked write as a diagnostic),
else — no server, or no answer in time — the persisted `.code-intel/sessions.db`.

Outcomes (hook_rules.Verdict.render):

* not a write tool, no `.code-intel/` above cwd or the file, documentation
  (`write_exempt_patterns`), or the gate allows the file → exit 0, silent;
* the gate refuses, no session is active, the file is outside this session's
  workspace, or the path cannot be a file → exit 0 with Claude Code's decision JSON
  (`permissionDecision: "deny"` and the reason with the one next step);
* the gate cannot decide (corrupt state, no answer in time, an unexpected answer) →
  deny as well (fail closed) with how to fix it, unless `.code-intel/config.json`
  sets `hook_fail_open: true` (then a non-blocking exit 1);
* stdin is not a hook payload → exit 1, one line (non-blocking).

Lean on purpose: it runs before every write, so it imports no pygls, asyncio client,
typer, rich, chromadb or model, nor (with a live server) pathspec, logging or the
gate; the live server is asked over a plain socket (hook_client), in one write. Never a traceback; at most about 6 seconds (Claude Code's limit is 10).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from . import hook_client
from .hook_rules import (
    ALLOW,
    BLOCK,
    ERROR,
    Verdict,
    WriteCall,
    find_workspace,
    from_answer,
    from_refusal,
    outside,
    parse_payload,
    parse_read_payload,
    undecided,
)

OVERALL_SECONDS = 6.0
LIVE_SECONDS = 3.0
CHECK_WRITE_TARGET = "codeIntel/session/check_write_target"
GATING_REFUSED = -32001
DEFAULT_EXEMPT = ("**/*.md", "**/*.rst", "**/*.txt", "docs/**")


def main(stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Run the hook; returns the exit code. Only the decision reaches stdout/stderr."""
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    try:
        buffer = getattr(stdin, "buffer", None)  # Claude Code writes UTF-8 whatever the locale
        raw = buffer.read().decode("utf-8", "replace") if buffer else stdin.read()
        verdict = decide(raw, os.getcwd())
    except Exception as exc:  # noqa: BLE001 - a hook never prints a traceback
        verdict = Verdict(BLOCK, f"code-intel blocked the write: the hook failed "
                                 f"({type(exc).__name__}: {exc}). Next: call the code-intel "
                                 "MCP tool get_session_status.")
    code, out, err = verdict.render()
    if out:
        print(out, file=stdout)
    if err:
        print(err, file=stderr)
    return code


def decide(raw: str, cwd: str) -> Verdict:
    call = parse_payload(raw, cwd)
    if isinstance(call, Verdict):
        return call
    root = find_workspace(call, project_dir=os.environ.get("CLAUDE_PROJECT_DIR"))
    if root is None:
        return Verdict(ALLOW)
    refused = outside(call, root)
    if refused is not None:
        return refused
    settings = HookSettings.load(root)
    deadline = time.monotonic() + OVERALL_SECONDS
    # A live server decides documentation too, at the cost of the one round trip the
    # write pays anyway; only without one is it matched here, before the gate is loaded.
    verdict = ask_live_server(root, call, min(deadline, time.monotonic() + LIVE_SECONDS))
    if verdict is None:
        if settings.exempts(root, call.file_path):
            return Verdict(ALLOW)
        verdict = ask_persisted_state(root, call, max(0.5, deadline - time.monotonic()))
    if verdict.decision == ERROR:  # documentation stays writable when the gate is stuck
        if settings.exempts(root, call.file_path):
            return Verdict(ALLOW)
        return undecided(call, verdict.message, settings.fail_open)
    return verdict


class HookSettings:
    """The two config keys the hook needs, read without the full config machinery
    (a config that does not parse leaves the defaults: the gate still holds)."""

    def __init__(self, exempt: Sequence[str], fail_open: bool) -> None:
        self.exempt, self.fail_open = tuple(exempt), fail_open

    @classmethod
    def load(cls, root: Path) -> HookSettings:
        try:
            data = json.loads((root / ".code-intel" / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        data = data if isinstance(data, Mapping) else {}
        patterns = data.get("write_exempt_patterns", DEFAULT_EXEMPT)
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            patterns = DEFAULT_EXEMPT
        return cls(patterns, data.get("hook_fail_open") is True)

    def exempts(self, root: Path, file_path: Path) -> bool:
        """Documentation is allowed in every phase; decided here, without importing the
        gate, so README edits do not wait for it (the gate applies the same patterns to
        the same symlink-resolved path)."""
        import pathspec

        try:
            real_root = os.path.realpath(root)
            rel = os.path.relpath(os.path.realpath(file_path), real_root).replace(os.sep, "/")
        except (OSError, ValueError):
            return False
        if rel == "." or rel == ".." or rel.startswith("../") or \
                rel.split("/", 1)[0] == ".code-intel":
            return False
        return pathspec.GitIgnoreSpec.from_lines(self.exempt).match_file(rel)


# ---- the live language server ------------------------------------------------------------------


def ask_live_server(root: Path, call: WriteCall, deadline: float) -> Verdict | None:
    """The live server's verdict, or None when none runs or it does not answer in time."""
    params: dict[str, Any] = {"file_path": str(call.file_path)}
    if call.creates_files:
        params["allow_new_files"] = True
    if call.agent_session:
        params["agent_session"] = call.agent_session
    try:
        answer = hook_client.request(root, CHECK_WRITE_TARGET, params, deadline)
    except hook_client.RpcError as exc:
        if exc.code == GATING_REFUSED:
            data = exc.data if isinstance(exc.data, Mapping) else {}
            return from_refusal(call, str(data.get("error") or "refused"), exc.message, data)
        # A fault, or a server that rejects the request's shape (another version):
        # the persisted state decides, as when no server runs.
        return None
    except hook_client.Unreachable:
        return None
    return from_answer(call, answer)


# ---- the persisted state -----------------------------------------------------------------------


class _NoEmbedder:
    """The write check never compares texts; asking would be a bug, not a wait."""

    thresholds = None

    def similarity(self, a: str, b: str) -> float:
        raise RuntimeError("the write check needs no embedding model")


class _WorkspaceFiles:
    """The index as the write check needs it: only whether files exist. The hook does
    not open index.db (a version mismatch there would make it rebuild the index)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def lookup(self, name: str) -> Sequence[Any]:
        return ()

    def file_exists(self, rel_path: str) -> bool:
        return (self.root / rel_path).is_file()


def ask_persisted_state(root: Path, call: WriteCall, timeout: float) -> Verdict:
    """Decide from `.code-intel/sessions.db`, in a thread so a locked database cannot
    hold the hook past its time limit."""
    import threading

    result: list[Verdict] = []

    def run() -> None:
        try:
            result.append(_persisted(root, call))
        except Exception as exc:  # noqa: BLE001
            result.append(Verdict(ERROR, f"cannot read the session state in "
                                         f"{root / '.code-intel'}: {type(exc).__name__}: {exc}"))

    worker = threading.Thread(target=run, name="code-intel-hook", daemon=True)
    worker.start()
    worker.join(timeout)
    if not result:
        return Verdict(ERROR, f"no decision within {OVERALL_SECONDS:g} seconds (session "
                              "state busy)")
    return result[0]


def _persisted(root: Path, call: WriteCall) -> Verdict:
    _quiet_logging()
    from code_intel.gating.errors import GatingError
    from code_intel.gating.workspace import open_engine
    from code_intel.indexing.config import Config, ConfigError, load_config

    try:
        config = load_config(root)
    except ConfigError:
        config = Config()  # the gate still holds with the default exemptions
    engine = open_engine(root, config, _NoEmbedder(), index=_WorkspaceFiles(root))
    try:
        answer = engine.check_write_target(None, str(call.file_path), call.creates_files,
                                           call.agent_session)
    except GatingError as exc:
        return from_refusal(call, exc.code, exc.message, exc.details)
    finally:
        engine.store.close()
    return from_answer(call, answer)


# ---- PostToolUse: the agent's own reads count as exploring -------------------------------------

RECORD_READS = "codeIntel/session/record_agent_reads"


def main_post(stdin: TextIO | None = None) -> int:
    """`code-intel hook post-tool-use`: record the files the agent's Read/Grep/Glob
    showed it in the session its conversation started, so reading a file counts as
    exploring it. Always exit 0 and silent: it only observes, and never delays the
    agent by more than its deadline."""
    stdin = stdin or sys.stdin
    try:
        buffer = getattr(stdin, "buffer", None)
        raw = buffer.read().decode("utf-8", "replace") if buffer else stdin.read()
        record_reads(raw, os.getcwd())
    except Exception:  # noqa: BLE001, S110 - observing must never disturb the agent
        pass
    return 0


def record_reads(raw: str, cwd: str) -> bool:
    """True when the reads were recorded (by the live server, else in sessions.db)."""
    call = parse_read_payload(raw, cwd)
    if call is None:
        return False
    root = find_workspace(call.as_write(), project_dir=os.environ.get("CLAUDE_PROJECT_DIR"))
    if root is None or not (root / ".code-intel").is_dir():
        return False
    inside = [str(p) for p in call.paths if root in p.parents]
    if not inside:
        return False
    params = {"agent_session": call.agent_session, "tool": call.tool, "paths": inside}
    deadline = time.monotonic() + LIVE_SECONDS
    try:
        hook_client.request(root, RECORD_READS, params, deadline)
        return True
    except hook_client.Unreachable:
        pass
    except hook_client.RpcError:
        return False
    _quiet_logging()
    from code_intel.gating.workspace import open_engine
    from code_intel.indexing.config import Config, ConfigError, load_config

    try:
        config = load_config(root)
    except ConfigError:
        config = Config()
    engine = open_engine(root, config, _NoEmbedder(), index=_WorkspaceFiles(root))
    try:
        engine.record_agent_reads(call.agent_session, call.tool, inside)
    finally:
        engine.store.close()
    return True


def _quiet_logging() -> None:
    """Library warnings would end up in the message the agent reads. Only the gate's
    own path loads libraries that log: `logging` is imported then, not before every
    write."""
    import logging

    logging.getLogger().setLevel(logging.CRITICAL)
    for name in ("code_intel", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
