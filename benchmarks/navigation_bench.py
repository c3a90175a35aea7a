"""Navigation benchmark: code-intel's definitions and references against reference
language servers, on real projects (issue 15).

For each project (a pinned commit of a public repository, exported with `git archive`
into a scratch directory so `.code-intel/` and peer caches never touch the checkout),
identifier occurrences are sampled with a fixed seed from the tree-sitter parse (calls,
member accesses, imports, type references; never the name a definition declares). Each
is asked of the reference server (pyright for Python, typescript-language-server on
TypeScript 5.9 for TS, intelephense for PHP) and of code-intel's real language server
(`<code-intel> lsp` on stdio), both spoken to as plain JSON-RPC. The reference's answer
is the ground truth: positions it does not answer, or answers with the occurrence itself
(a declaration), are dropped; positions whose every target lies outside the workspace
(stdlib, typeshed, node_modules, vendor) are reported apart.

Scores per language: exact (every code-intel target is a reference target), ambiguous
(several targets, the right one among them; average count), wrong, empty, first target
right; misses by class with examples; references precision/recall on 30 symbols;
definition latency p50/p95 of both servers (the machine may be loaded: the two servers
run one after the other in the same run, so compare them, not absolute figures).

Setup (once):
    npm install --prefix /work/peers/nav pyright@1.1.414 typescript-language-server@4.4.1 \
        typescript@5.9 intelephense@1.18.5 @sindresorhus/tsconfig@8.1.0 @tsconfig/node20@20.1.10
    # corpora: a clone of each repository below under --corpora (any checkout state:
    # the pinned commit is exported with git archive), e.g.
    git clone https://github.com/encode/httpx /work/corpora/httpx

Run:
    python benchmarks/navigation_bench.py --code-intel /work/main/.venv/bin/code-intel
    python benchmarks/navigation_bench.py --languages python --projects httpx --json out.json
    # the peers' answers saved once, then any build re-scored against the same truth:
    python benchmarks/navigation_bench.py --code-intel A/.venv/bin/code-intel --peer-cache peers.json
    python benchmarks/navigation_bench.py --code-intel B/.venv/bin/code-intel --peer-cache peers.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

DEFAULT_PEERS = Path("/work/peers/nav")
DEFAULT_CORPORA = Path("/work/corpora")
SEED = 15
PER_PROJECT = 150
REF_SYMBOLS = 30
EXTERNAL_PARTS = {"node_modules", "vendor", ".venv", "site-packages", "typeshed-fallback"}


@dataclass(frozen=True)
class Project:
    """A public repository at a pinned commit; `roots` limit where occurrences are sampled."""

    name: str
    language: str
    url: str
    commit: str
    roots: tuple[str, ...]
    ts_config_packages: tuple[str, ...] = ()
    # paths `git archive` exports (all when empty): a mirror may lack large unrelated blobs
    archive_paths: tuple[str, ...] = ()
    # added after the resolver was tuned on the others: measured as projects never seen
    held_out: bool = False
    # where the peer's reference lists are complete, when narrower than `roots`: tsserver
    # searches the tsconfig's files, and a test file outside it only in its own inferred
    # project (so a test helper used by 300 tests gets 5 references)
    ref_roots: tuple[str, ...] = ()


PROJECTS = [
    Project(
        "httpx",
        "python",
        "https://github.com/encode/httpx",
        "ae1b9f66238f75ced3ced5e4485408435de10768",
        ("httpx", "tests"),
    ),
    Project(
        "click",
        "python",
        "https://github.com/pallets/click",
        "2c8cd3ac958a7eb316d67f2d316c27086c4c0369",
        ("src", "tests"),
    ),
    Project(
        "ky",
        "typescript",
        "https://github.com/sindresorhus/ky",
        "3419113b48e034fdcf8fa6bd3be3da7b3d0d758f",
        (
            "source",
        ),  # its tsconfig includes source/ only: tsserver leaves the tests' imports unresolved
        ("@sindresorhus/tsconfig",),
    ),
    Project(
        "got",
        "typescript",
        "https://github.com/sindresorhus/got",
        "d00d845a0b435365ec73ea5a1fca6e17ee677184",
        ("source", "test"),
        ("@sindresorhus/tsconfig",),
    ),
    Project(
        "laravelio",
        "php",
        "https://github.com/laravelio/laravel.io",
        "0c7cd44132bb3078d9dbc4b6bd994075a1fb23a1",
        ("app", "tests", "routes", "database"),
    ),
    Project(  # a library: its references stay inside it (the apps' go to an absent vendor/)
        "laravel-framework",
        "php",
        "https://github.com/laravel/framework",
        "bd71b45fbb7e672957bf6ff61baddefe15fbca6a",
        ("src",),
    ),
    Project(
        "filament-demo",
        "php",
        "https://github.com/filamentphp/demo",
        "16a3100225488a5cbf601ed5bfe483bf859f3d5e",
        ("app", "tests", "routes", "database"),
    ),
    # held out (issue 15, nav3): picked and pinned before any resolver change, measured first
    Project(
        "rich",
        "python",
        "https://github.com/Textualize/rich",
        "42899d8a0a96b121a514516f4be9db44ff7aeaf3",
        ("rich", "tests"),
        held_out=True,
    ),
    Project(
        "ioredis",
        "typescript",
        "https://github.com/redis/ioredis",
        "dfd542824dfb7168420f19fdfabe9fe1156efe10",
        ("lib", "test"),
        archive_paths=("lib", "test", "tsconfig.json", "package.json"),  # docs/ blobs are absent
        ref_roots=("lib",),  # its tsconfig includes lib/ only
        held_out=True,
    ),
    Project(
        "monolog",
        "php",
        "https://github.com/Seldaek/monolog",
        "57eb1028342134e701e77c617565d51b6e5a2a53",
        ("src", "tests"),
        held_out=True,
    ),
    # held out, second round: pinned after the resolver changes, measured once, not tuned on
    Project(
        "alembic",
        "python",
        "https://github.com/sqlalchemy/alembic",
        "20e58db01cad3432c24734e11b893303cdb687a4",
        ("alembic", "tests"),
        held_out=True,
    ),
    Project(
        "hono",
        "typescript",
        "https://github.com/honojs/hono",
        "28a9c128912de19f3fb28b00ae289c9b93f6f392",
        ("src",),  # its tests sit beside the code (*.test.ts)
        held_out=True,
    ),
    Project(
        "symfony-console",
        "php",
        "https://github.com/symfony/console",
        "6b099f3306f7c9c2d2786ed736d0026b2903205f",
        (".",),  # the package is the repository's root
        held_out=True,
    ),
    # held out, third round: pinned after the second round's fixes, measured once
    Project(
        "attrs",
        "python",
        "https://github.com/python-attrs/attrs",
        "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32",
        ("src", "tests"),
        held_out=True,
    ),
    Project(
        "bullmq",
        "typescript",
        "https://github.com/taskforcesh/bullmq",
        "352d3c72bf2bc5ec851630a4cdcba7d44c313ed0",
        ("src", "tests"),
        ref_roots=("src",),  # its tsconfig includes src/ only
        held_out=True,
    ),
    Project(
        "php-parser",
        "php",
        "https://github.com/nikic/PHP-Parser",
        "fbd47f7ebcbb450138d92642a0a53b72a5285dda",
        ("lib", "test"),
        held_out=True,
    ),
    # held out, fourth round (nav4ts): pinned before any change for them, measured on main first;
    # oclif-core is the control: its misses are not read until the final build is measured
    Project(
        "mqttjs",
        "typescript",
        "https://github.com/mqttjs/MQTT.js",
        "aa03369f5f5daf9b8a98339990cc3ced800a5051",
        ("src", "test"),
        ("@tsconfig/node20",),
        held_out=True,
    ),
    Project(
        "oclif-core",
        "typescript",
        "https://github.com/oclif/core",
        "2ba8f2f1ee3c4aa636a8fc27593d779218d9bd76",
        ("src", "test"),  # test/tsconfig.json includes both: tsserver's lists cover the tests
        held_out=True,
    ),
    # held out, fourth round (nav4py): pinned and measured on main before any change; the
    # first of each language is then looked at, the second (structlog, guzzle) only at the end
    Project(
        "uvicorn",
        "python",
        "https://github.com/encode/uvicorn",
        "e6c7ce791fc634b6eedee40e0d0207faa8a9aefd",
        ("uvicorn", "tests"),
        held_out=True,
    ),
    Project(
        "commonmark",
        "php",
        "https://github.com/thephpleague/commonmark",
        "8c812a3cd319485fa7b1110b926829013551afa3",
        ("src", "tests"),
        held_out=True,
    ),
    Project(
        "structlog",
        "python",
        "https://github.com/hynek/structlog",
        "025edaf799c6d6d511ab672d14c2ba8e885c4c36",
        ("src", "tests"),
        held_out=True,
    ),
    Project(
        "guzzle",
        "php",
        "https://github.com/guzzle/guzzle",
        "2779e868a00289e1b1fd854af030c43a06f4bcb4",
        ("src", "tests"),
        held_out=True,
    ),
    # held out, fifth round (nav5): pinned and measured on main 5ba708d before any change.
    # inversify (TS A) is then looked at; class-validator (TS B) is the control, its misses
    # unread until the final build is measured; typer and flysystem are measured only
    Project(
        "inversify",
        "typescript",
        "https://github.com/inversify/InversifyJS",
        "d24fba8f22002bd5fa17e81fdd008aa148ee0c23",  # v6.2.2: the last release with its own src
        ("src",),  # its tests sit in src/test, inside the tsconfig's `include`
        held_out=True,
    ),
    Project(
        "class-validator",
        "typescript",
        "https://github.com/typestack/class-validator",
        "0853341cc36f53d54e5afb50800c3a4b169abd73",
        ("src", "test"),
        ref_roots=("src",),  # its tsconfig excludes test/**
        held_out=True,
    ),
    Project(
        "typer",
        "python",
        "https://github.com/fastapi/typer",
        "9a7b2e83f6b62c750d6026b0de9ebf2026a8b8fa",
        ("typer", "tests"),
        held_out=True,
    ),
    Project(
        "flysystem",
        "php",
        "https://github.com/thephpleague/flysystem",
        "072735c56cc0da00e10716dd90d5a7f7b40b36be",
        ("src",),  # its tests sit beside the code (*Test.php)
        held_out=True,
    ),
    # held out, sixth round (nav6ts): pinned and measured on main be2fb6e before any change.
    # domain-driven-hexagon (an app) and true-myth (a generic-heavy library) are then looked
    # at; jotai is the control, its misses unread until the final build is measured
    Project(
        "domain-driven-hexagon",
        "typescript",
        "https://github.com/Sairyss/domain-driven-hexagon",
        "5c2d15a7e2d69e83dfddf28468ee9f30e02c30de",
        ("src", "tests"),
        held_out=True,
    ),
    Project(
        "true-myth",
        "typescript",
        "https://github.com/true-myth/true-myth",
        "9db690420634d06ee15ef3b570173936293eefa6",
        ("src", "test"),
        held_out=True,
    ),
    Project(
        "jotai",
        "typescript",
        "https://github.com/pmndrs/jotai",
        "1fae77247ae72ab5f2f002dc82a876e61ce26f56",
        ("src", "tests"),
        held_out=True,
    ),
    # held out, sixth round (nav6py): pinned and measured on main be2fb6e before any change.
    # django-ninja and symfony-routing are then looked at; polyfactory and laravel-permission
    # are the controls, their misses unread until the final build is measured
    Project(
        "django-ninja",
        "python",
        "https://github.com/vitalik/django-ninja",
        "d524516f9ec4ec3aa6ca73db87d3238663c10f7f",
        ("ninja", "tests"),
        held_out=True,
    ),
    Project(
        "polyfactory",
        "python",
        "https://github.com/litestar-org/polyfactory",
        "47c0eb8e68aaab2bdbfbabd9cfbac139789b44c4",
        ("polyfactory", "tests"),
        held_out=True,
    ),
    Project(
        "symfony-routing",
        "php",
        "https://github.com/symfony/routing",
        "3419e373e8dd7b75be23dec219a79232c104bf34",
        (".",),  # the package is the repository's root, its tests in Tests/
        held_out=True,
    ),
    Project(
        "laravel-permission",
        "php",
        "https://github.com/spatie/laravel-permission",
        "4a21798c89f21780c8d97b8eb188c5a673011558",
        ("src", "tests"),
        held_out=True,
    ),
    # held out, seventh round (nav7ts): pinned and measured on main 70ffc50 before any change.
    # auth-js (a typed SDK) is then looked at; h3 (an HTTP framework) is the control, its
    # misses unread until the final build is measured
    Project(
        "auth-js",
        "typescript",
        "https://github.com/supabase/auth-js",
        "25c6b427162b47f9089e0c9d2389d4ee1ca12343",
        ("src", "test"),
        held_out=True,
    ),
    Project(
        "h3",
        "typescript",
        "https://github.com/unjs/h3",
        "ac609aae8fa93947b564de55e2d1a6bec5ad18ad",
        ("src", "test"),
        held_out=True,
    ),
]

EXTENSIONS = {"python": (".py",), "typescript": (".ts", ".tsx"), "php": (".php",)}
LANGUAGE_IDS = {".py": "python", ".ts": "typescript", ".tsx": "typescriptreact", ".php": "php"}


# ----------------------------------------------------------------------------- JSON-RPC


class ServerGone(Exception):
    """The server exited or stopped answering; the rest of its project is skipped."""


class LspProcess:
    """A language server child on stdio, spoken to as plain JSON-RPC with a timeout per
    request, answering the requests servers send to clients (configuration, progress,
    registrations) so no server waits on us."""

    def __init__(self, name: str, argv: list[str], root: Path, log: Path) -> None:
        self.name, self.argv, self.root, self.log_path = name, argv, root, log
        self.proc: asyncio.subprocess.Process | None = None
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.next_id = 0
        self.notifications: list[tuple[str, Any]] = []
        self.notified = asyncio.Event()
        self.settings: dict[str, Any] = {}
        self._reader: asyncio.Task[None] | None = None
        self._log = None

    running: set[LspProcess] = set()  # noqa: RUF012 - every started server, so none outlives the run

    async def start(
        self, init_options: dict[str, Any] | None, timeout: float = 120
    ) -> dict[str, Any]:
        self._log = self.log_path.open("wb")
        LspProcess.running.add(self)
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=self.root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            limit=1 << 26,
        )
        self._reader = asyncio.create_task(self._read())
        uri = self.root.as_uri()
        caps = {
            "textDocument": {
                "definition": {"linkSupport": True},
                "references": {},
                "synchronization": {"didSave": False},
            },
            "workspace": {"configuration": True, "workspaceFolders": True, "symbol": {}},
            "window": {"workDoneProgress": True},
        }
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri,
                "rootPath": str(self.root),
                "capabilities": caps,
                "workspaceFolders": [{"uri": uri, "name": self.root.name}],
                "initializationOptions": init_options or {},
            },
            timeout,
        )
        await self.notify("initialized", {})
        return result

    async def _read(self) -> None:
        assert self.proc and self.proc.stdout
        out = self.proc.stdout
        try:
            while True:
                length = 0
                while True:
                    line = await out.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        break
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = json.loads(await out.readexactly(length))
                await self._dispatch(body)
        except (EOFError, asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_exception(ServerGone(f"{self.name} exited"))

    async def _dispatch(self, msg: dict[str, Any]) -> None:
        if "id" in msg and "method" not in msg:
            fut = self.pending.pop(msg["id"], None)
            if fut and not fut.done():
                if "error" in msg:
                    fut.set_exception(RuntimeError(f"{self.name}: {msg['error'].get('message')}"))
                else:
                    fut.set_result(msg.get("result"))
        elif "id" in msg:  # a request from the server
            method, params = msg["method"], msg.get("params") or {}
            result: Any = None
            if method == "workspace/configuration":
                result = [
                    self.settings.get(item.get("section") or "", None)
                    for item in params.get("items", [])
                ]
            elif method == "workspace/workspaceFolders":
                result = [{"uri": self.root.as_uri(), "name": self.root.name}]
            await self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        else:
            self.notifications.append((msg["method"], msg.get("params")))
            self.notified.set()

    async def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc and self.proc.stdin
        if self.proc.returncode is not None:
            raise ServerGone(f"{self.name} exited with {self.proc.returncode}")
        data = json.dumps(msg).encode()
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            await self.proc.stdin.drain()
        except (ConnectionError, BrokenPipeError) as exc:
            raise ServerGone(f"{self.name} closed its input") from exc

    async def request(self, method: str, params: Any, timeout: float = 20) -> Any:
        self.next_id += 1
        rid = self.next_id
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[rid] = fut
        await self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            self.pending.pop(rid, None)
            with contextlib.suppress(ServerGone):
                await self.notify("$/cancelRequest", {"id": rid})
            raise

    async def notify(self, method: str, params: Any) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def wait_notification(self, seen: Callable[[str, Any], bool], timeout: float) -> bool:
        """Wait until a notification satisfies `seen` (False on timeout or exit)."""
        deadline = time.monotonic() + timeout
        while not any(seen(method, params) for method, params in self.notifications):
            left = deadline - time.monotonic()
            if left <= 0 or (self.proc and self.proc.returncode is not None):
                return False
            self.notified.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.notified.wait(), min(left, 1.0))
        return True

    async def stop(self, grace: float = 5) -> None:
        """shutdown/exit, then kill after `grace` seconds: a stalled server never blocks the run."""
        LspProcess.running.discard(self)
        if self.proc is None:
            return
        if self.proc.returncode is None:
            with contextlib.suppress(Exception):
                await self.request("shutdown", None, grace)
                await self.notify("exit", None)
            try:
                await asyncio.wait_for(self.proc.wait(), grace)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        if self._reader:
            self._reader.cancel()
        if self._log:
            self._log.close()


# ----------------------------------------------------------------------------- servers


def peer_argv(language: str, peers: Path) -> tuple[str, list[str]]:
    bin_dir = peers / "node_modules" / ".bin"
    name, argv = {
        "python": ("pyright", [str(bin_dir / "pyright-langserver"), "--stdio"]),
        "typescript": (
            "typescript-language-server",
            [str(bin_dir / "typescript-language-server"), "--stdio"],
        ),
        "php": ("intelephense", [str(bin_dir / "intelephense"), "--stdio"]),
    }[language]
    if not Path(argv[0]).exists():
        raise SystemExit(
            f"error: {argv[0]} not found; install the reference servers with the npm command "
            f"in this file's docstring (or pass --peers DIR)"
        )
    return name, argv


async def start_peer(language: str, peers: Path, root: Path, scratch: Path) -> LspProcess:
    name, argv = peer_argv(language, peers)
    server = LspProcess(name, argv, root, scratch / f"{root.name}.{name}.log")
    options: dict[str, Any] = {}
    if language == "typescript":
        options = {
            "tsserver": {
                "path": str(peers / "node_modules" / "typescript" / "lib"),
                # the syntax server answers while the project loads, with import lines
                "useSyntaxServer": "never",
            }
        }
    elif language == "php":
        storage = scratch / f"{root.name}.intelephense"
        options = {
            "storagePath": str(storage),
            "globalStoragePath": str(storage),
            "clearCache": True,
        }
        server.settings = {"intelephense": {"files": {"maxSize": 5_000_000}}}
    elif language == "python":
        # pyright finds references only in the files it checks: all of them, not the
        # few the bench has open (openFilesOnly cut its references to those files)
        server.settings = {"python.analysis": {"diagnosticMode": "workspace"}}
    await server.start(options, timeout=120)
    if language == "php" and not await server.wait_notification(intelephense_indexed, 600):
        raise ServerGone("intelephense never sent indexingEnded")
    return server


def intelephense_indexed(method: str, params: Any) -> bool:
    """intelephense sends `indexingEnded`, or with work-done progress only its log line."""
    return method == "indexingEnded" or (
        method == "window/logMessage" and "Indexing finished" in str((params or {}).get("message"))
    )


async def start_code_intel(executable: str, root: Path, scratch: Path) -> LspProcess:
    server = LspProcess(
        "code-intel", [executable, "lsp"], root, scratch / f"{root.name}.code-intel.log"
    )
    await server.start({}, timeout=120)
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        status = await server.request("codeIntel/indexStatus", {}, 30)
        if (status or {}).get("state") == "ready":
            return server
        await asyncio.sleep(0.2)
    raise ServerGone("code-intel's index never became ready")


# ----------------------------------------------------------------------------- sampling


@dataclass
class Occurrence:
    rel: str
    line: int  # 0-based
    char: int  # UTF-16 column of the identifier's start
    text: str
    kind: str
    source_line: str


def _field_is(node: Any, parent: Any, name: str) -> bool:
    child = parent.child_by_field_name(name)
    return child is not None and child.id == node.id


def _ancestors(node: Any):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def module_names_py(text: str) -> set[str]:
    """Names a Python file binds to modules (`import a.b`, `import a as b`, `from . import m`)."""
    names = set()
    for m in re.finditer(r"^\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?", text, re.MULTILINE):
        names.add(m.group(2) or m.group(1).split(".")[0])
    for m in re.finditer(r"^\s*from\s+\.+\s+import\s+([\w, ]+)", text, re.MULTILINE):
        names.update(n.strip().split(" ")[0] for n in m.group(1).split(","))
    return names


def namespace_names_ts(text: str) -> set[str]:
    return set(re.findall(r"import\s+\*\s+as\s+(\w+)", text))


PY_DECL_PARENTS = {"function_definition", "class_definition"}
PY_SKIP_PARENTS = {
    "parameters",
    "lambda_parameters",
    "typed_parameter",
    "default_parameter",
    "typed_default_parameter",
    "list_splat_pattern",
    "dictionary_splat_pattern",
}


def classify_python(node: Any, modules: set[str]) -> str | None:
    parent = node.parent
    text = node.text.decode()
    if text in ("self", "cls") or parent is None:
        return None
    if parent.type in PY_DECL_PARENTS and _field_is(node, parent, "name"):
        return None
    if parent.type in PY_SKIP_PARENTS:
        return None
    if parent.type in (
        "typed_parameter",
        "default_parameter",
        "typed_default_parameter",
    ) and _field_is(node, parent, "name"):
        return None
    for anc in _ancestors(node):
        if anc.type in ("import_statement", "import_from_statement", "future_import_statement"):
            return "import"
    if parent.type == "attribute" and _field_is(node, parent, "attribute"):
        obj = parent.child_by_field_name("object")
        otext = obj.text.decode() if obj is not None else ""
        if otext in ("self", "cls") or otext.startswith("super("):
            return "member via self/this"
        if obj is not None and obj.type == "identifier" and otext in modules:
            return "module member"
        if obj is not None and obj.type == "identifier" and otext[:1].isupper():
            return "static/class member"
        return "typed receiver"
    for anc in _ancestors(node):
        if anc.type == "type":
            return "type reference"
    if parent.type == "call" and _field_is(node, parent, "function"):
        return "call"
    if parent.type == "keyword_argument" and _field_is(node, parent, "name"):
        return "keyword argument"
    return "name"


TS_NODES = {"identifier", "property_identifier", "type_identifier", "private_property_identifier"}


def classify_typescript(node: Any, namespaces: set[str]) -> str | None:
    parent = node.parent
    if parent is None:
        return None
    ptype = parent.type
    if _field_is(node, parent, "name") and (
        ptype.endswith(("declaration", "definition", "signature", "declarator"))
        or ptype in ("type_parameter", "class", "function_expression", "enum_assignment")
    ):
        return None
    if ptype in ("required_parameter", "optional_parameter") and _field_is(node, parent, "pattern"):
        return None
    if ptype == "pair" and _field_is(node, parent, "key"):
        return None
    if ptype in ("enum_body", "shorthand_property_identifier_pattern", "labeled_statement"):
        return None
    text = node.text.decode()
    if text.startswith("$"):
        return "$"
    for anc in _ancestors(node):
        if anc.type in ("import_statement",) or (
            anc.type == "export_statement" and anc.child_by_field_name("source")
        ):
            return "import"
    if ptype == "member_expression" and _field_is(node, parent, "property"):
        obj = parent.child_by_field_name("object")
        otext = obj.text.decode() if obj is not None else ""
        if obj is not None and obj.type in ("this", "super"):
            return "member via self/this"
        if (
            obj is not None
            and obj.type == "member_expression"
            and (obj.child_by_field_name("object") or obj).type == "this"
        ):
            return "member of this.field"
        if obj is not None and obj.type == "identifier" and otext in namespaces:
            return "module member"
        if obj is not None and obj.type == "identifier" and otext[:1].isupper():
            return "static/class member"
        return "typed receiver"
    if node.type == "type_identifier" or ptype == "nested_type_identifier":
        return "type reference"
    if ptype == "call_expression" and _field_is(node, parent, "function"):
        return "call"
    if ptype == "new_expression":
        return "new"
    return "name"


PHP_DECL_PARENTS = {
    "function_definition",
    "method_declaration",
    "class_declaration",
    "interface_declaration",
    "trait_declaration",
    "enum_declaration",
    "enum_case",
    "const_element",
    "property_element",
    "namespace_definition",
}


def classify_php(node: Any, _unused: set[str]) -> str | None:
    parent = node.parent
    if parent is None or parent.type in ("variable_name", "named_label_statement"):
        return None
    if parent.type in PHP_DECL_PARENTS:
        return None
    if parent.type == "namespace_name":  # a namespace segment of a qualified name
        return None
    for anc in _ancestors(node):
        if anc.type == "namespace_definition":
            return None
        if anc.type in ("namespace_use_declaration", "namespace_use_clause"):
            return "import"
    ptype = parent.type
    if ptype in (
        "member_call_expression",
        "member_access_expression",
        "nullsafe_member_call_expression",
        "nullsafe_member_access_expression",
    ) and _field_is(node, parent, "name"):
        obj = parent.child_by_field_name("object")
        if obj is not None and obj.text == b"$this":
            return "member via self/this"
        return "typed receiver"
    if ptype in (
        "scoped_call_expression",
        "scoped_property_access_expression",
        "class_constant_access_expression",
    ):
        scope = parent.child_by_field_name("scope") or parent.children[0]
        if scope.id == node.id:
            return "class reference"
        if scope.type == "relative_scope":
            return "member via self/this"
        return "static member"
    if ptype == "qualified_name":
        grand = parent.parent
        if grand is not None and grand.type in (
            "class_constant_access_expression",
            "scoped_call_expression",
        ):
            return "qualified class reference"
        return "qualified name"
    if ptype == "named_type" or any(
        a.type in ("named_type", "union_type") for a in _ancestors(node)
    ):
        return "type reference"
    if ptype == "function_call_expression":
        return "call"
    if ptype == "object_creation_expression":
        return "new"
    return "name"


CLASSIFIERS = {
    "python": ("python", {"identifier"}, classify_python, module_names_py),
    "typescript": ("typescript", TS_NODES, classify_typescript, namespace_names_ts),
    "php": ("php", {"name"}, classify_php, lambda _t: set()),
}


# bare reads of names (mostly locals and parameters) and keyword-argument names are not
# sampled: the measurement is about calls, member accesses, imports and type references
UNSAMPLED_KINDS = {"name", "keyword argument"}


def utf16_col(line: bytes, byte_col: int) -> int:
    return len(line[:byte_col].decode("utf-8", "replace").encode("utf-16-le")) // 2


def source_files(root: Path, project: Project) -> list[Path]:
    exts = EXTENSIONS[project.language]
    files = []
    for sub in project.roots:
        base = root / sub
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix in exts and path.is_file() and not EXTERNAL_PARTS & set(path.parts):
                if project.language == "typescript" and path.name.endswith(".d.ts"):
                    continue
                files.append(path)
    return files


IMPORT_NODES = {
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "namespace_use_declaration",
}
ImportSpans = dict[str, list[tuple[int, int]]]


def candidates(root: Path, project: Project) -> tuple[list[Occurrence], ImportSpans]:
    """The occurrences to sample, and the line spans of each file's import statements
    (a peer that answers an import line did not resolve the module: no ground truth)."""
    import tree_sitter_language_pack as tslp

    grammar, node_types, classify, prepass = CLASSIFIERS[project.language]
    found: list[Occurrence] = []
    imports: ImportSpans = defaultdict(list)
    for path in source_files(root, project):
        data = path.read_bytes()
        parser = tslp.get_parser("tsx" if path.suffix == ".tsx" else grammar)  # type: ignore[arg-type]
        tree = parser.parse(data)
        extra = prepass(data.decode("utf-8", "replace"))
        lines = data.split(b"\n")
        rel = path.relative_to(root).as_posix()
        stack = [tree.root_node]
        while stack:
            node = stack.pop()
            if node.type in IMPORT_NODES:
                imports[rel].append((node.start_point[0], node.end_point[0]))
            if node.type in node_types and node.start_point[0] == node.end_point[0]:
                kind = classify(node, extra)
                if kind and kind not in UNSAMPLED_KINDS:
                    row, col = node.start_point
                    line = lines[row]
                    found.append(
                        Occurrence(
                            rel,
                            row,
                            utf16_col(line, col),
                            node.text.decode(),
                            kind,
                            line.decode("utf-8", "replace").strip()[:120],
                        )
                    )
            if node.type in (
                "comment",
                "string",
                "string_content",
                "encapsed_string",
                "heredoc",
                "template_string",
            ):
                continue
            stack.extend(node.children)
    found.sort(key=lambda o: (o.rel, o.line, o.char))
    return found, imports


# ----------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class Target:
    path: str  # relative to the workspace when inside it, else absolute
    line: int
    char: int
    end_line: int
    end_char: int
    internal: bool


def to_targets(result: Any, root: Path) -> list[Target]:
    if not result:
        return []
    items = result if isinstance(result, list) else [result]
    out = []
    for item in items:
        uri = item.get("targetUri") or item.get("uri")
        rng = item.get("targetSelectionRange") or item.get("range")
        if not uri or not rng:
            continue
        path = Path(unquote(urlparse(uri).path))
        try:
            rel = path.resolve().relative_to(root.resolve())
            internal = not EXTERNAL_PARTS & set(rel.parts)
            name = rel.as_posix()
        except ValueError:
            internal, name = False, str(path)
        start, end = rng["start"], rng["end"]
        out.append(
            Target(name, start["line"], start["character"], end["line"], end["character"], internal)
        )
    return out


def same_place(a: Target, b: Target) -> bool:
    """The same definition: same file and the same first line (code-intel may give the
    whole definition's range, a peer its name; a decorator shifts the start by a few lines)."""
    if a.path != b.path:
        return False
    if a.line == b.line:
        return True
    # a multi-line range whose head (decorators, attributes, docblock) precedes the name
    for outer, inner in ((a, b), (b, a)):
        if outer.end_line > outer.line and outer.line < inner.line <= min(
            outer.end_line, outer.line + 6
        ):
            return True
    return False


def overlaps(a: Target, b: Target) -> bool:
    """The same occurrence (references): same file, line, and overlapping columns."""
    return a.path == b.path and a.line == b.line and a.char <= b.end_char and b.char <= a.end_char


# ----------------------------------------------------------------------------- asking


class Asker:
    """Opens files lazily (keeping a few open) and times definition requests."""

    def __init__(self, server: LspProcess, root: Path, keep_open: int = 8) -> None:
        self.server, self.root, self.keep_open = server, root, keep_open
        self.open: list[str] = []
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self.first_timeout = 120.0
        self.warm = False
        self.cold = 0.0

    async def ensure_open(self, rel: str) -> str:
        uri = (self.root / rel).as_uri()
        if rel in self.open:
            return uri
        path = self.root / rel
        await self.server.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": LANGUAGE_IDS[path.suffix],
                    "version": 1,
                    "text": path.read_text(encoding="utf-8", errors="replace"),
                }
            },
        )
        self.open.append(rel)
        if len(self.open) > self.keep_open:
            old = self.open.pop(0)
            await self.server.notify(
                "textDocument/didClose", {"textDocument": {"uri": (self.root / old).as_uri()}}
            )
        return uri

    async def ask(
        self, method: str, occ: Occurrence, extra: dict[str, Any] | None = None, timeout: float = 20
    ) -> list[Target] | None:
        """The targets, or None when the request failed or timed out (counted apart)."""
        uri = await self.ensure_open(occ.rel)
        col = occ.char + (1 if len(occ.text) > 1 else 0)
        params = {
            "textDocument": {"uri": uri},
            "position": {"line": occ.line, "character": col},
            **(extra or {}),
        }
        wait = max(timeout, self.first_timeout)
        start = time.perf_counter()
        try:
            result = await self.server.request(method, params, wait)
        except TimeoutError:
            self.errors[f"{method} timeout"] += 1
            return None
        except RuntimeError as exc:
            self.errors[f"{method} error: {str(exc)[:80]}"] += 1
            return None
        finally:
            self.first_timeout = 0
        if method == "textDocument/definition":
            if self.warm:
                self.latencies.append(time.perf_counter() - start)
            else:  # the first request loads the project (pyright, tsserver): reported apart
                self.cold = time.perf_counter() - start
            self.warm = True
        return to_targets(result, self.root)


