"""TypeScript members typed by a type literal written in place, the way an SDK declares
its options (supabase auth-js: `type SignInWithOAuthCredentials = { provider: Provider;
options?: { redirectTo?: string; skipBrowserRedirect?: boolean } }`, read as
`credentials.options?.skipBrowserRedirect`): the key is the nested literal's, not a
same-named key of another literal (a method's parameter type elsewhere). Real
tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree, target_lines

FILES = {
    "src/lib/types.ts": (
        "export type SignInWithOAuthCredentials = {\n"
        "  provider: string\n"
        "  options?: {\n"
        "    redirectTo?: string\n"
        "    skipBrowserRedirect?: boolean\n"
        "  }\n"
        "}\n"
        "export interface Settings {\n"
        "  readonly limits: { retries: number; timeout?: number }\n"
        "}\n"
    ),
    "src/client.ts": (
        "import type { SignInWithOAuthCredentials, Settings } from './lib/types'\n"
        "export class Client {\n"
        "  constructor(private settings: Settings) {}\n"
        "  signIn(credentials: SignInWithOAuthCredentials) {\n"
        "    return this.redirect({\n"
        "      redirectTo: credentials.options?.redirectTo,\n"
        "      skipBrowserRedirect: credentials.options?.skipBrowserRedirect,\n"
        "    })\n"
        "  }\n"
        "  private redirect(options: { redirectTo?: string; skipBrowserRedirect?: boolean }) {\n"
        "    return this.settings.limits.retries\n"
        "  }\n"
        "}\n"
        "export const other = { retries: 2, timeout: 3 }\n"
        "export function fromUrl(params: { [parameter: string]: string }) {\n"
        "  return params.redirectTo\n}\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tslit") / "repo", FILES)


def where(live: LiveIndex, rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    return target_lines(live, FILES, rel, needle, word)


def test_a_key_of_a_nested_literal_type(live: LiveIndex) -> None:
    assert where(live, "src/client.ts", "credentials.options?.skipBrowserRedirect", "skipBrowserRedirect") == [
        ("src/lib/types.ts", 4)
    ]
    assert where(live, "src/client.ts", "credentials.options?.redirectTo", "redirectTo") == [("src/lib/types.ts", 3)]



def test_a_key_of_an_index_signature_is_nobody_s(live: LiveIndex) -> None:
    # `params: { [parameter: string]: string }`: not a guess among same-named keys
    assert where(live, "src/client.ts", "params.redirectTo", "redirectTo") == []
