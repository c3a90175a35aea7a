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
from collections.abc import Callable
from typing import NoReturn

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
    if args[:1] == ["index"]:
        exit_without_teardown(lambda: _index(args[1:]))
    from code_intel.commands import main as run_commands

    run_commands()


def _index(args: list[str]) -> None:
    """`code-intel index [PATH] [--force] [--json]` parsed here: typer's parameter
    coercion imports pydantic and builds a validator per parameter, 0.04-0.05 s before
    the first file is read, and `--json` (what agents and scripts run) skips typer and
    rich altogether (`index_command`). Anything else (`--help`, another option, a second
    path) goes to typer, which answers or explains it as for every command."""
    from pathlib import Path

    flags = {"--force": False, "--json": False}
    paths: list[str] = []
    for arg in args:
        if arg in flags:
            flags[arg] = True
        elif arg.startswith("-") or paths:
            from code_intel.commands import main as run_commands

            run_commands()
            return
        else:
            paths.append(arg)
    path = Path(paths[0] if paths else ".")
    from code_intel.index_command import index_human, index_json, run_guarded

    build = index_json if flags["--json"] else index_human
    run_guarded(lambda: build(path, flags["--force"]))


def exit_without_teardown(run: Callable[[], object]) -> NoReturn:
    """Run a command, then leave without the interpreter's teardown.

    After `code-intel index` builds a large tree, the teardown frees the parser state,
    the grammars and every module's objects one by one: 0.06-0.09 s, 4-5 % of the whole
    time on Laravel's `src/`. By then the command has closed its store and joined its
    workers, so skipping the teardown loses nothing: output is flushed, the exit status
    is the command's. Exceptions other than SystemExit propagate as usual."""
    import logging
    import os

    try:
        run()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is None:
        code = 0
    elif not isinstance(code, int):  # `sys.exit("message")`
        print(code, file=sys.stderr)
        code = 1
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said
            pass
    os._exit(code)


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