class CachedPeer:
    """The reference server's answers, read from and written to `--peer-cache`: the peer
    is started only when an answer is missing, so re-measuring code-intel after a change
    costs no peer time and scores against exactly the same ground truth. External targets
    are stored with their absolute path and map back onto the scratch directory."""

    def __init__(
        self, project: Project, args: argparse.Namespace, root: Path, scratch: Path
    ) -> None:
        self.project, self.args, self.root, self.scratch = project, args, root, scratch
        self.path: Path | None = args.peer_cache
        self.answers: dict[str, Any] = {}
        if self.path is not None and self.path.exists():
            self.answers = json.loads(self.path.read_text(encoding="utf-8")).get(project.name, {})
        self.asker: Asker | None = None
        self.name = "cached"
        self.start_s = 0.0
        self.dirty = False

    @property
    def latencies(self) -> list[float]:
        return self.asker.latencies if self.asker else []

    @property
    def errors(self) -> Counter[str]:
        return self.asker.errors if self.asker else Counter()

    @property
    def cold(self) -> float:
        return self.asker.cold if self.asker else 0.0

    async def ask(
        self, method: str, occ: Occurrence, extra: dict[str, Any] | None = None, timeout: float = 20
    ) -> list[Target] | None:
        key = f"{method}|{occ.rel}|{occ.line}|{occ.char}"
        if key in self.answers:
            stored = self.answers[key]
            return None if stored is None else [Target(**t) for t in stored]
        if self.asker is None:
            t = time.monotonic()
            server = await start_peer(self.project.language, self.args.peers, self.root, self.scratch)
            self.name, self.start_s = server.name, round(time.monotonic() - t, 1)
            self.asker = Asker(server, self.root)
        found = await self.asker.ask(method, occ, extra, timeout)
        if found is not None or not self.asker.errors:  # a timeout is not cached
            self.answers[key] = None if found is None else [asdict(t) for t in found]
            self.dirty = True
        return found

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        data = json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}
        data[self.project.name] = self.answers
        self.path.write_text(json.dumps(data), encoding="utf-8")


