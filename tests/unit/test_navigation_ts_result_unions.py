"""TypeScript results written the way a typed SDK writes them (supabase auth-js): a method
returns `Promise<AuthResponse>`, `AuthResponse = RequestResultSafeDestructure<{user: …;
session: …}>`, a generic alias of a union of object types `{data: T; error: null} | {…}`;
callers destructure it (`const { data, error } = await client.signUp(…)`) and read
`data.user`, `data.session.refresh_token`. The member is the key of the type literal the
code wrote as the alias' argument. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree, target_lines

FILES = {
    "src/lib/types.ts": (
        "export type RequestResultSafeDestructure<T> =\n"
        "  | { data: T; error: null }\n"
        "  | {\n"
        "      data: T extends object ? { [K in keyof T]: null } : null\n"
        "      error: AuthError\n"
        "    }\n"
        "export class AuthError extends Error {\n  status: number\n}\n"
        "export interface User {\n  id: string\n  email?: string\n}\n"
        "export interface Session {\n  refresh_token: string\n  user: User\n}\n"
        "export type AuthResponse = RequestResultSafeDestructure<{\n"
        "  user: User | null\n"
        "  session: Session | null\n"
        "}>\n"
        "export type UserResponse = RequestResultSafeDestructure<{\n"
        "  user: User\n"
        "}>\n"
    ),
    "src/GoTrueClient.ts": (
        "import type { AuthResponse, UserResponse } from './lib/types'\n"
        "export default class GoTrueClient {\n"
        "  async signUp(email: string): Promise<AuthResponse> {\n"
        "    return { data: { user: null, session: null }, error: null }\n  }\n"
        "  async getUser(): Promise<UserResponse> {\n"
        "    throw new Error('x')\n  }\n"
        "  async refresh(): Promise<void> {\n"
        "    const { data } = await this.signUp('a')\n"
        "    const token = data.session?.refresh_token\n  }\n"
        "}\n"
    ),
    "test/client.test.ts": (
        "import GoTrueClient from '../src/GoTrueClient'\n"
        "const client = new GoTrueClient()\n"
        "test('sign up', async () => {\n"
        "  const { data, error } = await client.signUp('a@b.c')\n"
        "  expect(data.user?.email).toBe('a@b.c')\n"
        "  expect(data.session.refresh_token).toBeTruthy()\n"
        "  const found = await client.getUser()\n"
        "  expect(found.data.user.id).toBeTruthy()\n"
        "  const { error: failed, data: { user } } = await client.getUser()\n"
        "  expect(user.email).toBeTruthy()\n"
        "})\n"
    ),
    # a callback's parameter typed by a union of literals written in place, destructured
    "src/lock.ts": (
        "export interface Lease {\n  expires_at?: number\n}\n"
        "export async function withLease<R>(\n"
        "  fn: (result: { data: { lease: Lease }; error: null } | { data: { lease: null }; error: Error }) => Promise<R>,\n"
        "): Promise<R> {\n  return fn(null as never)\n}\n"
        "export async function tick() {\n"
        "  return withLease(async (result) => {\n"
        "    const {\n      data: { lease },\n    } = result\n"
        "    return lease?.expires_at\n  })\n}\n"
    ),
    # same-named members elsewhere: a guess by name cannot tell
    "src/other.ts": (
        "export class Other {\n  user = 1\n  session = 2\n  email = 'e'\n  refresh_token = 't'\n  id = 3\n}\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsres") / "repo", FILES)


def where(live: LiveIndex, rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    return target_lines(live, FILES, rel, needle, word)


def test_destructured_data_reads_the_key_of_the_alias_argument(live: LiveIndex) -> None:
    # `user:` of `AuthResponse = RequestResultSafeDestructure<{ user: … }>` (line 18)
    assert where(live, "test/client.test.ts", "data.user?.email", "user") == [("src/lib/types.ts", 18)]
    assert where(live, "test/client.test.ts", "data.session.refresh", "session") == [("src/lib/types.ts", 19)]


def test_the_key_typed_by_a_workspace_interface_continues(live: LiveIndex) -> None:
    assert where(live, "test/client.test.ts", "data.user?.email", "email") == [("src/lib/types.ts", 11)]
    assert where(live, "test/client.test.ts", "data.session.refresh_token", "refresh_token") == [
        ("src/lib/types.ts", 14)
    ]
    assert where(live, "src/GoTrueClient.ts", "data.session?.refresh_token", "refresh_token") == [
        ("src/lib/types.ts", 14)
    ]


def test_a_result_not_destructured(live: LiveIndex) -> None:
    assert where(live, "test/client.test.ts", "found.data.user.id", "user") == [("src/lib/types.ts", 22)]
    assert where(live, "test/client.test.ts", "found.data.user.id", "id") == [("src/lib/types.ts", 10)]


def test_a_nested_destructuring(live: LiveIndex) -> None:
    assert where(live, "test/client.test.ts", "user.email", "user") == [("test/client.test.ts", 8)]
    assert where(live, "test/client.test.ts", "user.email", "email") == [("src/lib/types.ts", 11)]


def test_a_literal_union_written_in_place_is_no_outside_type(live: LiveIndex) -> None:
    # not resolved through the literals, but not taken for a type outside the workspace
    assert ("src/lock.ts", 1) in where(live, "src/lock.ts", "lease?.expires_at", "expires_at")
