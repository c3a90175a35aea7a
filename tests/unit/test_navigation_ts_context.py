"""TypeScript object-literal keys typed by their context, the way got and ioredis pass
options: `new Redis({host})`, `client.configure({retry: {…}})`, `const o: Options = {…}`,
`return {…}` from a function that declares its return type, `{…} satisfies T`. The key is
the property of the type the literal is checked against (tsserver answers it, and lists it
among that property's references). Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_at

from tests.unit.source_tree import indexed_tree

FILES = {
    "src/options.ts": (
        "export interface RetryOptions {\n    limit?: number;\n    backoff?: number;\n}\n\n"
        "export interface ClientOptions {\n    host?: string;\n    retry?: RetryOptions;\n"
        "    keepAlive?: boolean;\n}\n\n"
        "export class Client {\n"
        "    constructor(readonly options: ClientOptions = {}) {}\n\n"
        "    configure(options: Partial<ClientOptions>): void {}\n}\n\n"
        "export function connect(url: string, options?: ClientOptions): Client {\n"
        "    return new Client(options);\n}\n"
    ),
    # same member names on an unrelated type: ranking by name alone cannot tell them apart
    "src/server.ts": (
        "export interface ServerOptions {\n    host: string;\n    keepAlive: boolean;\n"
        "    limit: number;\n    backoff: number;\n}\n"
    ),
    "src/app.ts": (
        "import {Client, connect, type ClientOptions} from './options.js';\n"
        "import type {ServerOptions} from './server.js';\n\n"
        "const defaults: ClientOptions = {host: 'localhost', retry: {limit: 3}};\n\n"
        "export function build(keepAlive: boolean): ClientOptions {\n"
        "    return {keepAlive, host: 'example.org'};\n}\n\n"
        "export async function later(): Promise<ClientOptions> {\n"
        "    return {host: 'later'};\n}\n\n"
        "const client = new Client({host: 'a', keepAlive: true});\n"
        "client.configure({retry: {backoff: 2}});\n"
        "connect('redis://', {keepAlive: false});\n"
        "export const fallback = {host: 'b'} satisfies ClientOptions;\n"
        "export const server: ServerOptions = {host: 'c', keepAlive: false, limit: 1, backoff: 1};\n"
        "export const loose = {host: 'd'};\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsctx") / "repo", FILES)


def _at(needle: str, word: str) -> tuple[int, int]:
    lines = FILES["src/app.ts"].splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    return n, lines[n].index(word, lines[n].index(needle)) + 1


def defs(live: LiveIndex, needle: str, word: str) -> list[str]:
    line, col = _at(needle, word)
    _, found = live.resolve("src/app.ts", line, col)
    return [s.symbol.qualified_name for s in found]


def test_key_of_a_literal_assigned_to_a_declared_type(live: LiveIndex):
    # before: `host` was ranked among every `host` (ServerOptions' first or ClientOptions')
    assert defs(live, "const defaults", "host") == ["options.ClientOptions.host"]


def test_nested_key_takes_the_type_of_the_enclosing_key(live: LiveIndex):
    assert defs(live, "const defaults", "limit") == ["options.RetryOptions.limit"]


def test_key_of_a_returned_literal_takes_the_declared_return_type(live: LiveIndex):
    assert defs(live, "return {keepAlive, host: 'example.org'}", "host") == ["options.ClientOptions.host"]
    assert defs(live, "return {host: 'later'}", "host") == ["options.ClientOptions.host"]  # Promise<T>


def test_shorthand_key_is_the_value_it_reads_and_the_property(live: LiveIndex):
    line, col = _at("return {keepAlive", "keepAlive")
    _, found = live.resolve("src/app.ts", line, col)
    # tsserver answers both: the parameter read, then the property of ClientOptions
    assert [s.symbol.qualified_name for s in found] == ["keepAlive", "options.ClientOptions.keepAlive"]
    assert found[0].symbol.selection_range.start.line == 5  # the parameter of build()


def test_key_of_an_argument_takes_the_parameter_type(live: LiveIndex):
    assert defs(live, "new Client({host", "host") == ["options.ClientOptions.host"]  # constructor
    assert defs(live, "client.configure", "backoff") == ["options.RetryOptions.backoff"]  # method, Partial<>
    assert defs(live, "connect('redis://'", "keepAlive") == ["options.ClientOptions.keepAlive"]  # function


def test_key_of_a_literal_checked_with_satisfies(live: LiveIndex):
    assert defs(live, "export const fallback", "host") == ["options.ClientOptions.host"]


def test_references_of_a_property_list_the_keys_typed_by_it_and_no_others(live: LiveIndex):
    src = FILES["src/options.ts"].splitlines()
    line = next(i for i, text in enumerate(src) if "host?: string" in text)
    answer = references_at(live, "src/options.ts", line, src[line].index("host") + 1)
    app = FILES["src/app.ts"].splitlines()
    found = sorted(
        app[r.reference.start_line].strip()[:24] for r in answer.resolved if r.path == "src/app.ts"
    )
    # every contextually typed `host:` key; not ServerOptions' key, not the untyped literal's
    assert found == sorted(
        line.strip()[:24]
        for line in app
        if "host" in line and "ServerOptions =" not in line and "loose" not in line
    )
    assert len(found) == 5


def test_a_literal_checked_against_a_union_decides_no_key(tmp_path):
    # got's `new Options({searchParams: …})` where the parameter is `string | URL |
    # OptionsInit`: tsserver lists such keys among no property's references
    files = {
        "src/options.ts": (
            "export interface OptionsInit {\n    searchParams?: string;\n}\n\n"
            "export class Options {\n    constructor(input?: string | URL | OptionsInit, options?: OptionsInit) {}\n}\n"
        ),
        "test/args.ts": (
            "import {Options} from '../src/options.js';\n\n"
            "new Options({searchParams: 'a'});\nnew Options('u', {searchParams: 'b'});\n"
        ),
    }
    live = indexed_tree(tmp_path / "repo", files)
    lines = files["test/args.ts"].splitlines()
    _, single = live.resolve("test/args.ts", 3, lines[3].index("searchParams") + 1)
    assert [s.symbol.qualified_name for s in single] == ["options.OptionsInit.searchParams"]
    answer = references_at(live, "src/options.ts", 1, 5)
    assert [(r.path, r.reference.start_line) for r in answer.resolved] == [("test/args.ts", 3)]
