"""Replies in the customer's language: which language a turn replies in, and the translation
files start-up accepts (assistant/pack/translations.py, assistant/dialogue/reply_language.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from assistant.language import load_languages
from assistant.pack.loading import load_catalog
from assistant.pack.model import DataError
from assistant.pack.translations import faithful, figures

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("text", "code", "native"),
    [
        ("আমার কার্ড কবে পাব?", "bn", True),
        ("amar card ta kaj korche na", "bn", False),
        ("इनमें से सबसे सुरक्षित कौन सी है?", "hi", True),
        ("mujhe SUV chahiye 10 lakh tak", "hi", False),
        ("โน้ตบุ๊กไม่เกินสามหมื่นบาท", "th", True),
        ("quiero homologar un enganche", "es", True),
        ("what is the annual fee of my card", "en", True),
        ("hello", "en", True),  # a greeting tells, though no stop word is in it
        ("hola", "es", True),
        ("จอขึ้น No Signal", "th", True),  # a name or an error message stays in Latin letters
        ("มี MacBook ไหม", "th", True),
        ("salam bhai, card lagbe", "bn", False),
    ],
)
def test_a_message_is_read_as_written_in_its_language(text, code, native):
    written = load_languages(["en", "bn", "hi", "th", "es"]).written_in(text)
    assert written is not None and (written.code, written.native) == (code, native)


@pytest.mark.parametrize("text", ["ok", "12:30", "3", "Visa"])
def test_a_message_with_no_telling_word_says_no_language(text):
    assert load_languages(["en", "bn", "hi", "th", "es"]).written_in(text) is None


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Bangla te bolun", "bn"),
        ("বাংলায় বলুন", "bn"),
        ("hindi mein batao", "hi"),
        ("हिंदी में बताओ", "hi"),
        ("in English please", "en"),
        ("can you speak English?", "en"),
        ("ตอบเป็นภาษาไทยได้ไหม", "th"),
        ("en español, por favor", "es"),
        ("Do you have Bengali food?", None),
        ("is there a Thai restaurant in Pune", None),
        ("Spanish omelette", None),
    ],
)
def test_only_a_request_for_a_language_asks_for_it(text, code):
    assert load_languages(["en", "bn", "hi", "th", "es"]).asked_for(text) == code


def test_a_turn_replies_in_the_language_the_customer_writes_or_asks_for(chat):
    assert chat.say("show me credit cards")["language"] == "en"
    assert chat.say("ক্রেডিট কার্ড দেখান")["language"] == "bn"  # native script: its own language
    assert chat.say("ok")["language"] == "bn"  # nothing telling: the conversation's language stays
    assert chat.say("amar card ta kaj korche na")["language"] == "en"  # Banglish: the pack's romanised_reply
    assert chat.say("Bangla te bolun")["language"] == "bn"
    assert chat.say("what is the annual fee of the first one?")["language"] == "bn"  # asked: from then on
    assert chat.say("in English please")["language"] == "en"
    assert chat.say("আমার কার্ড কবে পাব?")["language"] == "en"


def test_figures_are_read_in_any_script():
    assert figures("৭-১০ দিন, ৳১,০০০") == figures("7-10 days, ৳1,000")
    assert faithful("Call 16639 within 7 days.", "৭ দিনের মধ্যে 16639 নম্বরে কল করুন।") is None
    assert "figures" in (faithful("Call 16639 within 7 days.", "১৬৬৩৯ নম্বরে ১০ দিনের মধ্যে কল করুন।") or "")
    assert "placeholders" in (faithful("Hello {name}!", "নমস্কার!") or "")


@pytest.fixture
def bank_copy(tmp_path):
    """A copy of the bank's pack, whose translation files a test may write."""
    folder = tmp_path / "bank"
    shutil.copytree(ROOT / "data" / "bank", folder)
    (folder / "translations").mkdir(exist_ok=True)
    return folder


