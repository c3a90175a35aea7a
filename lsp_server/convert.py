"""Index records → LSP and codeIntel payloads (one place, so every request agrees)."""

from __future__ import annotations

from code_intel.indexing.model import Range, SymbolKind
from code_intel.indexing.store import StoredReference, StoredSymbol
from lsprotocol import types

from .protocol import OutlineNode, ReferenceInfo, SymbolInfo

LSP_KIND: dict[SymbolKind, types.SymbolKind] = {
    SymbolKind.MODULE: types.SymbolKind.Module,
    SymbolKind.NAMESPACE: types.SymbolKind.Namespace,
    SymbolKind.PACKAGE: types.SymbolKind.Package,
    SymbolKind.CLASS: types.SymbolKind.Class,
    SymbolKind.INTERFACE: types.SymbolKind.Interface,
    SymbolKind.TRAIT: types.SymbolKind.Interface,
    SymbolKind.ENUM: types.SymbolKind.Enum,
    SymbolKind.STRUCT: types.SymbolKind.Struct,
    SymbolKind.TYPE: types.SymbolKind.TypeParameter,
    SymbolKind.FUNCTION: types.SymbolKind.Function,
    SymbolKind.METHOD: types.SymbolKind.Method,
    SymbolKind.CONSTRUCTOR: types.SymbolKind.Constructor,
    SymbolKind.PROPERTY: types.SymbolKind.Property,
    SymbolKind.FIELD: types.SymbolKind.Field,
    SymbolKind.CONSTANT: types.SymbolKind.Constant,
    SymbolKind.VARIABLE: types.SymbolKind.Variable,
    SymbolKind.ENUM_MEMBER: types.SymbolKind.EnumMember,
    SymbolKind.COMPONENT: types.SymbolKind.Class,
    SymbolKind.ELEMENT: types.SymbolKind.Object,
    SymbolKind.SELECTOR: types.SymbolKind.Key,
    SymbolKind.SECTION: types.SymbolKind.Namespace,
    SymbolKind.TABLE: types.SymbolKind.Struct,
    SymbolKind.KEY: types.SymbolKind.Key,
    SymbolKind.ROUTE: types.SymbolKind.Event,
}


def lsp_range(r: Range) -> types.Range:
    return types.Range(
        types.Position(r.start.line, r.start.character), types.Position(r.end.line, r.end.character)
    )


def location(uri: str, r: Range) -> types.Location:
    return types.Location(uri, lsp_range(r))


def symbol_info(s: StoredSymbol, uri: str) -> SymbolInfo:
    sym = s.symbol
    return SymbolInfo(
        name=sym.name,
        kind=sym.kind.value,
        qualified_name=sym.qualified_name,
        path=s.path,
        uri=uri,
        line=sym.selection_range.start.line + 1,
        range=lsp_range(sym.range),
        selection_range=lsp_range(sym.selection_range),
        language=s.language,
        container=sym.container,
        signature=sym.signature,
        doc=sym.doc,
    )


def reference_info(r: StoredReference, uri: str, is_declaration: bool = False) -> ReferenceInfo:
    ref = r.reference
    return ReferenceInfo(
        name=ref.name,
        path=r.path,
        uri=uri,
        line=ref.start_line + 1,
        range=lsp_range(ref.range),
        container=ref.container,
        is_declaration=is_declaration,
    )


def declaration_info(s: StoredSymbol, uri: str) -> ReferenceInfo:
    """A definition listed among references (`includeDeclaration`)."""
    sym = s.symbol
    return ReferenceInfo(
        name=sym.name,
        path=s.path,
        uri=uri,
        line=sym.selection_range.start.line + 1,
        range=lsp_range(sym.selection_range),
        container=sym.container,
        is_declaration=True,
    )


MAX_NESTING = 48  # deeper symbols are listed flat under the symbol at this depth


def _nest(symbols: list[StoredSymbol], make, attach) -> list:
    """Nest by container qualified name; a symbol whose container is unknown is a root.

    Nesting stops at MAX_NESTING levels: legal source can nest definitions hundreds
    deep, and a tree that deep cannot be encoded (the recursive encoder overflows,
    and the request would never be answered); below the cap they stay in order."""
    slots: dict[str, tuple[object, int]] = {}  # qualified name → (node taking its children, depth)
    roots: list = []
    for s in sorted(symbols, key=lambda s: (s.symbol.range.start.line, s.symbol.range.start.character)):
        node = make(s)
        parent = slots.get(s.symbol.container or "")
        if parent is not None:
            attach(parent[0], node)
            depth = parent[1] + 1
        else:
            roots.append(node)
            depth = 1
        slot = (node, depth) if depth < MAX_NESTING else (parent[0] if parent else node, depth - 1)
        slots.setdefault(s.symbol.qualified_name, slot)
    return roots


def document_symbols(symbols: list[StoredSymbol]) -> list[types.DocumentSymbol]:
    def make(s: StoredSymbol) -> types.DocumentSymbol:
        sym = s.symbol
        full, sel = lsp_range(sym.range), lsp_range(sym.selection_range)
        # LSP requires selectionRange ⊆ range; grow the range when a strategy disagrees.
        if (sel.start.line, sel.start.character) < (full.start.line, full.start.character):
            full = types.Range(sel.start, full.end)
        if (sel.end.line, sel.end.character) > (full.end.line, full.end.character):
            full = types.Range(full.start, sel.end)
        return types.DocumentSymbol(
            name=sym.name,
            kind=LSP_KIND.get(sym.kind, types.SymbolKind.Variable),
            range=full,
            selection_range=sel,
            detail=sym.signature,
            children=[],
        )

    return _nest(symbols, make, lambda parent, child: parent.children.append(child))


def outline(symbols: list[StoredSymbol]) -> list[OutlineNode]:
    def make(s: StoredSymbol) -> OutlineNode:
        sym = s.symbol
        return OutlineNode(
            name=sym.name,
            kind=sym.kind.value,
            qualified_name=sym.qualified_name,
            line=sym.range.start.line + 1,
            end_line=sym.range.end.line + 1,
            signature=sym.signature,
        )

    return _nest(symbols, make, lambda parent, child: parent.children.append(child))


def hover_markdown(s: StoredSymbol) -> str:
    sym = s.symbol
    parts = []
    if sym.signature:
        parts.append(f"```{s.language}\n{sym.signature}\n```")
    parts.append(f"{sym.kind.value} **{sym.qualified_name}**  \n`{s.path}:{sym.selection_range.start.line + 1}`")
    if sym.doc:
        parts.append(sym.doc)
    return "\n\n".join(parts)
