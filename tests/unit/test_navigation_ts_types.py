"""TypeScript receivers typed through type aliases and utility types, the way ky and got
write their options: `type Internal = Required<Omit<Options, 'retry'>> & {retry: …}`,
`Required<Omit<RetryOptions, 'x'>> & Pick<RetryOptions, 'y'>`. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

FILES = {
    "src/types.ts": (
        "export interface RetryOptions {\n    jitter?: boolean;\n    limit?: number;\n}\n\n"
        "export interface KyOptions {\n    timeout?: number;\n    retry?: RetryOptions | number;\n}\n\n"
        "export interface Options extends KyOptions {\n    method?: string;\n}\n\n"
        "export type InternalOptions = Required<Omit<Options, 'retry'>, 'timeout'> & {\n"
        "    retry: Required<Omit<RetryOptions, 'limit'>> & Pick<RetryOptions, 'limit'>;\n};\n"
    ),
    "src/create.ts": (
        "import type {KyOptions} from './types.js';\n\n"
        "export type Instance = {\n    defaults: KyOptions;\n};\n\n"
        "export default function create(options: KyOptions): Instance {\n    return {defaults: options};\n}\n"
    ),
    "src/index.ts": (
        "import create from './create.js';\n\nconst ky = create({});\n\nexport default ky;\n"
        "export * from './errors.js';\n"
    ),
    "src/errors.ts": "export class TimeoutError extends Error {}\n",
    "src/timed-out.ts": "export class TimeoutError extends Error {}\n",
    "test/main.ts": (
        "import client, {TimeoutError} from '../src/index.js';\n\nclient.defaults.timeout;\n"
        "throw new TimeoutError();\n"
    ),
    "src/other.ts": (
        "export interface Timer {\n    timeout: number;\n    jitter: boolean;\n    defaults: Timer;\n}\n"
    ),
    "src/ky.ts": (
        "import type {InternalOptions} from './types.js';\n\n"
        "export class Ky {\n    readonly #options: InternalOptions;\n\n"
        "    constructor(options: InternalOptions) {\n        this.#options = options;\n    }\n\n"
        "    get opts(): InternalOptions {\n        return this.#options;\n    }\n\n"
        "    run(): number {\n"
        "        const {opts} = this;\n"
        "        const {opts: renamed} = this;\n"
        "        opts.timeout;\n"
        "        renamed.timeout;\n"
        "        const wait = this.#options.timeout;\n"
        "        return this.#options.retry.jitter ? wait : 0;\n"
        "    }\n}\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("ts") / "repo", FILES)


def defs(live: LiveIndex, needle: str, word: str) -> list[str]:
    lines = FILES["src/ky.ts"].splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    _, found = live.resolve("src/ky.ts", n, lines[n].index(word, lines[n].index(needle)) + 1)
    return [s.symbol.qualified_name for s in found]


def test_members_through_a_type_alias_of_utility_types(live: LiveIndex):
    # before: the alias had no bases, so `timeout` was ranked among every `timeout`
    assert defs(live, "this.#options.timeout", "timeout") == ["types.KyOptions.timeout"]


def test_intersection_of_wrapped_types_keeps_the_wrapped_members(live: LiveIndex):
    # before: `Required<A> & Pick<B>` was read as one wrapper around `A> & Pick<B` and
    # answered nothing
    assert defs(live, "this.#options.retry.jitter", "jitter") == ["types.RetryOptions.jitter"]


def test_default_import_and_a_constant_built_by_a_typed_function(live: LiveIndex):
    # before: `import client from '…/index.js'` named nothing (the module's default export
    # is `ky`), and `const ky = create({})` had no type, so `.defaults` was ranked by name
    lines = FILES["test/main.ts"].splitlines()
    _, found = live.resolve("test/main.ts", 0, lines[0].index("client") + 1)
    assert [s.symbol.qualified_name for s in found] == ["src.ky"]
    _, found = live.resolve("test/main.ts", 2, lines[2].index("defaults") + 1)
    assert [s.symbol.qualified_name for s in found] == ["create.Instance.defaults"]
    _, found = live.resolve("test/main.ts", 2, lines[2].index("timeout") + 1)
    assert [s.symbol.qualified_name for s in found] == ["types.KyOptions.timeout"]


def test_names_a_module_re_exports_with_export_star(live: LiveIndex):
    # before: `{TimeoutError}` from index.ts (`export * from './errors.js'`) was ranked
    # between both `TimeoutError` classes
    lines = FILES["test/main.ts"].splitlines()
    _, found = live.resolve("test/main.ts", 3, lines[3].index("TimeoutError") + 1)
    assert [s.path for s in found] == ["src/errors.ts"]


def test_object_destructuring_takes_the_member_type(live: LiveIndex):
    # before: `const {opts} = this` left `opts` untyped
    assert defs(live, "        opts.timeout;", "timeout") == ["types.KyOptions.timeout"]
    assert defs(live, "renamed.timeout", "timeout") == ["types.KyOptions.timeout"]


def test_a_destructured_key_is_the_member_it_reads(live: LiveIndex):
    # before: `{opts}` in `const {opts} = this` was a plain name (a reference of nothing)
    assert defs(live, "const {opts} = this", "opts") == ["ky.Ky.opts"]
    assert defs(live, "const {opts: renamed} = this", "opts") == ["ky.Ky.opts"]
