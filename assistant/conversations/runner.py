"""Plays a conversation file against a real app and reports, turn by turn, what differed.

Each conversation gets a fresh app on temporary SQLite files and its own outbox, offline (no
LLM) and without rate limits, and is sent through POST /chat exactly as the chat page sends it.
The embedding model and each pack's item vectors are cached per process, so after a pack's first
conversation an app starts in about a second.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import secrets
import tempfile
import textwrap
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from flask import Flask
from flask.testing import FlaskClient
from PIL import Image

from app import create_app
from assistant.attachments.store import ATTACHMENTS
from assistant.conversations.schema import CODE, Bound, Conversation, Person, Texts, Turn, Wanted, load
from assistant.language import shipped
from assistant.language.detect import LATIN, script
from assistant.language.privacy import CODE_LIKE
from crew_pipeline import PIPELINE
from extensions.base import EXTENSIONS

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "conversations"  # one folder per pack: tests/conversations/<pack>/*.yml
EXCERPT = 240  # characters of a reply shown in a failure
NATIVE_SHARE = 0.3  # of a reply's letters (item names aside; specs stay in Latin letters), in a language with its own script
OPERATOR, OPERATOR_KEY = "conversation-test", secrets.token_urlsafe(24)  # who a `person` turn is, on the console


@dataclass(frozen=True)
class Check:
    """One expectation of a turn, with what came back, worded for the report."""

    key: str
    expected: str
    actual: str
    passed: bool


@dataclass(frozen=True)
class TurnResult:
    """A turn as played: its checks, and what came back, to show beside a failure."""

    number: int
    user: str  # as written in the file: a typed code stays <code>
    checks: list[Check]
    reply: str = ""
    agents: tuple[str, ...] = ()
    products: tuple[str, ...] = ()
    problem: str | None = None  # why the message could not be sent (no code yet, an HTTP error)

    @property
    def passed(self) -> bool:
        return self.problem is None and all(check.passed for check in self.checks)


@dataclass(frozen=True)
class Result:
    """A conversation as played, and its report."""

    label: str  # e.g. bank/eligibility.yml
    name: str
    turns: list[TurnResult]  # the turns played: playing stops at one that could not be sent
    total: int  # turns in the file

    @property
    def passed(self) -> bool:
        return all(turn.passed for turn in self.turns)

    def report(self) -> str:
        """One line when it passed; otherwise every failed turn with each expectation, expected vs got."""
        failed = [turn for turn in self.turns if not turn.passed]
        if self.passed:
            return f"PASS {self.label}: {self.name} ({self.total} turns)"
        lines = [f"FAIL {self.label}: {self.name} ({len(failed)} of {self.total} turns failed)"]
        for turn in failed:
            lines.append(f"  turn {turn.number}: {turn.user!r}")
            if turn.problem:
                lines.append(f"    no reply: {turn.problem}")
                continue
            lines.append(f"    reply: {_excerpt(turn.reply)!r}")
            lines.append(f"    agents: {list(turn.agents)}  products: {list(turn.products)}")
            for check in turn.checks:
                mark = "ok  " if check.passed else "FAIL"
                got = "" if check.passed else f"\n           got {check.actual}"
                lines.append(f"    {mark} {check.key}: expected {check.expected}{got}")
        first = len(self.turns) + 1
        if first <= self.total:
            lines.append(f"  not played: turn {first}" + (f" to {self.total}" if first < self.total else ""))
        return "\n".join(lines)


def conversation_files(folder: Path) -> list[Path]:
    """A folder's conversation files, in name order."""
    return sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")])


def play_file(path: Path, pack: str) -> Result:
    """Load and play one file; a file that does not load raises ValueError naming what is wrong."""
    conversation = load(path)
    return play(conversation, pack, label=f"{path.parent.name}/{path.name}", default_name=path.stem)


