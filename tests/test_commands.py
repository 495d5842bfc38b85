"""Understanding reads each message, against what the conversation holds, into commands; the
dialogue policy alone applies them. These read the commands of real conversations' messages."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from conftest import app_for

from assistant.dialogue.commands import (
    AnswerFromHelp,
    Calculate,
    ChangeCommitted,
    ConfirmChange,
    ContinueFlow,
    Greet,
    Search,
    SetSlot,
    ShowMore,
    act_of,
)
from assistant.dialogue.state import SessionState
from crew_pipeline import PIPELINE


class Chat:
    """A conversation on a real app, and the commands the next message would be read as."""

    def __init__(self, tmp_path, domain: str, now: dt.datetime | None = None):
        self.app = app_for(tmp_path, domain)
        self.client, self.session = self.app.test_client(), "3f2b1c9e-8d7a-4e6f-9a1b-2c3d4e5f6a7b"
        self.pipeline = PIPELINE.get(self.app)
        if now:
            self.pipeline.desk.clock = lambda: now
        self.outbox = tmp_path / "outbox.jsonl"

    def say(self, text: str) -> dict:
        reply = self.client.post("/chat", json={"query": text, "session_id": self.session})
        assert reply.status_code == 200, reply.get_json()
        return reply.get_json()

    def commands(self, text: str) -> list:
        state = self.pipeline.store.load(self.session) or SessionState(session_id=self.session)
        return self.pipeline.reader.read(text, state).commands

    def code(self) -> str:
        import json
        import re

        sent = [json.loads(line) for line in self.outbox.read_text().splitlines()]
        found = re.search(r"code is (\d{6})", sent[-1]["text"])
        assert found, sent[-1]
        return found.group(1)


def kinds(commands: list) -> list[str]:
    return [command.kind for command in commands]


def test_a_greeting_before_a_request_is_two_commands_and_the_request_is_the_act(tmp_path):
    chat = Chat(tmp_path, "store")
    chat.say("hello")
    commands = chat.commands("hi, I want a gaming laptop under 40000")
    assert kinds(commands)[:2] == ["greet", "search"] and act_of(commands) == "product_info"
    thai = chat.commands("สวัสดีครับ อยากได้โน้ตบุ๊คเล่นเกม งบไม่เกินสามหมื่น")
    assert isinstance(thai[0], Greet) and isinstance(thai[1], Search), "the greeting no longer swallows the request"
    assert kinds(chat.commands("hello!")) == ["greet"], "a greeting alone is one"


def test_a_question_with_a_day_in_it_is_no_answer_to_the_flow_waiting(tmp_path):
    chat = Chat(tmp_path, "bank", dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Dhaka")))
    chat.say("I want a call-back about the Visa Gold Credit Card")
    assert not any(isinstance(c, ContinueFlow) for c in chat.commands("What is today's US dollar exchange rate at your bank?"))
    answer = chat.commands("tomorrow at 11am")
    assert isinstance(answer[0], ContinueFlow)
    assert {(c.slot, c.value, c.source) for c in answer if isinstance(c, SetSlot)} >= {("date", "2026-11-24", "asked")}


def test_a_correction_is_a_slot_set_again_never_a_cancel(tmp_path):
    chat = Chat(tmp_path, "restaurants", dt.datetime(2026, 11, 25, 10, 0, tzinfo=ZoneInfo("Asia/Kolkata")))
    chat.say("book a table at Saffron Verandah for 4 this saturday at 8pm")
    corrected = chat.commands("nahi, 6 log")
    assert isinstance(corrected[0], ContinueFlow)
    assert [(c.slot, c.value, c.correction) for c in corrected if isinstance(c, SetSlot)] == [("guests", 6, True)]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("What is today's US dollar exchange rate at your bank?", None),  # a day in a question: no change
        ("my salary comes at 5pm today, can I pay then?", None),
        ("move my appointment to Thursday", ChangeCommitted),  # a change word
        ("the appointment on friday at 11 please", ChangeCommitted),  # names what was made
    ],
)
def test_what_was_committed_changes_only_when_a_message_asks_for_a_change(tmp_path, said, expected):
    chat = Chat(tmp_path, "bank", dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Dhaka")))
    chat.say("I want a call-back about the Visa Gold Credit Card tomorrow at 11am")
    chat.say("Rahim Uddin 01712345678")
    assert chat.say(chat.code())["booking"]["starts_at"] == "2026-11-24T11:00:00+06:00"
    commands = chat.commands(said)
    changes = [c for c in commands if isinstance(c, ChangeCommitted)]
    assert bool(changes) == (expected is ChangeCommitted), kinds(commands)
    if changes:
        assert any(isinstance(c, SetSlot) and c.correction for c in commands), "the new day corrects the one booked"


def test_a_change_shown_is_answered_yes_or_no(tmp_path):
    chat = Chat(tmp_path, "bank", dt.datetime(2026, 11, 23, 9, 30, tzinfo=ZoneInfo("Asia/Dhaka")))
    chat.say("I want a call-back about the Visa Gold Credit Card tomorrow at 11am")
    chat.say("Rahim Uddin 01712345678")
    chat.say(chat.code())
    chat.say("make it 3pm instead")
    yes, no = chat.commands("yes please")[0], chat.commands("no, keep it")[0]
    assert isinstance(yes, ConfirmChange) and yes.accept and isinstance(no, ConfirmChange) and not no.accept
    other = chat.commands("what's the annual fee?")
    assert not any(isinstance(c, ConfirmChange) for c in other), "another question confirms nothing"


def test_more_and_totals_are_read_over_the_items_shown(tmp_path):
    chat = Chat(tmp_path, "cars")
    chat.say("SUVs under 20 lakh")
    assert kinds(chat.commands("show me more")) == ["show_more"] and isinstance(chat.commands("aur dikhao")[0], ShowMore)
    total = chat.commands("the first two together, how much?")[0]
    shown = chat.pipeline.store.load(chat.session).shown
    assert isinstance(total, Calculate) and total.items == shown[:2]
    assert not isinstance(chat.commands("SUVs under 15 lakh")[0], ShowMore), "a new search is no page"


def test_a_question_about_a_flow_that_an_article_answers_starts_no_flow(tmp_path):
    chat = Chat(tmp_path, "cars")
    assert isinstance(chat.commands("what documents do I need for a test drive?")[0], AnswerFromHelp)
    assert kinds(chat.commands("book a test drive of the Thar"))[0] == "start_flow"
