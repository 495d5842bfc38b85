"""Every conversation file under tests/conversations/<pack>/ is one test (docs/conversation-tests.md),
and the runner itself fails a conversation whose expectations are wrong, with a readable diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.conversations.runner import CHECKS, FOLDER, conversation_files, play, play_file
from assistant.conversations.schema import Conversation, Turn, load

FILES = [path for pack in sorted(p for p in FOLDER.iterdir() if p.is_dir()) for path in conversation_files(pack)]


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_conversation(path: Path):
    result = play_file(path, pack=path.parent.name)
    if not result.passed:
        pytest.fail(result.report(), pytrace=False)


def test_every_pack_has_conversations():
    assert {p.parent.name for p in FILES} == {"bank", "cars", "restaurants", "store", "homologation"}


def test_every_expectation_has_a_check():
    assert set(CHECKS) == set(Turn.model_fields) - {"user", "person", "attach"}  # files sent and people's turns are no expectation


def test_a_misspelt_expectation_or_a_turn_that_checks_nothing_is_refused(tmp_path):
    path = tmp_path / "typo.yml"
    path.write_text(
        "turns:\n  - user: hi\n    reply_contain: Hello\n  - user: hello\n  - user: fees\n"
        "    products_all: {annual_fee: {at_mots: 500}}\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError) as refused:
        load(path)
    assert str(refused.value).splitlines()[1:] == [
        "  turn 1, reply_contain: Extra inputs are not permitted",
        "  turn 2: a turn must check something: add intent, agents, products, reply_contains, ...",
        "  turn 3, products_all.annual_fee.bound.at_mots: Extra inputs are not permitted",
    ]


def test_wrong_expectations_fail_each_with_what_came_back():
    conversation = Conversation.model_validate(
        {
            "name": "wrong on purpose",
            "turns": [
                {
                    "user": "show me islamic credit cards",
                    "intent": "product_info",  # right: shown as ok beside the failures
                    "agents": ["comparator", "formatter"],
                    "agents_include": ["eligibility"],
                    "products": ["visa-classic-credit"],
                    "products_include": ["visa-classic-credit"],
                    "products_all": {"banking_type": "conventional"},
                    "products_count": 2,
                    "reply_contains": ["Islamic", "no such words"],
                    "reply_not_contains": "islamic",
                    "ask_user": True,
                    "booking": "confirmed",
                    "choices_include": ["Conventional"],
                },
                {"user": "the code is <code>", "booking": "confirmed"},
                {"user": "never played", "intent": "greeting"},
            ],
        }
    )
    result = play(conversation, "bank", label="bank/wrong.yml", default_name="wrong")
    assert not result.passed and len(result.turns) == 2  # no code was sent: the third turn is not played
    first = result.turns[0]
    assert [c.key for c in first.checks if c.passed] == ["intent"]
    report = result.report()
    assert report.splitlines()[0] == "FAIL bank/wrong.yml: wrong on purpose (2 of 3 turns failed)"
    for line in [
        "turn 1: 'show me islamic credit cards'",
        "ok   intent: expected product_info",
        "FAIL agents: expected [comparator, formatter]",
        "got [retriever, formatter]",
        "visa-classic-islamic has banking_type: islami",
        "got no ['no such words'] in the reply",
        "FAIL ask_user: expected a question",
        "FAIL booking: expected confirmed\n           got none",
        "turn 2: 'the code is <code>'\n    no reply: <code>: no one-time code has been sent yet",
        "not played: turn 3",
    ]:
        assert line in report
