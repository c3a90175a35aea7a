"""`code-intel hook pre-tool-use`: Claude Code's PreToolUse hook that blocks Edit /
Write / MultiEdit / NotebookEdit until the code-intel gate allows the file.

It reads the hook payload (JSON) from stdin, finds the workspace (the nearest
ancestor of the file, else of `cwd`, holding `.code-intel/`) and asks the gate
`check_write_target` for the file without a session id, so the most recently active
session decides: first the live language server (through `.code-intel/server.json`,
so the editor sees the blocked write as a diagnostic), else — no server, it does not
answer in time, or it answers with an error other than a gating refusal — the
persisted sessions in `.code-intel/sessions.db`.

Outcomes (exit code, stderr):

* the tool is not Edit/Write/MultiEdit/NotebookEdit → 0, silent;
* no `.code-intel/` above the file or cwd (not a code-intel workspace) → 0, silent;
* the gate allows the file (READY and explored, a new file in an explored directory
  for Write, or documentation such as *.md) → 0, silent;
* the gate refuses → 2, stderr = the reason, the recovery options
  (add_explored_files / revert_to_exploration) and the next step;
* no active session (`no_session`) → 2, stderr = start a session and reach READY;
* a file outside the workspace that `cwd` belongs to → 2 (the gate confines an
  agent's writes to its workspace, SPEC §4.8);
* malformed JSON, no tool_name, no file path → 1, one line (non-blocking);
* the gate cannot decide (corrupt state, no answer within the time limit) → 1, one
  line (non-blocking: a broken gate must not lock the user out of their files).

Never a traceback; at most about 9 seconds (Claude Code's limit for it is 10): 2.5 s
to connect to the server, 4 s for its answer, the rest for the persisted state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from .hook_rules import (
    ERROR,
    Verdict,
    WriteCall,
    find_workspace,
    from_answer,
    from_refusal,
    parse_payload,
)

OVERALL_SECONDS = 9.0
CONNECT_SECONDS = 2.5
ANSWER_SECONDS = 4.0
CHECK_WRITE_TARGET = "codeIntel/session/check_write_target"
GATING_REFUSED = -32001


def main(stdin: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the hook; returns the exit code. Nothing but the verdict reaches stderr."""
    stdin, stderr = stdin or sys.stdin, stderr or sys.stderr
    _quiet_logging()
    try:
        buffer = getattr(stdin, "buffer", None)  # Claude Code writes UTF-8 whatever the locale
        raw = buffer.read().decode("utf-8", "replace") if buffer else stdin.read()
        verdict = decide(raw, os.getcwd())
    except Exception as exc:  # noqa: BLE001 - a hook never prints a traceback
        verdict = Verdict(ERROR, f"code-intel hook: could not check the write "
                                 f"({type(exc).__name__}: {exc}); not blocking")
    if verdict.message:
        print(verdict.message, file=stderr)
    return verdict.exit_code


def decide(raw: str, cwd: str) -> Verdict:
    call = parse_payload(raw, cwd)
    if isinstance(call, Verdict):
        return call
    root = find_workspace(call)
    if root is None:
        return Verdict(0)
    deadline = time.monotonic() + OVERALL_SECONDS
    verdict = ask_live_server(root, call)
    if verdict is not None:
        return verdict
    return ask_persisted_state(root, call, max(0.5, deadline - time.monotonic()))


# ---- the live language server ------------------------------------------------------------------


def ask_live_server(root: Path, call: WriteCall) -> Verdict | None:
    """The live server's verdict, or None when none runs or it does not answer in time."""
    try:
        return asyncio.run(_ask_live(root, call))
    except Exception:  # noqa: BLE001 - no usable server: the persisted state decides
        return None


async def _ask_live(root: Path, call: WriteCall) -> Verdict | None:
    from pygls.exceptions import JsonRpcException

    from code_intel.lsp_server import endpoint
    from code_intel.lsp_server.client import WorkspaceClient

    info = endpoint.read_info(root)
    if info is None or not endpoint.pid_alive(info.pid):
        return None
    client = WorkspaceClient(root, "code-intel-hook")
    try:
        await asyncio.wait_for(client.attach(info), CONNECT_SECONDS)
        params: dict[str, Any] = {"file_path": str(call.file_path)}
        if call.creates_files:
            params["allow_new_files"] = True
        answer = await asyncio.wait_for(client.request(CHECK_WRITE_TARGET, params), ANSWER_SECONDS)
        return from_answer(call, answer)
    except JsonRpcException as exc:
        if exc.code == GATING_REFUSED:
            data = exc.data if isinstance(exc.data, dict) else {}
            return from_refusal(call, str(data.get("error") or "refused"), exc.message, data)
        # A fault, or a server that rejects the request's shape (another version):
        # the persisted state decides, as when no server runs.
        return None
    except (TimeoutError, OSError, ConnectionError):
        return None
    finally:
        await _leave(client)


async def _leave(client: Any) -> None:
    """Hang up without the shutdown handshake: the server drops an endpoint client
    whose connection closes, and the hook has no time to spare."""
    writer = getattr(client.lsp.protocol, "writer", None)
    if writer is not None:
        with contextlib.suppress(Exception):
            writer.close()
    client.lsp._stop_event.set()
    for task in client.lsp._async_tasks:
        task.cancel()


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
    result: list[Verdict] = []

    def run() -> None:
        try:
            result.append(_persisted(root, call))
        except Exception as exc:  # noqa: BLE001
            result.append(Verdict(ERROR, f"code-intel hook: cannot read the session state in "
                                         f"{root / '.code-intel'} ({type(exc).__name__}: {exc});"
                                         " not blocking"))

    worker = threading.Thread(target=run, name="code-intel-hook", daemon=True)
    worker.start()
    worker.join(timeout)
    if not result:
        return Verdict(ERROR, f"code-intel hook: no decision within {OVERALL_SECONDS:g} seconds "
                              "(session state busy); not blocking")
    return result[0]


def _persisted(root: Path, call: WriteCall) -> Verdict:
    from code_intel.gating.errors import GatingError
    from code_intel.gating.workspace import open_engine
    from code_intel.indexing.config import Config, ConfigError, load_config

    try:
        config = load_config(root)
    except ConfigError:
        config = Config()  # the gate still holds with the default exemptions
    engine = open_engine(root, config, _NoEmbedder(), index=_WorkspaceFiles(root))
    try:
        answer = engine.check_write_target(None, str(call.file_path), call.creates_files)
    except GatingError as exc:
        return from_refusal(call, exc.code, exc.message, exc.details)
    finally:
        engine.store.close()
    return from_answer(call, answer)


def _quiet_logging() -> None:
    """Library warnings would end up in the message the agent reads."""
    logging.getLogger().setLevel(logging.CRITICAL)
    for name in ("pygls", "asyncio", "lsp_server", "gating", "indexing"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
