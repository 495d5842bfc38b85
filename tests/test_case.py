"""The homologation case (its phases, collected in order) on the flow engine: the checks of a
form's values, the three collection modes, each phase's validation, corrections, status, a person,
and a whole case through the real app's /chat, handed to the office."""

from __future__ import annotations

import datetime as dt
import io
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import OPERATOR_KEY
from PIL import Image

from assistant.attachments.store import ATTACHMENTS
from assistant.dialogue.flows import FlowEngine, FlowStep
from assistant.dialogue.said import Said, Sent
from assistant.dialogue.state import Kept, SessionState
from assistant.pack.checks import Check
from assistant.pack.loading import load_catalog
from assistant.tools import validators
from extensions.homologation.case import CaseDesk
from extensions.homologation.case_store import CASES
from extensions.homologation.data import NAME
from extensions.homologation.quote import Quote

DOMAIN = "homologation"
PLATE = Check(pattern=r"^(\d{4}\s?-?[BCDFGHJKLMNPRSTVWXYZ]{3}|[A-Z]{1,2}\s?-?\d{4}\s?-?[A-Z]{1,2})$")


# --- the checks -------------------------------------------------------------------------------


@pytest.mark.parametrize("said", ["12345678Z", "12345678-z", "X1234567L", "y1234567x", "Z 1234567 R"])
def test_a_national_id_with_its_check_letter_is_taken(said):
    assert validators.id_check_letter(said).ok


@pytest.mark.parametrize(
    ("said", "reason"),
    [
        ("12345678A", "check_id_letter"),
        ("X1234567A", "check_id_letter"),
        ("1234567Z", "check_id_format"),
        ("W1234567L", "check_id_format"),
    ],
)
def test_a_wrong_check_letter_or_form_is_refused(said, reason):
    assert validators.id_check_letter(said).reason == reason


def test_a_vin_has_17_characters_and_never_i_o_or_q():
    assert validators.vin("jyarm06e0ja000001").value == "JYARM06E0JA000001"
    assert validators.vin("JYARM06E0JA00000").reason == "check_vin_length"
    assert validators.vin("JYARM06E0JA00000O").reason == "check_vin"
    assert validators.vin("JYARM06E0JA0000Q1").reason == "check_vin"


def test_a_plate_in_the_pattern_the_pack_gives():
    assert validators.check_text("1234 bcd", PLATE).value == "1234 BCD"
    assert validators.check_text("M-1234-AB", PLATE).ok
    assert validators.check_text("1234 ABC", PLATE).reason == "check_pattern"  # vowels are never used


def test_numbers_lengths_e_mails_and_dates():
    bounds = Check(min=50, max=130)
    assert validators.check_number("98,5 dB", bounds).value == 98.5
    assert validators.check_number("140", bounds).reason == "check_max"
    assert validators.check_number("ninguno", bounds).reason == "check_number"
    assert validators.check_text("a", Check(min_length=2)).reason == "check_length"
    assert validators.email("Ana@Example.ES").value == "ana@example.es"
    assert validators.email("ana@example").reason == "check_email"
    assert validators.date("31/12/2020").value == "2020-12-31"
    assert validators.date("31/02/2020").reason == "check_date"


# --- the case desk on the pack, without the app -----------------------------------------------


class Office:
    def __init__(self) -> None:
        self.cases: list[dict[str, Any]] = []

    def submit(self, case: dict[str, Any], reply: Callable[[str], str] | None = None) -> str:
        case_id = f"CASE-{len(self.cases) + 1}"
        told = [{"role": "assistant", "text": reply(case_id)}] if reply else []
        self.cases.append({**case, "transcript": [*case["transcript"], *told]})
        return case_id


@dataclass
class Priced:
    price: float


def kept(quote: Quote) -> dict[str, Kept]:
    """A session's state holding `quote`, as the homologation extension keeps it."""
    return {NAME: Kept(data=quote.model_dump())}


class Case:
    """One case, message by message, on the homologation pack's case desk."""

    def __init__(self, elements: list[str], price: float = 300.0):
        catalog = load_catalog(Path("data/homologation"))
        self.office = Office()
        self.desk = CaseDesk(catalog, FlowEngine(catalog), self.office, lambda: dt.datetime.now(dt.UTC))
        self.state = SessionState(session_id="s", extensions=kept(Quote(elements=elements, price=price)))
        self.price = price
        self.priced: list[list[str]] = []  # the codes each call of the tariff priced
        self.slots: dict[str, Any] = {}
        self.files = 0

    def say(self, text: str, files: int = 0, kind: str = "image") -> FlowStep:
        sent = [Sent(id=f"file{self.files + i}", kind=kind) for i in range(files)]
        self.files += files
        step = self.desk.step("case", self.slots, Said(text=text, attachments=sent), self.state, self.call)
        self.slots = step.slots
        return step

    def call(self, tool: str, codes: list[str]) -> Priced:
        """The gateway's tariff tool, priced at this case's price."""
        assert tool == "tariff", "a case calls only the tariff"
        self.priced.append(codes)
        return Priced(price=self.price)


