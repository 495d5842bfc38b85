"""Whatever a client sends, the answer is a 4xx or a 2xx and JSON, never a 5xx.

Hypothesis writes the bodies a schema never would: arbitrary bytes, JSON nested past the parser's
recursion, numbers of hundreds of digits, lone surrogates and other odd unicode, every field with
every JSON type. Schemathesis covers what the document describes (tests/test_openapi.py).
"""

from __future__ import annotations

import functools
import json
import tempfile
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from conftest import OPERATOR_KEY, app_for
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st


@functools.cache
def client_for(domain: str):
    """One app per pack for the whole module, without rate limits: fuzzing sends hundreds of requests."""
    folder = Path(tempfile.mkdtemp(prefix=f"fuzz-{domain}-"))
    return app_for(folder, domain, client_rate_per_min=0, session_rate_per_min=0).test_client()


bank, restaurants = client_for("bank"), client_for("restaurants")
fuzz = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

ODD = [
    "\ud800",  # a lone surrogate: valid in JSON's \u escapes, not encodable as UTF-8
    "\udfff\ud800",
    "\x00",
    "\u202e\u200b\ufeff",  # right-to-left override, zero-width space, byte-order mark
    "e\u0301" * 50,  # combining accents
    "\U0001f4b3" * 10,
    "٣٠٠٠٠",  # Arabic-Indic digits
]
odd_text = st.sampled_from(ODD) | st.text(st.characters(exclude_categories=()), max_size=60)
numbers = st.integers() | st.integers(min_value=10**300, max_value=10**330) | st.floats(allow_nan=True, allow_infinity=True)
numerals = numbers.map(str) | st.sampled_from(["9" * 309, "1e309", "-0", "0.0000001", "1,00,00,000", "٣٠٠٠٠", "+" + "8" * 40])
# Messages the readers parse: an amount, a count or a date word beside a number of any size.
LEADS = [
    "cards under",
    "budget",
    "annual fee below ₹",
    "cars under",
    "a laptop under ฿",
    "book a call tomorrow at",
    "reserve a table for",
    "on the",
    "my name is Asha, my number is",
    "compare the first",
]
messages = st.builds("{} {}".format, st.sampled_from(LEADS), numerals) | odd_text
scalars = st.none() | st.booleans() | numbers | odd_text
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(odd_text, inner, max_size=3), max_leaves=8
)
session_ids = st.uuids(version=4).map(str) | st.uuids().map(str) | odd_text | st.integers()
# What a URL can carry: any bytes, percent-encoded (invalid UTF-8 and encoded surrogates included).
path_segments = (st.binary(max_size=60) | odd_text.map(lambda text: text.encode("utf-8", "surrogatepass"))).map(
    lambda raw: quote(raw, safe="")
)


def json_bytes(value: object) -> bytes:
    """JSON as a client might write it: NaN and Infinity included, surrogates as \\u escapes."""
    return json.dumps(value).encode()


def nested(depth: int) -> bytes:
    return b'{"query": ' + b"[" * depth + b"]" * depth + b"}"


def shaped(fields: dict[str, st.SearchStrategy[object]]) -> st.SearchStrategy[bytes]:
    """An object with the endpoint's own fields, each present or not, each of any type."""
    return st.fixed_dictionaries({}, optional={name: strategy | values for name, strategy in fields.items()}).map(json_bytes)


def bodies(fields: dict[str, st.SearchStrategy[object]]) -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=300),
        values.map(json_bytes),
        shaped(fields),
        st.integers(min_value=1, max_value=8_000).map(nested),  # 8,000 levels still fit MAX_REQUEST_BYTES
        st.integers(min_value=4300, max_value=6000).map(lambda digits: b'{"query": ' + b"7" * digits + b"}"),
    )


CHAT = {
    "query": messages,
    "session_id": session_ids,
    "user_employment": st.sampled_from(["salaried", "business_owner", "astronaut"]),
    "mode": st.sampled_from(["offline", "crew", "turbo"]),
    "customer_id": odd_text,
}
CONSOLE = {"text": messages, "note": messages}
OPERATOR = {"X-API-Key": OPERATOR_KEY}
ASSISTANT = {"user_id": odd_text | st.sampled_from(["user_ind001", "u1"]), "instruction": messages}
content_types = st.sampled_from(
    ["application/json", "application/json; charset=utf-8", "application/json; charset=latin-1", "text/plain"]
)
header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=80)
headers = st.fixed_dictionaries(
    {},
    optional={
        "X-Request-ID": header_text,
        "Authorization": header_text | header_text.map("Bearer {}".format) | st.just("Bearer a.b.c"),
    },
)