@dataclass
class Position:
    occ: Occurrence
    peer: list[Target]
    external: bool
    ci: list[Target] = field(default_factory=list)
    outcome: str = ""
    first_right: bool = False
    miss_class: str = ""


def score(pos: Position) -> None:
    truth = [t for t in pos.peer if t.internal]
    ci = pos.ci
    matches = [any(same_place(c, t) for t in truth) for c in ci]
    if not ci:
        pos.outcome = "empty"
    elif all(matches):
        pos.outcome = "exact"
    elif any(matches):
        pos.outcome = "ambiguous"
    else:
        pos.outcome = "wrong"
    pos.first_right = bool(ci) and matches[0]


def in_import(target: Target, imports: ImportSpans) -> bool:
    return any(a <= target.line <= b for a, b in imports.get(target.path, ()))


def verdict(occ: Occurrence, targets: list[Target] | None, imports: ImportSpans) -> str:
    """scored (a target in the workspace), external, or why the position is dropped."""
    if not targets:
        return "unanswered"
    here = Target(occ.rel, occ.line, occ.char, occ.line, occ.char + len(occ.text), True)
    if any(t.internal and overlaps(t, here) for t in targets):
        return "declaration"
    if all(t.internal and in_import(t, imports) for t in targets):
        return "import line only (module not resolved by the peer)"
    return "scored" if any(t.internal for t in targets) else "external"


