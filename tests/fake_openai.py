"""A loopback server with just enough of the OpenAI chat completions API for LLM-mode tests:
every request is recorded, and each is answered by a function of its body."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[dict[str, Any]], tuple[int, str]]  # the status, and the message's content (or the error's)


@contextmanager
def fake_openai(answer: Answer) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The server's /v1 URL and the requests it gets (path, body, Authorization header)."""
    requests: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
            status, content = answer(body)
            message = {"role": "assistant", "content": content}
            payload = (
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }
                if status == 200
                else {"error": {"message": content, "type": "internal_server_error"}}
            )
            send_json(self, status, json.dumps(payload).encode())

        def log_message(self, *args: object) -> None:
            pass

    server = serve(Handler)
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", requests
    finally:
        server.shutdown()


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def serve(handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    """`handler` on a free loopback port, in the background until shut down."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