def play(conversation: Conversation, pack: str, *, label: str, default_name: str) -> Result:
    """Play `conversation` on a fresh app for `pack` (a folder under data/)."""
    with tempfile.TemporaryDirectory(prefix="conversation-") as tmp:
        session = Session(pack, Path(tmp), conversation)
        turns: list[TurnResult] = []
        for turn in conversation.turns:
            played = session.play(turn)
            turns.append(played)
            if played.problem:  # later turns would answer a conversation that did not happen
                break
    return Result(label=label, name=conversation.name or default_name, turns=turns, total=len(conversation.turns))


class Session:
    """One conversation's fresh app for `pack`, its files in `folder` (SQLite, the outbox), played
    a turn at a time: how a test reads what the app keeps between two turns."""

    def __init__(self, pack: str, folder: Path, conversation: Conversation):
        self.folder, self.outbox = folder, folder / "outbox.jsonl"
        self.app = create_app(
            {
                "domain": pack,
                "session_db": folder / "sessions.sqlite3",
                "bookings_db": folder / "bookings.sqlite3",
                "notify_outbox": self.outbox,
                "reminder_poll_s": 0,
                "client_rate_per_min": 0,
                "session_rate_per_min": 0,
                "llm_model": None,  # offline whatever the environment says: replies are deterministic
                "log_level": "ERROR",  # a refused manipulation logs a warning: expected here
                "operator_api_keys": [f"{OPERATOR}:{OPERATOR_KEY}"],  # a `person` turn's credential
            }
        )
        if conversation.now:
            _pin_clock(self.app, conversation.now)
        self.client, self.session_id = self.app.test_client(), str(uuid.uuid4())
        page, value = PIPELINE.get(self.app).catalog.pack.page_fact, conversation.user_employment
        self.facts = {page or "page_fact": value} if value else {}  # the file's page fact, as a request's facts
        self.language = conversation.language
        self.played = 0

    def play(self, turn: Turn) -> TurnResult:
        self.played += 1
        if self.language and turn.user is not None and turn.language is None:
            turn = turn.model_copy(update={"language": self.language})
        return _play_turn(self.client, self.session_id, self.facts, turn, self.played, self.outbox)


def _pin_clock(app: Flask, now: dt.datetime) -> None:
    """The booking desk's, the people desk's and the pack's extensions' 'now', so relative dates
    and opening hours in a file never drift."""
    pipeline = PIPELINE.get(app)
    if now.tzinfo is None:
        now = now.replace(tzinfo=ZoneInfo(pipeline.catalog.business.timezone))
    pipeline.desk.clock = pipeline.people.clock = lambda: now
    for extension in EXTENSIONS.get(app):
        extension.pin_clock(lambda: now)


def _play_turn(client: FlaskClient, session_id: str, facts: dict[str, str], turn: Turn, number: int, outbox: Path) -> TurnResult:
    if turn.person is not None:
        return _person(client, session_id, turn.person, number)
    assert turn.user is not None, "a turn is the customer's or a person's (checked when the file loads)"
    message = turn.user
    if CODE in message:
        code = _last_code(outbox)
        if code is None:
            return TurnResult(number, turn.user, [], problem=f"{CODE}: no one-time code has been sent yet")
        message = message.replace(CODE, code)
    body: dict[str, Any] = {"query": message, "session_id": session_id, **({"facts": facts} if facts else {})}
    if turn.attach:  # kept for the session as an upload keeps them, then referenced by the message
        store = ATTACHMENTS.get(client.application)
        sent = [store.save(session_id, f"{number}-{i}.{kind}", SAMPLES[kind]()) for i, kind in enumerate(turn.attach)]
        body["attachments"] = [attachment.id for attachment in sent]
    response = client.post("/chat", json=body)
    data: dict[str, Any] = response.get_json()
    if response.status_code != 200:
        return TurnResult(number, turn.user, [], problem=f"HTTP {response.status_code}: {json.dumps(data)}")
    checks = [CHECKS[key](value, data) for key, value in turn.expectations().items()]
    ids = tuple(str(p["id"]) for p in data["products"])
    return TurnResult(number, turn.user, checks, data["reply"], tuple(data["agents"]), ids)


