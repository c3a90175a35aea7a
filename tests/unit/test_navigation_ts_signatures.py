"""TypeScript the way hono writes its handler types: an interface of generic call
signatures whose type parameters open on their own line (`<\\n  E2 extends Env = E,\\n>(…)`),
one signature per arity. tree-sitter-typescript failed the whole file there (a `<` on a
new line may continue an expression), so nothing in it or after it was indexed and its
type parameters answered nothing. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.indexing.analyze import parse
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

TYPES = (
    "export type Env = { Bindings?: object }\n"
    "export type Handler<E extends Env = any, P extends string = any> = (c: E, path: P) => void\n\n"
    "export interface HandlerInterface<E extends Env = Env> {\n"
    "  <P extends string, E2 extends Env = E>(path: P, handler: Handler<E2, P>): void\n\n"
    "  // handler x2\n"
    "  <\n"
    "    P extends string,\n"
    "    E2 extends Env = E,\n"
    "    E3 extends Env = E2,\n"
    "  >(\n"
    "    path: P,\n"
    "    handler1: Handler<E2, P>,\n"
    "    handler2: Handler<E3, P>\n"
    "  ): void\n"
    "}\n"
)
FILES = {
    "src/types.ts": TYPES,
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tssig") / "repo", FILES)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


def test_generic_call_signatures_on_their_own_lines_parse():
    assert not parse("typescript", TYPES.encode()).root_node.has_error
    # the repair never spoils a file it cannot fix: an unrelated error stays as parsed
    broken = (TYPES + "const = ;\n").encode()
    assert parse("typescript", broken).root_node.has_error


def test_a_type_parameter_of_a_later_signature_is_its_own(live: LiveIndex):
    text = FILES["src/types.ts"]
    n = _line(text, "handler2: Handler<E3, P>")
    _, found = live.resolve("src/types.ts", n, text.splitlines()[n].index("E3") + 1)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [
        ("src/types.ts", _line(text, "E3 extends Env = E2"))
    ]

