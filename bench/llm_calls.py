"""LLM calls and prompt tokens per conversation: this pipeline against a naive CrewAI crew.

Replays the seed's six messages (flow 6 plus the filter change) with a counting scripted model:
(a) through this app in LLM mode, and (b) through a naive crew that runs the seed's four agents on
every turn, sequentially, with their tools attached, as a plain CrewAI crew would. The naive
crew's model behaves as a tool-using model does: an agent with tools calls one of them once,
then answers. Prompt tokens are counted the same way for both (the MiniLM WordPiece tokenizer
over every message sent).

Then the homologation pack's case (seed 004's dynamic prompts and contextual tools): a quote, the
case opened, each element's photos and fields, the base documents and the personal and vehicle
data, every turn in LLM mode, twice: as the app runs it (each phase's tools and prompt module
only) and with one static prompt (every phase's tools and every module in every turn); the
saving is the share of prompt tokens the phased prompts do not send.
Prints one JSON line last.  Usage: python bench/llm_calls.py
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the scripted model (tests/scripted_llm.py)
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from crewai import Agent, Crew, Process, Task  # noqa: E402
from PIL import Image  # noqa: E402
from scripted_llm import ScriptedLLM, restate_draft  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

from agents.definitions import definitions  # noqa: E402
from agents.tools import make_tools  # noqa: E402
from agents.work import TurnRequest, TurnWork  # noqa: E402
from app import create_app  # noqa: E402
from assistant.attachments.store import ATTACHMENTS  # noqa: E402
from assistant.dialogue.state import SessionState  # noqa: E402
from assistant.understanding.reader import Intent  # noqa: E402
from bench.seed import SEED_CONVERSATION  # noqa: E402

SEED_CONVERSATION_AGENTS = ("retriever", "comparator", "eligibility", "formatter")  # the seed's crew (no booking)
TOOL_INPUTS = {
    "search_products": {"query": "platinum credit card"},
    "search_faq": {"question": "fees"},
    "compare_products": {"product_ids": ["visa-platinum-business", "mastercard-platinum-business"]},
    "check_eligibility": {"product_ids": ["mastercard-platinum-business"]},
}
# The homologation case, message by message, with the photos each sends.
CASE_CONVERSATION = (
    ("quiero homologar el escape y el amortiguador delantero de mi moto", 0),
    ("dale, adelante", 0),
    ("ahí van", 3),
    ("Akrapovic\nGP-1\ne13*1234\n95\nsí", 0),
    ("fotos", 2),
    ("Öhlins", 0),
    ("FG 432", 0),
    ("ficha y permiso", 2),
    ("Juan García López\n12345678Z\nCalle Mayor 5, 28013 Madrid\njuan@example.com\n612345678", 0),
    ("1234 BCD\nYamaha\nMT-07\nJYARM06E0JA000001", 0),
)
TOKENIZER = Tokenizer.from_file(str(ROOT / "assistant" / "assets" / "minilm-tokenizer.json"))
TOKENIZER.no_truncation()  # count whole prompts, not the embedder's 128-token window
TOKENIZER.no_padding()


def prompt_tokens(llm: ScriptedLLM) -> int:
    return sum(len(TOKENIZER.encode(m["content"] or "").ids) for call in llm.calls for m in call["messages"])


def tool_user(messages: list[dict]) -> str:
    """A model that uses one of its tools once, then answers."""
    system = messages[0]["content"]
    tools = [name for name in TOOL_INPUTS if f"Tool Name: {name}" in system]
    if tools and not any("Observation" in m["content"] for m in messages[1:]):
        return f"Thought: I need data\nAction: {tools[0]}\nAction Input: {json.dumps(TOOL_INPUTS[tools[0]])}"
    return "Thought: I now know the final answer\nFinal Answer: Here is what I found for you."


def ours(tmp: Path) -> ScriptedLLM:
    llm = ScriptedLLM(default=restate_draft)
    app = create_app({"session_db": tmp / "ours.sqlite3", "llm_model": "openai/bench", "llm_base_url": "http://127.0.0.1:9/v1"})
    app.extensions["pipeline"].crew_mode.llm = llm
    client, session = app.test_client(), str(uuid.uuid4())
    for query in SEED_CONVERSATION:
        data = client.post("/chat", json={"query": query, "session_id": session, "user_employment": "business_owner"}).get_json()
        assert data["mode"] == "crew", data
    return llm


def naive(pipeline) -> ScriptedLLM:
    llm = ScriptedLLM(default=tool_user)
    state = SessionState(session_id="naive")
    work = TurnWork(TurnRequest("", Intent(type="product_info"), state), pipeline.services)
    for query in SEED_CONVERSATION:
        agents: list[Agent] = []
        tasks: list[Task] = []
        for name in SEED_CONVERSATION_AGENTS:
            spec = definitions()[name]
            agent = Agent(
                role=spec["role"],
                goal=spec["goal"].format(business=pipeline.catalog.name, filters="as the customer said", currency="BDT"),
                backstory=spec["backstory"],
                tools=list(make_tools(work, name).values()),
                llm=llm,
                allow_delegation=False,
                max_iter=3,
            )
            tasks.append(
                Task(
                    description=f"The customer wrote: {query}\nDo your part of answering them.",
                    expected_output="Your findings for the customer.",
                    agent=agent,
                    context=list(tasks),
                )
            )
            agents.append(agent)
        Crew(agents=agents, tasks=tasks, process=Process.sequential, verbose=False).kickoff()
    return llm


def _png() -> bytes:
    kept = io.BytesIO()
    Image.new("RGB", (64, 48), (10, 120, 200)).save(kept, "PNG")
    return kept.getvalue()


def case(tmp: Path, static: bool) -> ScriptedLLM:
    """The homologation case in LLM mode; `static`: every phase's tools and modules in every prompt."""
    llm = ScriptedLLM(default=restate_draft)
    name = "static" if static else "phased"
    app = create_app(
        {
            "domain": "homologation",
            "session_db": tmp / f"{name}.sqlite3",
            "bookings_db": tmp / f"{name}-bookings.sqlite3",
            "notify_outbox": tmp / f"{name}-outbox.jsonl",
            "reminder_poll_s": 0,
            "llm_model": "openai/bench",
            "llm_base_url": "http://127.0.0.1:9/v1",
        }
    )
    crew_mode = app.extensions["pipeline"].crew_mode
    crew_mode.llm, crew_mode.static = llm, static
    client, session, store = app.test_client(), str(uuid.uuid4()), ATTACHMENTS.get(app)
    for query, photos in CASE_CONVERSATION:
        ids = [store.save(session, f"photo{i}.png", _png()).id for i in range(photos)]
        body = {"query": query, "session_id": session, **({"attachments": ids} if ids else {})}
        data = client.post("/chat", json=body).get_json()
        assert data["mode"] == "crew" and data["grounding"] == "passed", data
    return llm


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ours_llm = ours(Path(tmp))
        pipeline = create_app({"session_db": Path(tmp) / "naive.sqlite3"}).extensions["pipeline"]
        naive_llm = naive(pipeline)
        phased_llm, static_llm = case(Path(tmp), static=False), case(Path(tmp), static=True)
    result: dict[str, Any] = {
        "turns": len(SEED_CONVERSATION),
        "ours": {"llm_calls": len(ours_llm.calls), "prompt_tokens": prompt_tokens(ours_llm)},
        "naive": {"llm_calls": len(naive_llm.calls), "prompt_tokens": prompt_tokens(naive_llm)},
    }
    result["calls_ratio"] = round(result["ours"]["llm_calls"] / result["naive"]["llm_calls"], 3)
    result["tokens_ratio"] = round(result["ours"]["prompt_tokens"] / result["naive"]["prompt_tokens"], 3)
    result["case_turns"] = len(CASE_CONVERSATION)
    result["case_phased"] = {"llm_calls": len(phased_llm.calls), "prompt_tokens": prompt_tokens(phased_llm)}
    result["case_static_prompt"] = {"llm_calls": len(static_llm.calls), "prompt_tokens": prompt_tokens(static_llm)}
    phased_tokens, static_tokens = result["case_phased"]["prompt_tokens"], result["case_static_prompt"]["prompt_tokens"]
    result["case_tokens_ratio"] = round(phased_tokens / static_tokens, 3)
    result["case_tokens_saving"] = round(1 - phased_tokens / static_tokens, 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