def _person(client: FlaskClient, session_id: str, person: Person, number: int) -> TurnResult:
    """A person takes the conversation over on the console, says what they say, and hands it back."""
    calls: list[tuple[str, dict[str, str] | None]] = [("take", None)]
    calls += [("reply", {"text": person.says})] if person.says else []
    calls += [("release", {"note": person.hands_back})] if person.hands_back else []
    shown = f"(person) {person.says or ''} {'-> back to the assistant' if person.hands_back else ''}".strip()
    for action, body in calls:
        response = client.post(f"/console/api/conversations/{session_id}/{action}", json=body, headers={"X-API-Key": OPERATOR_KEY})
        if response.status_code != 200:
            return TurnResult(
                number, shown, [], problem=f"{action}: HTTP {response.status_code}: {response.get_data(as_text=True)}"
            )
    return TurnResult(number, shown, [])


def _last_code(outbox: Path) -> str | None:
    """The code in the last one-time-code message of the outbox, as the customer's phone shows it."""
    lines = outbox.read_text(encoding="utf-8").splitlines() if outbox.exists() else []
    sent = [json.loads(line) for line in lines]
    codes = [m.group(1) for message in sent if message["kind"] == "otp" and (m := CODE_LIKE.search(message["text"]))]
    return codes[-1] if codes else None


