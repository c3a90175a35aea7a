"""Names linked from JSDoc (`{@link Task}`): tsserver lists them among the symbol's
references and answers a definition on them. Before, a doc comment was text: the
links were missing from references (true-myth's and MQTT.js' recall)."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_at

from tests.unit.source_tree import indexed_tree, position_of, target_lines

FILES = {
    "src/task.ts": "export class Task<T> {\n  map(): void {}\n}\n",
    "src/use.ts": (
        "import { Task } from './task';\n"
        "/**\n"
        " * Runs a {@link Task} and gives {@linkcode Task.map}'s result; see {@link https://x.dev}.\n"
        " */\n"
        "export function run(t: Task<number>): Task<number> {\n"
        "  const text = '{@link Task}';\n"
        "  return t;\n"
        "}\n"
    ),
    # a same-named class elsewhere: a guess by name cannot tell the links apart
    "src/other.ts": "/** The other {@link Task}. */\nexport class Task {}\n",
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("jsdoc") / "repo", FILES)


def test_a_linked_name_resolves_like_code_where_the_comment_is(live: LiveIndex):
    assert target_lines(live, FILES, "src/use.ts", "{@link Task}", "Task") == [("src/task.ts", 0)]
    assert target_lines(live, FILES, "src/use.ts", "{@linkcode Task", "Task") == [("src/task.ts", 0)]
    assert target_lines(live, FILES, "src/other.ts", "{@link Task}", "Task") == [("src/other.ts", 1)]


def test_links_in_doc_comments_are_references_and_strings_are_not(live: LiveIndex):
    answer = references_at(live, "src/task.ts", *position_of(FILES, "src/task.ts", "class Task", "Task"))
    line = FILES["src/use.ts"].splitlines()[2]
    links = [("src/use.ts", 2, line.index("{@link Task}") + 7), ("src/use.ts", 2, line.index("{@linkcode Task") + 11)]
    got = {(r.path, r.reference.start_line, r.reference.start_character) for r in answer.resolved}
    assert set(links) <= got
    assert not any(path == "src/other.ts" for path, _, _ in got)
    assert not any(path == "src/use.ts" and row == 5 for path, row, _ in got)  # the string
