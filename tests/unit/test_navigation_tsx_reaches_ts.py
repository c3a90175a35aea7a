"""A .tsx test file reading members declared in .ts files, the way jotai's tests use its
store: `const store = createStore()` with `createStore(): Store`, `export type Store =
INTERNAL_Store` and `type Store = { get: …; sub: … }` exported under another name. The
bases of a declaration are looked up in its own file whatever the reading file's
dialect. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

FILES = {
    "src/vanilla/internals.ts": (
        "type Store = {\n"
        "  get: <Value>(atom: Value) => Value\n"
        "  sub: (atom: unknown, listener: () => void) => () => void\n"
        "}\n"
        "export type { Store as INTERNAL_Store }\n"
    ),
    "src/vanilla/store.ts": (
        "import type { INTERNAL_Store } from './internals'\n"
        "export type Store = INTERNAL_Store\n"
        "export function createStore(): Store {\n  return {} as Store\n}\n"
    ),
    "src/other.ts": "export class Cache {\n  get(k: string): string {\n    return k\n  }\n  sub(): void {}\n}\n",
    "tests/store.test.tsx": (
        "import { createStore } from '../src/vanilla/store'\n"
        "const store = createStore()\n"
        "store.get(1)\n"
        "const Component = () => <div>{String(store.sub(1, () => {}))}</div>\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsx") / "repo", FILES)


def test_members_of_a_ts_alias_read_from_a_tsx_file(live: LiveIndex):
    # before: the alias's bases were not looked up from a .tsx file (a dialect apart),
    # so the receiver looked external and nothing was answered
    lines = FILES["tests/store.test.tsx"].splitlines()
    for n, word, line in ((2, "get", 1), (3, "sub", 2)):
        _, found = live.resolve("tests/store.test.tsx", n, lines[n].index(word) + 1)
        assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/vanilla/internals.ts", line)]