@pytest.fixture(scope="module")
def escape() -> Case:
    """A case for the exhaust alone, opened, its photos in."""
    case = Case(["ESCAPE_MOTO"], 180)
    case.say("dale, adelante")
    case.say("ahí van", files=3)
    return case


def test_the_case_opens_only_on_a_quote_with_nothing_pending():
    case = Case(["ESCAPE_MOTO"])
    case.state.extensions = kept(Quote(elements=[], pending=["SUSPENSION_MOTO"]))
    step = case.say("dale, adelante")
    assert step.done and "necesito saber qué quieres homologar" in step.text


def test_photos_are_counted_against_the_element_and_done_is_no_photo():
    case = Case(["ESCAPE_MOTO"])
    opened = case.say("dale, adelante")
    assert "Envíame 3 fotos de Escape" in (opened.question or "")
    one = case.say("la primera", files=1)
    assert "Aún faltan 2 de Escape" in (one.question or "") and "Foto del marcaje" in (one.question or "")
    done = case.say("listo")
    assert "Aún faltan 2 de Escape" in (done.question or "") and done.missing[0] == "e0_photos"
    wrong = case.say("un pdf", files=1, kind="pdf")
    assert "no sirve para Fotos" in wrong.text and len(case.slots["e0_photos"]) == 1


def test_five_simple_fields_are_asked_at_once():
    case = Case(["ESCAPE_MOTO"])
    case.say("dale")
    step = case.say("fotos", files=3)
    assert step.missing[:5] == ["e0_marca", "e0_modelo", "e0_homologacion", "e0_db_nivel", "e0_catalizador"]
    for label in ("**Marca**", "**Modelo**", "**Nº de homologación**", "**Nivel sonoro (dB)**", "**Lleva catalizador**"):
        assert label in (step.question or "")
    answered = case.say("Akrapovic\nGP-1\ne13*1234\n95\nno")
    assert answered.missing[0] == "documents"
    assert case.slots["e0_db_nivel"] == 95 and case.slots["e0_catalizador"] == "no"


def test_two_fields_are_asked_one_by_one():
    case = Case(["SUSPENSION_MOTO_DEL"], 150)
    case.say("adelante")
    first = case.say("fotos", files=2)
    assert first.question == "¿De qué marca es la suspensión?"
    second = case.say("Öhlins")
    assert second.question == "¿Qué referencia o modelo tiene?"
    assert case.slots["e0_marca"] == "Öhlins"


def test_base_fields_first_then_the_conditional_ones():
    case = Case(["LLANTAS_MOTO"], 120)
    case.say("adelante")
    base = case.say("fotos", files=2)
    assert "**Qué cambia**" in (base.question or "") and "**Medida delantera**" in (base.question or "")
    assert "Marca de las llantas" not in (base.question or "")
    then = case.say("llantas y neumáticos\n120/70-17\n180/55-17")
    assert "**Marca de las llantas**" in (then.question or "") and "**Medida de las llantas**" in (then.question or "")
    only_tyres = Case(["LLANTAS_MOTO"], 120)
    only_tyres.say("adelante")
    only_tyres.say("fotos", files=2)
    assert only_tyres.say("solo neumáticos\n120/70-17\n180/55-17").missing[0] == "documents"


def test_a_value_out_of_its_bounds_or_pattern_is_refused_with_its_instruction():
    case = Case(["ESCAPE_MOTO"])
    case.say("dale")
    case.say("fotos", files=3)
    step = case.say("Akrapovic\nGP-1\nGP-1\n140\nno")
    assert "Nº de homologación: «GP-1» no tiene el formato esperado" in step.text
    assert "Nivel sonoro (dB): tiene que ser como máximo 130" in step.text
    assert "Copia el número de homologación" in (step.question or "") and step.missing[:2] == ["e0_homologacion", "e0_db_nivel"]


def _to_personal(case: Case) -> FlowStep:
    case.say("dale")
    case.say("fotos", files=3)
    case.say("Akrapovic\nGP-1\ne13*1234\n95\nno")
    return case.say("ficha y permiso", files=2, kind="pdf")


