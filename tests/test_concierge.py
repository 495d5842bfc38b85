"""POST /assistant, the restaurant concierge: the example instruction of its contract and the JSON
shape it answers in, the clarifying questions that continue the same plan, and its fallbacks:
no restaurant found, a fully booked slot (409), a message gateway that is down, a reminder in
the past. Also Hindi, bad input, and 20 users at once."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import Clock, Conversation, app_for, durable, signed_in

from assistant.booking.notifications import NotifyError
from assistant.pack.loading import load_catalog
from assistant.pack.model import DataError
from extensions.restaurants.planner import Plan, ServiceReader

DOMAIN = "restaurants"
DATA = Path(__file__).resolve().parent.parent / "data" / "restaurants"
KOLKATA = ZoneInfo("Asia/Kolkata")
MONDAY = dt.datetime(2026, 11, 23, 10, 0, tzinfo=KOLKATA)
SEED_INSTRUCTION = (
    "Book a table for four at an Indian restaurant in Bandra, Mumbai, next Saturday at 8 PM, "
    "then send a WhatsApp confirmation, and remind me an hour before."
)


@pytest.fixture
def clock(app):
    clock = Clock(MONDAY)
    app.extensions["concierge"].clock = clock
    return clock


@pytest.fixture
def ask(client, clock):
    def post(instruction: str, user_id: str = "user_ind001") -> dict:
        """An instruction from `user_id`, signed in (a registered member's name and phone are then known)."""
        response = client.post("/assistant", json={"user_id": user_id, "instruction": instruction}, headers=signed_in(user_id))
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    return post


@pytest.fixture
def outbox(tmp_path):
    def read() -> list[dict]:
        path = tmp_path / "outbox.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    return read


def test_the_final_answer_has_exactly_the_seed_keys(ask):
    """A strict client refuses keys it does not know: the booking's answer carries the four
    objects (the reminder only when one was asked for) and no words beside them."""
    without = ask("Book a table for two at an Indian restaurant in Bandra, Mumbai, next Saturday at 8 PM", "user_ind002")
    assert set(without) == {"restaurant", "reservation", "notification"}
    assert set(ask(SEED_INSTRUCTION)) == {"restaurant", "reservation", "notification", "reminder"}


def test_the_seed_instruction_gets_the_seed_json(ask, catalog, outbox, tmp_path):
    result = ask(SEED_INSTRUCTION)
    assert set(result) == {"restaurant", "reservation", "notification", "reminder"}, (
        "exactly the keys the concierge's contract names"
    )
    assert set(result["restaurant"]) == {"id", "name", "address", "rating"}
    assert set(result["reservation"]) == {"reservation_id", "date", "time", "table_number", "status"}
    assert set(result["notification"]) == {"message_id", "status"}
    assert set(result["reminder"]) == {"reminder_id", "scheduled_for", "status"}

    restaurant = catalog.product(result["restaurant"]["id"])
    assert restaurant.value("city") == "mumbai" and restaurant.value("locality").startswith("Bandra")
    assert set(restaurant.value("cuisines")) - {"chinese", "italian", "continental", "cafe"}, "an Indian restaurant"
    assert result["restaurant"]["rating"] == restaurant.value("rating")
    assert result["reservation"] | {"reservation_id": None, "table_number": None} == {
        "reservation_id": None,
        "table_number": None,
        "date": "2026-11-28",
        "time": "20:00",
        "status": "confirmed",
    }
    assert result["notification"]["status"] == "sent" and result["notification"]["message_id"].startswith("msg_")
    assert result["reminder"]["scheduled_for"] == "2026-11-28T19:00" and result["reminder"]["status"] == "scheduled"

    sent = outbox()[-1]
    assert sent["kind"] == "whatsapp" and sent["to"] == "+919820012345"
    assert restaurant.name in sent["text"] and result["reservation"]["reservation_id"] in sent["text"]
    db = durable(tmp_path)
    due = db.rows("SELECT due_at FROM reminders WHERE id=?", (result["reminder"]["reminder_id"],))[0][0]
    guests = db.rows("SELECT guests FROM reservations WHERE id=?", (result["reservation"]["reservation_id"],))[0][0]
    assert dt.datetime.fromisoformat(due) == dt.datetime(2026, 11, 28, 19, 0, tzinfo=KOLKATA) and guests == 4


def test_missing_details_are_asked_one_at_a_time_and_the_plan_continues(ask):
    assert ask("I want to book a table", "u-new") == {"ask_user": "Which city should I book in?"}
    assert ask("Pune", "u-new") == {"ask_user": "Which area of Pune would you like?"}
    assert "cuisine" in ask("Koregaon Park", "u-new")["ask_user"]
    assert ask("maharashtrian please", "u-new")["ask_user"] == "Which day should I book the table for?"
    assert ask("tomorrow", "u-new")["ask_user"] == "At what time?"
    assert ask("8 pm", "u-new")["ask_user"] == "For how many people?"
    assert "name and mobile number" in ask("3 people", "u-new")["ask_user"]
    done = ask("My name is Meera Joshi, 98220 11223", "u-new")
    assert done["reservation"]["date"] == "2026-11-24" and done["reservation"]["time"] == "20:00"
    assert "reminder" not in done, "no reminder was asked for"
    again = ask("Book a table for 2 in Koregaon Park, Pune on Friday at 1 pm, maharashtrian", "u-new")
    assert again["reservation"]["date"] == "2026-11-27", "a known customer is not asked again"


def test_hindi_instruction(ask):
    asked = ask("मुझे कल शाम 8 बजे का टेबल बुक करना है", "u-hindi")
    assert asked == {"ask_user": "किस शहर में बुक करूँ?"}  # a Hindi instruction is asked back in Hindi
    for answer in ("Mumbai", "Colaba", "coastal", "do log", "naam Arjun Rao, 9819012345"):
        result = ask(answer, "u-hindi")
    assert result["reservation"]["date"] == "2026-11-24" and result["reservation"]["time"] == "20:00"


def test_empty_search_suggests_what_exists_and_continues(ask, catalog):
    asked = ask("Book a table for 2 at a Bengali restaurant in Colaba, Mumbai tomorrow at 8 pm")
    bengali_in_mumbai = {
        r.value("locality") for r in catalog.products if r.value("city") == "mumbai" and "bengali" in r.value("cuisines")
    }
    assert asked["ask_user"].startswith("I couldn't find Bengali restaurants in Colaba open at 20:00")
    if bengali_in_mumbai:
        assert all(place in asked["ask_user"] for place in sorted(bengali_in_mumbai)[:3])
    else:  # then it offers the cuisines Colaba has
        assert "Which cuisine" in asked["ask_user"]
    follow_up = "coastal" if not bengali_in_mumbai else sorted(bengali_in_mumbai)[0]
    assert ask(follow_up)["reservation"]["status"] == "confirmed"


def test_a_fully_booked_slot_takes_the_earliest_alternate_and_says_so(ask, catalog):
    full = json.loads((DATA / "calendar.json").read_text())
    restaurant_id, days = next((rid, d) for rid, d in full.items() if d.get("sat"))
    name, slot = catalog.product(restaurant_id).name, days["sat"][0]
    hour, minute = slot.split(":")
    result = ask(f"Book {name} for 2 on Saturday at {int(hour) % 12 or 12}:{minute} pm")
    assert result["restaurant"]["id"] == restaurant_id
    assert result["reservation"]["time"] != slot
    assert result["reservation"]["time"] < slot, "the earliest alternate is the one before"


def test_every_table_taken_is_a_conflict_too(ask, app):
    services = app.extensions["concierge"].services
    restaurant = app.extensions["pipeline"].catalog.product("res_10002")
    for n in range(restaurant.value("tables")):
        reserved = services.reserve_table("res_10002", "2026-11-25", "13:00", 2, f"Guest {n}", "+919800000000", now=MONDAY)
        assert reserved["status"] == "confirmed"
    refused = services.reserve_table("res_10002", "2026-11-25", "13:00", 2, "Late", "+919800000000", now=MONDAY)
    assert refused["status"] == "no_availability" and refused["alternate_slots"] == ["12:30", "13:30"]
    result = ask(f"Book {restaurant.name} for 2 on Wednesday at 1 pm")
    assert result["reservation"]["time"] == "12:30"


class FlakyGateway:
    """The SMS/WhatsApp gateway (a service we don't run): down for the first `failures` sends."""

    def __init__(self, failures: int):
        self.failures, self.sent = failures, []

    def send(self, to: str, text: str, kind: str) -> None:
        if self.failures:
            self.failures -= 1
            raise NotifyError("503 gateway unavailable")
        self.sent.append((to, kind))


def test_a_gateway_down_once_is_retried(ask, app):
    gateway = FlakyGateway(failures=1)
    app.extensions["concierge"].services.notifier = gateway
    result = ask(SEED_INSTRUCTION)
    assert result["notification"]["status"] == "sent" and gateway.sent == [("+919820012345", "whatsapp")]


def test_a_gateway_that_stays_down_is_an_error_naming_the_booking(ask, app):
    app.extensions["concierge"].services.notifier = FlakyGateway(failures=2)
    result = ask(SEED_INSTRUCTION)
    assert set(result) == {"error", "details"} and result["error"] == "notification_failed"
    assert "rev_" in result["details"], "the customer learns the table is booked"
    assert "503" not in result["details"], "the gateway's own error is for the log"


def test_a_service_that_refuses_is_told_in_the_packs_words(ask, app, monkeypatch):
    services = app.extensions["concierge"].services
    monkeypatch.setattr(services, "search_restaurant", lambda *args: {"error": "invalid_request", "details": "missing city"})
    assert ask(SEED_INSTRUCTION) == {
        "error": "search_failed",
        "details": "I couldn't book that table, so nothing is booked. Please try another time, or contact our concierge "
        "desk at +91 80 4000 1234 or help@dineindia.example.",
    }


def test_a_reminder_in_the_past_asks_for_a_valid_time(ask, clock):
    clock.now = dt.datetime(2026, 11, 23, 19, 30, tzinfo=KOLKATA)
    asked = ask("Book a table for 2 at an Indian restaurant in Bandra, Mumbai today at 8 pm and remind me an hour before")
    assert "would be in the past" in asked["ask_user"] and "19:00" in asked["ask_user"]
    done = ask("remind me at 7:45 pm")
    assert done["reminder"]["scheduled_for"] == "2026-11-23T19:45" and done["reservation"]["time"] == "20:00"


def test_a_year_gone_by_is_refused_with_the_day_and_asked_again(ask):
    """A year said is kept: "1 January 2020" is that day, gone by, so it is asked again (never moved to 2027)."""
    asked = ask("Book a table for 2 at an Indian restaurant in Bandra, Mumbai on 1 January 2020 at 8 pm")
    assert asked["ask_user"].startswith("Wednesday 1 January 2020 has already passed.") and "Which day" in asked["ask_user"]
    done = ask("tomorrow")
    assert done["reservation"]["date"] == "2026-11-24" and done["reservation"]["time"] == "20:00"


def test_a_hinglish_reminder_said_before_its_verb(ask):
    """Hindi puts how long ahead before "remind": "do ghante pehle yaad dila dena" is two hours."""
    result = ask(
        "Bandra Mumbai mein Saturday raat 8 baje 4 log ke liye Indian restaurant book karna, do ghante pehle yaad dila dena"
    )
    assert result["reservation"]["date"] == "2026-11-28" and result["reservation"]["time"] == "20:00"
    assert result["reminder"]["scheduled_for"] == "2026-11-28T18:00"


@pytest.mark.parametrize(
    "body,field",
    [
        ({"instruction": "book a table"}, "user_id"),
        ({"user_id": "", "instruction": "book a table"}, "user_id"),
        ({"user_id": "u" * 65, "instruction": "book a table"}, "user_id"),
        ({"user_id": "u1", "instruction": "x" * 1001}, "instruction"),
        ({"user_id": "u1", "instruction": "   "}, "instruction"),
        ({"user_id": "u1", "instruction": "book", "extra": 1}, "extra"),
        ({"user_id": 7, "instruction": "book"}, "user_id"),
    ],
)
def test_bad_input_is_a_clear_400_and_changes_nothing(client, tmp_path, body, field):
    response = client.post("/assistant", json=body)
    assert response.status_code == 400 and field in response.get_json()["message"]
    assert durable(tmp_path).rows("SELECT COUNT(*) FROM concierge_plans") == [(0,)]


def test_twenty_users_at_once_keep_their_own_plans(ask, tmp_path):
    def book(n: int) -> tuple[int, dict]:
        return n, ask(
            f"Book a table for {n % 6 + 1} people at an Indian restaurant in Bandra, Mumbai on Thursday "
            f"at 1 pm, my name is Guest Number, 98{n:08d}",
            f"user-{n}",
        )

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(book, range(20)))
    assert all("reservation" in result for _, result in results), results
    guests = dict(durable(tmp_path).rows("SELECT id, guests FROM reservations"))
    assert {guests[result["reservation"]["reservation_id"]] for n, result in results} == set(range(1, 7))
    for n, result in results:
        assert guests[result["reservation"]["reservation_id"]] == n % 6 + 1, "no user got another's booking"


