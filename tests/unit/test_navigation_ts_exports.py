"""TypeScript written the way hono writes it: a class exported under another name
(`export { Hono as HonoBase }`) and extended through that name, and a parameter typed by
an object type written in place (`options: { headerName?: string }`). Real tree-sitter,
real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_at

from tests.unit.source_tree import indexed_tree, position_of, target_lines

FILES = {
    "src/hono-base.ts": (
        "class Hono<E = object> {\n  get!: (path: string) => void\n\n"
        "  request(url: string): void {}\n}\n\nexport { Hono as HonoBase }\n"
    ),
    "src/hono.ts": (
        "import { HonoBase } from './hono-base'\n\n"
        "export class Hono<E = object> extends HonoBase<E> {}\n"
    ),
    # the same member names elsewhere: ranking by name alone cannot tell
    "src/router.ts": "export class Router {\n  get(path: string): void {}\n\n  request(): void {}\n}\n",
    "src/hono.test.ts": (
        "import { Hono } from './hono'\n\n"
        "describe('app', () => {\n  const app = new Hono()\n  app.get('/')\n  app.request('/')\n})\n"
    ),
    "src/jwk.ts": (
        "export const jwk = (options: {\n  headerName?: string\n  alg: string[]\n}) => {\n"
        "  const headerName = options.headerName || 'Authorization'\n  return [headerName, options.alg]\n}\n"
    ),
    "src/other.ts": "export interface Settings {\n  headerName: string\n}\n",
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsexp") / "repo", FILES)


def _at(rel: str, needle: str, word: str) -> tuple[int, int]:
    return position_of(FILES, rel, needle, word)


def where(live: LiveIndex, rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    return target_lines(live, FILES, rel, needle, word)


def test_members_through_a_class_exported_under_another_name(live: LiveIndex):
    # before: `HonoBase` named nothing the index knew, so the base was taken as outside
    # the workspace and `app.get` answered nothing
    assert where(live, "src/hono.test.ts", "app.get", "get") == [("src/hono-base.ts", 1)]
    assert where(live, "src/hono.test.ts", "app.request", "request") == [("src/hono-base.ts", 3)]


def test_member_of_an_object_type_written_in_place(live: LiveIndex):
    assert where(live, "src/jwk.ts", "options.headerName", "headerName") == [("src/jwk.ts", 1)]
    answer = references_at(live, "src/jwk.ts", *_at("src/jwk.ts", "options.alg", "alg"))
    assert [(r.path, r.reference.start_line) for r in answer.resolved] == [("src/jwk.ts", 5)]