def assert_json_and_no_server_error(response) -> None:
    assert response.status_code < 500, (response.status_code, response.get_data(as_text=True)[:300])
    if response.status_code != 204:
        assert response.mimetype == "application/json", response.mimetype
        assert isinstance(response.get_json(), dict)


@fuzz
@given(body=bodies(CHAT), content_type=content_types, sent_headers=headers)
def test_chat_never_fails_on_any_body(body, content_type, sent_headers):
    assert_json_and_no_server_error(bank.post("/chat", data=body, content_type=content_type, headers=sent_headers))


@pytest.mark.parametrize("domain", ["bank", "cars", "store", "restaurants"])
@settings(fuzz, max_examples=30)
@given(query=messages)
def test_chat_never_fails_on_any_message(domain, query):
    """A well-formed request, so that the message reaches each pack's readers: amounts, counts, dates, names."""
    assert_json_and_no_server_error(client_for(domain).post("/chat", json={"query": query}))


@pytest.mark.parametrize("domain", ["bank", "restaurants"])
@settings(fuzz, max_examples=15)
@given(said=st.lists(messages, min_size=2, max_size=4))
def test_a_conversation_of_any_messages_never_fails(domain, said):
    """One session: what earlier messages left in its state (a goal, a phone, filters) meets the
    next, and the session reads back whole."""
    client, session = client_for(domain), str(uuid.uuid4())
    for query in said:
        assert_json_and_no_server_error(client.post("/chat", json={"query": query, "session_id": session}))
    assert_json_and_no_server_error(client.get(f"/sessions/{session}"))


@fuzz
@given(body=bodies(CHAT), content_type=content_types, sent_headers=headers)
def test_chat_stream_never_fails_on_any_body(body, content_type, sent_headers):
    response = bank.post("/chat/stream", data=body, content_type=content_type, headers=sent_headers)
    if response.mimetype != "text/event-stream":
        assert_json_and_no_server_error(response)
        return
    events = [block.split("\n", 1) for block in response.get_data(as_text=True).strip().split("\n\n")]
    data = [json.loads(line.removeprefix("data: ")) for _, line in events]
    assert events[-1][0] in ("event: final", "event: error") and data[-1].get("error") != "internal_error", data[-1]


@fuzz
@given(body=bodies(ASSISTANT), content_type=content_types, sent_headers=headers)
def test_the_concierge_never_fails_on_any_body(body, content_type, sent_headers):
    assert_json_and_no_server_error(restaurants.post("/assistant", data=body, content_type=content_type, headers=sent_headers))


@fuzz
@given(instruction=messages, user_id=st.sampled_from(["user_ind001", "someone-new"]))
def test_the_concierge_never_fails_on_any_instruction(instruction, user_id):
    assert_json_and_no_server_error(restaurants.post("/assistant", json={"user_id": user_id, "instruction": instruction}))


@fuzz
@given(
    action=st.sampled_from(["reply", "release"]),
    said=messages | values,
    raw=st.none() | bodies(CONSOLE),
    content_type=content_types,
)
@example(action="reply", said="\ud800", raw=None, content_type="application/json")  # a lone surrogate was a 500
@example(action="release", said="\ud800", raw=None, content_type="application/json")
def test_an_operators_reply_or_note_never_fails_on_any_body(action, said, raw, content_type):
    """Each on a conversation the operator has just taken, so that what passes is written: the
    endpoint's own field with any text or value, or any body at all."""
    session = uuid.uuid4()
    client = {"REMOTE_ADDR": f"10.{session.bytes[0]}.{session.bytes[1]}.{session.bytes[2]}"}  # one waiting hand-over per client
    bank.post("/chat", json={"query": "I want to talk to a person", "session_id": str(session)}, environ_base=client)
    assert bank.post(f"/console/api/conversations/{session}/take", headers=OPERATOR).status_code == 200
    body = json_bytes({"text" if action == "reply" else "note": said}) if raw is None else raw
    path = f"/console/api/conversations/{session}/{action}"
    assert_json_and_no_server_error(bank.post(path, data=body, content_type=content_type, headers=OPERATOR))


@fuzz
@given(session_id=path_segments | st.uuids().map(str))
def test_a_session_by_any_id_never_fails(session_id):
    assert_json_and_no_server_error(bank.get(f"/sessions/{session_id}"))


@fuzz
@given(
    customer_id=path_segments | st.sampled_from(["c1", "a" * 64, "a" * 65, "..", "%2e%2e", "%00"]),
    method=st.sampled_from(["GET", "DELETE"]),
    operator=st.booleans(),
)
def test_preferences_by_any_customer_id_never_fail(customer_id, method, operator):
    sent = OPERATOR if operator else {}
    assert_json_and_no_server_error(bank.open(f"/customers/{customer_id}/preferences", method=method, headers=sent))
