"""The one flow engine: how many fields it asks at once (one or two, or nested conditions: one by
one; three or more: together, those with a condition after the rest), and a flow that is only pack data.

The restaurants pack's chat reserves tables through its concierge; a copy of its pack.yaml whose
flow books them itself, confirmed by a code, must work with no code change.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml
from conftest import Conversation, app_for
from flask import Flask
from pydantic import ValidationError
from test_domain_packs import DATA

from assistant.dialogue.flows import FlowEngine, collection_mode
from assistant.dialogue.said import Said
from assistant.pack.flows import Flow, Slot, Step
from assistant.pack.loading import load_catalog
from assistant.pack.model import DataError
from crew_pipeline import CrewPipeline

TABLE_FLOW = {
    "intent": "booking",
    "priority": 1,
    "resumed": "Back to your table:",
    "subject": "table",
    "start": "Let's book your table.",
    "schedule": {"date": "date", "time": "time"},
    "confirm": "code",
    "action": "book",
    "steps": [
        {"slot": "restaurant", "kind": "item", "ask": "Which restaurant?"},
        {
            "collect": [
                {"slot": "date", "kind": "date", "ask": "Which day?"},
                {"slot": "time", "kind": "time", "ask": "What time?"},
                {"slot": "guests", "kind": "number", "ask": "For how many people?", "says": "for {value} people"},
            ],
            "ask": "Which day, what time, and for how many people?",
        },
        {"slot": "name", "kind": "person", "ask": "Whose name is the table under?"},
        {"slot": "phone", "kind": "phone", "ask": "Which mobile number should get the code?"},
    ],
}


def _slot(name: str, **extra) -> dict:
    return {"slot": name, "kind": "text", "ask": f"{name}?", **extra}


@pytest.mark.parametrize(
    ("slots", "mode"),
    [
        ([_slot("a")], "sequential"),
        ([_slot("a"), _slot("b")], "sequential"),
        ([_slot("a"), _slot("b"), _slot("c")], "batch"),
        ([_slot("a"), _slot("b"), _slot("c", **{"if": {"a": "x"}})], "hybrid"),
        ([_slot("a"), _slot("b", **{"if": {"a": "x"}}), _slot("c", **{"if": {"b": "y"}})], "sequential"),  # nested
    ],
)
def test_collection_mode_follows_seed_004(slots, mode):
    assert collection_mode(Step.model_validate({"collect": slots})) == mode


def _engine_with(flow: dict) -> tuple[FlowEngine, Flow]:
    catalog = load_catalog(DATA / "store")
    parsed = Flow.model_validate(flow)
    pack = catalog.pack.model_copy(update={"flows": {"case": parsed}})
    catalog = catalog.model_copy(update={"own_pack": pack})
    return FlowEngine(catalog), parsed


def test_hybrid_asks_the_base_slots_together_then_the_conditional_ones():
    kind = {
        "slot": "kind",
        "kind": "choice",
        "ask": "Fixed or removable?",
        "options": {"fixed": {"choice": "Fixed", "words": ["fixed"]}, "removable": {"choice": "Removable", "words": ["removable"]}},
    }
    engine, flow = _engine_with(
        {
            "intent": "support",
            "agent": "support",
            "resumed": "Back:",
            "action": "troubleshoot",
            "steps": [{"collect": [kind, _slot("height"), _slot("width"), _slot("axle", **{"if": {"kind": "fixed"}})]}],
        }
    )
    assert engine.asked(flow, engine.missing(flow, {})) == ["kind", "height", "width"]
    after = {"kind": "fixed", "height": "1 m", "width": "2 m"}
    assert engine.asked(flow, engine.missing(flow, after)) == ["axle"]
    assert engine.missing(flow, {**after, "kind": "removable"}) == []  # its condition unmet: never asked


def test_a_broken_flow_fails_at_start_up_naming_it(tmp_path):
    folder = tmp_path / "restaurants"
    shutil.copytree(DATA / "restaurants", folder)
    pack = yaml.safe_load((folder / "pack.yaml").read_text())
    broken = {**TABLE_FLOW, "steps": [*TABLE_FLOW["steps"][:1], {"slot": "x", "kind": "choice", "ask": "?"}]}
    (folder / "pack.yaml").write_text(yaml.safe_dump({**pack, "flows": {"booking": broken}}, allow_unicode=True))
    with pytest.raises(DataError, match="choice slot 'x' needs options"):
        load_catalog(folder)


TABLE_FLOW_HINDI = {
    "Which restaurant?": "कौन-सा रेस्टोरेंट?",
    "Which day?": "किस दिन?",
    "What time?": "कितने बजे?",
    "Which day, what time, and for how many people?": "किस दिन, कितने बजे, और कितने लोगों के लिए?",
    "Whose name is the table under?": "टेबल किसके नाम पर हो?",
    "Which mobile number should get the code?": "कोड किस मोबाइल नंबर पर भेजें?",
}


def _with_table_flow(tmp_path: Path) -> tuple[Flask, CrewPipeline]:
    """The restaurants pack with a table-booking flow added to its pack.yaml, on a Monday morning."""
    folder = tmp_path / "restaurants"
    shutil.copytree(DATA / "restaurants", folder)
    pack = yaml.safe_load((folder / "pack.yaml").read_text())
    (folder / "pack.yaml").write_text(yaml.safe_dump({**pack, "flows": {"booking": TABLE_FLOW}}, allow_unicode=True))
    hindi = folder / "translations" / "hi.yaml"  # its questions in every language the pack replies in
    table = yaml.safe_load(hindi.read_text(encoding="utf-8"))
    table["texts"].update(TABLE_FLOW_HINDI)
    hindi.write_text(yaml.safe_dump(table, allow_unicode=True), encoding="utf-8")
    app = app_for(tmp_path, data_dir=folder)
    pipeline = app.extensions["pipeline"]
    zone = ZoneInfo(pipeline.catalog.business.timezone)
    pipeline.desk.clock = lambda: dt.datetime(2026, 11, 23, 9, 30, tzinfo=zone)
    return app, pipeline


def test_a_flow_added_to_a_pack_runs_with_no_code_change(tmp_path):
    app, pipeline = _with_table_flow(tmp_path)
    place = pipeline.catalog.products[0]
    chat = Conversation(app.test_client())

    start = chat.say(f"I want to book a table at {place.name}")
    assert start["agents"] == ["booking", "formatter"], start["reply"]
    assert start["state"]["active_goal"]["slots"]["restaurant"] == place.id
    assert start["ask_user"] == "Which day, what time, and for how many people?"  # 3 simple slots: asked at once

    when = chat.say("tomorrow at 8 pm for 4 people")  # one answer fills all three
    assert when["state"]["active_goal"]["missing"] == ["name", "phone"], when["reply"]
    assert "Tuesday 24 November 2026" in when["reply"] and "for 4 people" in when["reply"]
    assert when["ask_user"] == "Whose name is the table under?"  # two left: one at a time

    chat.say("Asha Rao")
    sent = chat.say("9876543210")
    assert "6-digit code" in sent["reply"]
    outbox = [json.loads(line) for line in (tmp_path / "outbox.jsonl").read_text().splitlines()]
    code = re.search(r"\b(\d{6})\b", outbox[-1]["text"]).group(1)
    done = chat.say(code)
    booking = done["booking"]
    assert booking["status"] == "confirmed" and booking["product_id"] == place.id and booking["guests"] == 4
    assert booking["starts_at"] == "2026-11-24T20:00:00+05:30" and code not in done["reply"]


def test_an_added_flow_is_interrupted_resumed_corrected_and_cancelled_like_any_goal(tmp_path):
    app, pipeline = _with_table_flow(tmp_path)
    chat = Conversation(app.test_client())
    chat.say(f"I want to book a table at {pipeline.catalog.products[0].name}")
    chat.say("tomorrow at 8 pm for 4 people")

    question = chat.say("How do I cancel my reservation?")  # a quicker goal suspends the table
    assert question["help"]["article"] == "cancel-or-change-booking" and "booking" not in question["agents"]
    assert question["reply"].endswith("Back to your table: Whose name is the table under?")
    assert question["state"]["active_goal"]["type"] == "booking"

    corrected = chat.say("actually make it 9 pm")
    assert corrected["state"]["active_goal"]["slots"]["time"] == "21:00" and "at 21:00" in corrected["reply"]

    cancelled = chat.say("never mind")
    assert cancelled["intent"]["type"] == "cancel" and cancelled["state"]["active_goal"] is None


@pytest.mark.parametrize(
    ("slot", "error"),
    [
        ({"slot": "guests", "kind": "text", "ask": "?", "range": [1, 20]}, "a range is a number slot's"),
        ({"slot": "guests", "kind": "number", "ask": "?", "range": [20, 1]}, "lowest first"),
    ],
)
def test_a_range_bounds_a_number_slot(slot, error):
    with pytest.raises(ValidationError, match=error):
        Slot.model_validate(slot)


def test_a_reserve_flow_needs_a_head_count_and_an_extension_to_reserve_with(tmp_path):
    uncounted = [*TABLE_FLOW["steps"][:1], {"collect": TABLE_FLOW["steps"][1]["collect"][:2]}, *TABLE_FLOW["steps"][2:]]
    with pytest.raises(ValidationError, match=r"a reserve action needs slots of the kinds \['number'\]"):
        Flow.model_validate({**TABLE_FLOW, "action": "reserve", "steps": uncounted})
    folder = tmp_path / "restaurants"
    shutil.copytree(DATA / "restaurants", folder)
    pack = yaml.safe_load((folder / "pack.yaml").read_text())
    del pack["extensions"]  # no restaurants extension: nothing to reserve a table with
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True))
    with pytest.raises(DataError, match="flows.booking reserves, which needs .* an extension that reserves"):
        app_for(tmp_path, data_dir=folder)


# --- whose a value is, and which slot it fills ------------------------------------------------

MONDAY = dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Kolkata"))


def _read(pack: str, text: str, asked: list[str], slots: dict | None = None, flow: str = "booking") -> dict:
    engine = FlowEngine(load_catalog(DATA / pack))
    patch, _ = engine.read(flow, Said(text=text), asked, slots or {}, MONDAY)
    return patch


@pytest.mark.parametrize(
    ("pack", "text"),
    [
        ("restaurants", "my friend's number is 9876543210"),
        ("restaurants", "it's my wife's phone: 9876543210"),
        ("restaurants", "mere dost ka number 9876543210 hai"),
        ("restaurants", "मेरे दोस्त का नंबर 9876543210 है"),
        ("cars", "my brother's mobile 9876543210"),
        ("bank", "amar bondhur number 01712345678"),
        ("bank", "the branch's number is 01712345678"),
    ],
)
def test_a_number_said_of_someone_else_never_fills_the_customers_phone(pack, text):
    assert "phone" not in _read(pack, text, ["name", "phone"] if pack == "restaurants" else ["phone"])


def test_of_two_numbers_the_customers_own_is_taken_and_the_other_partys_left():
    patch = _read("restaurants", "my number is 9811122233 and my wife's is 9822233344", ["name", "phone"])
    assert patch["phone"] == "+919811122233"
    assert _read("restaurants", "Arjun Mehta 9811122233", ["name", "phone"]) == {"name": "Arjun Mehta", "phone": "+919811122233"}


def test_a_slot_of_another_party_takes_what_is_said_of_that_party():
    """A slot declares whose it is (`of`): what is said of that party goes there, never to the customer's own."""
    engine, flow = _engine_with(
        {
            "intent": "booking",
            "action": "submit",
            "steps": [
                {"slot": "phone", "kind": "phone", "ask": "Your number?"},
                {"slot": "friend_phone", "kind": "phone", "required": False, "of": ["friend", "friend's"], "ask": "Theirs?"},
                {"slot": "ok", "kind": "choice", "options": ["Yes"], "ask": "All right?"},
            ],
        }
    )
    patch, _ = engine.read(flow, Said(text="mine is 0812345678, my friend's is 0898765432"), ["phone"], {}, MONDAY)
    assert patch == {"phone": "+66812345678", "friend_phone": "+66898765432"}
    patch, _ = engine.read(flow, Said(text="my friend's number is 0898765432"), ["phone"], {}, MONDAY)
    assert patch == {"friend_phone": "+66898765432"}
    assert Slot.model_validate({"slot": "p", "kind": "phone", "ask": "?"}).own
    assert not Slot.model_validate({"slot": "p", "kind": "phone", "ask": "?", "of": ["friend"]}).own


@pytest.mark.parametrize(
    ("text", "asked", "slot", "value"),
    [
        ("name: Anil Kumar", ["phone"], "name", "Anil Kumar"),
        ("naam: Anil Kumar", ["phone"], "name", "Anil Kumar"),
        ("the date is Friday", ["time"], "date", "2026-11-27"),
        ("time: 8 pm", ["guests"], "time", "20:00"),
        ("phone 9811122233", ["name"], "phone", "+919811122233"),
    ],
)
def test_a_value_that_names_its_slot_fills_it_even_when_another_was_asked(text, asked, slot, value):
    assert _read("restaurants", text, asked)[slot] == value


@pytest.mark.parametrize("text", ["sorry, 5 people", "actually 5 of us", "nahi, 5 log", "नहीं, 5 लोग", "make it 5 people instead"])
def test_a_head_count_said_anew_replaces_the_one_given(text):
    held = {"restaurant": "res_10001", "date": "2026-11-24", "time": "20:00", "guests": 4}
    assert _read("restaurants", text, ["name", "phone"], held) == {"guests": 5}