def test_personal_data_checks_the_id_letter_and_takes_a_nie():
    case = Case(["ESCAPE_MOTO"])
    assert "Datos personales" in (_to_personal(case).question or "")
    step = case.say("Ana Ruiz\n12345678A\nCalle Mayor 5, 28013 Madrid\nana@example.es\n612345678")
    assert "la letra de «12345678A» no corresponde" in step.text and step.question == "¿Cuál es tu DNI o NIE, con la letra?"
    assert case.slots["direccion"] == "Calle Mayor 5, 28013 Madrid" and case.slots["telefono"] == "+34612345678"
    nie = case.say("X1234567L")
    assert case.slots["dni"] == "X1234567L" and "Datos del vehículo" in (nie.question or "")


def test_vehicle_data_checks_the_plate_and_the_vin():
    case = Case(["ESCAPE_MOTO"])
    _to_personal(case)
    case.say("Ana Ruiz\n12345678Z\nCalle Mayor 5, 28013 Madrid\nana@example.es\n612345678")
    step = case.say("1234 AEI\nYamaha\nMT-07\nJYARM06E0JA00000")
    assert "Matrícula: «1234 AEI» no tiene el formato esperado" in step.text
    assert "tiene 17 caracteres y «JYARM06E0JA00000» tiene 16" in step.text
    assert step.missing[:2] == ["matricula", "vin"]
    case.say("la matrícula es 1234 BCD")
    workshop = case.say("JYARM06E0JA000001")
    assert case.slots["matricula"] == "1234 BCD" and case.slots["vin"] == "JYARM06E0JA000001"
    assert workshop.choices == ["Tengo taller", "Todavía no"]


def _to_review(case: Case) -> FlowStep:
    _to_personal(case)
    case.say("Ana Ruiz\n12345678Z\nCalle Mayor 5, 28013 Madrid\nana@example.es\n612345678")
    case.say("1234 BCD\nYamaha\nMT-07\nJYARM06E0JA000001")
    return case.say("todavía no")


def test_the_review_lists_everything_and_a_correction_shows_it_again():
    case = Case(["ESCAPE_MOTO"], 180)
    review = _to_review(case)
    shown = review.question or ""
    for part in (
        "Revisa tu expediente",
        "Presupuesto: 180 € +IVA",
        "**Escape**",
        "Marca: Akrapovic",
        "DNI/NIE: 12345678Z",
        "Taller: Todavía no",
    ):
        assert part in shown
    again = case.say("el email es otra@example.es")
    assert "Email: otra@example.es" in (again.question or "") and case.slots["email"] == "otra@example.es"
    assert case.slots["dni"] == "12345678Z"  # nothing else moved
    no = case.say("no")
    assert "dime qué quieres cambiar" in (no.question or "") and not case.office.cases
    assert "Email: otra@example.es" in (case.say("el email es otra@example.es").question or "")  # the review again


def test_a_confirmed_review_is_submitted_with_everything_the_office_needs():
    case = Case(["ESCAPE_MOTO"], 180)
    _to_review(case)
    done = case.say("sí, todo correcto")
    assert done.done and "CASE-1" in done.text and "se pondrá en contacto contigo" in done.text
    record = case.office.cases[0]
    assert record["elements"][0]["code"] == "ESCAPE_MOTO" and record["elements"][0]["photos"] == ["file0", "file1", "file2"]
    assert record["elements"][0]["fields"]["Nº de homologación"] == "E13*1234"
    assert record["tariff"]["price"] == 180 and record["tariff"]["warnings"]
    assert record["documents"] == ["file3", "file4"]
    assert record["data"]["Datos personales"]["DNI/NIE"] == "12345678Z"
    assert record["data"]["Datos del vehículo"]["Nº de bastidor (VIN)"] == "JYARM06E0JA000001"
    assert [t["text"] for t in record["transcript"][-2:]] == ["sí, todo correcto", done.text]  # this turn, and its reply


def test_status_leaves_the_case_where_it_was(escape):
    before = dict(escape.slots)
    status = escape.say("¿cómo va mi expediente?")
    assert "Ahora: Escape" in status.text and "falta: Marca, Modelo" in status.text
    assert status.question and "**Marca**" in status.question and escape.slots == before


def test_a_case_opens_for_every_element_quoted():
    case = Case(["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL", "MANILLAR_MOTO"], 420)
    opened = case.say("dale, adelante")
    assert "Abro tu expediente para: Escape, Suspensión delantera, Manillar" in opened.text
    assert case.slots["case_elements"] == ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL", "MANILLAR_MOTO"]
    built = case.desk.flow("case", case.slots)
    phases = ["Escape", "Escape", "Suspensión delantera", "Suspensión delantera", "Manillar", "Manillar"]  # photos, then fields
    assert [step.phase for step in built.steps[:6]] == phases


