"""Nothing a customer committed to changes by accident: every flow of every pack is played to its
end (a booking confirmed, a table reserved, a case submitted, a fault fixed), then twenty
messages about other things, full of dates, times, numbers and names, change no booking,
reservation, reminder or case, and send nobody a message."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import durable

from assistant.conversations.runner import Session
from assistant.conversations.schema import Person, Turn, load
from assistant.pack.loading import load_catalog

CONVERSATIONS = Path(__file__).parent / "conversations"
DATA = Path(__file__).resolve().parent.parent / "data"
# A conversation of each pack's that plays each of its flows to the end.
ENDED_BY = {
    ("bank", "booking"): "business-owner-books-a-call-back.yml",
    ("cars", "booking"): "showroom-test-drive-confirmed-by-code.yml",
    ("restaurants", "booking"): "table-booked-in-the-chat.yml",
    ("homologation", "case"): "case-full-in-spanish.yml",
    ("store", "support"): "laptop-freezes-while-gaming.yml",
}
COMMITTED = ("bookings", "booked_hours", "reminders", "reservations", "held_until", "cases")  # tables of what was made
UNRELATED = {
    "en": [
        "What is today's US dollar exchange rate at your bank?",
        "is your office open tomorrow at 10?",
        "my friend Karim called me yesterday at 5 pm",
        "I was born on 12 March 1990",
        "what's 15% of 2000?",
        "how late are you open on Saturday?",
        "can I pay 5000 on the 25th?",
        "My name is Sadia Akter, I live at house 12, road 7",
        "do you have parking at 7pm?",
        "next Monday is a holiday, right?",
        "we are 4 people in my family",
        "I have 2 kids aged 6 and 9",
        "call me Rafi",
        "at 9 tonight I'm busy with work",
        "is 3pm a good time to call your hotline?",
        "is it raining in the city today?",
        "my parcel from last Tuesday at 11am hasn't arrived",
        "what's the weather like this weekend?",
        "20 minutes ago I got an SMS from 01812345678",
        "thanks, see you on Friday at noon!",
    ],
    "es": [
        "¿Qué tiempo hará mañana a las 10?",
        "mi cuñado Pedro vino el lunes a las 5",
        "nací el 12 de marzo de 1990",
        "¿cuánto es el 21% de 300?",
        "¿a qué hora abrís el sábado?",
        "¿puedo pagar 200 euros el día 25?",
        "Me llamo Lucía y vivo en el número 12",
        "¿hay aparcamiento a las 19:00?",
        "el próximo lunes es festivo, ¿no?",
        "somos 4 en casa",
        "tengo 2 hijos de 6 y 9 años",
        "esta noche a las 9 estoy ocupado",
        "¿las 15:00 es buena hora para llamaros?",
        "¿llueve hoy en Madrid?",
        "mi paquete del martes pasado no ha llegado",
        "hace 20 minutos me llegó un SMS del 612345678",
        "what is today's euro exchange rate?",
        "is your office open tomorrow at 10?",
        "my friend Ana called me yesterday at 5 pm",
        "gracias, ¡nos vemos el viernes a mediodía!",
    ],
}


@pytest.fixture(scope="module")
def every_flow() -> set[tuple[str, str]]:
    """Every flow of every pack under data/."""
    return {(pack.name, flow) for pack in sorted(DATA.iterdir()) if pack.is_dir() for flow in load_catalog(pack).pack.flows}


def test_every_flow_of_every_pack_is_played_to_its_end_here(every_flow):
    assert every_flow == set(ENDED_BY), "a flow added to a pack needs a conversation that ends it here"


@pytest.mark.parametrize(("pack", "flow"), sorted(ENDED_BY))
def test_twenty_unrelated_messages_after_a_flow_ends_change_nothing_committed(pack, flow, tmp_path):
    ended = load(CONVERSATIONS / pack / ENDED_BY[(pack, flow)])
    session = Session(pack, tmp_path, ended)
    for turn in ended.turns:
        played = session.play(turn)
        assert played.problem is None and all(c.passed for c in played.checks), f"{pack}: turn {played.number} {played.user!r}"
    catalog = load_catalog(DATA / pack)
    before, outbox = _committed(tmp_path), _lines(session.outbox)
    makes = catalog.pack.flows[flow].action != "troubleshoot"  # a fix makes nothing; the rest make what is compared
    assert any(before.values()) == makes, f"{pack}'s {flow}: what it made, in {sorted(before)}"

    language = "es" if "es" in catalog.pack.languages else "en"
    session.language = None  # the file's language check is for its own turns: these only may change nothing
    for text in UNRELATED[language]:
        played = session.play(Turn(user=text, handled_by="assistant"))
        assert played.problem is None, f"{text!r}: {played.problem}"
        if not all(c.passed for c in played.checks):  # handed to people for not understanding: they hand it back
            assert session.play(Turn(person=Person(says="Hello, I'm here.", hands_back="answered"))).problem is None
        assert _committed(tmp_path) == before, f"{text!r} changed what the customer committed to"
        assert _lines(session.outbox) == outbox, f"{text!r} sent a message"


def _committed(folder: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the tables holding what was made, in the app's durable database."""
    db = durable(folder)
    return {table: sorted(db.rows(f"SELECT * FROM {table}"), key=repr) for table in COMMITTED}  # noqa: S608


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
