"""The configured LLM, and the per-turn budget every call of LLM mode goes through.

Imported only when an LLM is configured (crewai costs seconds to import). Each turn wraps the
model in a `BudgetedLLM`: a call past the turn's call budget or deadline is refused, an empty
reply is an error, and `run_before_deadline` never lets a turn wait longer than its deadline,
whatever the provider's client does with retries.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, cast

from crewai import LLM
from crewai.llms.base_llm import BaseLLM
from pydantic import BaseModel, ConfigDict, PrivateAttr, SerializeAsAny

import assistant.infra.config  # noqa: F401  (sets the crewai telemetry switches before the import)
from assistant.infra.config import Settings

if TYPE_CHECKING:
    from crewai.agents.agent_builder.base_agent import BaseAgent
    from crewai.task import Task
    from crewai.tools.base_tool import BaseTool
    from crewai.utilities.types import LLMMessage

T = TypeVar("T")


class LLMFault(Exception):
    """The LLM could not serve this turn; the offline reply stands in."""


class BudgetExceeded(LLMFault):
    pass


class DeadlineExceeded(LLMFault):
    pass


class EmptyReply(LLMFault):
    pass


def build_llm(settings: Settings) -> BaseLLM:
    """The model from settings. The `openai/` route needs some key even for local servers."""
    assert settings.llm_model, "LLM mode runs only with a model configured"
    return LLM(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key or ("not-needed" if settings.llm_base_url else None),
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        max_tokens=settings.llm_max_tokens,  # a runaway generation holds the server for minutes
        temperature=settings.llm_temperature,
    )


def json_twin(llm: BaseLLM) -> BaseLLM | None:
    """The same model asked for a JSON object on every answer (the `json_object` JSON mode that
    servers without JSON schemas have, llama.cpp's among them); None where its client has none."""
    if "response_format" not in type(llm).model_fields:
        return None
    return llm.model_copy(update={"response_format": {"type": "json_object"}})


class BudgetedLLM(BaseLLM):
    """One turn's view of the model: counts calls and refuses those over budget or deadline."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    inner: SerializeAsAny[BaseLLM]  # dumped as the model it is, not as a bare BaseLLM
    json_inner: SerializeAsAny[BaseLLM] | None = None  # the same model in JSON mode, used while `json_answers`
    max_calls: int
    deadline: float  # time.monotonic() value
    calls: int = 0
    prompts: list[str] = []  # what the turn's calls sent: the guard keeps their instructions from the reply
    _json: bool = PrivateAttr(default=False)

    def call(
        self,
        messages: str | list[LLMMessage],
        tools: list[dict[str, BaseTool]] | None = None,
        callbacks: list[Any] | None = None,
        available_functions: dict[str, Any] | None = None,
        from_task: Task | None = None,
        from_agent: BaseAgent | None = None,
        response_model: type[BaseModel] | None = None,
    ) -> str | Any:
        if self.calls >= self.max_calls:
            raise BudgetExceeded(f"over the budget of {self.max_calls} LLM calls")
        if time.monotonic() >= self.deadline:
            raise DeadlineExceeded("the turn's deadline passed")
        self.calls += 1
        self.prompts.append(messages if isinstance(messages, str) else "\n".join(str(m.get("content") or "") for m in messages))
        inner = self.json_inner if self._json and self.json_inner is not None else self.inner
        reply = inner.call(
            messages,
            tools=tools,
            callbacks=callbacks,
            available_functions=available_functions,
            from_task=from_task,
            from_agent=from_agent,
            response_model=response_model,
        )
        if reply is None or (isinstance(reply, str) and not reply.strip()):
            raise EmptyReply("the model returned nothing")
        return reply

    @contextmanager
    def json_answers(self) -> Iterator[None]:
        """Within the block, calls go to the model in JSON mode (where there is one): the answers
        asked for a schema of a server that refuses schemas."""
        self._json = True
        try:
            yield
        finally:
            self._json = False

    def supports_function_calling(self) -> bool:
        return self.inner.supports_function_calling()  # type: ignore[attr-defined,no-any-return]  # each provider's class has it, BaseLLM doesn't

    def supports_stop_words(self) -> bool:
        return self.inner.supports_stop_words()

    def get_context_window_size(self) -> int:
        return self.inner.get_context_window_size()

    def run_before_deadline(self, work: Callable[[], T]) -> T:
        """Run `work` (which calls this LLM) but return or raise by the deadline at the latest.

        A call still in flight then finishes in the background; this LLM refuses any further one.
        """
        outcome: dict[str, Any] = {}

        def target() -> None:
            try:
                outcome["value"] = work()
            except BaseException as error:  # handed to the caller below
                outcome["error"] = error

        thread = threading.Thread(target=target, daemon=True, name="llm-turn")
        thread.start()
        thread.join(max(0.0, self.deadline - time.monotonic()))
        if thread.is_alive():
            self.deadline = 0.0
            raise DeadlineExceeded("the LLM did not answer before the turn's deadline")
        if "error" in outcome:
            raise outcome["error"]
        return cast(T, outcome["value"])
