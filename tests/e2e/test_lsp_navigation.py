"""Precise navigation through the real language server and a real LSP client, on a
mixed Python + TypeScript + PHP workspace: definitions through `self`, `this`,
`$this` and typed receivers; references that mean one symbol; undecided occurrences
returned apart by the custom request; an unsaved edit that changes a receiver's type."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import FIXTURES
from tests.e2e.lsp_helpers import (
    SERVER_COMMAND,
    as_dict,
    open_as_vscode,
    position_of,
    uri,
)

MODELS = "shop/models.py"
REPO = "shop/repo.py"
APP_TS = "src/app.ts"
CATALOG = "app/Services/Catalog.php"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "nav_mixed", root)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, workspace: Path):
    await open_as_vscode(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


def line_of(root: Path, rel: str, needle: str) -> int:
    return position_of(root, rel, needle).line


async def definition(client: LanguageClient, rel: str, needle: str, occurrence: int = 0) -> list[tuple[str, int]]:
    root = client.workspace_root
    pos = position_of(root, rel, needle, occurrence)
    found = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri(root, rel)), pos)
    )
    return [(Path(loc.uri.removeprefix("file://")).relative_to(root).as_posix(), loc.range.start.line) for loc in found or []]


async def test_definitions_follow_receivers_in_three_languages(client: LanguageClient):
    root = client.workspace_root
    # `self.session.close()`: the attribute's class, not every `close`
    assert await definition(client, MODELS, "close()", 0) == [(MODELS, line_of(root, MODELS, "    def close"))]
    # TS `this.client.send()` then `resp.close()`: the declared field type, the return type
    http = "src/http.ts"
    assert await definition(client, APP_TS, "send", 0) == [(http, line_of(root, http, "send()"))]
    assert await definition(client, APP_TS, "close", 1) == [(http, line_of(root, http, "class Reply"))]
    # PHP `$this->category->slug()`: promoted property, then the class's trait
    trait = "app/Models/Concerns/HasSlug.php"
    assert await definition(client, CATALOG, "slug", 0) == [(trait, line_of(root, trait, "function slug"))]
    # a builtin answers no workspace stranger (shop/util.py defines `set`)
    assert await definition(client, REPO, "set()", 0) == []


async def test_references_mean_one_symbol_and_undecided_ones_come_apart(client: LanguageClient):
    root = client.workspace_root
    pos = position_of(root, "shop/base.py", "def close")
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            context=types.ReferenceContext(include_declaration=False),
            text_document=types.TextDocumentIdentifier(uri(root, "shop/base.py")),
            position=types.Position(pos.line, pos.character + len("def ")),
        )
    )
    # `self.session.close()` is Session's, `n.close()` is undecided: LSP lists neither
    assert list(refs or []) == []
    found = as_dict(await client.protocol.send_request_async(
        "codeIntel/findReferences", {"name": "shop.base.Model.close"}
    ))
    assert found["references"] == []
    assert [(p["path"], p["line"] - 1) for p in found["possible"]] == [(REPO, line_of(root, REPO, "n.close()"))]
    assert "type is not known" in found["possible"][0]["reason"]

    shop = as_dict(await client.protocol.send_request_async(
        "codeIntel/findReferences", {"name": "App\\Models\\Shop\\Category"}
    ))
    assert {r["path"] for r in shop["references"]} == {CATALOG}
    assert line_of(root, CATALOG, "as BlogCategory") not in {r["line"] - 1 for r in shop["references"]}


async def test_an_unsaved_annotation_retargets_the_member(client: LanguageClient):
    root = client.workspace_root
    doc = uri(root, REPO)
    text = (root / REPO).read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(doc, "python", 1, text))
    )
    line = line_of(root, REPO, "def find")
    col = (root / REPO).read_text().splitlines()[line].index(", n)") + len(", n")
    # annotate `n` in the buffer only: `n.close()` now means Session.close
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=doc),
            [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(line, col), types.Position(line, col)),
                text=": models.Session",
            )],
        )
    )
    pos = position_of(root, REPO, "n.close()")
    found = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(doc), types.Position(pos.line, pos.character + 2))
    )
    assert [(loc.uri, loc.range.start.line) for loc in found] == [
        (uri(root, MODELS), line_of(root, MODELS, "    def close"))
    ]
