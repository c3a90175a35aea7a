"""`code-intel index`, the build agents, scripts and people run, without typer.

Importing the typer application (typer, rich and the commands module itself) cost 0.035 s
of CPU before a build's first file, on a start that is all serial. This module needs only
the indexer: `--json` never imports rich but to print a note or an error, nor does the
human summary (`index_human`) where nothing can be styled (`summary_text`), and the
commands module (for rich's progress bar) is imported only where that bar can be drawn. The
typer command (`commands.index`) answers through the same two functions.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from code_intel.indexing.config import ConfigError
from code_intel.indexing.store import StoreError
from code_intel.indexing.sync import SyncReport, sync_workspace
from code_intel.indexing.workspace import Workspace
from code_intel.summary_text import may_be_terminal


class UserError(Exception):
    """Printed as one line; exit code 2."""


def stderr_print(markup: str) -> None:
    """One line of rich markup on standard error, as the typer commands print theirs."""
    from rich.console import Console

    Console(stderr=True, highlight=False, soft_wrap=True).print(markup)


def open_workspace(root: Path) -> Workspace:
    """The workspace at `root`, its store's notes (a store set aside and rebuilt) printed."""
    if not root.is_dir():
        raise UserError(f"workspace {root} is not a directory")
    # These commands write only into the private store: every file they create is 0600.
    os.umask(0o077)
    ws = Workspace.open(root)
    for message in ws.store.messages:
        stderr_print(f"[yellow]note:[/yellow] {message}")
    return ws


def emit(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def index_summary(ws: Workspace, report: SyncReport) -> dict[str, Any]:
    """The store's totals after a sync and what this sync did; the store is closed
    after (written and checkpointed: the CLI leaves without a teardown)."""
    try:
        stats = ws.store.stats()
        skipped_files = {p: s.skip_reason for p, s in ws.store.file_states().items() if s.skip_reason}
    finally:
        ws.store.close()
    return {
        "workspace": str(ws.root),
        **stats,
        "added": len(report.added),
        "modified": len(report.modified),
        "deleted": len(report.deleted),
        "unchanged": report.unchanged + report.touched,
        "skipped_files": dict(sorted(skipped_files.items())[:200]),
        "elapsed_seconds": round(report.elapsed, 3),
        "workers": report.workers,
        "messages": ws.store.messages,
    }


def index_json(path: Path, force: bool) -> None:
    """Index the workspace at `path` and print the summary as JSON."""
    ws = open_workspace(path)
    try:
        report = sync_workspace(ws.root, ws.store, ws.config, force=force)
    except BaseException:
        ws.store.close()
        raise
    emit(index_summary(ws, report))


def index_human(path: Path, force: bool) -> None:
    """Index the workspace at `path` and print the summary for a person. The progress
    bar goes through the typer commands' `_sync` when standard error may be a terminal;
    elsewhere (a pipe, a log: what times a build) nothing of typer or rich's progress
    is imported, 0.06 s of CPU before the first file on this machine."""
    ws = open_workspace(path)
    try:
        if _may_draw_progress():
            from code_intel.commands import _sync

            report = _sync(ws, force=force)
        else:
            report = sync_workspace(ws.root, ws.store, ws.config, force=force)
    except BaseException:
        ws.store.close()
        raise
    print_summary(ws, report)


def _may_draw_progress() -> bool:
    """False only where rich's `Console(stderr=True).is_terminal` is surely False (the
    progress bar's test in `commands._sync`): standard error not a tty, and neither of
    the variables rich reads to force a terminal set."""
    return may_be_terminal(sys.stderr, ("TTY_COMPATIBLE", "FORCE_COLOR"))


def print_summary(ws: Workspace, report: SyncReport) -> None:
    """The human summary of `code-intel index`: totals by language, this run, skips;
    written without rich where nothing can be styled (see `summary_text`)."""
    from code_intel import summary_text

    stats = index_summary(ws, report)
    summary_text.print_summary(summary_text.summary(
        str(ws.root), stats, len(report.added), len(report.modified), len(report.deleted),
        report.unchanged + report.touched, report.elapsed, report.workers))


def run_guarded(command: Callable[[], object]) -> None:
    """Run a command with logging set up; a user's error is one line and status 2."""
    from code_intel.cli import configure_logging

    configure_logging()
    try:
        command()
    except (UserError, ConfigError, StoreError) as exc:
        _fail(exc)
    except OSError as exc:  # a file the OS refuses (permissions, a name too long, a full disk)
        _fail(exc)
    except KeyboardInterrupt:
        stderr_print("interrupted")
        raise SystemExit(130) from None
    except Exception as exc:
        from code_intel.indexing.text_search import SearchError  # only search raises it

        if not isinstance(exc, SearchError):
            raise
        _fail(exc)


def _fail(exc: BaseException) -> None:
    from rich.markup import escape

    stderr_print(f"[red]error:[/red] {escape(str(exc))}")
    raise SystemExit(2) from None