def test_other_businesses_have_no_concierge(tmp_path):
    """POST /assistant is the restaurants extension's route: a pack that doesn't load it has none, nor documents one."""
    client = app_for(tmp_path, "bank").test_client()
    response = client.post("/assistant", json={"user_id": "u", "instruction": "hi"})
    assert response.status_code == 404 and response.get_json()["error"] == "not_found"
    assert "/assistant" not in client.get("/openapi.json").get_json()["paths"]


def test_instructions_are_read_by_the_packs_schema(app, catalog):
    concierge = app.extensions["concierge"]
    assert set(concierge.reader.schema.slots) >= {"city", "locality", "cuisine", "restaurant_name", "date", "time", "party_size"}
    said = concierge.read("A table for 3 in Bandra West, Bombay, any cuisine, tomorrow at 9 pm", MONDAY, Plan())
    assert said == {"city": "mumbai", "locality": "Bandra West", "date": "2026-11-24", "time": "21:00", "guests": 3}
    named = catalog.products[0]
    said = concierge.read(f"Book {named.name} for two on Friday at 1 pm", MONDAY, Plan())
    assert said["restaurant_id"] == named.id and said["city"] == named.value("city") and said["date"] == "2026-11-27"


def test_a_place_written_in_devanagari_is_the_same_place(app, client, catalog):
    """बांद्रा is Bandra: the pack's `places` vocabulary gives other spellings of its localities."""
    said = app.extensions["concierge"].read("कल रात 8 बजे बांद्रा में 2 लोगों के लिए टेबल", MONDAY, Plan())
    assert said["city"] == "mumbai" and said["locality"] == "Bandra"
    found = Conversation(client).say("बांद्रा में साउथ इंडियन रेस्टोरेंट")
    assert found["intent"]["filters"]["city"] == "mumbai" and found["intent"]["filters"]["locality"] == "Bandra"
    assert found["products"] and all(catalog.product(p["id"]).value("locality").startswith("Bandra") for p in found["products"])


