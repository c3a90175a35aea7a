"""TypeScript type arguments as the text of declarations states them, for what the
evaluator's class sets alone cannot say: which type a type parameter stands for.

Two shapes real code writes all the time (a NestJS DDD app: `class Address extends
ValueObject<AddressProps>` whose base declares `protected readonly props: T`;
`constructor(props: DomainEventProps<UserCreatedEvent>)` with `type DomainEventProps<T> =
Omit<T, 'id'> & {…}`). Pure text functions; the evaluator resolves the names.
"""

from __future__ import annotations

import re

from .typing_text import split_top_level, split_union

_DECLARED = re.compile(r"\b(?:class|interface|type)\s+[A-Za-z_$][\w$]*\s*<")
_APPLIED = re.compile(r"([A-Za-z_$][\w$.]*)\s*<(.*)>", re.DOTALL)
_PARAM = re.compile(r"\s*(?:const\s+|in\s+|out\s+)*([A-Za-z_$][\w$]*)")
# utility types whose members are (some of) their first argument's
PASS_THROUGH = frozenset({"Omit", "Pick", "Partial", "Required", "Readonly", "NonNullable", "Mutable", "Writable"})


def _closing(text: str, at: int) -> int | None:
    depth = 0
    for i in range(at, len(text)):
        ch = text[i]
        if ch == "<":
            depth += 1
        elif ch == ">" and text[i - 1] != "=":  # `=>` closes nothing
            depth -= 1
            if depth == 0:
                return i
    return None


def declared_parameters(signature: str) -> list[str]:
    """The type parameters a class, interface or type alias declares, in order
    (`class Entity<EntityProps> extends X<Y>` -> ["EntityProps"])."""
    m = _DECLARED.search(signature)
    if m is None:
        return []
    close = _closing(signature, m.end() - 1)
    if close is None:
        return []
    out = []
    for part in split_top_level(signature[m.end() : close], ","):
        p = _PARAM.match(part)
        if p:
            out.append(p.group(1))
    return out


def applied(text: str) -> tuple[str, list[str]] | None:
    """`Base<A, B<C>>` -> ("Base", ["A", "B<C>"]); None when the text is no single
    applied generic."""
    m = _APPLIED.fullmatch(text.strip())
    if m is None or _closing(text.strip(), len(m.group(1))) != len(text.strip()) - 1:
        return None
    return m.group(1), [a.strip() for a in split_top_level(m.group(2), ",") if a.strip()]


def heritage(signature: str) -> list[tuple[str, list[str]]]:
    """A class's or interface's bases with the type arguments written for them
    (`class A<T> extends B<T[]> implements C<X>` -> [("B", ["T[]"]), ("C", ["X"])])."""
    m = _DECLARED.search(signature)
    rest = signature
    if m is not None:
        close = _closing(signature, m.end() - 1)
        rest = signature[close + 1 :] if close is not None else signature
    out: list[tuple[str, list[str]]] = []
    for kw in ("extends", "implements"):
        found = re.search(r"\b" + kw + r"\s+(.+?)(?:\s+(?:extends|implements)\s|\s*\{|$)", rest, re.DOTALL)
        if found is None:
            continue
        for part in split_top_level(found.group(1), ","):
            got = applied(part)
            if got is not None:
                out.append(got)
    return out


def exposed(value: str, params: list[str]) -> list[str]:
    """The type parameters whose members a type alias's value exposes: standing alone
    in a union or intersection, a branch of a conditional type, or the first argument of
    a utility type that keeps members (`Omit<T, 'id'> & {…}` exposes T)."""
    out: list[str] = []
    parts = [value]
    seen = 0
    while parts and seen < 32:
        seen += 1
        part = parts.pop().strip()
        cond = _conditional_branches(part)
        if cond is not None:
            parts.extend(cond)
            continue
        members = [p for u in split_union(part) for p in split_top_level(u, "&")]
        if len(members) > 1:
            parts.extend(members)
            continue
        while part.startswith("(") and part.endswith(")"):
            part = part[1:-1].strip()
        if part in params:
            out.append(part)
            continue
        got = applied(part)
        if got is not None and got[0] in PASS_THROUGH and got[1]:
            parts.append(got[1][0])
    return [p for p in params if p in out]


def _conditional_branches(text: str) -> list[str] | None:
    """`T extends X ? A : B` -> [A, B] (outside brackets); None when not conditional."""
    depth = 0
    q = -1
    for i, ch in enumerate(text):
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}" and not (ch == ">" and text[i - 1] == "="):
            depth -= 1
        elif depth == 0 and ch == "?" and q < 0 and text[i + 1 : i + 2] not in (".", ":"):
            q = i
        elif depth == 0 and ch == ":" and q >= 0:
            return [text[q + 1 : i], text[i + 1 :]]
    return None


def mentions(text: str, name: str) -> bool:
    return re.search(r"(?<![\w$.])" + re.escape(name) + r"(?![\w$])", text) is not None


def branches(value: str) -> list[str]:
    """The result types of a (nested) conditional type, `[value]` when it is none:
    `IsAny<T> extends true ? Job<T> : T extends Job ? T : Job<T>` -> Job<T>, T, Job<T>."""
    out: list[str] = []
    pending = [value]
    while pending and len(out) < 16:
        part = pending.pop(0).strip()
        cond = _conditional_branches(part)
        if cond is None:
            out.append(part)
        else:
            pending.extend(cond)
    return out
