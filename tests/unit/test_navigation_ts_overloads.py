"""TypeScript classes the way ioredis writes its client: a generic class whose type
parameter has a constraint (`class Redis<M extends Mode = "x"> extends Commander<…>`),
an interface merged with the class (`interface Redis extends EventEmitter {…}`) and with
its base (`interface Commander<C> extends RedisCommander<C> {}`), methods declared as
overloads (string-literal parameters, rest parameters typed as tuples), a package entry
`lib/index.ts` imported as `"../../lib"`. tsserver answers the one overload a call fits.
Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_at

from tests.unit.source_tree import indexed_tree

FILES = {
    "lib/utils/RedisCommander.ts": (
        "export type RedisKey = string | Buffer;\n"
        "export type Callback<T = any> = (err?: Error | null, result?: T) => void;\n"
        "export interface ClientContext {\n  type: string;\n}\n\n"
        'interface RedisCommander<Context extends ClientContext = { type: "default" }> {\n'
        "  set(key: RedisKey, value: string | number, secondsToken: 'EX', seconds: number | string, "
        "callback?: Callback<'OK'>): Promise<'OK'>;\n"
        "  set(key: RedisKey, value: string | number, callback?: Callback<'OK'>): Promise<'OK'>;\n"
        "  subscribe(...args: [...channels: (string | Buffer)[], callback: Callback<unknown>]): Promise<unknown>;\n"
        "  subscribe(...args: [...channels: (string | Buffer)[]]): Promise<unknown>;\n"
        "}\n\nexport default RedisCommander;\n"
    ),
    "lib/utils/Commander.ts": (
        'import RedisCommander, { ClientContext } from "./RedisCommander";\n\n'
        "export interface CommanderOptions {\n  keyPrefix?: string;\n}\n\n"
        'class Commander<Context extends ClientContext = { type: "default" }> {\n'
        "  options: CommanderOptions = {};\n}\n\n"
        "interface Commander<Context> extends RedisCommander<Context> {}\n\n"
        "export default Commander;\n"
    ),
    "lib/Redis.ts": (
        'import { EventEmitter } from "events";\n'
        'import Commander from "./utils/Commander";\n\n'
        'type RedisStatus = "wait" | "connecting" | "ready";\n\n'
        'class Redis<ReplyMapping extends "legacy" | "resp3" = "legacy"> extends Commander<{ type: "default" }> {\n'
        "  constructor(options?: { port?: number }) {\n    super();\n  }\n\n"
        "  disconnect(): void {}\n}\n\n"
        "interface Redis extends EventEmitter {\n"
        '  on(event: "message", cb: (channel: string, message: string) => void): this;\n'
        "  on(event: RedisStatus, cb: () => void): this;\n"
        "  on(event: string | symbol, listener: (...args: any[]) => void): this;\n"
        "}\n\nexport default Redis;\n"
    ),
    "lib/index.ts": 'export { default } from "./Redis";\nexport { default as Redis } from "./Redis";\n',
    # the same method names on an unrelated class: ranking by name alone cannot tell
    "lib/SubscriptionSet.ts": (
        "export default class SubscriptionSet {\n  set(channel: string): void {}\n"
        "  on(): void {}\n  subscribe(channel: string): void {}\n  disconnect(): void {}\n}\n"
    ),
    "lib/cluster/index.ts": (
        'import Redis from "../Redis";\n\n'
        'export default class Cluster {\n  nodes(role: string = "all"): Redis[] {\n    return [];\n  }\n}\n'
    ),
    "test/functional/cluster/nodes.ts": (
        'import Cluster from "../../../lib/cluster";\n\n'
        'const nodes = new Cluster().nodes("master");\n'
        "nodes[0].disconnect();\n\n"
        'describe("cluster", () => {\n  it("disconnects", () => {\n'
        "    for (const node of nodes) {\n      node.disconnect();\n    }\n  });\n});\n"
    ),
    "test/functional/select.ts": (
        'import { Redis } from "../../lib";\n\n'
        "const redis = new Redis({ port: 6379 });\n"
        'redis.set("foo", "bar");\n'
        'redis.set("foo", "bar", "EX", 10);\n'
        'redis.on("ready", () => {});\n'
        'redis.on("select", (db: number) => {});\n'
        'redis.subscribe("news", "music");\n'
        'redis.subscribe("news", (err) => {});\n'
        "redis.disconnect();\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsover") / "repo", FILES)


def _line_of(rel: str, needle: str) -> int:
    return next(i for i, text in enumerate(FILES[rel].splitlines()) if needle in text)


def defs(live: LiveIndex, needle: str, word: str) -> list[tuple[str, int]]:
    rel = "test/functional/select.ts"
    n = _line_of(rel, needle)
    line = FILES[rel].splitlines()[n]
    _, found = live.resolve(rel, n, line.index(word, line.index(needle)) + 1)
    return [(s.path, s.symbol.selection_range.start.line) for s in found]


COMMANDER = "lib/utils/RedisCommander.ts"


def test_an_import_of_the_package_directory_names_its_index_module(live: LiveIndex):
    # before: `"../../lib"` named a module `lib` while lib/index.ts was `index`, and the
    # loose module match took the file lib/Redis.ts. tsserver answers every declaration
    # merged under the name
    assert defs(live, "import { Redis }", "Redis") == [
        ("lib/Redis.ts", _line_of("lib/Redis.ts", "class Redis")),
        ("lib/Redis.ts", _line_of("lib/Redis.ts", "interface Redis")),
    ]


def test_new_is_the_class_not_the_interface_merged_with_it(live: LiveIndex):
    assert defs(live, "new Redis", "Redis") == [("lib/Redis.ts", _line_of("lib/Redis.ts", "class Redis"))]


def test_members_through_a_generic_base_and_merged_interfaces(live: LiveIndex):
    # before: the type parameter's `extends` was read as the class's base, and the
    # interfaces merged with a class were skipped: `redis.set` answered nothing
    found = defs(live, 'redis.set("foo", "bar");', "set")
    assert found and all(path == COMMANDER for path, _ in found)
    assert defs(live, "redis.disconnect()", "disconnect") == [("lib/Redis.ts", _line_of("lib/Redis.ts", "disconnect()"))]


def test_a_call_is_the_first_overload_its_arguments_fit(live: LiveIndex):
    assert defs(live, 'redis.set("foo", "bar");', "set") == [(COMMANDER, _line_of(COMMANDER, "set(key: RedisKey, value: string | number, callback"))]
    assert defs(live, 'set("foo", "bar", "EX"', "set") == [(COMMANDER, _line_of(COMMANDER, "secondsToken: 'EX'"))]
    # a literal through a type alias of literals, else the catch-all signature
    assert defs(live, 'redis.on("ready"', "on") == [("lib/Redis.ts", _line_of("lib/Redis.ts", "event: RedisStatus"))]
    assert defs(live, 'redis.on("select"', "on") == [("lib/Redis.ts", _line_of("lib/Redis.ts", "event: string | symbol"))]
    # rest parameters typed as tuples: a trailing callback cannot take a string
    assert defs(live, 'subscribe("news", "music")', "subscribe") == [(COMMANDER, _line_of(COMMANDER, "subscribe(...args: [...channels: (string | Buffer)[]])"))]
    assert defs(live, 'subscribe("news", (err)', "subscribe") == [(COMMANDER, _line_of(COMMANDER, "callback: Callback<unknown>]"))]


def test_references_of_one_overload_are_those_of_all(live: LiveIndex):
    # TS has one symbol for all overloads: each call is a reference whichever it fits
    line = _line_of(COMMANDER, "secondsToken: 'EX'")
    answer = references_at(live, COMMANDER, line, FILES[COMMANDER].splitlines()[line].index("set") + 1)
    calls = sorted(r.reference.start_line for r in answer.resolved if r.path == "test/functional/select.ts")
    assert calls == [_line_of("test/functional/select.ts", 'redis.set("foo", "bar");'), _line_of("test/functional/select.ts", '"EX", 10')]


def test_items_of_an_array_typed_value(live: LiveIndex):
    # before: `nodes[0].disconnect()` and the loop variable were ranked by name alone
    rel = "test/functional/cluster/nodes.ts"
    want = [("lib/Redis.ts", _line_of("lib/Redis.ts", "disconnect()"))]
    for needle in ("nodes[0].disconnect", "node.disconnect"):
        n = _line_of(rel, needle)
        line = FILES[rel].splitlines()[n]
        _, found = live.resolve(rel, n, line.index("disconnect") + 1)
        assert [(s.path, s.symbol.selection_range.start.line) for s in found] == want, needle


def test_references_are_not_cut_at_a_thousand(tmp_path):
    # ioredis' generated RedisCommander.ts uses `RedisKey` 2,502 times; before, the
    # editor got the first 1,000
    lines = "".join(f"  cmd{i}(key: RedisKey): void;\n" for i in range(1200))
    files = {"lib/types.ts": "export type RedisKey = string;\n",
             "lib/commander.ts": f'import {{ RedisKey }} from "./types";\n\ninterface Commander {{\n{lines}}}\n'}
    live = indexed_tree(tmp_path / "repo", files)
    answer = references_at(live, "lib/types.ts", 0, len("export type R"))
    assert len([r for r in answer.resolved if r.path == "lib/commander.ts"]) == 1201  # + the import


ATOM = {
    "src/vanilla/atom.ts": (
        "type Getter = <V>(a: V) => V\n"
        "type Read<Value> = (get: Getter) => Value\n"
        "type Write<Args extends unknown[], Result> = (get: Getter, ...args: Args) => Result\n"
        "export function atom<Value, Args extends unknown[], Result>(read: Read<Value>, write: Write<Args, Result>): Value\n"
        "export function atom<Value>(read: Read<Value>): Value\n"
        "export function atom<Value, Args extends unknown[], Result>(initialValue: Value, write: Write<Args, Result>): Value\n"
        "export function atom<Value>(initialValue: Value): Value\n"
        "export function atom<Value>(read: Value | Read<Value>, write?: unknown) {\n"
        "  return read\n"
        "}\n"
    ),
    "tests/atom.test.tsx": (
        "import { atom } from '../src/vanilla/atom'\n"
        "const countAtom = atom(0)\n"
        "const flagAtom = atom(false)\n"
        "const listAtom = atom([1, 2])\n"
        "const doubled = atom((get) => get(countAtom) * 2)\n"
        "const reset = atom(null, (_get, set) => set)\n"
    ),
}


@pytest.fixture(scope="module")
def atom_live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsatom") / "repo", ATOM)


def test_a_literal_argument_is_not_a_function_parameter(atom_live: LiveIndex):
    # jotai's `atom(0)` is the `initialValue: Value` overload, not `read: Read<Value>`
    # (a function type through an alias); before: the first overload of arity 1
    lines = ATOM["tests/atom.test.tsx"].splitlines()
    want = {1: 6, 2: 6, 3: 6, 4: 4, 5: 5}
    for n, line in want.items():
        _, found = atom_live.resolve("tests/atom.test.tsx", n, lines[n].index("atom(") + 1)
        assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/vanilla/atom.ts", line)], n
