"""TypeScript overloads told apart by the type of a local passed by name, the way jotai
writes its hooks: `useAtom(atom: WritableAtom<…>)`, `useAtom(atom: PrimitiveAtom<V>)`,
`useAtom(atom: Atom<V>)`, where `WritableAtom extends Atom` and `PrimitiveAtom` aliases a
`WritableAtom`; a test writes `const derived = atom((get) => get(countAtom) * 2)` (a
read-only `Atom`) and calls `useAtom(derived)`: tsserver answers the `Atom` overload, the
first the argument fits. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree, target_lines

FILES = {
    "src/vanilla/atom.ts": (
        "type Getter = <V>(atom: Atom<V>) => V\n"
        "type Read<Value> = (get: Getter) => Value\n"
        "export interface Atom<Value> {\n  read: Read<Value>\n}\n"
        "export interface WritableAtom<Value, Args extends unknown[], Result> extends Atom<Value> {\n"
        "  write: (...args: Args) => Result\n}\n"
        "export type PrimitiveAtom<Value> = WritableAtom<Value, [Value], void>\n"
        "export function atom<Value>(read: Read<Value>): Atom<Value>\n"
        "export function atom<Value>(initialValue: Value): PrimitiveAtom<Value>\n"
        "export function atom<Value>(read: Value | Read<Value>) {\n  return { read } as never\n}\n"
    ),
    "src/react/useAtom.ts": (
        "import type { Atom, PrimitiveAtom, WritableAtom } from '../vanilla/atom'\n"
        "export function useAtom<Value, Args extends unknown[], Result>(\n"
        "  atom: WritableAtom<Value, Args, Result>,\n"
        "): [Value, (...args: Args) => Result]\n"
        "export function useAtom<Value>(\n  atom: PrimitiveAtom<Value>,\n): [Value, (v: Value) => void]\n"
        "export function useAtom<Value>(\n  atom: Atom<Value>,\n): [Value, never]\n"
        "export function useAtom(atom: Atom<unknown>) {\n  return [atom, () => {}] as never\n}\n"
    ),
    "tests/react/useAtom.test.tsx": (
        "import { atom } from '../../src/vanilla/atom'\n"
        "import { useAtom } from '../../src/react/useAtom'\n"
        "const countAtom = atom(0)\n"
        "const derived = atom((get) => get(countAtom) * 2)\n"
        "it('reads', () => {\n"
        "  const [value] = useAtom(derived)\n"
        "  const [count, setCount] = useAtom(countAtom)\n"
        "})\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsovv") / "repo", FILES)


def where(live: LiveIndex, rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    return target_lines(live, FILES, rel, needle, word)


def test_a_read_only_atom_takes_the_atom_overload(live: LiveIndex) -> None:
    assert where(live, "tests/react/useAtom.test.tsx", "useAtom(derived)", "useAtom") == [("src/react/useAtom.ts", 7)]


def test_a_writable_atom_takes_the_first_overload(live: LiveIndex) -> None:
    assert where(live, "tests/react/useAtom.test.tsx", "useAtom(countAtom)", "useAtom") == [("src/react/useAtom.ts", 1)]
