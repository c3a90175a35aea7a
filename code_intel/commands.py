"""`code-intel` commands: index, defs, refs, outline, grep, search, init, lsp, mcp.

`code_intel.cli` dispatches here for everything but the hook, which takes a leaner path.

Every command prints for humans by default and JSON with `--json`; user errors become
one red line and exit code 2, never a traceback.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape as _escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.tree import Tree

from code_intel.index_command import (
    UserError,
    index_human,
    index_json,
    open_workspace,
    run_guarded,
)
from code_intel.index_command import emit as _emit
from code_intel.indexing.store import StoredSymbol
from code_intel.indexing.sync import SyncReport, sync_workspace
from code_intel.indexing.text_search import search_text
from code_intel.indexing.workspace import Workspace, find_root

app = typer.Typer(
    name="code-intel",
    help="Code intelligence for agents and editors: index, navigate and search a workspace.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
WorkspaceOpt = Annotated[
    Path | None,
    typer.Option("--workspace", "-w", help="Workspace root (default: found from the current directory)."),
]
NoSyncOpt = Annotated[
    bool, typer.Option("--no-sync", help="Answer from the index as it is, without syncing first.")
]


def _open(workspace: Path | None) -> Workspace:
    return open_workspace(workspace if workspace is not None else find_root(Path.cwd()))


def _sync(ws: Workspace, force: bool = False, show_progress: bool = True) -> SyncReport:
    if not show_progress or not err.is_terminal:
        return sync_workspace(ws.root, ws.store, ws.config, force=force)
    with Progress(
        TextColumn("[bold]indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}", style="dim"),
        console=err,
        transient=True,
        # redrawn from the progress callback, not by rich's refresh thread: with no other
        # thread running, the indexer forks its warmed parser workers (see indexing.workers)
        auto_refresh=False,
    ) as progress:
        task = progress.add_task("", total=None)
        drawn = [0.0]

        def update(done: int, total: int, path: str) -> None:
            now = time.monotonic()
            redraw = now - drawn[0] >= 0.1 or done == total
            if redraw:
                drawn[0] = now
            progress.update(task, completed=done, total=total, description=path[-60:], refresh=redraw)

        return sync_workspace(ws.root, ws.store, ws.config, force=force, progress=update)


@app.command()
def index(
    path: Annotated[Path, typer.Argument(help="Workspace to index.")] = Path("."),
    force: Annotated[bool, typer.Option("--force", help="Re-read and re-parse every file.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Index a workspace (incrementally) and print a summary."""
    if as_json:
        index_json(path, force)
        return
    index_human(path, force)


def _symbol_json(s: StoredSymbol) -> dict[str, Any]:
    d = asdict(s.symbol)
    d["kind"] = s.symbol.kind.value
    return {"path": s.path, "language": s.language, **d}


