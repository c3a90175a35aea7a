"""TypeScript imports through tsconfig `paths` and `baseUrl`, written the way real
projects write them: a NestJS app importing `@libs/ddd` (a barrel) and `@src/app.module`
(a dotted file name) with `"@libs/*": ["src/libs/*"]`; a library whose tests import
`true-myth/maybe` with `"true-myth/*": ["./src/*.ts"]` from a base config it extends, in
a tsconfig with comments and trailing commas. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.ts_paths import PathPattern, TsPaths, build_config, parse_config

from tests.unit.source_tree import indexed_tree, target_lines

FILES = {
    "tsconfig.json": (
        '{\n  // the app\n  "extends": "./ts/base.json",\n  "compilerOptions": {\n'
        '    "baseUrl": "./",\n    "paths": {\n      "@libs/*": ["src/libs/*"],\n'
        '      "@src/*": ["src/*"],\n      "lib": ["./src/lib/index.ts"],\n      "lib/*": ["./src/lib/*.ts"],\n'
        '    },\n  },\n}\n'
    ),
    "ts/base.json": '{ "$schema": "https://json.schemastore.org/tsconfig", "compilerOptions": {"strict": true} }\n',
    "src/libs/ddd/entity.base.ts": (
        "export abstract class Entity {\n  getProps(): object {\n    return {}\n  }\n}\n"
    ),
    "src/libs/ddd/index.ts": "export * from './entity.base'\nexport * from '@libs/ddd/events'\n",
    "src/libs/ddd/events.ts": "export class DomainEvent {\n  readonly id = 'x'\n}\n",
    "src/app.module.ts": "export class AppModule {}\n",
    "src/lib/maybe.ts": "export class Maybe {\n  isJust(): boolean {\n    return true\n  }\n}\nexport function just(): Maybe {\n  return new Maybe()\n}\n",
    "src/lib/index.ts": "export * as maybe from './maybe'\n",
    # a same-named class elsewhere: a guess by name would pick one of two
    "src/other/entity.ts": "export class Entity {\n  getProps(): object {\n    return {}\n  }\n}\n",
    "src/user/user.entity.ts": (
        "import { Entity, DomainEvent } from '@libs/ddd'\nimport { AppModule } from '@src/app.module'\n\n"
        "export class User extends Entity {\n  event(): DomainEvent {\n    return new DomainEvent()\n  }\n}\n"
        "const m = AppModule\n"
    ),
    "test/maybe.test.ts": (
        "import * as maybe from 'lib/maybe'\nimport { Maybe } from 'lib/maybe'\n\n"
        "const m: Maybe = maybe.just()\nm.isJust()\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tspaths") / "repo", FILES)


def where(live: LiveIndex, rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    return target_lines(live, FILES, rel, needle, word)


def test_named_imports_through_a_paths_alias(live: LiveIndex):
    # before: `@libs/ddd` was taken as an npm package: nothing answered
    assert where(live, "src/user/user.entity.ts", "import { Entity", "Entity") == [("src/libs/ddd/entity.base.ts", 0)]
    assert where(live, "src/user/user.entity.ts", "event(): DomainEvent", "DomainEvent") == [("src/libs/ddd/events.ts", 0)]
    assert where(live, "src/user/user.entity.ts", "const m = AppModule", "AppModule") == [("src/app.module.ts", 0)]


def test_a_base_class_through_an_alias_gives_its_members(live: LiveIndex):
    lines = FILES["src/user/user.entity.ts"].splitlines()
    assert "extends Entity" in lines[3]
    assert where(live, "src/user/user.entity.ts", "extends Entity", "Entity") == [("src/libs/ddd/entity.base.ts", 0)]


def test_namespace_and_named_imports_of_a_mapped_package_name(live: LiveIndex):
    assert where(live, "test/maybe.test.ts", "maybe.just()", "just") == [("src/lib/maybe.ts", 5)]
    assert where(live, "test/maybe.test.ts", "m.isJust", "isJust") == [("src/lib/maybe.ts", 1)]
    assert where(live, "test/maybe.test.ts", "const m: Maybe", "Maybe") == [("src/lib/maybe.ts", 0)]


def test_config_parsing_keeps_strings_drops_comments_and_trailing_commas():
    data = parse_config(FILES["tsconfig.json"])
    assert data["extends"] == "./ts/base.json"
    assert parse_config(FILES["ts/base.json"])["$schema"] == "https://json.schemastore.org/tsconfig"
    assert parse_config("{ not json") == {}


def test_the_nearest_config_and_the_longest_pattern_decide():
    root = build_config("", [("", {"compilerOptions": {"paths": {"@/*": ["src/*"], "@/x/*": ["other/*"]}}})])
    pkg = build_config("packages/a", [("packages/a", {"compilerOptions": {"baseUrl": "src"}})])
    paths = TsPaths([root, pkg])
    files = {"other/y.ts", "src/x/y.ts", "packages/a/src/util.ts"}
    assert paths.resolve("@/x/y", "app/main.ts", files.__contains__) == "other/y.ts"
    assert paths.resolve("util", "packages/a/b.ts", files.__contains__) == "packages/a/src/util.ts"
    assert paths.resolve("util", "app/main.ts", files.__contains__) is None  # no baseUrl at the root
    assert paths.resolve("react", "packages/a/b.ts", files.__contains__) is None  # a package
    assert PathPattern("jotai", "", False, ()).match("jotai/vanilla") is None


def test_an_edited_tsconfig_is_read_again_and_a_broken_one_maps_nothing(tmp_path):
    import os

    from code_intel.lsp_server.ts_paths import WorkspaceTsPaths

    (tmp_path / "src" / "a").mkdir(parents=True)
    (tmp_path / "src" / "a" / "x.ts").write_text("export const x = 1\n")
    config = tmp_path / "tsconfig.json"
    config.write_text('{"compilerOptions": {"paths": {"@a/*": ["src/a/*"]}}}')
    paths = WorkspaceTsPaths(tmp_path)
    assert paths.rewrite({"x": "@a/x.x"}, "src/main.ts") == {"x": "a.x.x"}
    config.write_text('{"compilerOptions": {"paths": {"#a/*": ["src/a/*"]}}, oops')
    os.utime(config, (1, 1))
    paths._checked = 0.0  # as if the recheck interval had passed
    assert paths.rewrite({"x": "@a/x.x"}, "src/main.ts") == {"x": "@a/x.x"}
    assert paths.rewrite({"x": "@a/x.x"}, "README.md") == {"x": "@a/x.x"}