def _source_texts(folder):
    """Every text of the pack a Bangla translation needs, as the CLI lists them."""
    from assistant.pack.loading import ENGINE_TEXTS, translated_version
    from assistant.pack.translations import Table, Translator

    catalog = load_catalog(folder, translated=False)
    translate = Translator("bn", "en", ENGINE_TEXTS, Table(), Table(), folder / "translations" / "bn.yaml")
    translated_version("bn", translate, catalog.own_pack, catalog.own_faq, catalog.own_extras)
    return catalog, list(translate.missing)


def test_start_up_refuses_a_translation_that_misses_a_text_naming_the_file_and_the_text(bank_copy):
    catalog, sources = _source_texts(bank_copy)
    path = bank_copy / "translations" / "bn.yaml"
    path.write_text(yaml.safe_dump({"texts": {sources[0]: "কার্ড সহকারী"}}, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataError) as refused:
        load_catalog(bank_copy)
    assert str(path) in str(refused.value)
    assert "no translation of page.title" in str(refused.value) or "no translation of" in str(refused.value)


def test_start_up_refuses_a_translation_that_changes_a_figure(bank_copy):
    catalog, sources = _source_texts(bank_copy)
    contact = catalog.own_pack.business.support_contact  # the hotline's number
    assert figures(contact)
    changed = contact.replace("16639", "16693")
    path = bank_copy / "translations" / "bn.yaml"
    path.write_text(yaml.safe_dump({"texts": {contact: changed}}, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataError) as refused:
        load_catalog(bank_copy)
    assert f"{path}: the translation of business.support_contact" in str(refused.value)
    assert "figures" in str(refused.value)


def test_start_up_refuses_an_article_whose_translation_changes_a_figure(bank_copy):
    catalog, _ = _source_texts(bank_copy)
    entry = next(e for e in catalog.own_faq if figures(e.answer))
    said = {"question": "প্রশ্ন", "answer": "উত্তর 999999", "steps": list(entry.steps)}
    path = bank_copy / "translations" / "bn.yaml"
    path.write_text(yaml.safe_dump({"articles": {entry.id: said}}, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataError) as refused:
        load_catalog(bank_copy)
    assert f"{path}: articles.{entry.id}.answer changes its figures" in str(refused.value)


def test_a_reloaded_conversation_says_its_language(chat, client):
    """The page reloads in the conversation's language, not the browser's."""
    assert client.get(f"/sessions/{chat.session_id}").status_code == 404  # nothing said yet
    chat.say("ক্রেডিট কার্ড দেখান")
    assert client.get(f"/sessions/{chat.session_id}").get_json()["language"] == "bn"
    chat.say("in English please")
    assert client.get(f"/sessions/{chat.session_id}").get_json()["language"] == "en"


@pytest.mark.parametrize(
    ("text", "position"), [("প্রথমটার বার্ষিক ফি কত?", 1), ("prothomtar annual fee koto?", 1), ("prothom kotha holo", None)]
)
def test_a_position_with_its_classifier_written_on_points_alone(text, position):
    """প্রথমটার (the first one's) can't be the everyday 'first'; প্রথম alone needs an item word near."""
    assert load_languages(["en", "bn"]).pointing(text).positions == ([position] if position else [])


@pytest.mark.parametrize("pack", ["bank", "cars", "restaurants", "store", "homologation"])
def test_every_shipped_pack_replies_in_each_of_its_languages(pack):
    """A language a pack reads but has no translation for would be answered in the pack's own
    words: every shipped pack has them all (start-up checked each for gaps and figures)."""
    catalog = load_catalog(ROOT / "data" / pack)
    wanted = {code for code in catalog.own_pack.languages if not code == catalog.language == "en"}
    assert set(catalog.versions) == wanted


def test_a_request_for_a_language_alone_is_answered_in_it(chat):
    said = chat.say("Bangla te bolun")
    assert said["language"] == "bn" and said["intent"]["type"] == "language"
    assert "বাংলায়" in said["reply"] and not said["products"]
    said = chat.say("in English please")
    assert said["language"] == "en" and "in English" in said["reply"]


def test_a_phone_number_in_bengali_digits_is_a_phone_number(catalog):
    from assistant.language.phones import e164

    assert e164("০১৭১২৩৪৫৬৭৮", catalog.business) == e164("01712345678", catalog.business) == "+8801712345678"