def test_a_head_count_the_reservation_service_would_refuse_is_refused_at_start_up(tmp_path):
    folder = tmp_path / "restaurants"
    shutil.copytree(DATA, folder)
    pack = folder / "pack.yaml"
    pack.write_text(pack.read_text().replace("range: [1, 20]", "range: [1, 30]"))
    with pytest.raises(DataError, match=r"restaurants.flow.guests, flows.booking.guests: a head count needs a range within"):
        app_for(tmp_path, data_dir=folder)


def test_a_place_spelling_for_no_locality_of_the_catalog_is_refused(tmp_path):
    pack = Path(__file__).resolve().parent.parent / "data" / "restaurants"
    catalog = load_catalog(pack)
    catalog.vocabulary.places["Atlantis"] = ["अटलांटिस"]
    schema = json.loads((pack / "schema.json").read_text(encoding="utf-8"))
    with pytest.raises(DataError, match="Atlantis"):
        ServiceReader(catalog, schema)


def test_the_chat_reads_with_the_same_schema_reader_as_the_concierge(app, client, catalog):
    assert app.extensions["pipeline"].reader.understanding.details is app.extensions["concierge"].reader
    chat = Conversation(client)
    found = chat.say("find me a north indian place in Bandra West")  # the area names its city, and is a filter itself
    assert found["intent"]["filters"] == {"city": "mumbai", "cuisine": "north_indian", "locality": "Bandra West"}
    assert found["products"] and all(catalog.product(p["id"]).value("locality") == "Bandra West" for p in found["products"])


