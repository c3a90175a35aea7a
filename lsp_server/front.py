"""The stdio front end: `initialize` answered before pygls is imported.

Importing pygls and lsprotocol takes ~0.5 s, longer than an editor should wait for
`initialize`. This module imports nothing but the standard library until that answer
is written: it reads the first frame from the same buffered stdin pygls reads later
(so nothing read ahead is lost), and if it is an `initialize` whose answer is in the
cache, writes that answer at once. Then it imports the server and hands the first
frame over unchanged: pygls handles that `initialize` exactly as if it had read it
(client capabilities, workspace, initializationOptions, the workspace's hub), and only
its reply, already sent, is held back and compared with what was sent.

The cache cannot go stale silently: an entry holds what pygls itself answered for
exactly those client capabilities, under a fingerprint of the server's, pygls' and
lsprotocol's files (a changed file or version is a different fingerprint, so the next
start takes the slow path and records a new entry). Every early answer is still
checked against pygls' own; a difference is logged and shown to the user.

Messages the client sends meanwhile stay in the pipe and are read by pygls in order,
`initialized`, `$/cancelRequest` and `exit` included. Only stdio is served here: the
local endpoint and `--tcp` check a token before answering anything, and their
`initialize` is handled by the server that is already running.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, BinaryIO

CACHE_FILE = "lsp-initialize.json"
MAX_ENTRIES = 8
MAX_FIRST_FRAME = 16 * 1024 * 1024
# Top-level `initialize` params the early answer may see, and the JSON types pygls
# accepts for each; anything else goes the slow path so pygls reports it.
_PARAM_TYPES: dict[str, tuple[type, ...]] = {
    "processId": (int, type(None)),
    "rootUri": (str, type(None)),
    "rootPath": (str, type(None)),
    "locale": (str,),
    "trace": (str,),
    "workDoneToken": (int, str),
    "clientInfo": (dict,),
    "workspaceFolders": (list, type(None)),
    "initializationOptions": (dict, list, str, int, float, bool, type(None)),  # LSPAny
    "capabilities": (dict,),
}
_TRACE_VALUES = ("off", "messages", "verbose")


def read_first_frame(stdin: BinaryIO) -> tuple[bytes, bytes | None]:
    """The first frame's raw bytes (headers and body) and its body, None when the
    headers carry no usable length (the server's framing then deals with them)."""
    raw = bytearray()
    length: int | None = None
    while True:
        line = stdin.readline()
        raw += line
        if not line:
            return bytes(raw), None
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return bytes(raw), None
        elif not line.strip():
            break
    if length is None or not 0 <= length <= MAX_FIRST_FRAME:
        return bytes(raw), None
    body = stdin.read(length)
    raw += body
    return bytes(raw), body if len(body) == length else None


def parse_initialize(body: bytes | None) -> dict[str, Any] | None:
    """The request if `body` is an `initialize` whose shape pygls accepts at the top
    level (capabilities are vouched for by the cache); None for anything else."""
    if body is None:
        return None
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or message.get("method") != "initialize":
        return None
    msg_id, params = message.get("id"), message.get("params")
    if isinstance(msg_id, bool) or not isinstance(msg_id, (int, str)) or not isinstance(params, dict):
        return None
    if not all(_fits(key, value) for key, value in params.items()):
        return None
    if "capabilities" not in params or params.get("trace", "off") not in _TRACE_VALUES:
        return None
    client = params.get("clientInfo")
    if client is not None and not isinstance(client.get("name"), str):
        return None
    for folder in params.get("workspaceFolders") or []:
        if not (isinstance(folder, dict) and isinstance(folder.get("uri"), str) and isinstance(folder.get("name"), str)):
            return None
    return message


def _fits(key: str, value: Any) -> bool:
    allowed = _PARAM_TYPES.get(key)
    if allowed is None:
        return False
    if isinstance(value, bool):  # JSON true is not a process id
        return bool in allowed
    return isinstance(value, allowed)


# ---- the cache -----------------------------------------------------------------------


def cache_path(environ: dict[str, str] | os._Environ = os.environ) -> str:
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "code-intel", CACHE_FILE)


def _package_dir(name: str) -> str | None:
    for entry in sys.path:
        candidate = os.path.join(entry or ".", name)
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            return candidate
    return None


def fingerprint() -> str:
    """Every file that decides the answer: the server's package (its features register
    the methods and commands the capabilities list), pygls (which computes them) and
    lsprotocol; by path, size and mtime, with the interpreter's version."""
    roots = [os.path.dirname(os.path.abspath(__file__))]
    roots += [d for d in (_package_dir("pygls"), _package_dir("lsprotocol")) if d]
    parts = [sys.version]
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    stat = os.stat(os.path.join(folder, name))
                    parts.append(f"{folder}/{name}:{stat.st_size}:{stat.st_mtime_ns}")
    import hashlib  # after the walk: only this short digest is kept

    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def load_entries(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return []
    entries = data.get("entries") if isinstance(data, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def cached_result(entries: list[dict[str, Any]], print_: str, capabilities: Any) -> Any:
    for entry in entries:
        if entry.get("fingerprint") == print_ and entry.get("capabilities") == capabilities and "result" in entry:
            return entry["result"]
    return None


def store_result(path: str, print_: str, capabilities: Any, result: Any) -> None:
    """Newest first; entries of other fingerprints (older code) are dropped."""
    kept = [
        e for e in load_entries(path)
        if e.get("fingerprint") == print_ and e.get("capabilities") != capabilities
    ]
    entries = [{"fingerprint": print_, "capabilities": capabilities, "result": result}, *kept][:MAX_ENTRIES]
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump({"entries": entries}, handle)
    os.replace(temporary, path)


# ---- the wire ------------------------------------------------------------------------


def frame(message: dict[str, Any]) -> bytes:
    """As pygls frames its own messages."""
    body = json.dumps(message).encode("utf-8")
    return (
        f"Content-Length: {len(body)}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
    ).encode("ascii") + body


def main(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """`code-intel lsp` on stdio."""
    os.umask(0o077)  # the server writes nothing but its private store and this cache
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    raw, body = read_first_frame(stdin)
    request = parse_initialize(body)
    answered = None
    print_ = path = None
    if request is not None:
        path, print_ = cache_path(), fingerprint()
        result = cached_result(load_entries(path), print_, request["params"]["capabilities"])
        if result is not None:
            answered = {"jsonrpc": "2.0", "id": request["id"], "result": result}
            stdout.write(frame(answered))
            stdout.flush()

    from code_intel.cli import configure_logging

    configure_logging()
    from .handover import serve

    serve(stdin, stdout, raw, request, answered, lambda caps, res: _remember(path, print_, caps, res))


def _remember(path: str | None, print_: str | None, capabilities: Any, result: Any) -> None:
    if path is None or print_ is None:
        return
    try:
        store_result(path, print_, capabilities, result)
    except OSError as exc:
        import logging

        logging.getLogger(__name__).warning("cannot write the start-up cache %s: %s", path, exc)
