"""The navigation benchmark's own logic: what it samples, how it scores an answer against
the reference, and that a server which dies or stalls is reported instead of hanging the run."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from benchmarks.navigation_bench import (
    LspProcess,
    Occurrence,
    Position,
    Project,
    ServerGone,
    Target,
    candidates,
    score,
    to_targets,
    verdict,
)


def sample(tmp_path: Path, language: str, name: str, text: str) -> dict[tuple[str, int], str]:
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / name).write_text(text)
    occs, _imports = candidates(tmp_path, Project("p", language, "u", "c", ("src",)))
    return {(o.text, o.line): o.kind for o in occs}


def test_python_sample_has_members_calls_imports_but_no_definitions(tmp_path: Path) -> None:
    kinds = sample(
        tmp_path,
        "python",
        "m.py",
        (
            "import os\n"
            "from .util import helper\n"
            "class Box:\n"
            "    def put(self, item: Item) -> None:\n"
            "        self.items.append(item)\n"
            "        os.path.join('a')\n"
            "        helper(item)\n"
            "        local = item\n"
        ),
    )
    assert kinds[("helper", 1)] == "import"
    assert kinds[("Item", 3)] == "type reference"
    assert kinds[("items", 4)] == "member via self/this"
    assert kinds[("append", 4)] == "typed receiver"
    assert kinds[("path", 5)] == "module member"
    assert kinds[("helper", 6)] == "call"
    assert ("Box", 2) not in kinds and ("put", 3) not in kinds  # definitions
    assert ("item", 3) not in kinds and ("local", 7) not in kinds  # parameters, bare names


def test_typescript_and_php_member_classes(tmp_path: Path) -> None:
    ts = sample(
        tmp_path,
        "typescript",
        "a.ts",
        (
            "import {timeout} from './t.js';\n"
            "export class Ky {\n"
            "  run(): Options { return this.#options.timeout + core.$Zod + timeout(); }\n"
            "}\n"
        ),
    )
    assert ts[("timeout", 0)] == "import"
    assert ts[("Options", 2)] == "type reference"
    assert ts[("#options", 2)] == "member via self/this"
    assert ts[("$Zod", 2)] == "$"
    assert ("Ky", 1) not in ts and ("run", 2) not in ts
    php = sample(
        tmp_path,
        "php",
        "a.php",
        (
            "<?php\nnamespace App;\nuse Illuminate\\Support\\Arr;\n"
            "class A { public function f(User $u): void { $this->g(); static::h(); Policy::X; $u->name(); } }\n"
        ),
    )
    assert php[("Arr", 2)] == "import" and ("Support", 2) not in php
    assert php[("g", 3)] == php[("h", 3)] == "member via self/this"
    assert php[("X", 3)] == "static member" and php[("Policy", 3)] == "class reference"
    assert php[("name", 3)] == "typed receiver" and php[("User", 3)] == "type reference"
    assert ("f", 3) not in php and ("A", 3) not in php


def t(path: str, line: int, internal: bool = True, char: int = 4) -> Target:
    return Target(path, line, char, line, char + 3, internal)


def test_verdict_drops_what_the_reference_cannot_decide() -> None:
    occ = Occurrence("a.py", 10, 4, "foo", "call", "foo()")
    imports = {"a.py": [(0, 2)]}
    assert verdict(occ, None, imports) == "unanswered"
    assert verdict(occ, [t("a.py", 10)], imports) == "declaration"
    assert verdict(occ, [t("a.py", 1)], imports).startswith("import line only")
    assert verdict(occ, [t("/usr/lib/x.py", 3, internal=False)], imports) == "external"
    assert verdict(occ, [t("b.py", 3)], imports) == "scored"


@pytest.mark.parametrize(
    ("answer", "outcome", "first"),
    [
        ([t("b.py", 3)], "exact", True),
        ([t("c.py", 9), t("b.py", 3)], "ambiguous", False),
        ([t("c.py", 9)], "wrong", False),
        ([], "empty", False),
        # a whole-definition range whose decorator line precedes the peer's name line
        ([Target("b.py", 2, 0, 8, 0, True)], "exact", True),
    ],
)
def test_score(answer: list[Target], outcome: str, first: bool) -> None:
    pos = Position(Occurrence("a.py", 10, 4, "foo", "call", ""), [t("b.py", 3)], False, answer)
    score(pos)
    assert (pos.outcome, pos.first_right) == (outcome, first)


def test_targets_from_locations_and_links(tmp_path: Path) -> None:
    rng = {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}
    found = to_targets(
        [
            {"uri": (tmp_path / "a.py").as_uri(), "range": rng},
            {
                "targetUri": (tmp_path / "node_modules/x/i.d.ts").as_uri(),
                "targetRange": rng,
                "targetSelectionRange": rng,
            },
            {"uri": "file:///usr/lib/python3/os.py", "range": rng},
        ],
        tmp_path,
    )
    assert [(f.path, f.internal) for f in found] == [
        ("a.py", True),
        ("node_modules/x/i.d.ts", False),
        ("/usr/lib/python3/os.py", False),
    ]


SILENT = "import sys, time\nsys.stdin.readline()\ntime.sleep(30)\n"
CRASH = "import sys\nsys.stdin.readline()\nsys.exit(3)\n"


@pytest.mark.parametrize(("script", "error"), [(SILENT, TimeoutError), (CRASH, ServerGone)])
def test_a_stalled_or_crashed_server_is_reported_not_awaited(
    tmp_path: Path, script: str, error: type[Exception]
) -> None:
    (tmp_path / "server.py").write_text(script)

    async def run() -> None:
        server = LspProcess(
            "fake", [sys.executable, str(tmp_path / "server.py")], tmp_path, tmp_path / "log"
        )
        try:
            with pytest.raises(error):
                await server.start({}, timeout=2)
        finally:
            await server.stop(grace=0.5)
        assert server.proc is not None and server.proc.returncode is not None

    asyncio.run(asyncio.wait_for(run(), 20))
