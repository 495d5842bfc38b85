"""Identity comes from credentials: a customer's signed token or an operator's key, never an id
typed into a request. Without a token the caller is a guest."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import time
import uuid
from zoneinfo import ZoneInfo

import jwt
import pytest
from conftest import OPERATOR_KEY, TOKEN_SECRET, Clock, app_for, signed_in
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

MEMBER = "user_ind001"  # a registered member of data/restaurants/members.json
MEMBER_NAME, MEMBER_PHONE = "Aarav Mehta", "+919820012345"
SEED = (
    "Book a table for four at an Indian restaurant in Bandra, Mumbai, next Saturday at 8 PM, "
    "then send a WhatsApp confirmation, and remind me an hour before."
)


@pytest.fixture
def restaurants(tmp_path):
    app = app_for(tmp_path, "restaurants")
    app.extensions["concierge"].clock = Clock(dt.datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Asia/Kolkata")))
    return app.test_client()


def hs256(claims: dict, key: bytes) -> str:
    """A token signed by hand, as PyJWT refuses to sign with a PEM key as an HMAC secret."""
    part = lambda data: base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=")  # noqa: E731
    signing = part({"alg": "HS256", "typ": "JWT"}) + b"." + part(claims)
    return (signing + b"." + base64.urlsafe_b64encode(hmac.new(key, signing, hashlib.sha256).digest()).rstrip(b"=")).decode()


def outbox(tmp_path) -> str:
    path = tmp_path / "outbox.jsonl"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_members_id_without_their_token_is_a_guest(restaurants, tmp_path):
    answer = restaurants.post("/assistant", json={"user_id": MEMBER, "instruction": SEED}).get_json()
    assert "reservation" not in answer and "ask_user" in answer, "a guest is asked who they are"
    assert MEMBER_NAME not in json.dumps(answer) and MEMBER_PHONE[-4:] not in outbox(tmp_path)


def test_a_member_with_their_token_is_known(restaurants, tmp_path):
    answer = restaurants.post("/assistant", json={"user_id": MEMBER, "instruction": SEED}, headers=signed_in(MEMBER)).get_json()
    assert answer["reservation"]["status"] == "confirmed" and answer["notification"]["status"] == "sent"
    assert MEMBER_PHONE in outbox(tmp_path)


def test_a_guest_cannot_continue_a_members_plan(restaurants):
    plan = {"user_id": MEMBER, "instruction": "Book a table for two at an Italian restaurant in Pune tomorrow at 8 pm"}
    started = restaurants.post("/assistant", json=plan, headers=signed_in(MEMBER)).get_json()
    assert "ask_user" in started  # which area of Pune
    hijack = restaurants.post("/assistant", json={"user_id": MEMBER, "instruction": "Viman Nagar"}).get_json()
    assert "reservation" not in hijack
    resumed = restaurants.post("/assistant", json={"user_id": MEMBER, "instruction": "Viman Nagar"}, headers=signed_in(MEMBER))
    assert "reservation" in resumed.get_json(), "the member's own plan was left as it was"


def test_a_token_for_someone_else_is_refused_and_books_nothing(restaurants, tmp_path):
    response = restaurants.post("/assistant", json={"user_id": MEMBER, "instruction": SEED}, headers=signed_in("user_ind002"))
    assert response.status_code == 403 and response.get_json()["error"] == "identity_mismatch"
    assert outbox(tmp_path) == ""


@pytest.mark.parametrize(
    "header",
    [
        {
            "Authorization": "Bearer "
            + jwt.encode({"sub": "cust-1", "exp": int(time.time()) + 600}, "another-login-s-secret-32-bytes!")
        },
        {"Authorization": "Bearer " + jwt.encode({"sub": "cust-1", "exp": int(time.time()) - 3600}, TOKEN_SECRET)},
        {"Authorization": "Bearer " + jwt.encode({"sub": "cust-1"}, TOKEN_SECRET)},  # never expires
        {"Authorization": "Bearer " + jwt.encode({"exp": int(time.time()) + 600}, TOKEN_SECRET)},  # no subject
        {"Authorization": "Bearer " + jwt.encode({"sub": "cust-1", "exp": int(time.time()) + 600}, None, algorithm="none")},
        {"Authorization": "Bearer " + jwt.encode({"sub": "../etc", "exp": int(time.time()) + 600}, TOKEN_SECRET)},
        {"Authorization": "Basic Y3VzdC0xOnB3"},
        {"Authorization": "Bearer not.a.token"},
        {"X-API-Key": "guessed"},
    ],
    ids=["wrong key", "expired", "no expiry", "no subject", "alg none", "bad subject", "basic", "garbage", "bad api key"],
)
def test_a_bad_credential_is_a_401_and_changes_nothing(client, header):
    session_id = str(uuid.uuid4())
    response = client.post("/chat", json={"query": "show me islamic credit cards", "session_id": session_id}, headers=header)
    assert response.status_code == 401 and response.get_json()["error"] in {"invalid_token", "invalid_api_key"}
    assert client.get(f"/sessions/{session_id}").status_code == 404
    assert client.get("/customers/cust-1/preferences", headers={"X-API-Key": OPERATOR_KEY}).get_json()["filters"] == {}


def test_a_customer_id_in_the_body_is_not_an_identity(client):
    session_id = str(uuid.uuid4())
    body = {"query": "show me islamic credit cards", "session_id": session_id, "customer_id": "cust-1"}
    response = client.post("/chat", json=body)
    assert response.status_code == 403 and response.get_json()["error"] == "identity_mismatch"
    assert client.post("/chat", json=body, headers=signed_in("cust-2")).status_code == 403
    assert client.post("/chat", json=body, headers=signed_in("cust-1")).status_code == 200, "the token's own id may be repeated"
    learned = client.get("/customers/cust-1/preferences", headers=signed_in("cust-1")).get_json()
    assert learned["filters"]["banking_type"] == ["islami"]


def test_preferences_open_only_to_their_customer_or_an_operator(client):
    client.post("/chat", json={"query": "show me islamic credit cards"}, headers=signed_in("alice"))
    assert client.get("/customers/alice/preferences").status_code == 401
    assert client.delete("/customers/alice/preferences").status_code == 401
    assert client.get("/customers/alice/preferences", headers=signed_in("mallory")).status_code == 403
    assert client.delete("/customers/alice/preferences", headers=signed_in("mallory")).status_code == 403
    operator = {"X-API-Key": OPERATOR_KEY}
    assert client.get("/customers/alice/preferences", headers=operator).get_json()["filters"]["banking_type"] == ["islami"]
    assert client.get("/customers/alice/preferences", headers=signed_in("ops", role="operator")).status_code == 200
    assert client.delete("/customers/alice/preferences", headers=signed_in("alice")).status_code == 204
    assert client.get("/customers/alice/preferences", headers=operator).get_json()["filters"] == {}


def test_a_guest_cannot_overwrite_a_customers_preferences(client):
    client.post("/chat", json={"query": "show me islamic credit cards"}, headers=signed_in("alice"))
    for query in ("show me conventional credit cards", "actually conventional ones"):
        client.post("/chat", json={"query": query, "customer_id": "alice"})
        client.post("/chat", json={"query": query})
    kept = client.get("/customers/alice/preferences", headers=signed_in("alice")).get_json()
    assert kept["filters"]["banking_type"] == ["islami"]
    welcome = client.post("/chat", json={"query": "I want a platinum credit card"}, headers=signed_in("alice")).get_json()
    assert welcome["state"]["filters"]["banking_type"] == "islami"


def test_a_signed_in_customers_session_is_theirs_alone(client):
    session_id = str(uuid.uuid4())
    body = {"query": "show me islamic credit cards", "session_id": session_id}
    assert client.post("/chat", json=body, headers=signed_in("alice")).status_code == 200
    for headers in ({}, signed_in("mallory")):
        taken = client.post("/chat", json=body | {"query": "compare them"}, headers=headers)
        assert taken.status_code == 403 and taken.get_json()["error"] == "forbidden"
    assert client.get(f"/sessions/{session_id}").status_code == 401
    assert client.get(f"/sessions/{session_id}", headers=signed_in("mallory")).status_code == 403
    history = client.get(f"/sessions/{session_id}", headers=signed_in("alice")).get_json()["history"]
    assert [turn["text"] for turn in history if turn["role"] == "user"] == ["show me islamic credit cards"]


def test_a_signed_in_caller_with_a_guests_session_id_gets_their_own_and_the_guest_keeps_theirs(client):
    session_id = str(uuid.uuid4())
    client.post("/chat", json={"query": "show me islamic credit cards", "session_id": session_id})
    alice = client.post("/chat", json={"query": "compare them", "session_id": session_id}, headers=signed_in("alice"))
    assert alice.status_code == 200 and alice.get_json()["session_id"] != session_id, "a session of her own"
    assert alice.get_json()["agents"] != ["comparator", "formatter"], "nothing of the guest's conversation reached her"
    guest = client.post("/chat", json={"query": "compare them", "session_id": session_id})
    assert guest.status_code == 200 and guest.get_json()["agents"] == ["comparator", "formatter"], "the guest keeps it"
    history = client.get(f"/sessions/{session_id}").get_json()["history"]
    assert [turn["text"] for turn in history if turn["role"] == "user"] == ["show me islamic credit cards", "compare them"]
    own = client.get(f"/sessions/{alice.get_json()['session_id']}", headers=signed_in("alice")).get_json()["history"]
    assert [turn["text"] for turn in own if turn["role"] == "user"] == ["compare them"]


def test_rs256_tokens_are_checked_with_the_logins_public_key(tmp_path):
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = private.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    (tmp_path / "login.pem").write_bytes(public)
    client = app_for(
        tmp_path, auth_jwt_public_key=str(tmp_path / "login.pem"), auth_jwt_issuer="https://login.example"
    ).test_client()
    claims = {"sub": "alice", "exp": int(time.time()) + 600, "iss": "https://login.example"}
    good = {"Authorization": "Bearer " + jwt.encode(claims, private, algorithm="RS256")}
    assert client.get("/customers/alice/preferences", headers=good).status_code == 200
    forged = hs256(claims, public)  # the public key as an HMAC secret: the classic algorithm confusion
    assert client.get("/customers/alice/preferences", headers={"Authorization": f"Bearer {forged}"}).status_code == 401
    other_issuer = jwt.encode(claims | {"iss": "https://evil.example"}, private, algorithm="RS256")
    assert client.get("/customers/alice/preferences", headers={"Authorization": f"Bearer {other_issuer}"}).status_code == 401


def test_without_a_configured_key_tokens_are_refused_and_guests_still_chat(tmp_path):
    client = app_for(tmp_path, auth_jwt_secret=None, operator_api_keys=[]).test_client()
    assert client.post("/chat", json={"query": "hi"}, headers=signed_in("alice")).status_code == 401
    assert client.post("/chat", json={"query": "show me islamic credit cards"}).status_code == 200
    assert client.get("/customers/alice/preferences").status_code == 401


def test_a_short_token_secret_stops_start_up(tmp_path):
    with pytest.raises(ValueError, match="auth_jwt_secret"):
        app_for(tmp_path, auth_jwt_secret="guessable")


@pytest.mark.parametrize("keys", [["x"], ["asha:a-long-random-key"], [OPERATOR_KEY, "ravi:" + "k" * 31]])
def test_a_short_operator_key_stops_start_up(tmp_path, keys):
    with pytest.raises(ValueError, match="OPERATOR_API_KEYS") as refused:
        app_for(tmp_path, operator_api_keys=keys)
    assert "32 characters" in str(refused.value) and "k" * 31 not in str(refused.value), "the key is never shown"


def test_guessing_keys_or_tokens_is_throttled_per_client(client):
    guesser, other = {"REMOTE_ADDR": "203.0.113.9"}, {"REMOTE_ADDR": "203.0.113.10"}
    queue = "/console/api/queue"
    answers = [client.get(queue, headers={"X-API-Key": f"guess-{n}"}, environ_base=guesser) for n in range(6)]
    answers += [client.get(queue, headers={"Authorization": f"Bearer forged.{n}.token"}, environ_base=guesser) for n in range(6)]
    statuses = [a.status_code for a in answers]
    assert statuses[:10] == [401] * 10 and statuses[10:] == [429, 429], statuses
    assert 1 <= int(answers[-1].headers["Retry-After"]) <= 60
    right = client.get(queue, headers={"X-API-Key": OPERATOR_KEY}, environ_base=guesser)
    assert right.status_code == 429, "while shut out, even the right key is not checked: a guess cannot be confirmed"
    assert client.get(queue, headers={"X-API-Key": OPERATOR_KEY}, environ_base=other).status_code == 200
    assert client.post("/chat", json={"query": "hi"}, environ_base=guesser).status_code == 200, "a guest still chats"
