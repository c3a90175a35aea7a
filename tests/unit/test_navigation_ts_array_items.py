"""TypeScript array items the way got's tests reach them: `events.shift()!` and
`for (const [index, event] of events.entries())` with `events: Progress[]` are items of
the array (lib.d.ts is not indexed, so its methods' return types are known here). Real
tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

TYPES = "export type Progress = {\n  percent: number;\n  transferred: number;\n};\n"
TEST = (
    "import type { Progress } from '../source/index';\n\n"
    "const checkEvents = (events: Progress[]) => {\n"
    "  let lastEvent = events.shift()!;\n"
    "  const last = events.at(-1);\n"
    "  for (const [index, event] of events.entries()) {\n"
    "    console.log(index, event.percent > lastEvent.percent, last?.transferred);\n"
    "  }\n"
    "};\n"
)
# the same member names elsewhere: a name alone cannot tell
OTHER = "export class Upload {\n  percent = 0;\n  transferred = 0;\n}\n"
FILES = {"source/index.ts": TYPES, "test/progress.ts": TEST, "source/upload.ts": OTHER}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsarrayitems") / "repo", FILES)


def defs(live: LiveIndex, word: str, nth: int = 0) -> list[tuple[str, int]]:
    lines = TEST.splitlines()
    n = next(i for i, line in enumerate(lines) if "console.log" in line)
    col = -1
    for _ in range(nth + 1):
        col = lines[n].index(word, col + 1)
    _, found = live.resolve("test/progress.ts", n, col + 1)
    return [(s.path, s.symbol.selection_range.start.line) for s in found]


def test_an_item_from_shift_or_at_is_the_arrays_item_type(live: LiveIndex):
    assert defs(live, "percent", 1) == [("source/index.ts", 1)]  # lastEvent.percent
    assert defs(live, "transferred") == [("source/index.ts", 2)]  # last?.transferred


def test_the_value_of_an_entries_pair_in_a_for_of_is_an_item(live: LiveIndex):
    assert defs(live, "percent", 0) == [("source/index.ts", 1)]  # event.percent


MAP_FILES = {
    "src/session.ts": "export class Session {\n  userId = '';\n  close(): void {}\n}\n",
    "src/registry.ts": (
        "import { Session } from './session';\n"
        "export class Registry {\n"
        "  private sessions = new Map<string, Session>();\n"
        "  private byUser: Map<string, Session> = new Map();\n"
        "  get(id: string): Registry {\n    return this;\n  }\n"
        "  close(id: string): void {\n"
        "    this.sessions.get(id)?.close();\n"
        "    const s = this.byUser.get(id)!;\n"
        "    console.log(s.userId);\n"
        "  }\n}\n"
    ),
    "src/other.ts": "export class Other {\n  userId = '';\n  close(): void {}\n}\n",
}


@pytest.fixture(scope="module")
def map_live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsmapitems") / "repo", MAP_FILES)


def test_a_map_s_get_gives_its_value_type(map_live: LiveIndex):
    lines = MAP_FILES["src/registry.ts"].splitlines()
    n = next(i for i, line in enumerate(lines) if "?.close()" in line)
    _, found = map_live.resolve("src/registry.ts", n, lines[n].index("close") + 1)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/session.ts", 2)]
    n = next(i for i, line in enumerate(lines) if "s.userId" in line)
    _, found = map_live.resolve("src/registry.ts", n, lines[n].index("userId") + 1)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/session.ts", 1)]
