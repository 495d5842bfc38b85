"""Schema-driven understanding (assistant.understanding.nlu): any SGD service schema, turns read alone or in a conversation."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.language import shipped
from assistant.understanding.nlu import DONTCARE, NO_INTENT, DialogueTracker, Kind, SchemaUnderstanding

TODAY = dt.date(2026, 11, 20)  # a Friday
ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = shipped()

DINING = {
    "service_name": "Dining_1",
    "slots": [
        {"name": "restaurant_name", "description": "Name of the restaurant", "is_categorical": False, "possible_values": []},
        {"name": "city", "description": "City where the restaurant is", "is_categorical": False, "possible_values": []},
        {"name": "cuisine", "description": "Kind of food served", "is_categorical": False, "possible_values": []},
        {"name": "date", "description": "Date of the reservation", "is_categorical": False, "possible_values": []},
        {"name": "time", "description": "Time of the reservation", "is_categorical": False, "possible_values": []},
        {
            "name": "party_size",
            "description": "Number of people in the party",
            "is_categorical": True,
            "possible_values": ["1", "2", "3", "4", "5", "6", "7", "8"],
        },
        {
            "name": "serves_alcohol",
            "description": "Whether the restaurant serves alcohol",
            "is_categorical": True,
            "possible_values": ["True", "False"],
        },
        {
            "name": "has_rooftop_seating",
            "description": "Whether there is rooftop seating",
            "is_categorical": True,
            "possible_values": ["True", "False"],
        },
        {
            "name": "price_range",
            "description": "Price range",
            "is_categorical": True,
            "possible_values": ["cheap", "moderate", "pricey"],
        },
    ],
    "intents": [
        {
            "name": "FindRestaurants",
            "description": "Search for restaurants by city and cuisine",
            "is_transactional": False,
            "required_slots": ["city"],
            "optional_slots": {
                "cuisine": "dontcare",
                "price_range": "dontcare",
                "serves_alcohol": "dontcare",
                "has_rooftop_seating": "dontcare",
            },
        },
        {
            "name": "BookTable",
            "description": "Book a table at a restaurant",
            "is_transactional": True,
            "required_slots": ["restaurant_name", "city", "time"],
            "optional_slots": {"party_size": "2", "date": "today"},
        },
    ],
}
DINING_VALUES = {
    "city": ["Mumbai", "Pune", "Bandra"],
    "restaurant_name": ["Bastian", "The Bombay Canteen", "Trishna"],
    "cuisine": ["Konkani", "North Indian", "Chinese"],
}

SALON = {
    "service_name": "Salon_1",
    "description": "Hair and beauty appointments",
    "slots": [
        {"name": "stylist_name", "description": "Name of the stylist", "is_categorical": False, "possible_values": []},
        {"name": "area", "description": "Locality of the salon", "is_categorical": False, "possible_values": []},
        {"name": "appointment_date", "description": "Day of the appointment", "is_categorical": False, "possible_values": []},
        {
            "name": "appointment_time",
            "description": "Start time of the appointment",
            "is_categorical": False,
            "possible_values": [],
        },
        {
            "name": "is_unisex",
            "description": "Whether the salon serves everyone",
            "is_categorical": True,
            "possible_values": ["True", "False"],
        },
        {
            "name": "service",
            "description": "Treatment wanted",
            "is_categorical": True,
            "possible_values": ["haircut", "facial", "manicure"],
        },
    ],
    "intents": [
        {
            "name": "FindSalon",
            "description": "Look for a salon in an area",
            "is_transactional": False,
            "required_slots": ["area"],
            "optional_slots": {"is_unisex": "dontcare", "service": "dontcare"},
        },
        {
            "name": "BookAppointment",
            "description": "Schedule an appointment with a stylist",
            "is_transactional": True,
            "required_slots": ["stylist_name", "appointment_date", "appointment_time"],
            "optional_slots": {"service": "haircut"},
        },
    ],
}


@pytest.fixture(scope="module")
def dining() -> SchemaUnderstanding:
    return SchemaUnderstanding.from_schema(DINING, DINING_VALUES)


@pytest.fixture(scope="module")
def salon() -> SchemaUnderstanding:
    return SchemaUnderstanding.from_schema(SALON)


def test_today_is_a_friday():
    assert TODAY.weekday() == 4


# ---------------------------------------------------------------- schema import


def test_slot_kinds_come_from_names_descriptions_and_values(dining, salon):
    kinds = {name: slot.kind for name, slot in dining.slots.items()}
    assert kinds == {
        "restaurant_name": Kind.TEXT,
        "city": Kind.LOCATION,
        "cuisine": Kind.TEXT,
        "date": Kind.DATE,
        "time": Kind.TIME,
        "party_size": Kind.COUNT,
        "serves_alcohol": Kind.BOOLEAN,
        "has_rooftop_seating": Kind.BOOLEAN,
        "price_range": Kind.CATEGORICAL,
    }
    assert salon.slots["appointment_date"].kind is Kind.DATE
    assert salon.slots["appointment_time"].kind is Kind.TIME
    assert salon.slots["area"].kind is Kind.LOCATION
    assert salon.slots["is_unisex"].kind is Kind.BOOLEAN


def test_a_salon_schema_reads_its_own_intents_and_slots(salon):
    booked = salon.read("Please schedule a haircut with Meera next Saturday at 11 am", today=TODAY)
    assert booked == {
        "intent": "BookAppointment",
        "slots": {"appointment_date": "2026-11-21", "appointment_time": "11:00", "service": "haircut"},
    }
    found = salon.read("Can you look for a unisex salon in Koramangala that does facials?", today=TODAY)
    assert found["intent"] == "FindSalon"
    assert found["slots"] == {"area": "Koramangala", "is_unisex": "True", "service": "facial"}


def test_a_stylist_name_is_read_from_the_words_around_it(salon):
    reading = salon.read("Book me an appointment with a stylist called Anjali Rao tomorrow at 5 pm", today=TODAY)
    assert reading["slots"]["stylist_name"] == "Anjali Rao"
    assert reading["slots"]["appointment_date"] == "2026-11-21"


# ---------------------------------------------------------------- intents


@pytest.mark.parametrize(
    "text, intent",
    [
        ("book a table for four in Bandra next Saturday at 8 PM", "BookTable"),
        ("I'd like to reserve a spot at Trishna", "BookTable"),
        ("Can you find me a table at Bastian tonight?", "BookTable"),
        ("Search for Konkani places in Mumbai", "FindRestaurants"),
        ("Can you recommend somewhere cheap in Pune?", "FindRestaurants"),
        ("show me some other options", "FindRestaurants"),
        ("for 3 people at 9 pm please", "BookTable"),  # no cue word, but only a booking takes a time and a party size
    ],
)
def test_intents_from_cue_words_and_slots(dining, text, intent):
    assert dining.read(text, today=TODAY)["intent"] == intent


def test_saying_no_to_more_help_closes_the_conversation(dining):
    reading = dining.read("No thanks, that's everything.", system="Can I help with anything else?", today=TODAY)
    assert reading == {"intent": NO_INTENT, "slots": {}}


def test_a_yes_to_the_systems_proposal_takes_up_its_intent(dining):
    reading = dining.read("Yes please", system="Shall I book a table at Trishna?", today=TODAY)
    assert reading["intent"] == "BookTable"
    assert reading["slots"] == {"restaurant_name": "Trishna"}


# ---------------------------------------------------------------- normalisation


@pytest.mark.parametrize(
    "text, expected",
    [
        ("half past 7 in the evening", "19:30"),
        ("quarter to 9 at night", "20:45"),
        ("7 pm", "19:00"),
        ("12:30 am", "00:30"),
        ("noon", "12:00"),
        ("morning 9:15", "09:15"),
        ("evening 6", "18:00"),
        ("one in the afternoon", "13:00"),
        ("21:45", "21:45"),
        ("kal shaam 8 baje", "20:00"),
        ("around eight o'clock tonight", "20:00"),
    ],
)
def test_times_are_24_hour(text, expected):
    found = LANGUAGES.find_time(text)
    assert found is not None and found.value == expected


def test_a_bare_number_is_no_time():
    assert LANGUAGES.find_time("we are 4 and want paneer") is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("today", "2026-11-20"),
        ("tomorrow", "2026-11-21"),
        ("day after tomorrow", "2026-11-22"),
        ("next Monday", "2026-11-23"),
        ("this Sunday", "2026-11-22"),
        ("Thursday next week", "2026-11-26"),
        ("the 3rd", "2026-12-03"),  # already past this month, so next month's
        ("the 25th", "2026-11-25"),
        ("27th of this month", "2026-11-27"),
        ("March 5th", "2027-03-05"),
        ("5th of December", "2026-12-05"),
        ("kal", "2026-11-21"),
        ("parso", "2026-11-22"),
        ("25/12", "2026-12-25"),
    ],
)
def test_dates_are_iso_relative_to_today(text, expected):
    found = LANGUAGES.find_date(text, TODAY)
    assert found is not None and found.value == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("two people", "2"),
        ("a table for four", "4"),
        ("party of 6", "6"),
        ("just me", "1"),
        ("for three at 8 pm", "3"),
    ],
)
def test_counts_are_digits(text, expected):
    found = LANGUAGES.find_count(text)
    assert found is not None and found.value == expected


def test_a_time_said_with_for_is_not_a_party_size(dining):
    slots = dining.read("book it for 7 in the evening", today=TODAY)["slots"]
    assert slots == {"time": "19:00"}


def test_the_whole_booking_sentence(dining):
    reading = dining.read("book a table for four in Bandra next Saturday at 8 PM", today=TODAY)
    assert reading == {"intent": "BookTable", "slots": {"city": "Bandra", "party_size": "4", "date": "2026-11-21", "time": "20:00"}}


# ---------------------------------------------------------------- categorical and yes/no


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Find a place in Pune with rooftop seating", {"city": "Pune", "has_rooftop_seating": "True"}),
        ("Find somewhere in Pune that serves alcohol", {"city": "Pune", "serves_alcohol": "True"}),
        ("Find me a place in Pune without rooftop seating", {"city": "Pune", "has_rooftop_seating": "False"}),
        (
            "Search for reasonably priced Chinese food in Mumbai",
            {"city": "Mumbai", "cuisine": "Chinese", "price_range": "moderate"},
        ),
        ("Find something in Mumbai, any price is fine", {"city": "Mumbai", "price_range": DONTCARE}),
    ],
)
def test_features_and_categories(dining, text, slots):
    assert dining.read(text, today=TODAY)["slots"] == slots


def test_asking_about_a_feature_is_not_asking_for_it(dining):
    slots = dining.read("Do they have rooftop seating? Is it expensive?", system="Trishna is in Mumbai.", today=TODAY)
    assert slots["slots"] == {}


def _dining_with(**slots: list[str]) -> dict:
    """The dining schema with its price range, or a yes/no feature, as another service names them."""
    schema = json.loads(json.dumps(DINING))
    for name, values in slots.items():
        schema["slots"] = [slot for slot in schema["slots"] if slot["name"] != name]
        schema["slots"].append({"name": name, "description": name, "is_categorical": True, "possible_values": values})
        schema["intents"][0]["optional_slots"][name] = "dontcare"
    return schema


PRICES = ["cheap", "moderate", "pricey", "ultra high-end"]
OUTDOORS_SCHEMA = _dining_with(has_seating_outdoors=["True", "False"], price_range=PRICES)
OUTDOORS = SchemaUnderstanding.from_schema(OUTDOORS_SCHEMA, DINING_VALUES)


@pytest.mark.parametrize(
    "text, price",
    [
        ("somewhere budget-friendly in Pune", "cheap"),
        ("nothing expensive, we're students", "cheap"),
        ("a place that won't break the bank", "cheap"),
        ("not too expensive please", "moderate"),
        ("zyada mehenga nahi chahiye", "moderate"),
        ("बहुत महंगा नहीं", "moderate"),
        ("somewhere upscale for our anniversary", "pricey"),
        ("very expensive is fine", "ultra high-end"),
        ("sabse mehenga restaurant dikhao", "ultra high-end"),
        ("I'm flexible on price", DONTCARE),
        ("कीमत से फर्क नहीं पड़ता", DONTCARE),
    ],
)
def test_a_price_is_read_where_its_words_stand_on_the_scale(text, price):
    """The words of a price sit on a scale (language data); "very" moves one out from the
    middle, a negation of a dear one is the bottom, and of one moved out, a step back."""
    assert OUTDOORS.read(text, today=TODAY)["slots"].get("price_range") == price


@pytest.mark.parametrize(
    "values, text, price",
    [
        (["cheap", "moderate", "pricey"], "the most luxurious place in town", "pricey"),
        (["inexpensive", "moderate", "expensive", "very expensive"], "somewhere cheap", "inexpensive"),
        (["inexpensive", "moderate", "expensive", "very expensive"], "not overly pricey", "moderate"),
        (["inexpensive", "moderate", "expensive", "very expensive"], "a luxury dinner", "very expensive"),
    ],
)
def test_a_price_scale_fits_any_schemas_values(values, text, price):
    """Another service names its price range otherwise: its values are placed on the same scale,
    and a step it has no value for takes the nearest one it has."""
    reader = SchemaUnderstanding.from_schema(_dining_with(price_range=values), DINING_VALUES)
    assert reader.read(text, today=TODAY)["slots"]["price_range"] == price


@pytest.mark.parametrize(
    "text, outdoors",
    [
        ("A place with a patio please", "True"),
        ("we'd love to eat al fresco", "True"),
        ("khuli jagah mein baithna hai", "True"),
        ("बाहर बैठने की जगह चाहिए", "True"),
        ("No need for outdoor seating", "False"),
        ("I don't want to sit outside", "False"),
        ("outdoor seating isn't necessary", "False"),
        ("bahar nahi baithna", "False"),
        ("outdoor seating doesn't matter", DONTCARE),
        ("Do they have a terrace?", None),
        ("kya wahan bahar baithne ki jagah hai?", None),
        ("let's eat outside tonight, somewhere in Pune", None),
    ],
)
def test_outdoor_seating_is_read_in_its_many_words_and_negations(text, outdoors):
    """ "Eating outside" is eating out, and a question about a place asks for nothing."""
    assert OUTDOORS.read(text, today=TODAY)["slots"].get("has_seating_outdoors") == outdoors


# ---------------------------------------------------------------- known values


def test_known_values_come_back_as_the_catalog_writes_them(dining):
    slots = dining.read("look for north indian food in mumbai", today=TODAY)["slots"]
    assert slots == {"cuisine": "North Indian", "city": "Mumbai"}


def test_the_longest_known_value_wins(dining):
    slots = dining.read("Reserve at the bombay canteen please", today=TODAY)["slots"]
    assert slots == {"restaurant_name": "The Bombay Canteen"}


# ---------------------------------------------------------------- accepting the system's offer

CONFIRM = "Confirming: a table for 2 at Bastian in Bandra at 8:30 pm tomorrow. Shall I book it?"


def test_yes_accepts_every_value_in_the_confirmation(dining):
    reading = dining.read("Yes, go ahead", system=CONFIRM, today=TODAY)
    assert reading == {
        "intent": "BookTable",
        "slots": {"restaurant_name": "Bastian", "city": "Bandra", "party_size": "2", "time": "20:30", "date": "2026-11-21"},
    }


def test_a_correction_takes_nothing_from_the_offer(dining):
    reading = dining.read("No, make it for 3 people", system=CONFIRM, today=TODAY)
    assert reading["slots"] == {"party_size": "3"}


def test_a_conversation_reports_only_what_changed(dining):
    tracker = DialogueTracker(dining)
    first = tracker.turn("Book a table at Bastian in Bandra for 2 at 8:30 pm", today=TODAY)
    assert first["slots"] == {"restaurant_name": "Bastian", "city": "Bandra", "party_size": "2", "time": "20:30"}
    second = tracker.turn("Yes, perfect", system=CONFIRM, today=TODAY)
    assert second == {"intent": "BookTable", "slots": {"date": "2026-11-21"}}
    third = tracker.turn("What's their phone number?", system="Your table is booked.", today=TODAY)
    assert third == {"intent": "BookTable", "slots": {}}


def test_a_proposal_stays_open_until_answered(dining):
    tracker = DialogueTracker(dining)
    tracker.turn("Find me Konkani food in Mumbai", today=TODAY)
    tracker.turn("Do they serve alcohol?", system="How about Trishna in Mumbai?", today=TODAY)
    accepted = tracker.turn("Sounds good, book me a table", system="Yes, they do.", today=TODAY)
    assert accepted == {"intent": "BookTable", "slots": {"restaurant_name": "Trishna"}}


# ---------------------------------------------------------------- command line


def _run(tmp_path: Path, lines: str, *args: str) -> subprocess.CompletedProcess:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(DINING))
    values = tmp_path / "values.json"
    values.write_text(json.dumps(DINING_VALUES))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "assistant.understanding.nlu",
            "--schema",
            str(schema),
            "--values",
            str(values),
            "--today",
            TODAY.isoformat(),
            *args,
        ],
        input=lines,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_cli_writes_one_prediction_per_turn(tmp_path):
    turns = [
        {"user": "kal shaam 8 baje, table for two at Trishna"},
        {"user": "Yes", "system": CONFIRM},
        {"dialogue_id": "d1", "user": "Book Bastian in Bandra for 2 at 8:30 pm"},
        {"dialogue_id": "d1", "user": "Yes", "system": CONFIRM},
    ]
    result = _run(tmp_path, "".join(json.dumps(turn) + "\n" for turn in turns))
    assert result.returncode == 0, result.stderr
    predictions = [json.loads(line) for line in result.stdout.splitlines()]
    assert predictions[0] == {
        "intent": "BookTable",
        "slots": {"restaurant_name": "Trishna", "time": "20:00", "date": "2026-11-21", "party_size": "2"},
    }
    assert predictions[1]["slots"]["time"] == "20:30"
    assert predictions[3] == {"intent": "BookTable", "slots": {"date": "2026-11-21"}}


@pytest.mark.parametrize(
    "lines, message",
    [
        ('{"user": "hi"}\nnot json\n', "line 2"),
        ('{"user": "hi"}\n\n{"system": "no user here"}\n', "line 3"),
        ('["user"]\n', "line 1"),
    ],
)
def test_cli_rejects_bad_lines_with_status_2(tmp_path, lines, message):
    result = _run(tmp_path, lines)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_rejects_a_missing_or_invalid_schema(tmp_path):
    missing = subprocess.run(
        [sys.executable, "-m", "assistant.understanding.nlu", "--schema", str(tmp_path / "nope.json")],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert missing.returncode == 2 and "nope.json" in missing.stderr and "Traceback" not in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"service_name": "x"}')
    invalid = subprocess.run(
        [sys.executable, "-m", "assistant.understanding.nlu", "--schema", str(bad)],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert invalid.returncode == 2 and "not an SGD service schema" in invalid.stderr


# ---------------------------------------------------------------- the bench's measures


def test_joint_goal_accuracy_counts_turns_whose_whole_state_is_right():
    """bench/nlu_eval.py: a turn counts only when every slot the tracker holds after it is the
    gold one (values compared as the bench normalises them: "7 pm" is 19:00), so one slot read
    wrong counts against every later turn of its dialogue until put right."""
    from bench.nlu_eval import score

    def turn(dialogue: str, user: str, state: dict[str, str], new: dict[str, str]) -> dict:
        return {"dialogue_id": dialogue, "system": "", "user": user, "intent": "BookTable", "new_slots": new, "state": state}

    right = {"city": "Pune", "party_size": "2", "time": "7 pm"}
    turns = [
        turn("a", "Book a table in Pune for 2 at 7 pm", right, right),
        turn("a", "make it 8 pm", right | {"time": "8 pm"}, {"time": "8 pm"}),
        turn("b", "Book a table in Pune for 2 at 7 pm", right | {"party_size": "3"}, right | {"party_size": "3"}),
        turn("b", "make it 8 pm", right | {"party_size": "3", "time": "8 pm"}, {"time": "8 pm"}),
    ]
    scores = score(DINING, turns)
    assert scores["joint_goal_accuracy"] == 0.5, "b's wrong party size spoils both of its turns"
    assert scores["by_slot"]["party_size"]["state_accuracy"] == 0.5 and scores["by_slot"]["time"]["state_accuracy"] == 1.0
    assert scores["by_slot"]["time"]["f1"] == 1.0


def test_the_words_for_values_and_features_are_language_data(tmp_path):
    """The reader knows no word of its own: a word taken out of a language file is not read,
    and a language's words are read only when the business loads that language."""
    import shutil

    import yaml

    from assistant.language import FOLDER, load_languages

    folder = tmp_path / "languages"
    shutil.copytree(FOLDER, folder)
    english = yaml.safe_load((folder / "en.yml").read_text(encoding="utf-8"))
    english["schema_words"]["names"]["outdoor"].remove("patio")
    (folder / "en.yml").write_text(yaml.safe_dump(english, allow_unicode=True), encoding="utf-8")

    def outdoors(text: str, codes: list[str], where=folder) -> str | None:
        reader = SchemaUnderstanding.from_schema(OUTDOORS_SCHEMA, DINING_VALUES, load_languages(codes, where))
        return reader.read(text, today=TODAY)["slots"].get("has_seating_outdoors")

    assert outdoors("A place with a patio please", ["en"], FOLDER) == "True"
    assert outdoors("A place with a patio please", ["en"]) is None
    assert outdoors("बाहर बैठने की जगह चाहिए", ["en"]) is None
    assert outdoors("बाहर बैठने की जगह चाहिए", ["en", "hi"]) == "True"