@app.command()
def defs(
    name: Annotated[str, typer.Argument(help="Symbol name or qualified name.")],
    substring: Annotated[bool, typer.Option("--substring", help="Case-insensitive substring match.")] = False,
    language: Annotated[str | None, typer.Option(help="Only this language.")] = None,
    workspace: WorkspaceOpt = None,
    no_sync: NoSyncOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Find where NAME is defined."""
    if not name.strip():
        raise UserError("NAME is empty")
    ws = _open(workspace)
    if not no_sync:
        _sync(ws, show_progress=not as_json)
    found = ws.store.find_definitions(name, exact=not substring, language=language)
    if as_json:
        _emit({"name": name, "definitions": [_symbol_json(s) for s in found]})
        return
    if not found:
        out.print(f"no definition of {name!r}")
        raise typer.Exit(1)
    for s in found:
        sym = s.symbol
        out.print(
            f"{s.path}:{sym.selection_range.start.line + 1}:{sym.selection_range.start.character + 1}"
            f"  [cyan]{sym.kind.value}[/cyan] [bold]{sym.qualified_name}[/bold]"
            + (f"  [dim]{sym.signature}[/dim]" if sym.signature else "")
        )


@app.command()
def refs(
    name: Annotated[str, typer.Argument(help="Symbol name (a qualified name matches by its last part).")],
    workspace: WorkspaceOpt = None,
    no_sync: NoSyncOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Find references to NAME: occurrences that resolve to its definitions (a
    qualified name such as pkg.mod.Class.method, Class::method or App\\Models\\User
    picks which); occurrences nothing decides are listed apart as possible."""
    if not name.strip():
        raise UserError("NAME is empty")
    ws = _open(workspace)
    if not no_sync:
        _sync(ws, show_progress=not as_json)
    from code_intel.lsp_server.live_index import LiveIndex  # the resolver; only refs needs it
    from code_intel.lsp_server.references import references_named

    answer = references_named(LiveIndex(ws.root, ws.config), name)
    found = answer.resolved
    if as_json:
        _emit(
            {
                "name": name,
                "references": [{"path": r.path, **r.reference.to_json()} for r in found],
                "possible": [
                    {"path": r.path, **r.reference.to_json(), "reason": why}
                    for r, why in answer.possible
                ],
            }
        )
        return
    if not found and not answer.possible:
        out.print(f"no references to {name!r}")
        raise typer.Exit(1)
    per_file = Counter(r.path for r in found)
    for r in found:
        ref = r.reference
        where = f"  [dim]in {ref.container}[/dim]" if ref.container else ""
        out.print(f"{r.path}:{ref.range.start.line + 1}:{ref.range.start.character + 1}{where}")
    out.print(f"[dim]{len(found)} references in {len(per_file)} files[/dim]")
    if answer.possible:
        out.print(f"[dim]{len(answer.possible)} possible (not decided):[/dim]")
        for r, why in answer.possible:
            ref = r.reference
            out.print(f"[dim]{r.path}:{ref.range.start.line + 1}:{ref.range.start.character + 1}  ({why})[/dim]")


def _outline_tree(symbols: list[StoredSymbol]) -> list[dict[str, Any]]:
    """Nest symbols by their container qualified name."""
    nodes: dict[str, dict[str, Any]] = {}
    roots: list[dict[str, Any]] = []
    for s in symbols:
        sym = s.symbol
        node = {
            "name": sym.name,
            "kind": sym.kind.value,
            "qualified_name": sym.qualified_name,
            "line": sym.range.start.line + 1,
            "end_line": sym.range.end.line + 1,
            "children": [],
        }
        parent = nodes.get(sym.container or "")
        (parent["children"] if parent else roots).append(node)
        nodes.setdefault(sym.qualified_name, node)
    return roots


@app.command()
def outline(
    path: Annotated[Path, typer.Argument(help="File or directory.")],
    workspace: WorkspaceOpt = None,
    no_sync: NoSyncOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Show the nested symbols of a file, or of every file under a directory."""
    ws = _open(workspace)
    try:
        rel = ws.relative(path)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    target = ws.root / rel
    if not target.exists():
        raise UserError(f"{path} does not exist")
    if not no_sync:
        _sync(ws, show_progress=not as_json)
    if target.is_dir():
        symbols = ws.store.symbols_under("" if rel == "." else rel)
    else:
        symbols = ws.store.symbols_in_file(rel)
        state = ws.store.file_state(rel)
        if state is None or state.skip_reason:
            reason = state.skip_reason if state else "not indexed (ignored or excluded)"
            raise UserError(f"{rel}: {reason}")
    by_file: dict[str, list[StoredSymbol]] = {}
    for s in symbols:
        by_file.setdefault(s.path, []).append(s)
    result = {p: _outline_tree(syms) for p, syms in by_file.items()}
    if as_json:
        _emit({"path": rel, "files": result})
        return
    for file_path, nodes in result.items():
        tree = Tree(f"[bold]{file_path}[/bold]")
        _add_nodes(tree, nodes)
        out.print(tree)


def _add_nodes(tree: Tree, nodes: list[dict[str, Any]]) -> None:
    for n in nodes:
        branch = tree.add(f"[cyan]{n['kind']}[/cyan] {n['name']} [dim]:{n['line']}[/dim]")
        _add_nodes(branch, n["children"])


@app.command()
def grep(
    pattern: Annotated[str, typer.Argument(help="Regular expression (ripgrep syntax).")],
    path: Annotated[str | None, typer.Option(help="Only under this workspace path.")] = None,
    glob: Annotated[str | None, typer.Option(help="Only files matching this glob.")] = None,
    file_type: Annotated[str | None, typer.Option("--type", help="ripgrep file type (py, php, ts…).")] = None,
    context: Annotated[int, typer.Option("--context", "-C", help="Lines of context.")] = 0,
    ignore_case: Annotated[bool, typer.Option("--ignore-case", "-i")] = False,
    fixed: Annotated[bool, typer.Option("--fixed-strings", "-F", help="Treat PATTERN as a literal.")] = False,
    max_results: Annotated[int, typer.Option(help="Stop listing after this many matches.")] = 200,
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search file contents with ripgrep, honouring ignore files."""
    root = workspace if workspace is not None else find_root(Path.cwd())
    result = search_text(
        root, pattern, path=path, glob=glob, file_type=file_type, context=context,
        ignore_case=ignore_case, fixed_strings=fixed, max_results=max_results,
    )
    if as_json:
        _emit(
            {
                "pattern": pattern,
                "total": result.total,
                "truncated": result.truncated,
                "matches": [asdict(m) for m in result.matches],
            }
        )
        return
    for m in result.matches:
        for i, line in enumerate(m.before):
            out.print(f"[dim]{m.path}-{m.line - len(m.before) + i}-{_escape(line)}[/dim]")
        out.print(f"[magenta]{m.path}[/magenta]:[green]{m.line}[/green]:{_escape(m.content)}")
        for i, line in enumerate(m.after):
            out.print(f"[dim]{m.path}-{m.line + 1 + i}-{_escape(line)}[/dim]")
    suffix = f" (showing {len(result.matches)})" if result.truncated else ""
    err.print(f"[dim]{result.total} matches{suffix}[/dim]")
    if not result.total:
        raise typer.Exit(1)


@app.command()
def search(
    query: Annotated[str, typer.Argument(
        help="What you are looking for, in English or Japanese, or a pasted issue with its traceback "
             "(up to 100,000 characters; '-' reads it from stdin).")],
    top: Annotated[int, typer.Option("--top", "-n", help="How many files and symbols to list (1-100).")] = 10,
    collection: Annotated[
        str | None,
        typer.Option(help="Plain vector search of one collection instead of the hybrid: auto, map or forest."),
    ] = None,
    fusion: Annotated[str, typer.Option(help="How the hybrid merges its signals: rrf or weighted.")] = "rrf",
    include_prose: Annotated[bool, typer.Option(
        "--include-prose", help="Rank docs, changelogs, translations, lock files, minified or vendored files, stylesheets, configuration, migrations and seed data like code.")] = False,
    wait_model: Annotated[float | None, typer.Option(
        "--wait-model", help="Without a running server: load the embedding model here and wait up to "
                             "this many seconds for it. By default a request with words is answered "
                             "by words at once, and a first search or a request without words waits "
                             "for the model.")] = None,
    workspace: WorkspaceOpt = None,
    no_sync: NoSyncOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Rank the files and symbols a request is about (BM25 + embeddings + definitions).

    Asks the language server that owns the workspace when one runs (warm: milliseconds);
    otherwise searches in this process.
    """
    from code_intel.indexing.search import (
        validate_collection,
        validate_fusion,
        validate_n_results,
        validate_query,
    )

    if query == "-":
        query = sys.stdin.read()
    validate_query(query)
    validate_n_results(top, "--top")
    validate_fusion(fusion)
    if wait_model is not None and wait_model < 0:
        raise UserError(f"--wait-model must be 0 or more seconds, got {wait_model}")
    if collection is not None:
        validate_collection(collection)
    root = workspace if workspace is not None else find_root(Path.cwd())
    if collection is None:
        served = _query_server(root, {"text": query, "top": top, "fusion": fusion,
                                      "include_prose": include_prose})
        if served is not None:
            if as_json:
                _emit(served)
            else:
                _print_query(served)
            return
    _search_here(query, top, collection, fusion, include_prose, wait_model, workspace, no_sync, as_json)


def _query_server(root: Path, params: dict[str, Any]) -> dict[str, Any] | None:
    """The owning server's answer, or None when no server owns `root` (or it cannot
    be reached: then this process answers). Plain sockets: pygls and asyncio would
    cost this call more than the warm server's answer."""
    from code_intel.mcp_bridge.hook_client import RpcError, Unreachable, request, server_info

    info = server_info(root.resolve())
    if info is None:
        return None
    try:
        result = request(root.resolve(), "codeIntel/query", params, time.monotonic() + 60)
    except (RpcError, Unreachable) as exc:
        logging.getLogger(__name__).debug("server query failed: %s", exc)
        return None
    if not isinstance(result, dict):
        return None
    result.setdefault("notes", []).append(
        f"answered by the language server that owns this workspace (pid {info['pid']})")
    return result


def _search_here(query: str, top: int, collection: str | None, fusion: str, include_prose: bool,
                 wait_model: float | None, workspace: Path | None, no_sync: bool, as_json: bool) -> None:
    ws = _open(workspace)
    if not no_sync:
        _sync(ws, show_progress=not as_json)
    if collection is None and wait_model is None and _words_can_answer(ws.root, query):
        _search_by_words(ws, query, top, fusion, include_prose, no_sync, as_json)
        return
    _search_with_vectors(ws, query, top, collection, fusion, include_prose, wait_model, no_sync, as_json)


def _words_can_answer(root: Path, query: str) -> bool:
    """Without a server, loading the model (and Chroma) costs seconds per call; the
    words answer in a fraction of one. They are enough once vectors exist (a first
    search builds them) and the request has words code can contain, its own or the
    English of its Japanese ones."""
    from code_intel.indexing.private import store_dir

    if not (store_dir(root) / "vectors.db").exists():
        return False
    from code_intel.indexing.ja_terms import translate_request
    from code_intel.indexing.lexical import query_terms

    return any(t.isascii() for t in query_terms(query)) or bool(translate_request(query).terms)


def _search_by_words(ws: Any, query: str, top: int, fusion: str, include_prose: bool,
                     no_sync: bool, as_json: bool) -> None:
    from code_intel.indexing.lexical import LexicalIndex
    from code_intel.indexing.search import hybrid_query

    lexical = LexicalIndex.for_workspace(ws.root)
    try:
        if not no_sync:
            lexical.sync(ws.store)
        answer = hybrid_query(query, store=ws.store, lexical=lexical, vectors=None,
                              weights=ws.config.search_weights, fusion=fusion, top=top,
                              include_prose=include_prose)
    finally:
        lexical.close()
    data = answer.to_json()
    data["status"] = "partial"
    data["notes"].append(NO_VECTORS_NOTE)
    if as_json:
        _emit(data)
    else:
        _print_query(data)


NO_VECTORS_NOTE = (
    "no vector signal: no language server owns this workspace and loading the model here takes "
    "seconds. Run `code-intel lsp` (or an editor/agent using it) to keep it loaded, or pass "
    "--wait-model 30"
)


def _search_with_vectors(ws: Any, query: str, top: int, collection: str | None, fusion: str,
                         include_prose: bool, wait_model: float | None, no_sync: bool,
                         as_json: bool) -> None:
    import contextlib

    from code_intel.indexing.embeddings import EmbedderNotReady, EmbeddingError, LazyEmbedder
    from code_intel.indexing.search import SearchService
    from code_intel.indexing.vectors import VectorStoreError

    embedder = LazyEmbedder(ws.config.embedding_model, start=True)
    try:
        service = SearchService(ws.root, ws.config, ws.store, embedder)
        for message in service.vectors.messages:  # a damaged vector store set aside, say
            err.print(f"[yellow]note:[/yellow] {message}")
        if wait_model is None:
            # vectors are needed (a first search, a request without words, a collection)
            with err.status(f"loading the embedding model {embedder.spec}…"):
                embedder.wait()
        else:
            with contextlib.suppress(EmbedderNotReady):  # answered without vectors, and said so
                embedder.wait(wait_model)
        if not no_sync:
            service.lexical.sync(ws.store)
            if embedder.state.value == "ready":
                _embed(service, show_progress=not as_json)
        if collection is not None:
            result = service.semantic_search(query, collection, top)
            if as_json:
                _emit(result.to_json())
                return
            _print_semantic(result)
            return
        answer = service.query(query, top=top, fusion=fusion, include_prose=include_prose)
    except (EmbeddingError, VectorStoreError) as exc:
        raise UserError(str(exc)) from None
    data = answer.to_json()
    if answer.status == "partial":
        data["notes"].append(NO_VECTORS_NOTE)
    if as_json:
        _emit(data)
        return
    _print_query(data)


def _embed(service: Any, show_progress: bool) -> None:
    """Give every chunk a vector before answering: the fast tier's where it is on. A
    one-shot command does not stay to refine them (on sympy's 43,673 chunks the fast pass
    alone took 95 s, fast and refined 346 s, full vectors straight away 262 s); the
    language server refines in the background, and the answer says so meanwhile."""
    if not show_progress or not err.is_terminal:
        service.vectors.sync(service.store, refine=False)
        return
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as progress:
        task = progress.add_task("embedding", total=None)

        def update(p: Any) -> None:
            progress.update(task, description="fast vectors" if p.phase == "fast" else "embedding",
                            completed=p.files_done, total=p.files_total or None)

        service.vectors.sync(service.store, progress=update, refine=False)


def _evidence_line(ev: dict[str, Any]) -> str:
    parts = []
    if "vector" in ev:
        parts.append(f"vector {ev['vector']['similarity']:.2f} #{ev['vector']['rank']}")
    if "lexical" in ev:
        terms = ",".join(ev["lexical"]["matched_terms"])
        parts.append(f"bm25 #{ev['lexical']['rank']}" + (f" [{terms}]" if terms else ""))
    if "definition" in ev:
        parts.append(f"defines '{ev['definition']['matched']}'")
    if ev.get("references"):
        parts.append(f"{ev['references']} refs")
    if "traceback_frame" in ev:
        parts.append("traceback frame")
    if "map" in ev:
        parts.append(f"map {ev['map']['similarity']:.2f}")
    return " · ".join(parts)


def _print_query(answer: dict[str, Any]) -> None:
    """A `codeIntel/query` answer (JSON, from this process or the server) as tables."""
    for note in answer.get("notes", []):
        err.print(f"[yellow]note:[/yellow] {_escape(note)}")
    if not answer.get("files") and not answer.get("symbols"):
        out.print(f"nothing found for {answer.get('query', '')[:200]!r}")
        raise typer.Exit(1)
    files = Table(title="files", title_justify="left", header_style="bold", box=None)
    for col in ("#", "file", "score", "symbols"):
        files.add_column(col, justify="right" if col in ("#", "score") else "left", overflow="fold")
    for f in answer["files"]:
        files.add_row(str(f["rank"]), f"[magenta]{_escape(f['path'])}[/magenta]", f"{f['score']:.4f}",
                      _escape(", ".join(f["symbols"][:4])))
    # Piped output is not cut to 80 columns: paths are what people copy from it.
    wide = out if out.is_terminal else Console(highlight=False, width=200, file=sys.stdout)
    wide.print(files)
    symbols = Table(title="symbols", title_justify="left", header_style="bold", box=None)
    for col in ("#", "symbol", "kind", "location", "score", "evidence"):
        symbols.add_column(col, justify="right" if col in ("#", "score") else "left", overflow="fold")
    for s in answer["symbols"]:
        symbols.add_row(
            str(s["rank"]), f"[bold]{_escape(s['symbol'])}[/bold]", s["kind"],
            f"{_escape(s['path'])}:{s['start_line']}", f"{s['score']:.4f}", _escape(_evidence_line(s["evidence"])),
        )
    wide.print(symbols)
    if answer.get("map_hints"):
        best = answer["map_hints"][0]
        out.print(f"[dim]closest agreement: {_escape(best['query'])!r} ({best['score']:.2f})[/dim]")


def _print_semantic(result: Any) -> None:
    head = f"[bold]{result.source}[/bold] hits" + (" (map short-circuit)" if result.short_circuit else "")
    out.print(head)
    for i, h in enumerate(result.hits, 1):
        if hasattr(h, "agreement"):
            a = h.agreement
            out.print(f"{i:>3}. {h.score:.3f}  {_escape(a.query)}  → {_escape(', '.join(a.symbols + a.files))}")
        else:
            out.print(f"{i:>3}. {h.score:.3f}  [magenta]{_escape(h.path)}[/magenta]:{h.start_line + 1}  "
                      f"[bold]{_escape(h.symbol_name)}[/bold] [dim]{h.symbol_type}[/dim]")
    if not result.hits:
        out.print("no hits")
        raise typer.Exit(1)


@app.command()
def init(
    path: Annotated[Path, typer.Argument(help="Repository to prepare.")] = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Prepare a repository for Claude Code: config, .mcp.json, the write-gate hook and
    the /code and /outcome commands. Existing files are merged, never overwritten."""
    from code_intel.mcp_bridge.claude_code import InitError, init_workspace

    try:
        report = init_workspace(path)
    except InitError as exc:
        raise UserError(str(exc)) from None
    if as_json:
        _emit({"workspace": str(report.root), "files": report.actions,
               "warnings": report.warnings})
        return
    out.print(f"[bold]code-intel init[/bold] {report.root}")
    for rel, action in report.actions.items():
        style = {"created": "green", "updated": "yellow", "kept": "cyan"}.get(action, "dim")
        out.print(f"  [{style}]{action:<9}[/{style}] {rel}")
    for warning in report.warnings:
        err.print(f"[yellow]warning:[/yellow] {_escape(warning)}")


@app.command()
def lsp(
    tcp: Annotated[
        str | None, typer.Option("--tcp", metavar="HOST:PORT", help="Listen on TCP instead of stdio.")
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            help="With --tcp: where the client's token is (read if it exists, else generated and "
            "written there, mode 0600). Default: ~/.cache/code-intel/lsp-tcp-PORT.token.",
        ),
    ] = None,
    insecure: Annotated[
        bool, typer.Option("--insecure", help="With --tcp: serve any client that connects, without a token.")
    ] = False,
) -> None:
    """Run the language server (stdio by default) for editors and the MCP bridge.

    Over TCP every user of the machine can connect, so the client must send the token
    as `initializationOptions.token` (the CODE_INTEL_TOKEN variable sets it, too)."""
    from code_intel.lsp_server.server import main as serve
    from code_intel.lsp_server.tcp_token import TokenError, tcp_token

    token = None
    if tcp is not None:
        _host, sep, port = tcp.rpartition(":")
        if not sep or not port.isdigit() or not 0 < int(port) < 65536:
            raise UserError(f"--tcp expects HOST:PORT (for example 127.0.0.1:2087), got {tcp!r}")
        if not insecure:
            try:
                token, where = tcp_token(int(port), token_file, os.environ.get("CODE_INTEL_TOKEN"))
            except TokenError as exc:
                raise UserError(str(exc)) from None
            err.print(f"code-intel: clients must send initializationOptions.token (in {where})")
    elif insecure or token_file is not None:
        raise UserError("--insecure and --token-file only apply with --tcp HOST:PORT")
    serve(tcp, token)


@app.command()
def mcp(
    workspace: Annotated[
        Path | None,
        typer.Option("--workspace", "-w", help="Workspace root (default: $CLAUDE_PROJECT_DIR, "
                     "else the nearest directory above the current one holding .code-intel/)."),
    ] = None,
) -> None:
    """Run the MCP server (stdio) that gives Claude Code the code-intel tools."""
    from code_intel.mcp_bridge.server import main as serve_mcp
    from code_intel.mcp_bridge.server import workspace_root

    root = (workspace or workspace_root(Path.cwd(), os.environ)).resolve()
    if not root.is_dir():
        raise UserError(f"workspace {root} is not a directory")
    serve_mcp(root)


def main() -> None:
    run_guarded(app)


if __name__ == "__main__":
    main()
