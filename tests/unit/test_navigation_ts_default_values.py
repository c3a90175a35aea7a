"""A TypeScript library written the way true-myth writes it: a value and a type under
one name (`export const Task = TaskImpl as TaskConstructor; export type Task<T> = …;
export default Task;`), imported by default through a package name the tsconfig maps
(`import Task from 'lib/task'`). Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree, position_of

FILES = {
    "tsconfig.json": '{ "compilerOptions": { "paths": { "lib/*": ["./src/*.ts"] } } }\n',
    "src/task.ts": (
        "class TaskImpl<T> {\n"
        "  then(): void {}\n"
        "}\n"
        "export interface TaskConstructor {\n"
        "  resolve<T>(value: T): Task<T>;\n"
        "  withResolvers<T>(): [Task<T>, (v: T) => void];\n"
        "}\n"
        "export const Task = TaskImpl as TaskConstructor;\n"
        "export type Task<T> = TaskImpl<T>;\n"
        "export default Task;\n"
        "export const resolve = Task.resolve;\n"
    ),
    "test/task.test.ts": (
        "import Task from 'lib/task'\n"
        "\n"
        "const a = Task.resolve(1)\n"
        "const b: Task<number> = a\n"
        "const [c] = Task.withResolvers<number>()\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsdefault") / "repo", FILES)


def _at(rel: str, needle: str, word: str) -> tuple[int, int]:
    return position_of(FILES, rel, needle, word)


def where(live: LiveIndex, rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    _, found = live.resolve(rel, *_at(rel, needle, word))
    return sorted((s.path, s.symbol.selection_range.start.line) for s in found)


def test_a_default_import_through_a_mapped_package_name_is_the_default_export(live: LiveIndex):
    # before: the module file itself (line 0)
    assert where(live, "test/task.test.ts", "const b: Task", "Task") == [("src/task.ts", 7), ("src/task.ts", 8)]


def test_members_of_a_value_asserted_as_an_interface(live: LiveIndex):
    # before: `Task.resolve` went to the standalone `export const resolve`
    assert where(live, "test/task.test.ts", "Task.resolve", "resolve") == [("src/task.ts", 4)]
    assert where(live, "test/task.test.ts", "Task.withResolvers", "withResolvers") == [("src/task.ts", 5)]
    assert where(live, "src/task.ts", "export const resolve = Task.resolve", "resolve;") == [("src/task.ts", 4)]


RESULT = {
    "src/result.ts": (
        "class ResultImpl<T, E> {\n"
        "  static ok<T, E>(value: T): Result<T, E> {\n    return new ResultImpl() as Result<T, E>;\n  }\n"
        "  static err<T, E>(error: E): Result<T, E> {\n    return new ResultImpl() as Result<T, E>;\n  }\n"
        "}\n"
        "export interface Ok<T, E> {\n  readonly variant: 'Ok';\n  value: T;\n}\n"
        "export interface Err<T, E> {\n  readonly variant: 'Err';\n  error: E;\n}\n"
        "export interface ResultConstructor {\n  ok: typeof ResultImpl.ok;\n}\n"
        "export const err = ResultImpl.err;\n"
        "export const Result: ResultConstructor = ResultImpl as ResultConstructor;\n"
        "export type Result<T, E> = Ok<T, E> | Err<T, E>;\n"
    ),
    "src/maybe.ts": "export interface Just<T> {\n  readonly variant: 'Just';\n  error: T;\n}\n",
    "test/result.test.ts": (
        "import * as result from '../src/result';\n"
        "import { Result } from '../src/result';\n"
        "const theErr = result.err('no');\n"
        "theErr.variant;\n"
        "const theOk = Result.ok(1);\n"
        "theOk.variant;\n"
    ),
}


@pytest.fixture(scope="module")
def result_live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsalias") / "repo", RESULT)


def test_calling_a_value_that_names_a_static_method(result_live: LiveIndex):
    # `const err = ResultImpl.err` and `ok: typeof ResultImpl.ok`: their return types.
    # before: the receiver was unknown and every `variant` of the workspace answered
    lines = RESULT["test/result.test.ts"].splitlines()
    for n in (3, 5):
        _, found = result_live.resolve("test/result.test.ts", n, lines[n].index("variant") + 1)
        assert sorted((s.path, s.symbol.selection_range.start.line) for s in found) == [("src/result.ts", 9), ("src/result.ts", 13)]