def test_a_search_in_devanagari_is_a_search_though_an_article_names_its_city(client):
    """The model can't read Devanagari; the words decide, and a city and a cuisine are the
    catalog's words, not a question for the article that lists the cities."""
    found = Conversation(client).say("दिल्ली में अच्छे इटालियन रेस्टोरेंट बताओ")
    assert found["intent"]["type"] == "product_info" and found["help"]["article"] is None
    assert found["intent"]["filters"] == {"city": "delhi", "cuisine": "italian"}


def test_asking_the_chat_to_book_a_listed_place_books_a_table(client):
    """ "for 4" is a party, not a question about the price for two; which place is asked."""
    chat = Conversation(client)
    chat.say("south indian places in bangalore")
    asked = chat.say("book a table there for 4 tomorrow at 8pm")
    assert asked["intent"] == {"type": "booking", "filters": {}} and asked["agents"] == ["booking", "formatter"]
    assert asked["state"]["active_goal"]["slots"]["guests"] == 4
    assert asked["ask_user"] == "Which restaurant would you like the table at?" and len(asked["choices"]) > 1


def test_a_party_too_big_is_asked_again_in_the_packs_words_not_the_services(ask):
    """The reservation service refuses more than 20 guests with a note for developers; the
    customer hears the pack's sentence and is asked again."""
    asked = ask("Book a table for 25 people at an Indian restaurant in Bandra, Mumbai on Saturday at 8 pm", "u-big")
    assert asked == {
        "ask_user": "We book tables for 1 to 20 guests; for a bigger group, please call our concierge desk "
        "at +91 80 4000 1234 or help@dineindia.example. For how many people?"
    }
    assert ask("we'll be 12", "u-big")["ask_user"].startswith("What name and mobile number")


