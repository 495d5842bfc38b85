"""A stand-in model for tests and benchmarks: prepared replies, every call recorded.

It is a real crewai `BaseLLM`, so crews, agents and the per-turn budget treat it exactly as
they treat a provider's model. The app never uses it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from crewai.llms.base_llm import BaseLLM
from pydantic import ConfigDict, Field

import assistant.infra.config  # noqa: F401  (sets the crewai telemetry switches before the import)

Reply = str | Exception | Callable[[list[dict]], str]
_DRAFT = re.compile(r"word for word after your words: (.*?)\n\nWrite one or two short", re.DOTALL)


def restate_draft(messages: list[dict]) -> str:
    """A model that adds nothing: the formatter restates the verified draft (so the reply is the
    draft alone), the comparator finds that no item stands out, a reading finds nothing."""
    prompt = messages[-1]["content"]
    found = _DRAFT.search(prompt)
    if found:
        return "Final Answer: " + found.group(1)
    return '{"best": null, "on": []}' if '"best"' in prompt else '{"commands": [{"kind": "not_understood"}]}'


class ScriptedLLM(BaseLLM):
    """Answers each call with the next prepared reply (an exception is raised, a callable is
    asked with the messages); `default` answers once the script runs out."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    script: list[Reply] = Field(default_factory=list)
    default: Reply = "Thanks for your question."
    delay_s: float = 0.0
    calls: list[dict[str, Any]] = Field(default_factory=list)

    def __init__(self, **data: Any):
        super().__init__(**{"model": "scripted", **data})

    def call(
        self, messages, tools=None, callbacks=None, available_functions=None, from_task=None, from_agent=None, response_model=None
    ):
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        self.calls.append({"messages": messages, "agent": getattr(from_agent, "role", None), "response_model": response_model})
        if self.delay_s:
            time.sleep(self.delay_s)
        reply = self.script.pop(0) if self.script else self.default
        if isinstance(reply, Exception):
            raise reply
        return reply(messages) if callable(reply) else reply

    def supports_function_calling(self) -> bool:
        return False

    def prompt_text(self, index: int) -> str:
        return "\n".join(m["content"] for m in self.calls[index]["messages"])
