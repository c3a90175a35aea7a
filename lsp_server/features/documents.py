"""Live documents: buffers overlay the index from didOpen to didClose.

didChange only applies the edits (bytes + `Tree.edit`); the re-parse and analysis
happen when the next request needs them, which is before it is answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from ..server import CodeIntelServer


def register(server: CodeIntelServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: CodeIntelServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.live.open_document(doc.uri, doc.text, doc.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: CodeIntelServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.live.document(params.text_document.uri)
        if doc is None:
            return
        version = params.text_document.version
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                r = change.range
                doc.apply_edit(
                    (r.start.line, r.start.character), (r.end.line, r.end.character), change.text, version
                )
            else:
                doc.replace_all(change.text, version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: CodeIntelServer, params: types.DidSaveTextDocumentParams) -> None:
        # The buffer stays the truth while open; record the saved disk state so a
        # client that reads the store (or a restart) sees it too.
        rel = ls.live.rel_path(params.text_document.uri)
        if rel is not None and rel in ls.live.overlays:
            ls.live.refresh_file(rel)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CodeIntelServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.live.close_document(params.text_document.uri)