async def sample_with_peer(
    peer: CachedPeer | Asker, occs: list[Occurrence], imports: ImportSpans, want: int, deadline: float
) -> tuple[list[Position], list[Position], dict[str, int]]:
    """Ask the peer about the seeded sample until `want` in-workspace answers (at most 4x
    asked). Batches are asked in file order, so a file is opened once per batch, not once
    per position; the result keeps the seeded order and stops at the `want`-th answer, so
    it does not depend on the batch size."""
    answers: dict[int, list[Target] | None] = {}
    limit = min(len(occs), want * 4)
    done = 0
    while done < limit and time.monotonic() < deadline:
        batch = range(done, min(limit, done + (want * 3 // 2 if done == 0 else want // 2 + 1)))
        for i in sorted(batch, key=lambda i: (occs[i].rel, occs[i].line, occs[i].char)):
            if time.monotonic() > deadline:
                break
            answers[i] = await peer.ask("textDocument/definition", occs[i])
            if len(answers) % 50 == 0:
                print(f"  peer: {len(answers)} asked", file=sys.stderr, flush=True)
        done = batch.stop
        if sum(verdict(occs[i], a, imports) == "scored" for i, a in answers.items()) >= want:
            break
    scored: list[Position] = []
    external: list[Position] = []
    dropped: Counter[str] = Counter()
    for i in range(done):
        if len(scored) >= want:
            break
        occ, targets = occs[i], answers.get(i)
        kind = verdict(occ, targets, imports)
        if kind == "scored":
            scored.append(Position(occ, targets or [], False))
        elif kind == "external":
            external.append(Position(occ, targets or [], True))
        else:
            dropped[kind] += 1
    return scored, external, dict(dropped)


async def classify_miss(ci: LspProcess, pos: Position) -> str:
    if pos.occ.text.startswith("$") and pos.occ.kind == "$":
        return "$"
    if pos.outcome in ("wrong", "empty"):
        try:
            symbols = await ci.request("workspace/symbol", {"query": pos.occ.text}, 20) or []
        except (TimeoutError, RuntimeError):
            symbols = []
        truth = [t for t in pos.peer if t.internal]
        found = to_targets(
            [
                {"uri": s["location"]["uri"], "range": s["location"].get("range")}
                for s in symbols
                if "range" in s.get("location", {})
            ],
            ci.root,
        )
        if not any(same_place(f, t) for f in found for t in truth):
            return "not indexed"
    return pos.occ.kind


async def references(
    peer: CachedPeer | Asker,
    ci: Asker,
    positions: list[Position],
    rng: random.Random,
    roots: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Precision/recall of code-intel's references against the peer's, on REF_SYMBOLS symbols.
    Both sides are compared inside the project's roots (the peer's project: ky's tsconfig
    holds source/ only, click's examples/ are no part of its package), so an occurrence
    the peer cannot see does not count against code-intel's precision."""

    def inside(t: Target) -> bool:
        return t.internal and (
            not roots or any(r in (".", "") or t.path.startswith(r.rstrip("/") + "/") for r in roots)
        )

    order = positions[:]
    rng.shuffle(order)
    seen: set[tuple[str, int]] = set()
    rows = []
    tp = n_ci = n_peer = 0
    extra = {"context": {"includeDeclaration": True}}
    for pos in order:
        if len(rows) >= REF_SYMBOLS:
            break
        key = next(((t.path, t.line) for t in pos.peer if t.internal), None)
        if key is None or key in seen:
            continue
        seen.add(key)
        want = await peer.ask("textDocument/references", pos.occ, extra, timeout=60)
        if not want:
            continue
        want = [t for t in want if inside(t)]
        if not want:
            continue
        got = await ci.ask("textDocument/references", pos.occ, extra, timeout=60) or []
        got = [t for t in got if inside(t)]
        hit_ci = sum(any(overlaps(g, w) for w in want) for g in got)
        hit_peer = sum(any(overlaps(w, g) for g in got) for w in want)
        tp += hit_ci
        n_ci += len(got)
        n_peer += len(want)
        rows.append(
            {
                "at": f"{pos.occ.rel}:{pos.occ.line + 1}",
                "name": pos.occ.text,
                "peer": len(want),
                "code_intel": len(got),
                "missing": [f"{w.path}:{w.line + 1}:{w.char + 1}" for w in want if not any(overlaps(w, g) for g in got)],
                "extra": [f"{g.path}:{g.line + 1}:{g.char + 1}" for g in got if not any(overlaps(g, w) for w in want)],
                "precision": hit_ci / len(got) if got else 0.0,
                "recall": hit_peer / len(want) if want else 0.0,
            }
        )
    return {
        "symbols": len(rows),
        "precision_micro": tp / n_ci if n_ci else 0.0,
        "recall_macro": statistics.mean(r["recall"] for r in rows) if rows else 0.0,
        "precision_macro": statistics.mean(r["precision"] for r in rows) if rows else 0.0,
        "rows": rows,
    }


def export(project: Project, corpora: Path, dest: Path, peers: Path) -> Path:
    repo = corpora / project.name
    if not (repo / ".git").exists() and not (repo / "HEAD").exists():
        raise SystemExit(
            f"error: no clone of {project.url} at {repo}; run: git clone {project.url} {repo}"
        )
    check = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", project.commit + "^{commit}"],
        capture_output=True,
        check=False,
    )
    if check.returncode != 0:
        raise SystemExit(
            f"error: {repo} lacks commit {project.commit}; run: git -C {repo} fetch origin"
        )
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", project.commit, *project.archive_paths],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    for package in project.ts_config_packages:  # a tsconfig `extends` the project installs with npm
        src = peers / "node_modules" / package
        if not src.is_dir():
            raise SystemExit(f"error: {src} missing; npm install --prefix {peers} {package}")
        link = dest / "node_modules" / package
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(src)
    return dest


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")
    )


async def run_project(project: Project, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    t0 = time.monotonic()
    root = export(project, args.corpora, scratch / project.name, args.peers)
    occs, imports = candidates(root, project)
    rng = random.Random(f"{SEED}:{project.name}")
    rng.shuffle(occs)
    report: dict[str, Any] = {
        "project": project.name,
        "language": project.language,
        "url": project.url,
        "commit": project.commit,
        "candidates": len(occs),
        "errors": {},
    }
    print(
        f"[{project.name}] {len(occs)} candidate occurrences in {len(source_files(root, project))} files",
        file=sys.stderr,
        flush=True,
    )

    # the reference server first, alone
    peer = CachedPeer(project, args, root, scratch)
    try:
        t = time.monotonic()
        scored, external, dropped = await sample_with_peer(
            peer, occs, imports, args.per_project, time.monotonic() + args.project_timeout
        )
        print(
            f"[{project.name}] peer: {len(scored)} scored, {len(external)} external, dropped {dropped} "
            f"({time.monotonic() - t:.0f}s)",
            file=sys.stderr,
            flush=True,
        )
    except (ServerGone, TimeoutError, OSError) as exc:
        report["error"] = f"reference server failed: {exc!r}"
        await stop_all()
        return report
    finally:
        peer.save()

    ci_srv = None
    ci: Asker | None = None
    try:
        t = time.monotonic()
        ci_srv = await start_code_intel(args.code_intel, root, scratch)
        report["code_intel_start_s"] = round(time.monotonic() - t, 1)
        ci = Asker(ci_srv, root)
        for pos in sorted(scored + external, key=lambda p: (p.occ.rel, p.occ.line, p.occ.char)):
            pos.ci = await ci.ask("textDocument/definition", pos.occ) or []
        for pos in scored:
            score(pos)
            if pos.outcome != "exact":
                pos.miss_class = await classify_miss(ci_srv, pos)
        refs = await references(
            peer, ci, scored, random.Random(f"{SEED}:refs:{project.name}"), project.ref_roots or project.roots
        )
    except (ServerGone, TimeoutError, OSError) as exc:
        report["error"] = f"code-intel failed: {exc!r}"
        refs = None
    finally:
        await stop_all()
        peer.save()

    report.update(
        {
            "peer": peer.name,
            "peer_start_s": peer.start_s,
            "dropped": dropped,
            "positions": [_pos_json(p) for p in scored],
            "external": [_pos_json(p) for p in external],
            "references": refs,
            "latency_ms": {
                "peer": [round(x * 1000, 2) for x in peer.latencies],
                "code_intel": [round(x * 1000, 2) for x in ci.latencies] if ci else [],
            },
            "first_request_ms": {
                "peer": round(peer.cold * 1000),
                "code_intel": round(ci.cold * 1000) if ci else None,
            },
            "errors": {"peer": dict(peer.errors), "code_intel": dict(ci.errors) if ci else {}},
            "seconds": round(time.monotonic() - t0, 1),
        }
    )
    return report


async def stop_all() -> None:
    """Stop every server still running (after a failure or a project's timeout too)."""
    for server in list(LspProcess.running):
        await server.stop()


def _pos_json(p: Position) -> dict[str, Any]:
    return {
        "at": f"{p.occ.rel}:{p.occ.line + 1}:{p.occ.char + 1}",
        "name": p.occ.text,
        "kind": p.occ.kind,
        "line": p.occ.source_line,
        "outcome": p.outcome,
        "first_right": p.first_right,
        "miss_class": p.miss_class,
        "peer": [asdict(t) for t in p.peer],
        "code_intel": [asdict(t) for t in p.ci],
    }


# ----------------------------------------------------------------------------- report


def language_table(reports: list[dict[str, Any]]) -> dict[str, Any]:
    positions = [p for r in reports for p in r.get("positions", [])]
    external = [p for r in reports for p in r.get("external", [])]
    n = len(positions)
    count = Counter(p["outcome"] for p in positions)
    amb = [len(p["code_intel"]) for p in positions if p["outcome"] == "ambiguous"]
    refs = [r["references"] for r in reports if r.get("references")]
    rows = [row for ref in refs for row in ref["rows"]]
    ext_stranger = sum(any(t["internal"] for t in p["code_intel"]) for p in external)
    lat_peer = [x for r in reports for x in r.get("latency_ms", {}).get("peer", [])]
    lat_ci = [x for r in reports for x in r.get("latency_ms", {}).get("code_intel", [])]
    misses = [p for p in positions if p["outcome"] != "exact"]
    by_class: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in misses:
        by_class[p["miss_class"]].append(p)
    kinds = Counter(p["kind"] for p in positions)
    kinds_exact = Counter(p["kind"] for p in positions if p["outcome"] == "exact")

    def share(k: str) -> float:
        return count[k] / n if n else 0.0

    return {
        "n": n,
        "exact": share("exact"),
        "ambiguous": share("ambiguous"),
        "ambiguous_avg_targets": statistics.mean(amb) if amb else 0.0,
        "wrong": share("wrong"),
        "empty": share("empty"),
        "first_right": sum(p["first_right"] for p in positions) / n if n else 0.0,
        "external_n": len(external),
        "external_workspace_answer": ext_stranger / len(external) if external else 0.0,
        "external_examples": [
            f"{p['at']} `{p['name']}` → {p['code_intel'][0]['path']}:{p['code_intel'][0]['line'] + 1} "
            f"(reference: {p['peer'][0]['path'].rsplit('/', 1)[-1]}): {p['line']}"
            for p in external
            if any(t["internal"] for t in p["code_intel"])
        ][:3],
        "refs_symbols": len(rows),
        "refs_precision": statistics.mean(r["precision"] for r in rows) if rows else 0.0,
        "refs_recall": statistics.mean(r["recall"] for r in rows) if rows else 0.0,
        "latency_peer": (pct(lat_peer, 0.5), pct(lat_peer, 0.95)),
        "latency_ci": (pct(lat_ci, 0.5), pct(lat_ci, 0.95)),
        "misses": {
            k: {
                "n": len(v),
                "share": len(v) / len(misses),
                "examples": [
                    f"{p['at']} `{p['name']}` {p['outcome']} ({len(p['code_intel'])} targets): "
                    f"{p['line']}"
                    for p in v[:3]
                ],
            }
            for k, v in sorted(by_class.items(), key=lambda kv: -len(kv[1]))
        },
        "by_kind": {k: {"n": kinds[k], "exact": kinds_exact[k] / kinds[k]} for k in sorted(kinds)},
    }


def _pc(x: float) -> str:
    return f"{100 * x:.1f} %"


def project_line(r: dict[str, Any]) -> str:
    """One project's figures on one line (also printed as each project finishes)."""
    if r.get("error") and not r.get("positions"):
        return f"* {r['project']} ({r['language']}): ERROR {r['error']}"
    t, pc = language_table([r]), _pc
    return (
        f"* {r['project']} @ {r['commit'][:10]} ({r.get('peer')}): {t['n']} positions, exact {pc(t['exact'])}, "
        f"ambiguous {pc(t['ambiguous'])}, wrong {pc(t['wrong'])}, empty {pc(t['empty'])}, first right "
        f"{pc(t['first_right'])}; refs P/R {pc(t['refs_precision'])}/{pc(t['refs_recall'])}; "
        f"dropped {r.get('dropped')}; "
        f"start peer {r.get('peer_start_s')} s, code-intel {r.get('code_intel_start_s')} s; "
        f"{r.get('seconds')} s"
        + (f"; ERROR {r['error']}" if r.get("error") else "")
        + (f"; request errors {r['errors']}" if any(r.get("errors", {}).values()) else "")
    )


def render(reports: list[dict[str, Any]], languages: list[str]) -> str:
    out = []
    pc = _pc
    out.append(
        "| language | positions | exact | ambiguous (avg targets) | wrong | empty | first target right "
        "| refs precision / recall (symbols) | definition p50/p95 ms: code-intel · peer | external: n, answered in workspace |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    tables = {}
    for lang in languages:
        reps = [r for r in reports if r["language"] == lang]
        if not reps:
            continue
        t = tables[lang] = language_table(reps)
        out.append(
            f"| {lang} | {t['n']} | {pc(t['exact'])} | {pc(t['ambiguous'])} ({t['ambiguous_avg_targets']:.1f}) "
            f"| {pc(t['wrong'])} | {pc(t['empty'])} | {pc(t['first_right'])} "
            f"| {pc(t['refs_precision'])} / {pc(t['refs_recall'])} ({t['refs_symbols']}) "
            f"| {t['latency_ci'][0]:.1f}/{t['latency_ci'][1]:.1f} · {t['latency_peer'][0]:.1f}/{t['latency_peer'][1]:.1f} "
            f"| {t['external_n']}, {pc(t['external_workspace_answer'])} |"
        )
    out.append("")
    out.append("Per project:")
    out.extend(project_line(r) for r in reports)
    for lang, t in tables.items():
        out.append("")
        out.append(f"### {lang}: exact by occurrence kind")
        out.append(", ".join(f"{k} {pc(v['exact'])} of {v['n']}" for k, v in t["by_kind"].items()))
        out.append(f"### {lang}: misses by class (share of misses)")
        for k, v in t["misses"].items():
            out.append(f"* **{k}** {v['n']} ({pc(v['share'])})")
            for ex in v["examples"]:
                out.append(f"  * {ex}")
        if t["external_examples"]:
            out.append(f"### {lang}: external targets answered with a workspace definition")
            out.extend(f"* {ex}" for ex in t["external_examples"])
    return "\n".join(out)


def print_reports(args: argparse.Namespace) -> int:
    """Re-render saved `--json` results (no servers): to compare runs or re-filter them."""
    for name in args.report:
        try:
            data = json.loads(Path(name).read_text(encoding="utf-8"))
            reports = [
                r
                for r in data["projects"]
                if r["language"] in args.languages
                and (not args.projects or r["project"] in args.projects)
            ]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"error: {name} is not a navigation_bench --json file: {exc}", file=sys.stderr)
            return 2
        print(f"## {name} (code-intel: {data.get('code_intel')})")
        print(
            render(
                reports,
                [lang for lang in ("python", "typescript", "php") if lang in args.languages],
            )
        )
        print()
    return 0


async def main_async(args: argparse.Namespace) -> int:
    projects = [
        p
        for p in PROJECTS
        if p.language in args.languages and (not args.projects or p.name in args.projects)
    ]
    if not projects:
        print(
            "error: no project matches --languages/--projects; known: "
            + ", ".join(f"{p.name} ({p.language})" for p in PROJECTS),
            file=sys.stderr,
        )
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="navbench-"))
    reports: list[dict[str, Any]] = []
    try:
        for project in projects:
            try:
                reports.append(
                    await asyncio.wait_for(
                        run_project(project, args, scratch), args.project_timeout + 900
                    )
                )
            except TimeoutError:
                await stop_all()
                reports.append(
                    {
                        "project": project.name,
                        "language": project.language,
                        "commit": project.commit,
                        "error": "project timed out",
                    }
                )
            print(project_line(reports[-1]), file=sys.stderr, flush=True)
            if args.json:  # after each project, so a later failure keeps what was measured
                write_json(args, reports)
    finally:
        await stop_all()
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
        else:
            print(f"scratch kept in {scratch}", file=sys.stderr)
    print(
        f"code-intel: {args.code_intel}; seed {SEED}; {args.per_project} positions per project; "
        f"machine load {os.getloadavg()[0]:.1f} (2 cores)"
    )
    print(
        render(
            reports, [lang for lang in ("python", "typescript", "php") if lang in args.languages]
        )
    )
    if args.json:
        write_json(args, reports)
    return 0


def write_json(args: argparse.Namespace, reports: list[dict[str, Any]]) -> None:
    Path(args.json).write_text(
        json.dumps({"code_intel": args.code_intel, "seed": SEED, "projects": reports}, indent=1)
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--code-intel",
        default=shutil.which("code-intel") or "code-intel",
        help="the code-intel executable to measure (another worktree's .venv/bin/code-intel)",
    )
    ap.add_argument(
        "--peers", type=Path, default=DEFAULT_PEERS, help="npm prefix of the reference servers"
    )
    ap.add_argument(
        "--corpora", type=Path, default=DEFAULT_CORPORA, help="directory holding the clones"
    )
    ap.add_argument(
        "--languages", type=lambda s: s.split(","), default=["python", "typescript", "php"]
    )
    ap.add_argument("--projects", type=lambda s: s.split(","), default=None)
    ap.add_argument("--per-project", type=int, default=PER_PROJECT)
    ap.add_argument(
        "--project-timeout", type=float, default=900, help="seconds of peer sampling per project"
    )
    ap.add_argument("--json", help="also write the full results (every position) to this file")
    ap.add_argument(
        "--peer-cache",
        type=Path,
        help="JSON file of the reference servers' answers: read when present, completed when not "
        "(re-measure code-intel against the same ground truth without the peers)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the scratch copies and server logs")
    ap.add_argument(
        "--report", nargs="+", metavar="JSON", help="only print the tables of saved --json results"
    )
    args = ap.parse_args(argv)
    bad = set(args.languages) - set(EXTENSIONS)
    if bad:
        ap.error(f"unknown language(s) {sorted(bad)}; choose from python,typescript,php")
    if args.per_project < 1:
        ap.error("--per-project must be at least 1")
    exe = shutil.which(args.code_intel) or (
        args.code_intel if Path(args.code_intel).is_file() else None
    )
    if not exe and not args.report:
        ap.error(f"code-intel executable {args.code_intel!r} not found; pass --code-intel PATH")
    # absolute: the servers run in the project's scratch copy
    args.code_intel = str(Path(exe).resolve()) if exe else exe
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report:
        return print_reports(args)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
