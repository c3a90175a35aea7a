"""The second half of `front`: the real server takes over the stdio connection.

The first frame the front end read is replayed through the server's own framing, so
pygls handles it as if it had read it. If the front end already answered it, pygls'
reply to it is held back and compared with what was sent; if not, pygls' reply goes
out as usual and is remembered for the next start.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, BinaryIO

from lsprotocol import types

from .server import CodeIntelServer, create_server

log = logging.getLogger(__name__)

Remember = Callable[[Any, Any], None]


def serve(
    stdin: BinaryIO,
    stdout: BinaryIO,
    first_frame: bytes,
    request: dict[str, Any] | None,
    answered: dict[str, Any] | None,
    remember: Remember,
) -> None:
    """Serve stdio until `exit` or end of input; `first_frame` is read again first."""
    server = create_server()
    if request is not None:
        watch_initialize_reply(server, request, answered, remember)
    server.start_io(stdin, stdout, replay=first_frame)
    if server.hub is not None:
        server.hub.close()


def watch_initialize_reply(
    server: CodeIntelServer, request: dict[str, Any], answered: dict[str, Any] | None, remember: Remember
) -> None:
    """Intercept the reply to `request` once: held back (and checked) when the front
    end answered it already, sent and remembered otherwise."""
    protocol = server.protocol

    def send_data(data: Any) -> None:
        if hasattr(data, "method") or getattr(data, "id", None) != request["id"]:
            protocol.__class__._send_data(protocol, data)
            return
        del protocol._send_data  # once: later replies go straight through
        reply = json.loads(json.dumps(data, default=protocol._serialize_message))
        if answered is None:
            protocol.__class__._send_data(protocol, data)
            if "result" in reply and "error" not in reply:
                remember(request["params"]["capabilities"], reply["result"])
            return
        if reply == answered:
            return
        problem = (
            f"failed: {reply['error'].get('message')}" if isinstance(reply.get("error"), dict)
            else "computed capabilities other than the ones sent at start-up"
        )
        log.error("initialize %s; sent %s, the server's own answer is %s", problem, answered, reply)
        if "result" in reply and "error" not in reply:
            remember(request["params"]["capabilities"], reply["result"])
        server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Error,
                message=f"code-intel: initialize {problem}; restart the language server (details in its log)",
            )
        )

    protocol._send_data = send_data  # type: ignore[method-assign]
