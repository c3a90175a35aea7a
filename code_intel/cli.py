"""The `code-intel` entry point.

The PreToolUse hook runs before every Edit/Write of an agent, so it must not pay for
typer, rich, pygls or a model: it is dispatched before any of them is imported. A bare
`code-intel mcp` (what `.mcp.json` runs) and a bare `code-intel lsp` (what editors spawn)
skip typer and rich too; the server's front end answers `initialize` before pygls is
even imported (`lsp_server/front.py`). Every other command goes through the typer
application in `code_intel.commands`.
"""

from __future__ import annotations

import sys

HOOK_USAGE = ("usage: code-intel hook pre-tool-use|post-tool-use  (reads Claude Code's hook "
              "JSON on stdin)")


def configure_logging() -> None:
    """Warnings and errors only, for every command: the language server's stderr is a
    pipe its client drains, and INFO records (some are whole payloads) would flood it."""
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(message)s")


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["hook"]:
        raise SystemExit(_hook(args[1:]))
    if args == ["mcp"]:
        raise SystemExit(_mcp())
    if args == ["lsp"]:
        from code_intel.lsp_server.front import main as serve

        serve()
        return
    from code_intel.commands import main as run_commands

    run_commands()


def _hook(args: list[str]) -> int:
    if args == ["pre-tool-use"]:
        from code_intel.mcp_bridge.hook import main as run_hook

        return run_hook()
    if args == ["post-tool-use"]:
        from code_intel.mcp_bridge.hook import main_post

        return main_post()
    print(HOOK_USAGE, file=sys.stderr)
    return 2


def _mcp() -> int:
    """`code-intel mcp` as `.mcp.json` runs it: started before Claude Code's first turn,
    so it skips typer (the options are handled by the typer command)."""
    import os
    from pathlib import Path

    from code_intel.mcp_bridge.server import main as serve_mcp
    from code_intel.mcp_bridge.server import workspace_root

    configure_logging()
    serve_mcp(workspace_root(Path.cwd(), os.environ).resolve())
    return 0


if __name__ == "__main__":
    main()