@pytest.mark.parametrize("said, kind", [("text message me the confirmation", "sms"), ("watsapp pe bhejo", "whatsapp"), ("", "sms")])
def test_the_channel_is_read_with_the_packs_words(ask, outbox, said, kind):
    """The pack says what customers call each channel; without one, its default is used."""
    result = ask(
        "Book a table for two at an Indian restaurant in Bandra, Mumbai, next Saturday at 8 PM, "
        f"my name is Meera Joshi, 9820012345. {said}",
        "u-channel",
    )
    assert result["notification"]["status"] == "sent", result
    assert outbox()[-1]["kind"] == kind and outbox()[-1]["to"] == "+919820012345"


def test_a_detail_is_taken_whatever_was_asked(ask, catalog, tmp_path):
    """Asked for the day, the customer names another city: it is taken, and the area of the old
    city is asked again; an answer in Hindi gives the day, the time and the party at once, and
    the next question comes in Hindi."""
    assert ask("I want to book a table in Bandra, north indian") == {"ask_user": "Which day should I book the table for?"}
    assert ask("Hyderabad") == {"ask_user": "Which area of Hyderabad would you like?"}
    assert ask("कल रात 9 बजे 4 लोगों के लिए") == {"ask_user": "हैदराबाद में कौन-सा इलाक़ा चाहेंगे?"}  # asked in Hindi
    done = ask("Jubilee Hills")
    restaurant = catalog.product(done["restaurant"]["id"])
    assert (restaurant.value("city"), restaurant.value("locality")) == ("hyderabad", "Jubilee Hills")
    assert "north_indian" in restaurant.value("cuisines"), "the cuisine said first is kept"
    assert (done["reservation"]["date"], done["reservation"]["time"]) == ("2026-11-24", "21:00")
    assert _reservations(tmp_path)[-1][-1] == 4, "the party said in Hindi"


def test_a_restaurant_named_before_gives_way_to_another_city(ask, catalog):
    ask("Book Saffron Verandah tomorrow at 8 pm")
    assert ask("Pune") == {"ask_user": "Which area of Pune would you like?"}
    done = ask("Koregaon Park, north indian, for 2")
    assert catalog.product(done["restaurant"]["id"]).value("city") == "pune" and done["reservation"]["time"] == "20:00"


@pytest.mark.parametrize("said", ["kal raat 9 baje 4 logon ke liye table milega?", "कल रात 9 बजे 4 लोगों के लिए टेबल मिलेगा?"])
def test_a_table_asked_for_in_hinglish_or_hindi(app, said):
    assert app.extensions["concierge"].read(said, MONDAY, Plan()) == {"date": "2026-11-24", "time": "21:00", "guests": 4}


