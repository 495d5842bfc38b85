"""The agent registry (agents/registry.py): its order, the allow-lists it drives, and the
contract its agents keep: each returns what it produced, and none writes shared state."""

from __future__ import annotations

import copy
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import app_for

from agents import registry
from agents.registry import AGENTS, BY_NAME, default_tools
from agents.spec import Agent, Answer, Step
from app import create_app
from assistant.dialogue.reply_language import reply_language
from assistant.dialogue.state import SessionState
from assistant.dialogue.work import Own, Produced, TurnOutput, TurnRequest, TurnWork
from assistant.pack.loading import load_catalog
from assistant.pack.model import DataError
from assistant.pack.translations import speaking
from crew_pipeline import _merge_profile


def test_the_formatter_is_last_and_every_name_once():
    assert AGENTS[-1].name == "formatter"
    assert len(BY_NAME) == len(AGENTS)


def test_a_pack_without_tools_gets_each_agents_own(tmp_path):
    """pack.yaml's tools: left out, each agent may call what its own work needs (and an
    extension's agent its own): the registry drives the allow-lists."""
    folder = tmp_path / "homologation"
    shutil.copytree(Path("data/homologation"), folder)
    pack = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
    del pack["tools"], pack["constraints"]  # the desk's constraints want the case agent to price
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    catalog = load_catalog(folder, translated=False, tools=default_tools())
    assert catalog.pack.tools == {**default_tools(), "quote": ["identify", "select_variant", "tariff"]}
    with pytest.raises(DataError, match="tools"):
        load_catalog(folder, translated=False)  # nothing to fill them in from


def test_a_pack_naming_an_agent_or_tool_nobody_has_does_not_start(tmp_path):
    for typo, said in (({"retreiver": ["search_products"]}, "no agent"), ({"support": ["search_faqs"]}, "no tool")):
        folder = tmp_path / next(iter(typo))
        shutil.copytree(Path("data/bank"), folder)
        pack = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
        pack["tools"].update(typo)
        (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
        with pytest.raises(DataError, match=said):
            create_app({"data_dir": str(folder), "session_db": str(tmp_path / "s.db"), "bookings_db": str(tmp_path / "b.db")})


def _untouched(work: TurnWork, step: Callable[..., Any], *args: Any) -> Any:
    """What `step(*args)` returns, once it is shown to have left the turn's output and request (the
    session state, the goal) as they were; only the tools it ran may be noted (the audit trail)."""
    out, request = copy.deepcopy(work.out), copy.deepcopy(work.request)
    result = step(*args)
    after = copy.copy(work.out)
    after.tools_run = out.tools_run
    assert after == out, "an agent wrote the turn's output: it must return what it produced"
    assert work.request == request, "an agent changed the request or the session state"
    return result


def _checked_turn(pipeline, session_id: str, query: str) -> list[str]:
    """One real turn of the conversation `session_id`, read and planned as the pipeline does
    (crew_pipeline's `_turn`, steps 1-5), with every agent it needs, the policy's question and
    the Formatter called directly on its TurnWork and shown to change nothing; their results
    applied as the pipeline applies them. The agents it ran."""
    state = pipeline.store.load(session_id) or SessionState(session_id=session_id)
    with speaking(reply_language(query, state, pipeline.catalog)):
        understood = pipeline.reader.read(query, state, False, None)
        state.profile = _merge_profile(pipeline.catalog, state.profile, understood.reading.profile, {})
        plan = pipeline.policy.plan(understood, state)
        filters, selection = pipeline._resolve_products(plan.act, state)
        across = pipeline._across_catalog(plan.act, state)
        if filters != state.filters:
            state.reset_products()
            state.filters = filters
        question = pipeline.policy.clarify(plan, state, selection)
        agents = [] if question else pipeline._select_agents(plan.act, state, selection, plan.commands)
        out = TurnOutput(selection=selection, across_catalog=across and bool(selection))
        work = TurnWork(TurnRequest(query, plan.act, state, plan.goal, [], plan.commands), pipeline.services, out)
        for name in [*agents, "formatter"]:
            if name == "formatter":
                asking = _untouched(work, pipeline.policy.ask, work, question)
                if asking:
                    work.out.take(asking)
            extension = next((e for e in pipeline.extensions.values() if e.agent == name), None)
            run: Callable[[TurnWork], Any] = extension.run if extension else BY_NAME[name].run
            result = _untouched(work, run, work)
            assert extension or isinstance(result, Produced), f"{name} returned {result!r}"
            work.out.take(result)
    assert work.out.reply, f"{query!r}: the Formatter's reply"
    return agents


@pytest.mark.parametrize(
    ("domain", "messages"),
    [
        (
            "bank",
            [
                "I want a platinum conventional credit card for business",
                "compare them",
                "which of these is cheaper?",
                "im a student, can i get one?",
                "I lost my card, what should I do?",
                "what is 1299 * 2",
                "I'd like to apply for the Mastercard one",
                "a call-back tomorrow at 5 pm please",
            ],
        ),
        ("store", ["gaming laptops under 150000", "my laptop freezes when i play games", "Lenovo Legion 5"]),
    ],
)
def test_agents_return_what_they_produced_and_write_no_shared_state(tmp_path, domain, messages):
    """Every registered agent, on a TurnWork built from a real turn of a real conversation, leaves
    the turn's output and the session as they were: only the value it returns carries its work,
    and the pipeline applies it (TurnOutput.take). Each message is then sent for real, so the
    next is read in the conversation it continues."""
    app = app_for(tmp_path, domain)
    pipeline, client, session_id = app.extensions["pipeline"], app.test_client(), str(uuid.uuid4())
    ran: set[str] = set()
    for text in messages:
        ran.update(_checked_turn(pipeline, session_id, text))
        assert client.post("/chat", json={"query": text, "session_id": session_id}).status_code == 200
    wanted = {"bank": {"retriever", "comparator", "eligibility", "booking"}, "store": {"retriever", "support"}}
    assert wanted[domain] <= ran, f"the messages ran {sorted(ran)}"


def _noting(work):
    """A new agent's work: a result of a kind no other agent produces."""
    return Own("noting", f"noted: {len(work.out.selection)} item(s) asked about")


def _noted(answer, work, draft):
    if answer is Answer.PRODUCTS and "noting" in work.out.own:
        draft.sections.append(str(work.out.own["noting"]))


def test_adding_an_agent_is_its_module_and_a_line_in_the_registry(tmp_path, monkeypatch):
    """An agent declared as a module declares it, and listed in the registry (nothing else): the
    pipeline selects it when it is needed, runs it, and the Formatter shows its part."""
    noting = Agent("noting", (), lambda asked: Step.CHECK if asked.intent.type == "feature_query" else None, _noting, _noted)
    monkeypatch.setattr(registry, "AGENTS", (*registry.AGENTS[:-1], noting, registry.AGENTS[-1]))
    monkeypatch.setattr(registry, "BY_NAME", {agent.name: agent for agent in registry.AGENTS})
    client, session = app_for(tmp_path).test_client(), str(uuid.uuid4())
    found = client.post("/chat", json={"query": "I want a platinum conventional credit card for business", "session_id": session})
    assert "noting" not in found.get_json()["agents"]
    asked = client.post("/chat", json={"query": "What are the fees?", "session_id": session}).get_json()
    assert asked["agents"][-2:] == ["noting", "formatter"]
    assert "noted: " in asked["reply"] and "item(s) asked about" in asked["reply"]
