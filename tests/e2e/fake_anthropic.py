"""A local, scripted stand-in of the Anthropic Messages API for driving the real Claude
Code CLI offline (`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`).

`POST /v1/messages` answers with streaming SSE events (message_start,
content_block_start/delta/stop, message_delta, message_stop). Requests of the main
agent loop (they carry tools) take the next step of the script: a step is a list of
tool calls (name, input) or a final text. Other requests (title generation, quota
probes …) get a short text. Every request body is logged, in order.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = list[tuple[str, dict[str, Any]]] | str


class FakeAnthropic:
    def __init__(self, script: list[Step | Callable[[dict[str, Any]], Step]]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.main_requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._ids = 0
        handler = self._handler()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> FakeAnthropic:  # noqa: PYI034
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _next(self, body: dict[str, Any]) -> Step:
        with self._lock:
            self.requests.append(body)
            if not body.get("tools"):
                return "ok"
            self.main_requests.append(body)
            if not self.script:
                return "done"
            step = self.script.pop(0)
        return step(body) if callable(step) else step

    def _new_id(self, prefix: str) -> str:
        with self._lock:
            self._ids += 1
            return f"{prefix}_{self._ids:04d}"

    def _events(self, body: dict[str, Any], step: Step) -> list[tuple[str, dict[str, Any]]]:
        model = body.get("model", "claude-test")
        events = [("message_start", {"type": "message_start", "message": {
            "id": self._new_id("msg"), "type": "message", "role": "assistant", "content": [],
            "model": model, "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1}}})]
        if isinstance(step, str):
            blocks: list[dict[str, Any]] = [{"type": "text", "text": step}]
            stop = "end_turn"
        else:
            blocks = [{"type": "tool_use", "id": self._new_id("toolu"), "name": name,
                       "input": tool_input} for name, tool_input in step]
            stop = "tool_use"
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start",
                                                       "index": index,
                                                       "content_block": {"type": "text",
                                                                         "text": ""}}))
                events.append(("content_block_delta", {"type": "content_block_delta",
                                                       "index": index, "delta": {
                                                           "type": "text_delta",
                                                           "text": block["text"]}}))
            else:
                events.append(("content_block_start", {"type": "content_block_start",
                                                       "index": index, "content_block": {
                                                           "type": "tool_use", "id": block["id"],
                                                           "name": block["name"], "input": {}}}))
                events.append(("content_block_delta", {"type": "content_block_delta",
                                                       "index": index, "delta": {
                                                           "type": "input_json_delta",
                                                           "partial_json": json.dumps(
                                                               block["input"])}}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events.append(("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 5}}))
        events.append(("message_stop", {"type": "message_stop"}))
        return events

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                self._json(200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                if not self.path.split("?")[0].endswith("/v1/messages"):
                    fake.requests.append({"_path": self.path, **body})
                    self._json(200, {"input_tokens": 10} if "count_tokens" in self.path else {})
                    return
                step = fake._next(body)
                events = fake._events(body, step)
                if not body.get("stream"):
                    content = [e[1]["content_block"] for e in events
                               if e[0] == "content_block_start"]
                    for e in events:
                        if e[0] == "content_block_delta":
                            block = content[e[1]["index"]]
                            delta = e[1]["delta"]
                            if delta["type"] == "text_delta":
                                block["text"] += delta["text"]
                            else:
                                block["input"] = json.loads(delta["partial_json"])
                    message = {**events[0][1]["message"], "content": content,
                               "stop_reason": events[-2][1]["delta"]["stop_reason"]}
                    self._json(200, message)
                    return
                payload = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                                  for name, data in events).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _json(self, status: int, data: Any) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return Handler
