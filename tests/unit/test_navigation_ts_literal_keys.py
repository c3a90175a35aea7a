"""TypeScript object literal keys checked against a declared type the way got writes
them: a parameter typed by an interface assigned a new literal (`defaults = {options:
…}` with `defaults: InstanceDefaults`); the key is the interface's property (tsserver
answers it and lists it among that property's references). Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

TYPES = (
    "export class Options {\n  timeout = 0;\n}\n\n"
    "export interface InstanceDefaults {\n  options: Options;\n  handlers: string[];\n}\n"
)
CREATE = (
    "import { Options, InstanceDefaults } from './types';\n\n"
    "export const create = (defaults: InstanceDefaults) => {\n"
    "  defaults = {\n"
    "    options: new Options(),\n"
    "    handlers: [...defaults.handlers],\n"
    "  };\n"
    "  let copy: InstanceDefaults;\n"
    "  copy = { options: defaults.options, handlers: [] };\n"
    "  return copy;\n"
    "};\n"
)
# the same key names elsewhere: a name alone cannot tell
OTHER = "export interface Plugin {\n  options: object;\n  handlers: number;\n}\n"
FILES = {"source/types.ts": TYPES, "source/create.ts": CREATE, "source/plugin.ts": OTHER}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsliteralkeys") / "repo", FILES)


def defs(live: LiveIndex, needle: str, word: str) -> list[tuple[str, int]]:
    n = next(i for i, line in enumerate(CREATE.splitlines()) if needle in line)
    _, found = live.resolve("source/create.ts", n, CREATE.splitlines()[n].index(word) + 1)
    return [(s.path, s.symbol.selection_range.start.line) for s in found]


def test_a_key_of_a_literal_assigned_to_a_typed_parameter_is_the_interface_property(live: LiveIndex):
    assert defs(live, "options: new Options()", "options") == [("source/types.ts", 5)]
    assert defs(live, "handlers: [...defaults", "handlers") == [("source/types.ts", 6)]


def test_a_key_of_a_literal_assigned_to_a_typed_let_is_the_interface_property(live: LiveIndex):
    assert defs(live, "copy = { options", "options") == [("source/types.ts", 5)]
