"""The local endpoint serves nobody without the token, the store is private, and every
request gets a reply: probed with raw bytes against the real server, the way a hostile
local user or a broken client would."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import stat
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from code_intel.lsp_server import endpoint

from tests.e2e.lsp_helpers import make_mixed_workspace
from tests.e2e.wire import SERVER, Wire, frame, initialize, notification, request

SERVICE_PY = "backend/shop/orders/service.py"
SECRET = "TOP_SECRET_VALUE_4242"


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory other users may traverse (unlike pytest's 0700 tmp_path), as a
    checkout in a home directory usually is."""
    path = Path(tempfile.mkdtemp(prefix="ci-sec-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _workspace(parent: Path) -> Path:
    root = make_mixed_workspace(parent / "repo")
    (root / "backend/secret.py").write_text(f'API_KEY = "{SECRET}"\n')
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


async def _open_editor(root: Path) -> Wire:
    editor = await Wire.spawn(cwd=root)
    reply = await editor.call(1, "initialize", initialize(1, root)["params"], timeout=60)
    assert reply is not None and "result" in reply, reply
    await editor.send(notification("initialized"))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    n = 100
    while loop.time() < deadline:
        n += 1
        status = await editor.call(n, "codeIntel/indexStatus", {})
        assert status is not None
        if status["result"]["state"] == "ready" and endpoint.read_info(root) is not None:
            return editor
        await asyncio.sleep(0.2)
    raise AssertionError("the editor's server never became ready")


@pytest.fixture
async def editor(shared_dir: Path) -> AsyncIterator[Wire]:
    root = _workspace(shared_dir)
    wire = await _open_editor(root)
    wire.root = root  # type: ignore[attr-defined]
    yield wire
    await wire.close()


@pytest.fixture
async def tcp_editor(shared_dir: Path) -> AsyncIterator[Wire]:
    """A workspace whose socket path is too long for AF_UNIX: the TCP fallback."""
    deep = shared_dir / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    for p in (shared_dir / ("d" * 60), deep):
        p.chmod(0o755)
    root = _workspace(deep)
    wire = await _open_editor(root)
    wire.root = root  # type: ignore[attr-defined]
    info = endpoint.read_info(root)
    assert info is not None and info.endpoint.startswith("tcp:127.0.0.1:"), info
    yield wire
    await wire.close()


STRANGER_REQUESTS = [
    request(11, "codeIntel/searchText", {"pattern": SECRET}),
    request(12, "codeIntel/searchText", {"pattern": "token", "path": ".code-intel/server.json"}),
    request(13, "codeIntel/session/list_sessions", {}),
    request(14, "codeIntel/session/start_session", {"task": "planted by a stranger"}),
    request(15, "workspace/symbol", {"query": "Order"}),
]


async def _sessions(editor: Wire) -> list:
    reply = await editor.call(900, "codeIntel/session/list_sessions", {})
    assert reply is not None and "result" in reply, reply
    result = reply["result"]
    return result.get("sessions", result) if isinstance(result, dict) else result


async def _assert_stranger_gets_nothing(editor: Wire, info: endpoint.ServerInfo) -> None:
    before = await _sessions(editor)
    # 1. No initialize at all.
    stranger = await Wire.connect(info.endpoint)
    await stranger.send(*STRANGER_REQUESTS)
    assert await stranger.everything(timeout=3) == []
    assert await stranger.closed()
    await stranger.close()
    # 2. A wrong token, with requests pipelined right behind it.
    stranger = await Wire.connect(info.endpoint)
    await stranger.send(initialize(1, Path(info.workspace), "wrong-token"), notification("initialized"), *STRANGER_REQUESTS)
    replies = await stranger.everything(timeout=3)
    assert [r.get("id") for r in replies if "id" in r] == [1], replies
    assert "token" in replies[-1]["error"]["message"]
    assert SECRET not in str(replies)
    assert await stranger.closed()
    await stranger.close()
    # 3. No token at all.
    stranger = await Wire.connect(info.endpoint)
    await stranger.send(initialize(1, Path(info.workspace)), *STRANGER_REQUESTS)
    replies = await stranger.everything(timeout=3)
    assert [r.get("id") for r in replies if "id" in r] == [1], replies
    await stranger.close()
    assert await _sessions(editor) == before  # nothing was planted
    # The owner's token still works.
    friend = await Wire.connect(info.endpoint)
    await friend.send(initialize(1, Path(info.workspace), info.token))
    assert "result" in (await friend.reply_to(1))
    reply = await friend.call(2, "codeIntel/searchText", {"pattern": SECRET})
    assert reply is not None and reply["result"]["total"] == 1
    await friend.close()


async def test_the_unix_socket_serves_nobody_without_the_token(editor: Wire):
    info = endpoint.read_info(editor.root)  # type: ignore[attr-defined]
    assert info is not None and info.endpoint.startswith("unix:")
    await _assert_stranger_gets_nothing(editor, info)


async def test_the_tcp_fallback_serves_nobody_without_the_token(tcp_editor: Wire):
    info = endpoint.read_info(tcp_editor.root)  # type: ignore[attr-defined]
    assert info is not None
    await _assert_stranger_gets_nothing(tcp_editor, info)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _connect_tcp(port: int, timeout: float = 30) -> Wire:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            return await Wire.connect(f"tcp:127.0.0.1:{port}")
        except OSError:
            assert asyncio.get_running_loop().time() < deadline, "lsp --tcp never listened"
            await asyncio.sleep(0.2)


async def test_lsp_tcp_requires_the_token_it_writes(shared_dir: Path):
    root = _workspace(shared_dir)
    port = _free_port()
    token_file = shared_dir / "tokens" / "lsp.token"
    proc = await asyncio.create_subprocess_exec(
        SERVER, "lsp", "--tcp", f"127.0.0.1:{port}", "--token-file", str(token_file),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )
    try:
        stranger = await _connect_tcp(port)
        assert token_file.exists() and stat.S_IMODE(token_file.stat().st_mode) == 0o600
        await stranger.send(initialize(1, root), notification("initialized"),
                            request(2, "codeIntel/searchText", {"pattern": SECRET}))
        replies = await stranger.everything(timeout=3)
        assert [r.get("id") for r in replies if "id" in r] == [1] and "error" in replies[0]
        assert SECRET not in str(replies)
        await stranger.close()
        assert proc.returncode is None  # a refused stranger does not end the server
        owner = await _connect_tcp(port)
        await owner.send(initialize(1, root, token_file.read_text().strip()))
        assert "result" in (await owner.reply_to(1, timeout=60))
        await owner.send(notification("initialized"))
        reply = await owner.call(2, "codeIntel/searchText", {"pattern": SECRET})
        assert reply is not None and reply["result"]["total"] == 1
        await owner.close()
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


def test_lsp_tcp_insecure_must_be_asked_for_explicitly():
    result = subprocess.run([SERVER, "lsp", "--insecure"], check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--tcp" in result.stderr and "Traceback" not in result.stderr


async def test_the_store_is_private_and_an_old_store_is_tightened(shared_dir: Path):
    root = _workspace(shared_dir)
    state = root / ".code-intel"
    state.mkdir(mode=0o755)
    (state / "index.db").write_bytes(b"")  # an old, world-readable store
    (state / "index.db").chmod(0o644)
    os.chmod(state, 0o755)
    editor = await _open_editor(root)
    try:
        await editor.call(50, "codeIntel/query", {"text": "order total"}, timeout=60)
        assert stat.S_IMODE(state.stat().st_mode) == 0o700
        loose = [
            str(p.relative_to(state))
            for p in state.rglob("*")
            if stat.S_IMODE(p.lstat().st_mode) & 0o077 and not p.is_symlink()
        ]
        assert loose == []
    finally:
        await editor.close()


# ---- another Unix user ---------------------------------------------------------------


@pytest.fixture
def other_user() -> Iterator[str]:
    if os.geteuid() != 0 or shutil.which("useradd") is None or shutil.which("runuser") is None:
        pytest.skip("needs root with useradd and runuser to create a second Unix user (CI runs as root)")
    name = f"cisec{os.getpid() % 100000}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/bin/false", name], check=True)
    try:
        yield name
    finally:
        subprocess.run(["userdel", name], check=False)


PROBE = r"""
import json, socket, sys
from pathlib import Path
state = Path(sys.argv[1]); endpoint = sys.argv[2]
found = []
for name in ("server.json", "index.db", "lexical.db", "sessions.db"):
    try:
        (state / name).read_bytes(); found.append("read " + name)
    except OSError:
        pass
try:
    list(state.iterdir()); found.append("listed the store")
except OSError:
    pass
kind, _, where = endpoint.partition(":")
try:
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX); s.connect(where)
    else:
        host, _, port = where.rpartition(":"); s = socket.create_connection((host, int(port)))
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "codeIntel/searchText",
                       "params": {"pattern": "TOP_SECRET"}}).encode()
    s.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    s.settimeout(3)
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
    except OSError:
        pass
    if data:
        found.append("answered: " + data.decode(errors="replace")[:200])
except OSError:
    pass
print(json.dumps(found))
"""


def _system_python() -> str:
    """The probe needs only the standard library; the other user may not be able to
    run this project's virtualenv."""
    found = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    if found is None:
        pytest.skip("no system python3 for the other user's probe")
    return found


async def _probe_as(user: str, root: Path) -> list[str]:
    info = endpoint.read_info(root)
    assert info is not None
    proc = await asyncio.create_subprocess_exec(
        "runuser", "-u", user, "--", _system_python(), "-I", "-c", PROBE, str(root / ".code-intel"), info.endpoint,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd="/",
    )
    out, errors = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, errors.decode()
    import json

    return json.loads(out)


async def test_another_user_cannot_reach_the_unix_endpoint_or_the_store(editor: Wire, other_user: str):
    root: Path = editor.root  # type: ignore[attr-defined]
    assert (root / SERVICE_PY).stat().st_mode & 0o004  # the checkout itself is readable
    assert await _probe_as(other_user, root) == []


async def test_another_user_cannot_use_the_tcp_fallback(tcp_editor: Wire, other_user: str):
    root: Path = tcp_editor.root  # type: ignore[attr-defined]
    assert await _probe_as(other_user, root) == []


# ---- every request gets a reply --------------------------------------------------------


@pytest.fixture
async def stdio(shared_dir: Path) -> AsyncIterator[Wire]:
    root = _workspace(shared_dir)
    wire = await _open_editor(root)
    wire.root = root  # type: ignore[attr-defined]
    yield wire
    await wire.close()


async def test_requests_before_initialize_get_server_not_initialized(shared_dir: Path):
    root = _workspace(shared_dir)
    wire = await Wire.spawn(cwd=root)
    try:
        for n, (method, params) in enumerate(
            [("codeIntel/searchText", {"pattern": "x"}), ("textDocument/definition", {}), ("shutdown", None)]
        ):
            reply = await wire.call(n, method, params, timeout=20)
            assert reply is not None and reply["error"]["code"] == -32002, reply
            assert "RuntimeError" not in str(reply)
        reply = await wire.call(9, "initialize", initialize(9, root)["params"], timeout=60)
        assert reply is not None and "result" in reply
    finally:
        await wire.close()


BAD_DEFINITION_PARAMS = [
    ({"textDocument": {"uri": 42}, "position": {"line": 0, "character": 0}}, None),  # lsprotocol reads "42"
    ({"textDocument": {"uri": "file:///x.py"}, "position": {"line": "zero", "character": 0}}, "position.line"),
    ({"textDocument": {"uri": "file:///x.py"}, "position": "3:4"}, "position"),
    ({"position": {"line": 0, "character": 0}}, "textDocument"),
    ([1, 2], "params"),
]


async def test_params_that_fail_to_structure_answer_invalid_params_with_the_id(stdio: Wire):
    for n, (params, field) in enumerate(BAD_DEFINITION_PARAMS, start=200):
        reply = await stdio.call(n, "textDocument/definition", params, timeout=10)
        assert reply is not None, f"no reply to definition with {params!r}"
        if field is None:
            continue
        assert "error" in reply, (params, reply)
        assert reply["error"]["code"] == -32602 and field in reply["error"]["message"], reply
    reply = await stdio.call(299, "codeIntel/searchText", {"pattern": 5}, timeout=10)
    assert reply is not None and reply["error"]["code"] == -32602 and "pattern" in reply["error"]["message"]


async def test_a_broken_frame_is_skipped_and_the_next_message_served(stdio: Wire):
    good = request(301, "codeIntel/searchText", {"pattern": SECRET})
    body = frame(good).split(b"\r\n\r\n", 1)[1]
    broken = [
        b"Content-Length: 10\r\n\r\n" + body,  # too short
        b"Content-Type: application/json\r\n\r\n" + body,  # no length
        b"Content-Length: 5\r\n\r\n{{{{{",  # not JSON
        frame([1, 2, 3]),  # JSON, not JSON-RPC
    ]
    for n, junk in enumerate(broken):
        msg = request(310 + n, "codeIntel/searchText", {"pattern": SECRET})
        await stdio.send(junk, frame(msg))
        reply = await stdio.reply_to(310 + n, timeout=10)
        assert reply is not None and reply["result"]["total"] == 1, (junk, reply)
    # A length that is too long swallows the start of the next frame; it is read again.
    await stdio.send(b"Content-Length: 300\r\n\r\n" + body, frame(request(320, "codeIntel/indexStatus", {})),
                     frame(request(321, "codeIntel/searchText", {"pattern": SECRET})) + b" " * 300)
    reply = await stdio.reply_to(321, timeout=10)
    assert reply is not None and reply["result"]["total"] == 1


# ---- paths the OS cannot take ----------------------------------------------------------


def _add_symlink_loop(root: Path) -> None:
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")


BAD_PATHS = [
    ("backend/a\x00b.py", "NUL byte"),
    ("loop1", "symlink loop"),
    ("x" * 5000, "longer than"),
    ("backend/" + "y" * 300 + ".py", ""),  # a name no file can have: "not in the index"
]
PATH_REQUESTS = [
    ("codeIntel/analyzeStructure", lambda p: {"path": p}),
    ("codeIntel/getFunctionAtLine", lambda p: {"path": p, "line": 1}),
    ("codeIntel/getSymbols", lambda p: {"path": p}),
    ("codeIntel/searchText", lambda p: {"pattern": "def", "path": p}),
]


async def test_unusable_paths_answer_a_clear_error_over_lsp(stdio: Wire):
    _add_symlink_loop(stdio.root)  # type: ignore[attr-defined]
    n = 400
    for method, params in PATH_REQUESTS:
        for path, why in BAD_PATHS:
            n += 1
            reply = await stdio.call(n, method, params(path), timeout=20)
            assert reply is not None, (method, path[:40])
            if method == "codeIntel/getSymbols" and "result" in reply:  # a prefix filter matching nothing
                assert reply["result"]["symbols"] == []
                continue
            assert "error" in reply, (method, path[:40], reply)
            error = reply["error"]
            assert error["code"] == -32602 and "Traceback" not in str(error), (method, error)
            if method != "codeIntel/getSymbols":  # a prefix filter: an unusable one matches nothing
                assert why in error["message"], (method, path[:40], error)
    reply = await stdio.call(499, "codeIntel/searchText", {"pattern": SECRET}, timeout=20)
    assert reply is not None and reply["result"]["total"] == 1


@pytest.mark.parametrize("command", [["outline"], ["grep", "def", "--path"]])
@pytest.mark.parametrize(("path", "why"), [("loop1", "symlink loop"), ("z" * 5000, "longer than"),
                                           ("backend/" + "y" * 300 + ".py", "too long")])
def test_unusable_paths_answer_a_clear_error_in_the_cli(shared_dir: Path, command: list[str], path: str, why: str):
    root = _workspace(shared_dir)
    _add_symlink_loop(root)
    result = subprocess.run([SERVER, *command, path], cwd=root, check=False, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2, result.stderr[-500:]
    assert why in result.stderr and "Traceback" not in result.stderr, result.stderr[-500:]


# ---- bounded work per request ----------------------------------------------------------


def _nested_defs(depth: int) -> str:
    lines = ["    " * i + f"def level{i}(a, b):" for i in range(depth)]
    return "\n".join([*lines, "    " * depth + "return a + b", ""])


def _depth(symbols: list[dict]) -> int:
    return 1 + max((_depth(s.get("children") or []) for s in symbols), default=0) if symbols else 0


async def test_five_hundred_nested_definitions_answer_document_symbol_with_bounded_depth(stdio: Wire):
    root: Path = stdio.root  # type: ignore[attr-defined]
    path = root / "backend/deep.py"
    text = _nested_defs(500)
    path.write_text(text)
    doc = path.as_uri()
    await stdio.send(notification("textDocument/didOpen", {
        "textDocument": {"uri": doc, "languageId": "python", "version": 1, "text": text}}))
    reply = await stdio.call(600, "textDocument/documentSymbol", {"textDocument": {"uri": doc}}, timeout=30)
    assert reply is not None and "result" in reply, reply
    symbols = reply["result"]

    def names(nodes: list[dict]) -> list[str]:
        return [n for s in nodes for n in (s["name"], *names(s.get("children") or []))]

    assert sorted(names(symbols)) == sorted(f"level{i}" for i in range(500))  # none lost
    assert 10 <= _depth(symbols) <= 64
    reply = await stdio.call(601, "codeIntel/analyzeStructure", {"path": "backend/deep.py"}, timeout=30)
    assert reply is not None and "result" in reply, reply
