"""The `codeIntel/*` requests over the index: text search, definitions, references,
structure, symbols, sync and status. Paths are workspace-relative; a path outside the
workspace or unknown to the index is InvalidParams with the reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
from code_intel.indexing.discovery import is_within
from code_intel.indexing.paths import UnusablePath, resolve_path
from code_intel.indexing.text_search import SearchError, search_text
from pygls.exceptions import JsonRpcInvalidParams

from .. import protocol as p
from ..convert import declaration_info, lsp_range, outline, reference_info, symbol_info
from ..protocol import custom_request
from ..references import references_named

if TYPE_CHECKING:
    from ..live_index import LiveIndex
    from ..server import CodeIntelServer

LIST_LIMIT = 200  # file lists in a sync report


def workspace_path(live: LiveIndex, path: str) -> str:
    """Normalise a user path to workspace-relative, refusing anything outside."""
    try:
        resolved = resolve_path(path, live.root)
    except UnusablePath as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    if not is_within(live.root, resolved):
        raise JsonRpcInvalidParams(f"path {path!r} is outside the workspace {live.root}")
    return resolved.relative_to(live.root).as_posix() if resolved != live.root else ""


def known_file(live: LiveIndex, path: str) -> str:
    rel = workspace_path(live, path)
    if rel in live.overlays:
        return rel
    state = live.store.file_state(rel)
    if state is None or state.skip_reason:
        why = f"it was skipped ({state.skip_reason})" if state else "it is not in the index"
        raise JsonRpcInvalidParams(
            f"cannot analyse {path!r}: {why}; check the path or run codeIntel/syncIndex"
        )
    return rel


def register(server: CodeIntelServer) -> None:
    @custom_request(server, p.SEARCH_TEXT, p.SearchTextParams, off_loop=True)
    def search(ls: CodeIntelServer, params: p.SearchTextParams) -> p.SearchTextResult:
        live = ls.live
        if params.path:
            workspace_path(live, params.path)
        try:
            result = search_text(
                live.root,
                params.pattern,
                path=params.path,
                glob=params.glob,
                context=params.context,
                ignore_case=params.ignore_case,
                fixed_strings=params.fixed_strings,
                max_results=params.max_results,
            )
        except SearchError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        return p.SearchTextResult(
            matches=[
                p.TextMatchInfo(m.path, m.line, m.column, m.content, list(m.before), list(m.after))
                for m in result.matches
            ],
            total=result.total,
            truncated=result.truncated,
        )

    @custom_request(server, p.FIND_DEFINITIONS, p.FindDefinitionsParams, off_loop=True)
    def find_definitions(ls: CodeIntelServer, params: p.FindDefinitionsParams) -> p.FindDefinitionsResult:
        live = ls.live
        found = live.definitions(params.name, params.exact, params.language, params.limit + 1)
        return p.FindDefinitionsResult(
            name=params.name,
            definitions=[symbol_info(s, live.uri(s.path)) for s in found[: params.limit]],
            truncated=len(found) > params.limit,
        )

    @custom_request(server, p.FIND_REFERENCES, p.FindReferencesParams, off_loop=True)
    def find_references(ls: CodeIntelServer, params: p.FindReferencesParams) -> p.FindReferencesResult:
        live = ls.live
        answer = references_named(live, params.name, params.limit + 1)
        found = [reference_info(r, live.uri(r.path)) for r in answer.resolved]
        if params.include_declaration:
            found = [declaration_info(s, live.uri(s.path)) for s in answer.targets] + found
        possible = [
            p.PossibleReferenceInfo(
                r.reference.name, r.path, live.uri(r.path), r.reference.start_line + 1,
                lsp_range(r.reference.range), reason, r.reference.container,
            )
            for r, reason in answer.possible[: params.limit]
        ]
        return p.FindReferencesResult(
            name=params.name,
            references=found[: params.limit],
            files=len({r.path for r in found}),
            truncated=len(found) > params.limit,
            possible=possible,
        )

    @custom_request(server, p.ANALYZE_STRUCTURE, p.AnalyzeStructureParams)
    def analyze_structure(ls: CodeIntelServer, params: p.AnalyzeStructureParams) -> p.AnalyzeStructureResult:
        live = ls.live
        rel = known_file(live, params.path)
        analysis = live.analysis(rel)
        if analysis is not None:
            chunks, language = analysis.complete_chunks(), analysis.language
        else:
            chunks = live.store.chunks_in_file(rel)
            state = live.store.file_state(rel)
            language = state.language if state and state.language else "text"
        return p.AnalyzeStructureResult(
            path=rel,
            language=language,
            symbols=outline(live.file_symbols(rel)),
            imports=live.imports_of(rel),
            chunks=[p.ChunkSummary(c.symbol_name, c.symbol_type, c.start_line + 1, c.end_line + 1) for c in chunks],
            unsaved=analysis is not None,
        )

    @custom_request(server, p.GET_FUNCTION_AT_LINE, p.GetFunctionAtLineParams)
    def function_at_line(ls: CodeIntelServer, params: p.GetFunctionAtLineParams) -> p.GetFunctionAtLineResult:
        live = ls.live
        rel = known_file(live, params.path)
        found = live.enclosing_symbol(rel, params.line - 1)
        content = None
        if found is not None:
            r = found.symbol.range
            content = "\n".join(live.line_text(rel, n) for n in range(r.start.line, r.end.line + 1))
        return p.GetFunctionAtLineResult(
            path=rel,
            line=params.line,
            symbol=symbol_info(found, live.uri(rel)) if found else None,
            content=content,
        )

    @custom_request(server, p.GET_SYMBOLS, p.GetSymbolsParams, off_loop=True)
    def get_symbols(ls: CodeIntelServer, params: p.GetSymbolsParams) -> p.GetSymbolsResult:
        live = ls.live
        if params.query:
            found = live.workspace_symbols(params.query, params.limit + 1)
            if params.kind:
                found = [s for s in found if s.symbol.kind.value == params.kind]
            if params.path:
                prefix = workspace_path(live, params.path)
                found = [s for s in found if s.path == prefix or s.path.startswith(prefix + "/")]
        else:
            prefix = workspace_path(live, params.path) if params.path else ""
            found = [
                s for s in live.store.symbols_under(prefix, params.kind, params.limit + 1)
                if s.path not in live.overlays
            ]
            for rel in live.overlays:
                if not prefix or rel == prefix or rel.startswith(prefix + "/"):
                    found.extend(
                        s for s in live.file_symbols(rel)
                        if not params.kind or s.symbol.kind.value == params.kind
                    )
        return p.GetSymbolsResult(
            symbols=[symbol_info(s, live.uri(s.path)) for s in found[: params.limit]],
            truncated=len(found) > params.limit,
        )

    @custom_request(server, p.SYNC_INDEX, p.SyncIndexParams)
    async def sync_index(ls: CodeIntelServer, params: p.SyncIndexParams) -> p.SyncIndexResult:
        hub = ls.hub
        await hub.wait_for_sync()
        report = await hub.run_sync(params.force, progress_owner=ls)
        if report is None:
            raise RuntimeError(f"sync failed: {hub.live.status.error}")
        return p.SyncIndexResult(
            added=report.added[:LIST_LIMIT],
            modified=report.modified[:LIST_LIMIT],
            deleted=report.deleted[:LIST_LIMIT],
            unchanged=report.unchanged,
            skipped=dict(list(report.skipped.items())[:LIST_LIMIT]),
            elapsed_seconds=round(report.elapsed, 3),
        )

    @custom_request(server, p.INDEX_STATUS, p.IndexStatusParams)
    def index_status(ls: CodeIntelServer, params: p.IndexStatusParams) -> p.IndexStatusResult:
        status = ls.live.status_result()
        return attrs.evolve(status, search=ls.hub.services.search_status())
