"""Keys of an object literal held by a `const`, read where the code uses them, the way a
NestJS app writes route tables and config objects: `@Controller(routesV1.version)`,
`@Get(routesV1.user.root)` with `export const routesV1 = {version: v1, user: {root: …}}`
in another file, and `databaseConfig.database` from `{…} as const`. Real tree-sitter,
real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

FILES = {
    "src/configs/app.routes.ts": (
        "const usersRoot = 'users';\n"
        "const v1 = 'v1';\n"
        "export const routesV1 = {\n"
        "  version: v1,\n"
        "  user: {\n"
        "    root: usersRoot,\n"
        "    'delete': `/${usersRoot}/:id`,\n"
        "  },\n"
        "};\n"
    ),
    "src/configs/database.config.ts": (
        "export const databaseConfig = {\n  type: 'postgres',\n  database: 'app',\n} as const;\n"
        "export const uri = `${databaseConfig.database}`;\n"
    ),
    "src/user/user.controller.ts": (
        "import { routesV1 } from '../configs/app.routes';\n"
        "import { databaseConfig } from '../configs/database.config';\n"
        "@Controller(routesV1.version)\n"
        "export class UserController {\n"
        "  @Get(routesV1.user.root)\n"
        "  find(): string {\n    return routesV1.user.delete + databaseConfig.database;\n  }\n}\n"
    ),
    # same-named members elsewhere: a guess by name cannot tell
    "src/other.ts": "export class Other {\n  version = 1;\n  root = '';\n  database = '';\n}\n",
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tslit") / "repo", FILES)


def where(live: LiveIndex, rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    lines = FILES[rel].splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    _, found = live.resolve(rel, n, lines[n].index(needle) + needle.rindex(word) + 1)
    return [(s.path, s.symbol.selection_range.start.line) for s in found]


def test_a_key_of_an_imported_const_literal(live: LiveIndex):
    assert where(live, "src/user/user.controller.ts", "routesV1.version", "version") == [("src/configs/app.routes.ts", 3)]
    assert where(live, "src/user/user.controller.ts", "databaseConfig.database", "database") == [("src/configs/database.config.ts", 2)]


def test_a_key_of_a_nested_literal_and_a_quoted_key(live: LiveIndex):
    assert where(live, "src/user/user.controller.ts", "routesV1.user.root", "root") == [("src/configs/app.routes.ts", 5)]
    assert where(live, "src/user/user.controller.ts", "routesV1.user.root", "user") == [("src/configs/app.routes.ts", 4)]
    assert where(live, "src/user/user.controller.ts", "routesV1.user.delete", "delete") == [("src/configs/app.routes.ts", 6)]


def test_a_key_read_in_the_declaring_file_through_as_const(live: LiveIndex):
    assert where(live, "src/configs/database.config.ts", "${databaseConfig.database}", "database") == [("src/configs/database.config.ts", 2)]
