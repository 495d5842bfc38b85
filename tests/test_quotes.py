"""The quotation: identify, select_variant and tariff over elements.yaml, the quote's steps
(what it must never do, as tests), the pack's constraints, and whole turns of the homologation pack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from assistant.language import load_languages
from assistant.pack.constraints import Constraint, broken
from assistant.pack.texts import say
from extensions.homologation import tariff as quotes
from extensions.homologation.data import data_of
from extensions.homologation.elements import Elements, QuoteSetup
from extensions.homologation.quote import Quote, step, wants

FIXTURE = Path(__file__).parent / "fixtures" / "quotes" / "elements.yaml"
LANGUAGES = load_languages(["es"])
SETUP = QuoteSetup(
    asks_images=["fotos", "imágenes", "mándamelas", "photos"], asks_needs=["qué necesito"], agree=["sí", "vale", "yes"]
)


@pytest.fixture(scope="module")
def elements() -> Elements:
    return Elements.model_validate(yaml.safe_load(FIXTURE.read_text(encoding="utf-8")))


class Tools:
    """The quotation tools as the agent calls them, with every call noted."""

    def __init__(self, elements: Elements):
        self.elements, self.calls = elements, []  # type: ignore[var-annotated]

    def __call__(self, tool: str, *args: Any) -> Any:
        self.calls.append(tool)
        return getattr(quotes, tool)(self.elements, *args)


def turn(elements: Elements, quote: Quote | None, text: str) -> tuple[Any, list[str]]:
    tools = Tools(elements)
    return step(quote, text, SETUP, elements, tools, LANGUAGES), tools.calls


# identify


def test_an_option_said_beside_its_element_resolves_it_at_once(elements):
    found = quotes.identify(elements, "quiero homologar el escape y el amortiguador delantero de mi moto")
    assert found.ready == ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"]
    assert found.with_variants == []


def test_an_element_whose_option_is_not_said_gets_the_datas_question(elements):
    found = quotes.identify(elements, "cuánto cuesta homologar la suspensión de la moto")
    assert found.ready == []
    [asked] = found.with_variants
    assert asked.code == "SUSPENSION_MOTO"
    assert asked.question == "¿Es la suspensión delantera o trasera?"
    assert asked.options == ["Suspensión delantera", "Suspensión trasera"]


def test_the_category_comes_from_the_message_or_is_asked(elements):
    car = quotes.identify(elements, "how much to homologate a tow bar on my car?")
    assert [q.code for q in car.with_variants] == ["BOLA_REMOLQUE_TURISMO"]
    motorhome = quotes.identify(elements, "una bola de remolque en la autocaravana")
    assert motorhome.ready == ["BOLA_REMOLQUE_AUTOCARAVANA"]
    unsure = quotes.identify(elements, "how much to homologate a tow bar?")
    assert unsure.ready == [] and unsure.with_variants == []
    assert sorted(unsure.categories) == ["autocaravanas", "turismos"]
    assert quotes.identify(elements, "un enganche", category="turismos").with_variants[0].code == "BOLA_REMOLQUE_TURISMO"


def test_an_option_belongs_to_the_element_it_is_said_beside(elements):
    found = quotes.identify(elements, "front exhaust and a rear shock for my motorbike")
    assert found.ready == ["ESCAPE_MOTO", "SUSPENSION_MOTO_TRAS"]


def test_nothing_named_is_nothing_found(elements):
    found = quotes.identify(elements, "hola, ¿qué tal?")
    assert found.ready == found.with_variants == found.categories == []


# select_variant


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("delantera", "SUSPENSION_MOTO_DEL"),
        ("la delantera", "SUSPENSION_MOTO_DEL"),
        ("la de atrás", "SUSPENSION_MOTO_TRAS"),
        ("rear", "SUSPENSION_MOTO_TRAS"),
        ("Suspensión trasera", "SUSPENSION_MOTO_TRAS"),
    ],
)
def test_an_answer_picks_one_of_the_datas_options(elements, answer, code):
    assert quotes.select_variant(elements, "SUSPENSION_MOTO", answer) == code


@pytest.mark.parametrize("answer", ["de muelles", "no sé", "delantera y trasera", "de barras"])
def test_an_answer_that_picks_no_single_option_picks_none(elements, answer):
    assert quotes.select_variant(elements, "SUSPENSION_MOTO", answer) is None


def test_no_variant_is_invented_for_an_element_without_them(elements):
    assert quotes.select_variant(elements, "ESCAPE_MOTO", "delantera") is None


# tariff


def test_the_cheapest_cover_of_combination_rules_prices_the_codes(elements):
    priced = quotes.tariff(elements, ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"])
    assert priced.price == 300  # the rule, not 180 + 150
    assert priced.combination == "Escape + suspensión delantera"
    assert priced.tax_note == "+IVA"
    rear = quotes.tariff(elements, ["ESCAPE_MOTO", "SUSPENSION_MOTO_TRAS"])
    assert rear.price == 310  # a base code in a rule covers any of its variants
    alone = quotes.tariff(elements, ["LUCES_TURISMO"])
    assert (alone.price, alone.combination, [line.name for line in alone.lines]) == (120, None, ["Luces LED"])


def test_every_warning_is_gathered_once_with_a_variants_own(elements):
    priced = quotes.tariff(elements, ["ESCAPE_MOTO", "SUSPENSION_MOTO_TRAS"])
    assert priced.warnings == [
        "No incluye el certificado del taller de montaje",
        "El escape debe llevar marcado E",
        "Requiere informe de resistencia del basculante",
    ]


def test_elements_yaml_is_checked(elements):
    raw = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    raw["combinations"].append({"elements": ["ESCAPE_MOTO", "SUSPENSION_MOTO_ARRIBA"], "price": 1, "name": "x"})
    with pytest.raises(ValidationError, match="SUSPENSION_MOTO_ARRIBA"):
        Elements.model_validate(raw)
    raw = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    del raw["elements"]["SUSPENSION_MOTO"]["variants"]["options"]["DEL"]["price"]
    with pytest.raises(ValidationError, match="a price"):
        Elements.model_validate(raw)


# the quote's steps: never identify again once a variant is answered, every warning with the price, example
# images offered before they are sent and sent once, a category asked once


def test_a_variant_answer_selects_and_never_identifies_again(elements):
    asked, calls = turn(elements, None, "cuánto cuesta homologar la suspensión de la moto")
    assert calls == ["identify"]
    assert asked.question == "¿Es la suspensión delantera o trasera?" and asked.tariff is None
    assert asked.quote.pending == ["SUSPENSION_MOTO"]
    priced, calls = turn(elements, asked.quote, "la de atrás")
    assert calls == ["select_variant", "tariff"]  # no identify
    assert priced.quote.elements == ["SUSPENSION_MOTO_TRAS"] and priced.quote.pending == []
    assert priced.tariff is not None and priced.quote.price == 140


def test_an_answer_that_matches_no_option_asks_the_same_question_again(elements):
    asked, _ = turn(elements, None, "la suspensión de mi moto")
    again, calls = turn(elements, asked.quote, "de muelles")
    assert calls == ["select_variant"]
    assert again.again and again.question == asked.question and again.choices == asked.choices
    assert again.quote.pending == ["SUSPENSION_MOTO"]


def test_the_price_comes_with_every_warning_and_the_offer_of_images_not_the_images(elements):
    priced, _ = turn(elements, None, "quiero homologar el escape y el amortiguador delantero de mi moto")
    assert priced.tariff is not None and priced.tariff.price == 300
    assert priced.quote.warnings == priced.tariff.warnings
    assert priced.images == [] and priced.quote.images_offered and not priced.quote.images_sent


def test_images_are_sent_once_when_asked(elements):
    priced, _ = turn(elements, None, "el escape de mi moto")
    sent, calls = turn(elements, priced.quote, "sí, mándamelas")
    assert calls == []
    assert [i.example for i in sent.images] == ["images/escape_general.svg", "images/ficha_tecnica.svg"]
    assert sent.quote.images_sent and sent.tariff is None  # the price was said before
    again, _ = turn(elements, sent.quote, "mándame las fotos otra vez")
    assert again.images == [] and again.images_again


def test_a_yes_alone_answers_the_offer_of_images(elements):
    priced, _ = turn(elements, None, "el escape de mi moto")
    sent, _ = turn(elements, priced.quote, "sí")
    assert sent.images


def test_asking_what_they_need_sends_the_images_with_the_price(elements):
    priced, _ = turn(elements, None, "cuánto cuesta y qué necesito para homologar el escape de mi moto")
    assert priced.tariff is not None and priced.images and priced.quote.images_sent


def test_the_category_is_asked_once_and_the_description_kept(elements):
    asked, _ = turn(elements, None, "qué necesito para homologar una bola de remolque")
    assert asked.asks_category and sorted(asked.choices) == ["Autocaravanas", "Turismos"]
    again, calls = turn(elements, asked.quote, "no sé")
    assert again.asks_category and again.again and calls == []
    priced, _ = turn(elements, asked.quote, "en la autocaravana")
    assert priced.tariff is not None and priced.tariff.price == 260
    assert priced.images and priced.quote.images_sent  # they asked what they need: the images come with the price


# a quote that grows: additions, variant corrections, a new quote in place of one given

ESCAPE_AND_FRONT = ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"]


@pytest.mark.parametrize(
    "text",
    [
        "y también el amortiguador delantero",
        "¿y si le sumo la horquilla delantera?",
        "además, el amortiguador de delante",
        "and a front shock too",
        "add the front suspension as well",
    ],
)
def test_an_also_word_adds_to_the_job_and_prices_it_whole_with_the_combination_rules(elements, text):
    priced, _ = turn(elements, None, "el escape de mi moto")
    grown, calls = turn(elements, priced.quote, text)
    assert calls == ["identify", "tariff"]
    assert grown.quote.elements == ESCAPE_AND_FRONT and grown.added == ["SUSPENSION_MOTO_DEL"]
    assert grown.tariff is not None and grown.tariff.price == 300  # the combination rule, not 180 + 150
    assert grown.quote.price == 300 and grown.tariff.combination == "Escape + suspensión delantera"


def test_an_element_added_with_its_variant_unsaid_keeps_the_job_and_prices_all_once_answered(elements):
    priced, _ = turn(elements, None, "el escape de mi moto")
    asked, _ = turn(elements, priced.quote, "y también la suspensión")
    assert asked.question == "¿Es la suspensión delantera o trasera?" and asked.added == ["SUSPENSION_MOTO"]
    assert asked.quote.elements == ["ESCAPE_MOTO"] and asked.quote.pending == ["SUSPENSION_MOTO"] and asked.quote.price is None
    answered, calls = turn(elements, asked.quote, "la de atrás")
    assert calls == ["select_variant", "tariff"]  # the answer is never identified again
    assert answered.quote.elements == ["ESCAPE_MOTO", "SUSPENSION_MOTO_TRAS"] and answered.quote.price == 310


def test_the_other_variant_of_an_element_quoted_is_added_with_an_also_word(elements):
    priced, _ = turn(elements, None, "el escape y el amortiguador delantero de mi moto")
    both, _ = turn(elements, priced.quote, "y también la trasera")
    assert both.quote.elements == [*ESCAPE_AND_FRONT, "SUSPENSION_MOTO_TRAS"]
    assert both.quote.price == 300 + 140  # the cheapest cover: escape and front together, the rear alone


@pytest.mark.parametrize("text", ["no, la trasera", "perdona, la de atrás", "actually the rear one", "no, la suspensión trasera"])
def test_a_variant_correction_swaps_that_element_and_keeps_the_others(elements, text):
    priced, _ = turn(elements, None, "el escape y el amortiguador delantero de mi moto")
    swapped, calls = turn(elements, priced.quote, text)
    assert swapped.quote.elements == ["ESCAPE_MOTO", "SUSPENSION_MOTO_TRAS"]
    assert swapped.swapped == [("SUSPENSION_MOTO_DEL", "SUSPENSION_MOTO_TRAS")] and not swapped.replaced
    assert swapped.quote.price == 310 and calls[-1] == "tariff"  # a base code's rule covers the rear one too


def test_another_element_without_an_also_word_is_a_new_quote_that_says_what_it_replaces(elements):
    priced, _ = turn(elements, None, "el escape de mi moto")
    instead, _ = turn(elements, priced.quote, "el amortiguador delantero")
    assert instead.quote.elements == ["SUSPENSION_MOTO_DEL"] and instead.quote.price == 150
    assert instead.replaced == ["ESCAPE_MOTO"] and not instead.added and not instead.moved
    both, _ = turn(elements, None, "el escape y el amortiguador delantero de mi moto")
    fewer, _ = turn(elements, both.quote, "no, solo el escape")
    assert fewer.quote.elements == ["ESCAPE_MOTO"] and fewer.replaced == ["SUSPENSION_MOTO_DEL"]


def test_another_vehicle_is_a_quote_of_its_own_even_with_an_also_word(elements):
    priced, _ = turn(elements, None, "el escape de mi moto")
    car, _ = turn(elements, priced.quote, "y también unas luces led para el coche")
    assert car.quote.elements == ["LUCES_TURISMO"] and car.quote.category == "turismos"
    assert car.moved and car.replaced == ["ESCAPE_MOTO"]


def test_an_also_word_while_a_variant_is_asked_adds_and_asks_the_same_question(elements):
    asked, _ = turn(elements, None, "la suspensión de mi moto")
    more, calls = turn(elements, asked.quote, "y también el escape")
    assert calls == ["select_variant", "identify"]
    assert more.question == asked.question and not more.again and more.added == ["ESCAPE_MOTO"]
    assert more.quote.elements == ["ESCAPE_MOTO"] and more.quote.pending == ["SUSPENSION_MOTO"]
    both, _ = turn(elements, asked.quote, "la delantera, y también el escape")
    assert both.quote.elements == ["SUSPENSION_MOTO_DEL", "ESCAPE_MOTO"] and both.quote.price == 300


def test_only_another_variant_of_an_element_quoted_is_the_quotes_and_never_by_its_code(elements):
    front = Quote(category="motos", elements=["SUSPENSION_MOTO_DEL"], price=150)
    assert wants(front, "no, la trasera", SETUP, elements)
    assert not wants(front, "la delantera", SETUP, elements)  # nothing would change
    assert not wants(front, "¿el precio incluye el certificado del taller?", SETUP, elements)  # "del" is no variant
    assert quotes.select_variant(elements, "SUSPENSION_MOTO", "el certificado del taller") is None


# constraints


PRICE = Constraint(name="price_requires_tool", pattern=r"\d+(?:[.,]\d+)?\s*(?:€|eur\b|euros?\b)", requires="tariff")


def test_a_price_breaks_the_constraint_only_without_its_tool():
    assert broken("Son 300 € +IVA", set(), [PRICE]) == [PRICE]
    assert broken("Son 300 € +IVA", {"tariff"}, [PRICE]) == []
    assert broken("Tarda 3 semanas", set(), [PRICE]) == []


def test_a_constraint_ends_with_its_template():
    with pytest.raises(ValidationError, match="template"):
        Constraint(name="x", pattern="€", requires="tariff", on_violation=["template", "regenerate"])


# whole turns of the homologation pack (offline)

DOMAIN = "homologation"


def chat(client, text: str, session: str = "123e4567-e89b-42d3-a456-426614174000") -> dict[str, Any]:
    response = client.post("/chat", json={"query": text, "session_id": session})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def spy(pipeline, monkeypatch) -> list[str]:
    """The quotation tools the turns call, in order."""
    called: list[str] = []
    tools = pipeline.tools._tools
    for name in ("identify", "select_variant", "tariff"):
        monkeypatch.setitem(tools, name, lambda *a, _n=name, _f=tools[name]: called.append(_n) or _f(*a))
    return called


def test_exhaust_and_front_suspension_price_first_then_every_warning_then_the_offer(client, catalog):
    body = chat(client, "quiero homologar el escape y el amortiguador delantero de mi moto")
    priced = quotes.tariff(data_of(catalog).elements, ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"])
    reply = body["reply"]
    assert body["agents"] == ["quote", "formatter"] and body["intent"]["type"] == "quote"
    assert reply.startswith(f"El presupuesto es de {priced.price:.0f} € +IVA")
    offer = reply.index("¿Quieres ver fotos de la documentación que necesitaremos?")
    assert priced.warnings and all(0 < reply.index(w) < offer for w in priced.warnings)
    assert body["images"] == []
    quoted = {"elements": ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"], "pending": [], "price": 300, "images_sent": False}
    assert body["state"]["quote"] == quoted


def test_a_variant_answer_selects_it_without_identifying_again(client, catalog, pipeline, monkeypatch):
    called = spy(pipeline, monkeypatch)
    variants = data_of(catalog).elements.elements["SUSPENSION_MOTO"].variants
    asked = chat(client, "cuánto cuesta homologar la suspensión de mi moto")
    assert asked["ask_user"] == variants.question
    assert asked["choices"] == [v.name for v in variants.options.values()]
    assert "€" not in asked["reply"]
    again = chat(client, "de muelles")
    assert again["ask_user"] == variants.question and "€" not in again["reply"]
    priced = chat(client, "la de atrás")
    assert called == ["identify", "select_variant", "select_variant", "tariff"]
    rear = quotes.tariff(data_of(catalog).elements, ["SUSPENSION_MOTO_TRAS"])
    assert priced["reply"].startswith(f"El presupuesto es de {rear.price:.0f} € +IVA")


def test_asked_what_they_need_the_price_and_warnings_come_before_the_images(client, catalog):
    body = chat(client, "cuánto cuesta y qué necesito para homologar el escape de mi moto")
    reply, priced = body["reply"], quotes.tariff(data_of(catalog).elements, ["ESCAPE_MOTO"])
    assert reply.index("El presupuesto es de") < reply.index(priced.warnings[-1]) < reply.index("Aquí tienes fotos")
    assert [i["url"] for i in body["images"]][:1] == ["/pack-files/images/escape.svg"]
    assert {"url", "label"} == set(body["images"][0])


def test_the_images_are_sent_once_when_asked_for(client):
    chat(client, "quiero homologar el escape y el amortiguador delantero de mi moto")
    sent = chat(client, "sí, mándamelas")
    assert sent["images"] and "€" not in sent["reply"]
    again = chat(client, "mándame las fotos otra vez")
    assert again["images"] == [] and "Ya te envié" in again["reply"]


def test_an_element_in_several_categories_asks_which_vehicle(client):
    asked = chat(client, "qué necesito para homologar el escape")
    assert asked["agents"] == ["quote", "formatter"] and asked["ask_user"] and "€" not in asked["reply"]
    priced = chat(client, "moto")
    assert priced["reply"].startswith("El presupuesto es de") and priced["images"]


def test_an_addition_is_priced_whole_and_the_reply_names_every_element_and_the_tariffs_lines(client, pipeline, monkeypatch):
    chat(client, "quiero homologar el escape de mi moto")
    called = spy(pipeline, monkeypatch)
    grown = chat(client, "¿y si le sumo los intermitentes y el portamatrículas?")
    codes = ["ESCAPE_MOTO", "ALUMBRADO_MOTO_INTERMITENTES", "PORTAMATRICULAS_MOTO"]
    assert called == ["identify", "tariff"] and grown["state"]["quote"]["elements"] == codes
    reply = grown["reply"]
    assert reply.startswith("Lo sumo al presupuesto: Intermitentes y Portamatrículas.")
    assert "El presupuesto es de 310 € +IVA (Escape, Intermitentes y Portamatrículas)." in reply  # 180 + 80 + 95 apart
    assert "- Escape, intermitentes y portamatrículas (tarifa conjunta): 310 €" in reply
    replaced = chat(client, "el manillar")
    assert replaced["reply"].startswith("Es un presupuesto nuevo, en lugar del anterior (Escape, Intermitentes y Portamatrículas).")
    assert "El presupuesto es de 120 € +IVA (Manillar)." in replaced["reply"] and "- Manillar" not in replaced["reply"]


def test_english_tow_bar_asks_fixed_or_removable_then_prices(client):
    """An English customer is asked and quoted in English (data/homologation/translations/en.yaml)."""
    asked = chat(client, "how much to homologate a tow bar on my car?")
    assert asked["ask_user"] == "Is the tow bar fixed or removable?"
    priced = chat(client, "removable")
    assert priced["reply"].startswith("The quote is 240 € +VAT (Enganche desmontable).")


def test_agreeing_to_open_the_case_is_not_the_quotes(client):
    chat(client, "quiero homologar el escape y el amortiguador delantero de mi moto")
    for text in ("dale, adelante", "sí, abre el expediente"):
        assert "quote" not in chat(client, text)["agents"]


def test_a_price_in_a_turn_without_the_tariff_is_replaced(client, catalog, monkeypatch):
    from dataclasses import replace

    from agents.registry import BY_NAME
    from assistant.dialogue.work import Formatted

    def pricing(work):
        return Formatted("Homologar eso cuesta 99 € +IVA.")

    monkeypatch.setitem(BY_NAME, "formatter", replace(BY_NAME["formatter"], run=pricing))
    body = chat(client, "hola")
    assert "99" not in body["reply"]
    assert body["reply"] == say(catalog, "constraint_broken")


def test_the_packs_example_images_are_served_and_nothing_else(client):
    served = client.get("/pack-files/images/escape.svg")
    assert served.status_code == 200 and served.mimetype == "image/svg+xml"
    refused = [
        "/pack-files/images/..%2Fpack.yaml",
        "/pack-files/pack.yaml",
        "/pack-files/images/nope.svg",
        "/pack-files/images/.x.svg",
    ]
    for path in refused:
        assert client.get(path).status_code == 404, path


def test_llm_mode_regenerates_a_price_the_tariff_did_not_back(catalog):
    from assistant.llm import grounding

    reply = "El presupuesto es de 300 € +IVA."
    unbacked = grounding.Facts(text=f"quiero homologar el escape\n{reply}", product_names=set())
    assert grounding.violations(reply, unbacked, catalog) == [
        "a statement the tariff or search_products or compare_products tool did not back (price_requires_tool)"
    ]
    assert grounding.regenerable(reply, unbacked, catalog)  # the pack's rule: regenerate, then the template
    backed = grounding.Facts(text=unbacked.text, product_names=set(), tools_run={"tariff"})
    assert grounding.violations(reply, backed, catalog) == []
    strict = catalog.pack.constraints[0].model_copy(update={"on_violation": ["template"]})
    pack = catalog.pack.model_copy(update={"constraints": [strict]})
    assert not grounding.regenerable(reply, unbacked, catalog.model_copy(update={"own_pack": pack}))


@pytest.fixture
def llm_client(tmp_path):
    from scripted_llm import ScriptedLLM

    from tests.conftest import app_for

    def make(llm: ScriptedLLM):
        app = app_for(tmp_path, DOMAIN, llm_model="openai/test", llm_base_url="http://127.0.0.1:9/v1")
        app.extensions["pipeline"].crew_mode.llm = llm
        return app.test_client()

    return make


def test_llm_mode_quotes_the_tariffs_price_and_the_model_only_frames_it(llm_client):
    from scripted_llm import ScriptedLLM, restate_draft

    llm = ScriptedLLM(default=restate_draft)
    body = chat(llm_client(llm), "quiero homologar el escape y el amortiguador delantero de mi moto")
    assert [call["agent"] for call in llm.calls] == ["Response Formatter"]  # no reading call, no quote agent's
    assert body["mode"] == "crew" and body["grounding"] == "passed"
    assert body["reply"].startswith("El presupuesto es de 300 € +IVA")
    assert "Quote: Escape, Suspensión delantera = 300 € +IVA" in llm.prompt_text(0)  # the tariff, in the state summary


def test_llm_mode_never_says_a_price_without_the_tariff(llm_client):
    from scripted_llm import ScriptedLLM

    llm = ScriptedLLM(script=["Final Answer: ¡Hola! Homologar un escape cuesta 180 €.", "Son 180 € más IVA."])
    body = chat(llm_client(llm), "hola")
    assert body["grounding"] == "fallback" and "180" not in body["reply"]
    assert "price_requires_tool" in llm.prompt_text(1)


def test_a_catalog_that_drifts_from_the_tariff_stops_start_up(tmp_path):
    """The search's prices and the quote's come from two files: a changed tariff must change both."""
    import json
    import shutil

    from assistant.pack.loading import load_catalog
    from assistant.pack.model import DataError

    folder = tmp_path / "homologation"
    shutil.copytree(Path(__file__).resolve().parent.parent / "data" / "homologation", folder)
    items = json.loads((folder / "elements.json").read_text(encoding="utf-8"))
    items[0]["price"] += 10
    (folder / "elements.json").write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DataError, match=f"items \\['{items[0]['code']}'\\] disagree"):
        load_catalog(folder)


def test_a_country_that_writes_the_sign_after_the_amount_reads_it_there(tmp_path):
    """Spain writes 390 €: lists and comparisons follow the pack's `currency_after`, as the quote does."""
    from app import create_app

    settings = {"domain": "homologation", "session_db": tmp_path / "s.sqlite3", "reminder_poll_s": 0}
    client = create_app(settings).test_client()
    listed = client.post("/chat", json={"query": "qué se puede homologar en una autocaravana"}).get_json()
    assert listed["agents"] == ["retriever", "formatter"]
    assert "390 € +IVA" in listed["reply"] and "€390" not in listed["reply"]