@pytest.mark.parametrize("asked", ["¿cuánto era?", "what was the price?", "¿me recuerdas el precio?", "how much was it in total?"])
def test_mid_case_the_price_is_said_again_from_the_tariff_and_the_question_asked_again(asked):
    case = Case(["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"], 300)
    opened = case.say("dale, adelante")
    before, case.priced = dict(case.slots), []
    told = case.say(asked)
    assert told.text == "El presupuesto de tu expediente es de 300 € +IVA (Escape y Suspensión delantera)."
    assert case.priced == [["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"]]  # the tariff, in this turn
    assert told.question == opened.question and told.missing == opened.missing and case.slots == before


@pytest.mark.parametrize("asked", ["mándame otra vez las fotos de ejemplo", "send me the example photos again"])
def test_mid_case_the_example_photos_are_sent_again_and_the_question_asked_again(asked):
    case = Case(["ESCAPE_MOTO"], 180)
    case.say("dale, adelante")
    case.say("la primera", files=1)
    again = case.say(asked)
    assert [image.example for image in again.images][:1] == ["images/escape.svg"]
    assert again.text.startswith("Aquí tienes otra vez las fotos de ejemplo") and "Permiso de circulación" in again.text
    assert "Aún faltan 2 de Escape" in (again.question or "") and len(case.slots["e0_photos"]) == 1
    sent = case.say("las fotos que faltan", files=2)  # files are an answer, whatever the words
    assert not sent.images and len(case.slots["e0_photos"]) == 3


def test_a_name_two_slots_share_corrects_the_one_asked_then_the_one_said_last():
    case = Case(["ESCAPE_MOTO"], 180)
    _to_personal(case)
    case.say("Ana Ruiz\n12345678Z\nCalle Mayor 5, 28013 Madrid\nana@example.es\n612345678")
    case.say("1234 BCD\nYamaha MT-07\nMT-07\nJYARM06E0JA000001")
    review = case.say("todavía no")
    assert "Marca: Yamaha MT-07" in (review.question or "")
    fixed = case.say("la marca es Yamaha")  # the vehicle's make (said last), not the exhaust's
    assert case.slots["marca"] == "Yamaha" and case.slots["e0_marca"] == "Akrapovic"
    assert fixed.text == "Corregido: Marca: Yamaha." and "Marca: Yamaha\n" in (fixed.question or "")
    asked = Case(["ESCAPE_MOTO"], 180)
    asked.say("dale")
    asked.say("fotos", files=3)
    asked.say("la marca es Arrow")  # the exhaust's make is the one asked for
    assert asked.slots["e0_marca"] == "Arrow" and "marca" not in asked.slots


def _to_workshop(case: Case) -> FlowStep:
    _to_personal(case)
    case.say("Ana Ruiz\n12345678Z\nCalle Mayor 5, 28013 Madrid\nana@example.es\n612345678")
    case.say("1234 BCD\nYamaha\nMT-07\nJYARM06E0JA000001")
    return case.say("tengo taller")


def test_a_workshops_phone_is_the_workshops_and_never_replaces_the_customers():
    case = Case(["ESCAPE_MOTO"], 180)
    assert "Nombre del taller" in (_to_workshop(case).question or "")
    review = case.say("Motos Paco\nMadrid\nsu teléfono es 911234567")  # said at the workshop's question: its phone
    assert case.slots["telefono"] == "+34612345678" and case.slots["taller_telefono"] == "+34911234567"
    assert case.slots["taller_nombre"] == "Motos Paco" and "Teléfono del taller: +34911234567" in (review.question or "")
    case.say("el teléfono del taller es 913334455")
    assert case.slots["telefono"] == "+34612345678" and case.slots["taller_telefono"] == "+34913334455"
    case.say("his number is 600111222")  # whose, at the review? nobody's it can tell: nothing changes
    assert case.slots["telefono"] == "+34612345678" and case.slots["taller_telefono"] == "+34913334455"
    case.say("el teléfono es 699887766")  # a value that names its slot goes there
    assert case.slots["telefono"] == "+34699887766" and case.slots["taller_telefono"] == "+34913334455"
    case.say("sí, todo correcto")
    assert case.office.cases[0]["data"]["Taller"]["Teléfono del taller"] == "+34913334455"