def _excerpt(text: str, near: str = "") -> str:
    """A reply on one line, cut to a readable length, from a little before the text `near`."""
    flat = " ".join(text.split())
    start = max(0, flat.casefold().find(near.casefold()) - EXCERPT // 4) if near else 0
    return ("…" if start else "") + textwrap.shorten(flat[start:], EXCERPT, placeholder="…")


def _texts(value: Texts) -> list[str]:
    return [value] if isinstance(value, str) else value


def _shown(values: list[str]) -> str:
    return "[" + ", ".join(values) + "]"


def _intent(expected: str, data: dict[str, Any]) -> Check:
    actual = str(data["intent"]["type"])
    return Check("intent", expected, actual, actual == expected)


def _agents(expected: list[str], data: dict[str, Any]) -> Check:
    return Check("agents", _shown(expected), _shown(data["agents"]), data["agents"] == expected)


def _agents_include(expected: list[str], data: dict[str, Any]) -> Check:
    missing = [a for a in expected if a not in data["agents"]]
    return Check(
        "agents_include", f"including {_shown(expected)}", f"{_shown(data['agents'])}, without {_shown(missing)}", not missing
    )


def _ids(data: dict[str, Any]) -> list[str]:
    return [str(p["id"]) for p in data["products"]]


def _products(expected: list[str], data: dict[str, Any]) -> Check:
    return Check("products", _shown(expected), _shown(_ids(data)), _ids(data) == expected)


def _products_include(expected: list[str], data: dict[str, Any]) -> Check:
    missing = [i for i in expected if i not in _ids(data)]
    return Check(
        "products_include", f"including {_shown(expected)}", f"{_shown(_ids(data))}, without {_shown(missing)}", not missing
    )


def _products_count(expected: int, data: dict[str, Any]) -> Check:
    return Check(
        "products_count", str(expected), f"{len(data['products'])}: {_shown(_ids(data))}", len(data["products"]) == expected
    )


def _matches(value: Any, wanted: Wanted) -> bool:
    """An attribute's value against the wanted one: within a bound, or equal to it (to one of
    them, for a list wanted), where a list attribute matches when any of its values does."""
    if isinstance(wanted, Bound):
        return (
            isinstance(value, int | float)
            and (wanted.at_least is None or value >= wanted.at_least)
            and (wanted.at_most is None or value <= wanted.at_most)
        )
    accepted = wanted if isinstance(wanted, list) else [wanted]
    return any(v in accepted for v in (value if isinstance(value, list) else [value]))


def _products_all(expected: dict[str, Wanted], data: dict[str, Any]) -> Check:
    wanted = "every product with " + ", ".join(
        f"{k}: {v.model_dump(exclude_none=True) if isinstance(v, Bound) else v}" for k, v in expected.items()
    )
    if not data["products"]:
        return Check("products_all", wanted, "no products shown", False)
    wrong = [f"{p['id']} has {k}: {p.get(k)}" for p in data["products"] for k, v in expected.items() if not _matches(p.get(k), v)]
    return Check("products_all", wanted, "; ".join(wrong), not wrong)


def _reply_contains(expected: Texts, data: dict[str, Any]) -> Check:
    reply = data["reply"].casefold()
    missing = [t for t in _texts(expected) if t.casefold() not in reply]
    return Check(
        "reply_contains",
        _shown([repr(t) for t in _texts(expected)]),
        f"no {_shown([repr(t) for t in missing])} in the reply",
        not missing,
    )


def _reply_not_contains(expected: Texts, data: dict[str, Any]) -> Check:
    reply = data["reply"].casefold()
    found = [t for t in _texts(expected) if t.casefold() in reply]
    return Check(
        "reply_not_contains",
        f"none of {_shown([repr(t) for t in _texts(expected)])}",
        f"{_shown([repr(t) for t in found])} in {_excerpt(data['reply'], found[0] if found else '')!r}",
        not found,
    )


def _ask_user(expected: bool | str, data: dict[str, Any]) -> Check:
    asked: str | None = data["ask_user"]
    if isinstance(expected, bool):
        return Check("ask_user", "a question" if expected else "no question", repr(asked), (asked is not None) == expected)
    passed = asked is not None and expected.casefold() in asked.casefold()
    return Check("ask_user", f"a question with {expected!r}", repr(asked), passed)


def _booking(expected: str, data: dict[str, Any]) -> Check:
    """The booking made this turn (`confirmed`), else the status of the goal in progress, else `none`."""
    goal = data["state"].get("active_goal")
    actual = str(data["booking"]["status"] if data.get("booking") else goal["status"] if goal else "none")
    return Check("booking", expected, actual, actual == expected)


def _handled_by(expected: str, data: dict[str, Any]) -> Check:
    return Check("handled_by", expected, str(data["handled_by"]), data["handled_by"] == expected)


def _choices_include(expected: list[str], data: dict[str, Any]) -> Check:
    missing = [c for c in expected if c not in data["choices"]]
    return Check(
        "choices_include", f"including {_shown(expected)}", f"{_shown(data['choices'])}, without {_shown(missing)}", not missing
    )


def _language(expected: str, data: dict[str, Any]) -> Check:
    """The reply says it is in `expected`, and in a language with its own script most of its
    letters are in it (the item names in bold aside: they stay as the catalog has them)."""
    own = shipped().script(expected)
    words = re.sub(r"\*\*[^*]*\*\*", "", data["reply"])
    letters = [script(c) for c in words if c.isalpha()]
    share = letters.count(own) / len(letters) if letters else 1.0
    passed = data["language"] == expected and (own == LATIN or share >= NATIVE_SHARE)
    return Check("language", expected, f"{data['language']}, {share:.0%} of its letters {own.lower()}", passed)


CHECKS: dict[str, Callable[[Any, dict[str, Any]], Check]] = {
    "intent": _intent,
    "agents": _agents,
    "agents_include": _agents_include,
    "products": _products,
    "products_include": _products_include,
    "products_all": _products_all,
    "products_count": _products_count,
    "reply_contains": _reply_contains,
    "reply_not_contains": _reply_not_contains,
    "ask_user": _ask_user,
    "booking": _booking,
    "choices_include": _choices_include,
    "handled_by": _handled_by,
    "language": _language,
}


def _picture() -> bytes:
    """A small photo, as a phone would send one (a PNG)."""
    kept = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 120, 160)).save(kept, "PNG")
    return kept.getvalue()


def _document() -> bytes:
    """A one-page PDF with nothing on it."""
    return (
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
        b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
    )


SAMPLES: dict[str, Callable[[], bytes]] = {"image": _picture, "pdf": _document}