def _reservations(tmp_path: Path) -> list[tuple]:
    return durable(tmp_path).rows("SELECT id, restaurant_id, date, time, guests FROM reservations")


def test_a_change_moves_the_booked_table_and_keeps_everything_else(ask, outbox, tmp_path):
    booked = ask(SEED_INSTRUCTION)
    moved = ask("Change it to Friday, same time")
    assert moved["restaurant"] == booked["restaurant"]
    assert moved["reservation"] | {"date": None} == booked["reservation"] | {"date": None}, "the same reservation and time"
    assert moved["reservation"]["date"] == "2026-11-27" and set(moved) == set(booked)
    reservation_id, restaurant_id = booked["reservation"]["reservation_id"], booked["restaurant"]["id"]
    assert _reservations(tmp_path) == [(reservation_id, restaurant_id, "2026-11-27", "20:00", 4)]
    assert moved["reminder"]["scheduled_for"] == "2026-11-27T19:00", "the reminder an hour before moves with it"
    assert durable(tmp_path).rows("SELECT COUNT(*) FROM reminders WHERE sent_at IS NULL") == [(1,)], "the old one is gone"
    sent = outbox()[-1]
    assert sent["kind"] == "whatsapp" and "is now for 4 on Friday 27 November at 20:00" in sent["text"]


def test_a_question_never_moves_a_booked_table_but_a_change_after_it_does(ask, outbox, tmp_path):
    booked = ask(SEED_INSTRUCTION)
    before, messages = _reservations(tmp_path), len(outbox())
    for question in ("Are you open on Sunday?", "kal raat 9 baje parking milegi?", "Book another table on Sunday"):
        assert "ask_user" in ask(question), question
        assert _reservations(tmp_path) == before and len(outbox()) == messages, question
    moved = ask("actually move my table to Sunday at 9 pm instead")
    assert moved["reservation"]["reservation_id"] == booked["reservation"]["reservation_id"]
    assert (moved["reservation"]["date"], moved["reservation"]["time"]) == ("2026-11-29", "21:00")


def test_a_change_to_an_hour_it_cannot_have_is_asked_again_and_the_table_stays(ask, tmp_path):
    booked = ask(SEED_INSTRUCTION)
    before = _reservations(tmp_path)
    asked = ask("please move it to Monday 30 November at 2 am")
    assert "is open" in asked["ask_user"] and asked["ask_user"].endswith("At what time?")
    assert _reservations(tmp_path) == before, "nothing moves until a time it can have"
    moved = ask("10 pm")
    assert (moved["reservation"]["date"], moved["reservation"]["time"]) == ("2026-11-30", "22:00")
    assert moved["reservation"]["reservation_id"] == booked["reservation"]["reservation_id"]


def test_another_place_is_another_table_not_a_change(ask, tmp_path):
    ask(SEED_INSTRUCTION)
    before = _reservations(tmp_path)
    assert ask("change it to Pune on Friday") == {"ask_user": "Which area of Pune would you like?"}
    assert _reservations(tmp_path) == before


def test_a_change_in_hindi(ask, tmp_path):
    booked = ask(SEED_INSTRUCTION)
    moved = ask("बदल दो, परसों")
    assert (moved["reservation"]["date"], moved["reservation"]["time"]) == ("2026-11-25", "20:00")
    assert _reservations(tmp_path)[0][0] == booked["reservation"]["reservation_id"]


def test_a_guest_changing_the_table_held_moves_it_and_the_code_confirms_it_there(client, clock, outbox, tmp_path):
    def say(instruction: str) -> dict:
        response = client.post("/assistant", json={"user_id": "guest-7", "instruction": instruction})
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    say("Book a table for 2 at an Indian restaurant in Bandra, Mumbai, tomorrow at 1 pm, I'm Meera Joshi, 9820011223")
    held = say("make it 2 pm instead")
    assert "holding a table for 2" in held["ask_user"] and "at 14:00" in held["ask_user"]
    code = outbox()[-1]["text"].split("code is ")[1][:6]
    done = say(code)
    assert done["reservation"]["time"] == "14:00" and len(_reservations(tmp_path)) == 1
    assert "confirmed for Tuesday 24 November at 14:00" in outbox()[-1]["text"]
