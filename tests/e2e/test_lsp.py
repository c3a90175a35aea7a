"""The real language server driven by a real LSP client (pytest-lsp) on a mixed
Python + Laravel workspace: what an editor user sees."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.client import LanguageClient as PyglsClient
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.lsp_helpers import (
    SERVER_COMMAND,
    as_dict,
    make_mixed_workspace,
    open_as_vscode,
    position_of,
    uri,
    wait_ready,
)

LOGIN_PY = "backend/shop/auth/login.py"
SERVICE_PY = "backend/shop/orders/service.py"
MODELS_PY = "backend/shop/auth/models.py"
LOGIN_PHP = "web/app/Http/Controllers/Auth/LoginController.php"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_mixed_workspace(tmp_path / "repo")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, workspace: Path):
    await open_as_vscode(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


def open_file(client: LanguageClient, root: Path, rel: str, language: str) -> str:
    doc_uri = uri(root, rel)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(doc_uri, language, 1, (root / rel).read_text(encoding="utf-8"))
        )
    )
    return doc_uri


async def definition(client: LanguageClient, doc_uri: str, pos: types.Position) -> list[types.Location]:
    result = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(doc_uri), pos)
    )
    return list(result or [])


def where(root: Path, loc: types.Location) -> tuple[str, int]:
    return Path(loc.uri.removeprefix("file://")).relative_to(root).as_posix(), loc.range.start.line


async def test_initialize_advertises_features_and_reports_progress(client: LanguageClient):
    caps = client.init_result.capabilities
    assert caps.definition_provider and caps.references_provider and caps.hover_provider
    assert caps.document_symbol_provider and caps.workspace_symbol_provider
    sync = caps.text_document_sync
    assert sync.change == types.TextDocumentSyncKind.Incremental
    # The first sync announced itself with $/progress: begin, reports, end.
    reports = [r for token, rs in client.progress_reports.items() for r in rs]
    kinds = [r.kind for r in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    assert any(getattr(r, "percentage", None) == 100 for r in reports if r.kind == "report") or "end" in kinds


async def test_definition_across_files_prefers_the_imported_symbol(client: LanguageClient):
    root = client.workspace_root
    # `User` in the Python service resolves to the Python model, not the PHP one.
    svc = open_file(client, root, SERVICE_PY, "python")
    locs = await definition(client, svc, position_of(root, SERVICE_PY, "User", occurrence=1))
    assert [where(root, loc) for loc in locs] == [(MODELS_PY, _line_of(root, MODELS_PY, "class User"))]
    # `UserRepository` in the PHP controller resolves to the PHP repository via `use`.
    php = open_file(client, root, LOGIN_PHP, "php")
    locs = await definition(client, php, position_of(root, LOGIN_PHP, "UserRepository", occurrence=1))
    assert [where(root, loc)[0] for loc in locs] == ["web/app/Repositories/UserRepository.php"]


def _line_of(root: Path, rel: str, needle: str) -> int:
    return position_of(root, rel, needle).line


async def test_unsaved_edits_are_live_and_close_restores_disk(client: LanguageClient):
    root = client.workspace_root
    doc = open_file(client, root, LOGIN_PY, "python")
    end_line = len((root / LOGIN_PY).read_text().splitlines())
    # Add a function at the end and rename `hash_password` in its definition, unsaved.
    rename_at = position_of(root, LOGIN_PY, "def hash_password")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=doc),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(end_line, 0), types.Position(end_line, 0)),
                    text="\n\ndef brand_new_helper(token: str) -> str:\n    return token.upper()\n",
                ),
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        types.Position(rename_at.line, rename_at.character + 4),
                        types.Position(rename_at.line, rename_at.character + 4 + len("hash_password")),
                    ),
                    text="digest_password",
                ),
            ],
        )
    )
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(doc))
    )
    names = {s.name for s in symbols}
    assert "brand_new_helper" in names and "digest_password" in names and "hash_password" not in names

    ws = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="brand_new"))
    assert [s.name for s in ws] == ["brand_new_helper"]

    # A definition request for the new name from another open buffer finds the edit.
    svc = open_file(client, root, SERVICE_PY, "python")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=svc),
            [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                text="brand_new_helper\n",
            )],
        )
    )
    locs = await definition(client, svc, types.Position(0, 3))
    assert [where(root, loc) for loc in locs] == [(LOGIN_PY, end_line + 2)]

    # References come from the buffers as they are now, after each further edit too.
    async def buffer_references(line: int) -> list[tuple[str, int]]:
        found = await client.text_document_references_async(types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(svc), position=types.Position(line, 3),
            context=types.ReferenceContext(include_declaration=False)))
        return [where(root, loc) for loc in found or []]

    assert (SERVICE_PY, 0) in await buffer_references(0)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=3, uri=svc),
            [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="\n\n")],
        )
    )
    moved = await buffer_references(2)
    assert (SERVICE_PY, 2) in moved and (SERVICE_PY, 0) not in moved

    found = as_dict(await client.protocol.send_request_async("codeIntel/findDefinitions", {"name": "hash_password"}))
    assert found["definitions"] == []

    # Close without saving: the disk is the truth again.
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(doc)))
    found = as_dict(await client.protocol.send_request_async("codeIntel/findDefinitions", {"name": "hash_password"}))
    assert [d["path"] for d in found["definitions"]] == [LOGIN_PY]
    ws = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="brand_new_helper"))
    assert ws == []


async def test_references_with_and_without_declaration(client: LanguageClient):
    root = client.workspace_root
    doc = open_file(client, root, SERVICE_PY, "python")
    pos = position_of(root, SERVICE_PY, "class OrderService")
    pos = types.Position(pos.line, pos.character + len("class "))
    without = await client.text_document_references_async(
        types.ReferenceParams(context=types.ReferenceContext(include_declaration=False), text_document=types.TextDocumentIdentifier(doc), position=pos)
    )
    with_decl = await client.text_document_references_async(
        types.ReferenceParams(context=types.ReferenceContext(include_declaration=True), text_document=types.TextDocumentIdentifier(doc), position=pos)
    )
    decl = (SERVICE_PY, pos.line)
    assert decl not in [where(root, loc) for loc in without]
    assert decl in [where(root, loc) for loc in with_decl]
    assert len(with_decl) == len(without) + 1
    # The package re-exports OrderService: a cross-file reference.
    assert "backend/shop/__init__.py" in {where(root, loc)[0] for loc in without}


async def test_hover_shows_signature_doc_and_qualified_name(client: LanguageClient):
    root = client.workspace_root
    doc = open_file(client, root, SERVICE_PY, "python")
    pos = position_of(root, SERVICE_PY, "def checkout")
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(doc), types.Position(pos.line, pos.character + 5))
    )
    text = hover.contents.value
    assert "def checkout(self, order_id: int) -> Order" in text
    assert "shop.orders.service.OrderService.checkout" in text
    assert "Charge the customer and mark the order paid." in text


async def test_custom_requests(client: LanguageClient):
    root = client.workspace_root
    send = client.protocol.send_request_async

    text = as_dict(await send("codeIntel/searchText", {"pattern": "class \\w+Service", "max_results": 5}))
    assert text["matches"] and all("Service" in m["content"] for m in text["matches"])

    refs = as_dict(await send("codeIntel/findReferences", {"name": "AuthService"}))
    assert LOGIN_PHP in {r["path"] for r in refs["references"]}

    structure = as_dict(await send("codeIntel/analyzeStructure", {"path": SERVICE_PY}))
    top = {n["name"]: n for n in structure["symbols"]}
    assert "checkout" in {c["name"] for c in top["OrderService"]["children"]}
    assert structure["imports"]["User"] == "shop.auth.models.User"

    line = _line_of(root, SERVICE_PY, "order.status = OrderStatus.PAID") + 1
    fn = as_dict(await send("codeIntel/getFunctionAtLine", {"path": SERVICE_PY, "line": line}))
    assert fn["symbol"]["qualified_name"].endswith("shop.orders.service.OrderService.checkout")
    assert "order.status = OrderStatus.PAID" in fn["content"]

    syms = as_dict(await send("codeIntel/getSymbols", {"path": "web/app/Services", "kind": "class"}))
    assert {s["name"] for s in syms["symbols"]} >= {"AuthService"}

    before = as_dict(await send("codeIntel/indexStatus", {}))
    (root / "backend/shop/coupons.py").write_text("def apply_coupon(code: str) -> int:\n    return 10\n")
    report = as_dict(await send("codeIntel/syncIndex", {}))
    # The server's own watcher may have synced the new file first; either way it is
    # indexed when syncIndex returns.
    assert report["deleted"] == [] and set(report["added"]) <= {"backend/shop/coupons.py"}
    found = as_dict(await send("codeIntel/findDefinitions", {"name": "apply_coupon"}))
    assert [d["path"] for d in found["definitions"]] == ["backend/shop/coupons.py"]
    after = as_dict(await send("codeIntel/indexStatus", {}))
    assert after["sync_count"] > before["sync_count"]
    assert after["last_sync_time"] > before["last_sync_time"]
    assert after["counts"]["files"] == before["counts"]["files"] + 1


@pytest.mark.parametrize(
    "method, params, message",
    [
        ("codeIntel/findDefinitions", {}, "name"),
        ("codeIntel/findDefinitions", {"name": 3}, "name"),
        ("codeIntel/findDefinitions", {"name": "x", "limit": 0}, "limit"),
        ("codeIntel/findReferences", {"name": "x", "bogus": 1}, "bogus"),
        ("codeIntel/getFunctionAtLine", {"path": "backend/manage.py", "line": 0}, "line"),
        ("codeIntel/analyzeStructure", {"path": "../../etc/passwd"}, "outside the workspace"),
        ("codeIntel/analyzeStructure", {"path": "nope.py"}, "not in the index"),
        ("codeIntel/searchText", {"pattern": "("}, "invalid pattern"),
    ],
)
async def test_bad_params_are_invalid_params_naming_the_field(
    client: LanguageClient, method: str, params: dict, message: str
):
    with pytest.raises(JsonRpcException) as info:
        await client.protocol.send_request_async(method, params)
    assert info.value.code == JsonRpcInvalidParams.CODE
    assert message in info.value.message
    # The server keeps serving afterwards.
    status = await client.protocol.send_request_async("codeIntel/indexStatus", {})
    assert status.state == "ready"


async def test_file_changed_on_disk_is_picked_up(client: LanguageClient):
    root = client.workspace_root
    status = await client.protocol.send_request_async("codeIntel/indexStatus", {})
    target = root / "backend/shop/auth/tokens.py"
    target.write_text("def issue_token(user_id: int) -> str:\n    return str(user_id)\n")
    # An editor with a file watcher forwards what it sees.
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(target.as_uri(), types.FileChangeType.Created)])
    )
    await wait_ready(client, min_syncs=status.sync_count + 1)
    found = as_dict(await client.protocol.send_request_async("codeIntel/findDefinitions", {"name": "issue_token"}))
    assert [d["path"] for d in found["definitions"]] == ["backend/shop/auth/tokens.py"]


async def test_server_watches_itself_when_the_client_cannot(tmp_path: Path):
    """A client without dynamic watcher registration (e.g. a minimal editor)."""
    root = make_mixed_workspace(tmp_path / "repo")
    client = PyglsClient("minimal", "1")
    await client.start_io(*SERVER_COMMAND)
    try:
        await client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=root.as_uri())
        )
        client.initialized(types.InitializedParams())
        await wait_ready(client)
        status = await client.protocol.send_request_async("codeIntel/indexStatus", {})
        (root / "backend/shop/auth/models.py").unlink()
        await wait_ready(client, min_syncs=status.sync_count + 1, timeout=30)
        found = await client.protocol.send_request_async("codeIntel/findDefinitions", {"name": "UserRepository"})
        assert {d.path for d in found.definitions} == {"web/app/Repositories/UserRepository.php"}
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    await asyncio.sleep(0)
