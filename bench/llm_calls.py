"""LLM calls and prompt tokens per conversation: this pipeline against a naive CrewAI crew.

Replays the README's example conversation with a counting scripted model: (a) through this app in
LLM mode, where the model only frames each reply and weighs a comparison against what the
customer needs, and (b) through a naive crew that runs the four agents of agents/ on every turn,
sequentially, with their tools attached, as a plain CrewAI crew would. The naive crew's model
behaves as a tool-using model does: an agent with tools calls one of them once, then answers.
Prompt tokens are counted the same way for both (the MiniLM WordPiece tokenizer over every
message sent). A real model asks for no regeneration here; bench/llm_real.py counts those.

Then the homologation pack's case (a prompt module per phase): a quote, the case opened, each
element's photos and fields, the base documents and the personal and vehicle data, every turn
in LLM mode, twice: as the app runs it (each phase's prompt module only) and with one static
prompt (every module in every turn); the saving is the share of prompt tokens the phased
prompts do not send.
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
from crewai.tools import BaseTool, tool  # noqa: E402
from PIL import Image  # noqa: E402
from scripted_llm import ScriptedLLM, restate_draft  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

from app import create_app  # noqa: E402
from assistant.attachments.store import ATTACHMENTS  # noqa: E402
from assistant.dialogue.state import SessionState  # noqa: E402
from assistant.dialogue.work import TurnRequest, TurnWork  # noqa: E402
from assistant.understanding.reader import Intent  # noqa: E402
from bench.seed import SEED_CONVERSATION  # noqa: E402

# The four agents as a plain CrewAI crew would declare them: each agent's role and its tools.
NAIVE_AGENTS = {
    "retriever": ("Product Retriever", ["search_products", "search_faq"]),
    "comparator": ("Product Comparator", ["compare_products"]),
    "eligibility": ("Eligibility Analyzer", ["check_eligibility"]),
    "formatter": ("Response Formatter", []),
}
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


def naive_tools(work: TurnWork) -> dict[str, BaseTool]:
    """The deterministic tools as a plain crew's agents would call them."""
    gateway, catalog = work.services.tools, work.services.catalog

    @tool("search_products")
    def search_products(query: str) -> str:
        """Search the catalog for products matching the query."""
        found = gateway.call("retriever", "search_products", query, {}, work.services.max_products)
        return json.dumps([p.model_dump() for p in found], ensure_ascii=False)

    @tool("search_faq")
    def search_faq(question: str) -> str:
        """Find the help article that answers a support question."""
        hits = gateway.call("retriever", "search_faq", question, limit=1)
        return json.dumps([e.model_dump() for e, _ in hits], ensure_ascii=False)

    @tool("compare_products")
    def compare_products(product_ids: list[str]) -> str:
        """Compare products by id: a table of their attributes with the best in each row."""
        return str(gateway.call("comparator", "compare_products", catalog.products_by_id(product_ids)).model_dump_json())

    @tool("check_eligibility")
    def check_eligibility(product_ids: list[str]) -> str:
        """Check the customer's eligibility for products by id against the business's rules."""
        products = catalog.products_by_id(product_ids)
        return json.dumps([gateway.call("eligibility", "check_eligibility", p, {}).model_dump() for p in products])

    return {t.name: t for t in (search_products, search_faq, compare_products, check_eligibility)}


def naive(pipeline) -> ScriptedLLM:
    llm = ScriptedLLM(default=tool_user)
    state = SessionState(session_id="naive")
    tools = naive_tools(TurnWork(TurnRequest("", Intent(type="product_info"), state), pipeline.services))
    for query in SEED_CONVERSATION:
        agents: list[Agent] = []
        tasks: list[Task] = []
        for role, names in NAIVE_AGENTS.values():
            agent = Agent(
                role=role,
                goal=f"Do the {role.lower()}'s part of answering a {pipeline.catalog.name} customer.",
                backstory="You work for the business and use only its data.",
                tools=[tools[name] for name in names],
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
    """The homologation case in LLM mode; `static`: every phase's module in every prompt."""
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
