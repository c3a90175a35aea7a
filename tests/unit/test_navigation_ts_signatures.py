"""TypeScript the way hono writes its handler types: an interface of generic call
signatures whose type parameters open on their own line (`<\\n  E2 extends Env = E,\\n>(…)`),
one signature per arity. tree-sitter-typescript failed the whole file there (a `<` on a
new line may continue an expression), so nothing in it or after it was indexed and its
type parameters answered nothing. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.indexing.analyze import parse
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_at

from tests.unit.source_tree import indexed_tree

TYPES = (
    "export type Env = { Bindings?: object }\n"
    "export type Handler<E extends Env = any, P extends string = any> = (c: E, path: P) => void\n\n"
    "export interface HandlerInterface<E extends Env = Env> {\n"
    "  <P extends string, E2 extends Env = E>(path: P, handler: Handler<E2, P>): void\n\n"
    "  // handler x2\n"
    "  <\n"
    "    P extends string,\n"
    "    E2 extends Env = E,\n"
    "    E3 extends Env = E2,\n"
    "  >(\n"
    "    path: P,\n"
    "    handler1: Handler<E2, P>,\n"
    "    handler2: Handler<E3, P>\n"
    "  ): void\n"
    "}\n"
)
FILES = {
    "src/types.ts": TYPES,
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tssig") / "repo", FILES)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


def test_generic_call_signatures_on_their_own_lines_parse():
    assert not parse("typescript", TYPES.encode()).root_node.has_error
    # the repair never spoils a file it cannot fix: an unrelated error stays as parsed
    broken = (TYPES + "const = ;\n").encode()
    assert parse("typescript", broken).root_node.has_error


def test_a_type_parameter_of_a_later_signature_is_its_own(live: LiveIndex):
    text = FILES["src/types.ts"]
    n = _line(text, "handler2: Handler<E3, P>")
    _, found = live.resolve("src/types.ts", n, text.splitlines()[n].index("E3") + 1)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [
        ("src/types.ts", _line(text, "E3 extends Env = E2"))
    ]



# hono's app: a method is a property typed by an interface of call signatures
# (`get!: HandlerInterface<E>`), a handler is an alias of a union of function types, and
# the context's `text` is a property typed by a callable interface
HONO = {
    "src/types.ts": (
        'import type { Context } from "./context"\n'
        'import type { Hono } from "./hono"\n\n'
        "export type Env = { Bindings?: object }\n"
        "export type Next = () => Promise<void>\n"
        "export type Handler<E extends Env = any> = (c: Context<E>, next: Next) => Response\n"
        "export type MiddlewareHandler<E extends Env = any> = (c: Context<E>, next: Next) => Promise<void>\n"
        "export type H<E extends Env = any> = Handler<E> | MiddlewareHandler<E>\n\n"
        "export interface HandlerInterface<E extends Env = Env> {\n"
        "  // app.get(handler)\n"
        "  <E2 extends Env = E>(handler: H<E2>): Hono<E>\n\n"
        "  // app.get(handler x2)\n"
        "  <\n"
        "    E2 extends Env = E,\n"
        "    M1 extends H<E2> = H<E2>,\n"
        "  >(\n"
        "    ...handlers: [H<E2> & M1, H<E2>]\n"
        "  ): Hono<E>\n\n"
        "  // app.get(path, handler)\n"
        "  <P extends string, E2 extends Env = E>(path: P, handler: H<E2>): Hono<E>\n"
        "}\n"
    ),
    "src/context.ts": (
        'import type { Env } from "./types"\n'
        'import { HonoRequest } from "./request"\n'
        'import type { BaseMime } from "./utils/mime"\n\n'
        "interface TextRespond {\n"
        "  <T extends string>(text: T, status?: number): Response\n"
        "}\n\n"
        "interface SetHeaders {\n"
        "  (name: 'Content-Type', value?: BaseMime): void\n"
        "  (name: string, value?: string): void\n"
        "}\n\n"
        "export class Context<E extends Env = any> {\n"
        "  header: SetHeaders = (name: string, value?: string): void => {}\n"
        "  req: HonoRequest = new HonoRequest()\n"
        "  text: TextRespond = (text: string, status?: number): Response => new Response(text)\n"
        "}\n"
    ),
    "src/hono.ts": (
        'import type { Env, HandlerInterface } from "./types"\n\n'
        "export class Hono<E extends Env = Env> {\n"
        "  get!: HandlerInterface<E>\n"
        "}\n"
    ),
    # same-named strangers, and a test's own `T` that is not the signature's
    "src/request.ts": "export class HonoRequest {\n  raw: Request\n  text(): string {\n    return ''\n  }\n}\n",
    "src/raw.ts": "export class RawSocket {\n  raw: string\n}\n",
    "src/jsx/context.ts": "export class Context {\n  values: unknown[] = []\n}\n",
    "src/utils/mime.ts": (
        "const _baseMimes = {\n  bin: 'application/octet-stream',\n  json: 'application/json',\n}\n"
        "export type BaseMime = (typeof _baseMimes)[keyof typeof _baseMimes]\n"
    ),
    "src/compose.test.ts": (
        'import { Context } from "./context"\n\n'
        "const handler = async (c: Context) => {\n"
        "  c.header('Content-Type', 'application/octet-stream')\n"
        "}\n"
    ),
    "src/helpers.ts": (
        'import type { Context } from "./context"\n'
        'import type { Hono } from "./hono"\n'
        'import type { MiddlewareHandler } from "./types"\n\n'
        "interface GetCookie {\n  (c: Context, key: string): string | undefined\n}\n\n"
        "export const getCookie: GetCookie = (c, key) => {\n  return c.req.raw.headers.get(key)\n}\n\n"
        "export const bodyLimit = (max: number): MiddlewareHandler => {\n"
        "  return async function limit(c, next) {\n    if (!c.req.raw.body) {\n      await next()\n    }\n  }\n}\n\n"
        "export const testClient = <T extends Hono>(app: T) => app.get('/', (c) => c.text(''))\n"
    ),
    "src/cache.ts": "export class Cache {\n  get(key: string): void {}\n}\n",
    "src/types.test.ts": (
        'import type { Env } from "./types"\n\n'
        "export type T = { a: 1 }\n\n"
        'describe("types", () => {\n'
        '  it("env", () => {\n'
        "    type Env = { Bindings: { TOKEN: string } }\n"
        "    const e: Env = { Bindings: { TOKEN: 'x' } }\n"
        "    expectTypeOf(e).toEqualTypeOf<Env>()\n"
        "  })\n"
        "})\n"
    ),
    "src/hono.test.ts": (
        'import { Hono } from "./hono"\n\n'
        "const app = new Hono()\n"
        "app.get('/about', (c) => c.text('about'))\n"
        "app\n"
        + "".join(f"  .get('/{p}', (c) => c.text('{p}'))\n" for p in "abcdefghijkl")
    ),
}


@pytest.fixture(scope="module")
def hono(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tshono") / "repo", HONO)


def _at(hono: LiveIndex, word: str) -> list[tuple[str, int]]:
    text = HONO["src/hono.test.ts"]
    n = _line(text, "app.get(")
    _, found = hono.resolve("src/hono.test.ts", n, text.splitlines()[n].index(word) + 1)
    return [(s.path, s.symbol.selection_range.start.line) for s in found]


def test_a_call_through_a_property_typed_by_call_signatures(hono: LiveIndex):
    # tsserver: the property, then the signature the arguments fit (a string first
    # argument is no handler, so not `(handler)` nor the tuple `[H & M1, H]`)
    assert _at(hono, "get") == [
        ("src/hono.ts", _line(HONO["src/hono.ts"], "get!:")),
        ("src/types.ts", _line(HONO["src/types.ts"], "<P extends string, E2")),
    ]


def test_a_handlers_parameter_is_typed_by_the_signature(hono: LiveIndex):
    # `(c) => c.text(…)`: `c` is parameter 0 of `H<E2>` = `Handler | MiddlewareHandler`
    # = `(c: Context<E>, …) => …`; `text` the property and its call signature
    # (`<T extends string>(text: T)`: a string fits T by its constraint)
    assert _at(hono, "text") == [
        ("src/context.ts", _line(HONO["src/context.ts"], "text: TextRespond")),
        ("src/context.ts", _line(HONO["src/context.ts"], "<T extends string>")),
    ]


def test_references_of_the_property_are_not_its_signatures(hono: LiveIndex):
    text = HONO["src/hono.test.ts"]
    n = _line(text, "app.get(")
    answer = references_at(hono, "src/hono.test.ts", n, text.splitlines()[n].index("text") + 1)
    assert {t.symbol.name for t in answer.targets} == {"text"}
    calls = [(rel, i) for rel in ("src/helpers.ts", "src/hono.test.ts") for i, line in enumerate(HONO[rel].splitlines()) if "c.text(" in line]
    assert [(r.path, r.reference.start_line) for r in answer.resolved] == calls


def test_a_type_alias_declared_in_a_test_callback_is_local(hono: LiveIndex):
    # hono's types.test.ts declares `type Env = …` inside each test: not src/types.ts' Env
    text = HONO["src/types.test.ts"]
    n = _line(text, "const e: Env")
    _, found = hono.resolve("src/types.test.ts", n, text.splitlines()[n].index("Env") + 1)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [
        ("src/types.test.ts", _line(text, "type Env ="))
    ]


def test_references_of_a_local_type_alias_that_shadows_an_import(hono: LiveIndex):
    text = HONO["src/types.test.ts"]
    n = _line(text, "const e: Env")
    answer = references_at(hono, "src/types.test.ts", n, text.splitlines()[n].index("Env") + 1)
    assert [(r.path, r.reference.start_line) for r in answer.resolved] == [
        ("src/types.test.ts", n), ("src/types.test.ts", _line(text, "toEqualTypeOf<Env>"))
    ]


@pytest.mark.parametrize("needle, word, target", [
    # a chain of a dozen links (hono's route tables) is evaluated to its end
    (".get('/l'", "text", ("src/context.ts", "text: TextRespond", "<T extends string>")),
    # a function typed by an interface of call signatures: `c` is the signature's
    ("return c.req.raw.headers", "raw", ("src/request.ts", "raw: Request")),
    # a function returned where the enclosing one declares `: MiddlewareHandler`
    ("if (!c.req.raw.body)", "raw", ("src/request.ts", "raw: Request")),
    # `app: T` with `<T extends Hono>`: the constraint's members
    ("testClient", "get", ("src/hono.ts", "get!:")),
])
def test_parameters_typed_from_their_context(hono: LiveIndex, needle: str, word: str, target: tuple[str, ...]):
    rel = "src/hono.test.ts" if needle.startswith(".get") else "src/helpers.ts"
    text = HONO[rel]
    n = _line(text, needle)
    line = text.splitlines()[n]
    _, found = hono.resolve(rel, n, line.index(word, line.index(needle) if needle in line else 0) + 1)
    # (a call through `get!: HandlerInterface` also answers its signature, in types.ts)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found][: len(target) - 1] == [
        (target[0], _line(HONO[target[0]], t)) for t in target[1:]
    ]


def test_an_import_names_its_module_not_a_deeper_one_of_the_same_name(hono: LiveIndex):
    # `from "./context"` in src/ is src/context.ts, not also src/jsx/context.ts
    text = HONO["src/compose.test.ts"]
    n = _line(text, "c: Context")
    _, found = hono.resolve("src/compose.test.ts", n, text.splitlines()[n].index("Context") + 1)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [
        ("src/context.ts", _line(HONO["src/context.ts"], "export class Context"))
    ]


def test_a_string_against_an_indexed_access_type_may_fit(hono: LiveIndex):
    # `BaseMime = (typeof m)[keyof typeof m]`: not sure, so the first signature stays
    text = HONO["src/compose.test.ts"]
    n = _line(text, "c.header(")
    _, found = hono.resolve("src/compose.test.ts", n, text.splitlines()[n].index("header") + 1)
    ctx = HONO["src/context.ts"]
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [
        ("src/context.ts", _line(ctx, "header: SetHeaders")), ("src/context.ts", _line(ctx, "(name: 'Content-Type'"))
    ]