def test_a_workshop_said_of_by_its_name_or_its_choice_is_still_the_workshops():
    case = Case(["ESCAPE_MOTO"], 180)
    _to_workshop(case)
    case.say("el taller es Motos Paco, en Madrid")
    assert case.slots["taller_nombre"] == "Motos Paco" and case.slots["taller_ciudad"] == "en Madrid"


# --- through the real app ----------------------------------------------------------------------


def _png() -> bytes:
    kept = io.BytesIO()
    Image.new("RGB", (64, 48), (10, 120, 200)).save(kept, "PNG")
    return kept.getvalue()


def test_a_whole_case_from_the_first_message_to_the_office(app, client):
    session, store = str(uuid.uuid4()), ATTACHMENTS.get(app)

    def say(query: str, photos: int = 0) -> dict[str, Any]:
        ids = [store.save(session, f"photo{i}.png", _png()).id for i in range(photos)]
        response = client.post("/chat", json={"query": query, "session_id": session, **({"attachments": ids} if ids else {})})
        assert response.status_code == 200, response.get_json()
        data: dict[str, Any] = response.get_json()
        return data

    assert "300 € +IVA" in say("quiero homologar el escape y el amortiguador delantero de mi moto")["reply"]
    opened = say("dale, adelante")
    assert opened["intent"]["type"] == "booking" and "Envíame 3 fotos de Escape" in opened["reply"]
    say("ahí van", photos=3)
    say("Akrapovic\nGP-1\ne13*1234\n95\nsí")
    aside = say("¿cuánto tarda la homologación?")
    assert aside["intent"]["type"] == "faq" and "Seguimos con tu expediente" in aside["reply"]
    say("fotos", photos=2)
    say("Öhlins")
    say("FG 432")
    say("ficha y permiso", photos=2)
    say("Juan García López\n12345678Z\nCalle Mayor 5, 28013 Madrid\njuan@example.com\n612345678")
    say("1234 BCD\nYamaha\nMT-07\nJYARM06E0JA000001")
    review = say("todavía no")
    assert "Revisa tu expediente" in review["reply"] and "300 € +IVA" in review["reply"]
    assert review["state"]["active_goal"]["slots"]["dni"] != "12345678Z"  # masked where state is shown
    done = say("sí, todo correcto")
    case_id = done["reply"].split("**")[1]
    assert done["state"]["active_goal"] is None
    kept = CASES.get(app).get(case_id)
    assert kept is not None and kept["status"] == "submitted"
    assert [e["code"] for e in kept["elements"]] == ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"]
    assert kept["elements"][1]["variant"] == "DEL" and len(kept["elements"][0]["photos"]) == 3 and len(kept["documents"]) == 2
    assert kept["transcript"][0]["text"].startswith("quiero homologar")
    confirmed, told = kept["transcript"][-2:]  # the record is made before the turn is remembered: it holds it all the same
    assert confirmed["role"] == "user" and confirmed["text"] == "sí, todo correcto"
    assert told["role"] == "assistant" and case_id in told["text"] and "está enviado" in told["text"]
    assert len(kept["transcript"]) == 2 * 13  # every turn once
    office = client.get(f"/cases/{case_id}", headers={"X-API-Key": OPERATOR_KEY})
    assert office.status_code == 200 and office.get_json()["data"]["Datos personales"]["Email"] == "juan@example.com"
    again = say("ok let's do it")
    assert again["intent"]["type"] != "booking" or "Envíame" not in again["reply"], "a quote is handed in once"
    assert again["state"].get("quote") is None


def test_a_reloaded_conversation_keeps_its_example_images_and_the_files_sent(app, client):
    """GET /sessions/<id> is what a reloaded page redraws: the drawings and the files go with their turns."""
    session, store = str(uuid.uuid4()), ATTACHMENTS.get(app)
    client.post("/chat", json={"query": "quiero homologar el escape de mi moto", "session_id": session})
    client.post("/chat", json={"query": "sí, mándamelas", "session_id": session})
    client.post("/chat", json={"query": "dale, adelante", "session_id": session})
    photo = store.save(session, "escape.png", _png())
    client.post("/chat", json={"query": "ahí va", "session_id": session, "attachments": [photo.id]})
    history = client.get(f"/sessions/{session}").get_json()["history"]
    drawn = [turn["images"] for turn in history if turn["role"] == "assistant" and turn["images"]]
    assert len(drawn) == 1 and all(image["url"].startswith("/pack-files/images/") for image in drawn[0])
    sent = [turn["files"] for turn in history if turn["role"] == "user" and turn["files"]]
    assert sent == [[photo.public() | {"name": "escape.png"}]]
