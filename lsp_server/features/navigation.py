"""Standard navigation: definition, references, document and workspace symbols, hover.

Every answer goes through LiveIndex, so open buffers win over the disk, and waits for
the workspace's first build when the index was empty at start (an empty answer then
would mean "not yet", not "nothing there"). References and
workspace symbols cost time that grows with the workspace (every occurrence of a common
name, every symbol matching a short query): they run on a worker thread, so one slow
request does not hold up everyone else's definitions, and `$/cancelRequest` ends them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..convert import LSP_KIND, document_symbols, hover_markdown, location
from ..protocol import after_first_build, on_worker_thread
from ..references import references_at

if TYPE_CHECKING:
    from ..server import CodeIntelServer

WORKSPACE_SYMBOL_LIMIT = 100
MAX_LOCATIONS = 50


def register(server: CodeIntelServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @after_first_build
    def definition(ls: CodeIntelServer, params: types.DefinitionParams) -> list[types.Location]:
        live = ls.live
        rel = live.rel_path(params.text_document.uri)
        if rel is None:
            return []
        pos = params.position
        _, ranked = live.resolve(rel, pos.line, pos.character)
        return [location(live.uri(s.path), s.symbol.selection_range) for s in ranked[:MAX_LOCATIONS]]

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @after_first_build
    @on_worker_thread
    def references(ls: CodeIntelServer, params: types.ReferenceParams) -> list[types.Location]:
        live = ls.live
        rel = live.rel_path(params.text_document.uri)
        if rel is None:
            return []
        answer = references_at(live, rel, params.position.line, params.position.character)
        if not answer.name:
            return []
        # LSP has no place for undecided occurrences: only the resolved ones.
        found = [location(live.uri(r.path), r.reference.range) for r in answer.resolved]
        if params.context.include_declaration:
            found = [location(live.uri(s.path), s.symbol.selection_range) for s in answer.targets] + found
        return found

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)  # an open buffer's own symbols: no wait
    def document_symbol(ls: CodeIntelServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        rel = ls.live.rel_path(params.text_document.uri)
        return document_symbols(ls.live.file_symbols(rel)) if rel else []

    @server.feature(types.WORKSPACE_SYMBOL)
    @after_first_build
    @on_worker_thread
    def workspace_symbol(ls: CodeIntelServer, params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
        live = ls.live
        return [
            types.SymbolInformation(
                name=s.symbol.name,
                kind=LSP_KIND.get(s.symbol.kind, types.SymbolKind.Variable),
                location=location(live.uri(s.path), s.symbol.selection_range),
                container_name=s.symbol.container,
            )
            for s in live.workspace_symbols(params.query, WORKSPACE_SYMBOL_LIMIT)
        ]

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @after_first_build
    def hover(ls: CodeIntelServer, params: types.HoverParams) -> types.Hover | None:
        live = ls.live
        rel = live.rel_path(params.text_document.uri)
        if rel is None:
            return None
        _, ranked = live.resolve(rel, params.position.line, params.position.character)
        if not ranked:
            return None
        text = hover_markdown(ranked[0])
        if len(ranked) > 1:
            text += f"\n\n_{len(ranked) - 1} more definition(s) with this name_"
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
            range=None,
        )


