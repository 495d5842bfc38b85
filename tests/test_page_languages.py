"""The chat page in each language its business speaks: GET /about?lang=<code> gives the page's
own words in that language (what the page shows after a reply in it), and refuses a language the
business does not speak with a 400, never a 500.

The translation the tests read is made here, in a copy of a pack: every text a customer reads,
marked with its language, and the page's own words written out, so the tests hold whether or not
the pack's real translation has landed yet."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from conftest import app_for

from assistant.pack.loading import ENGINE_TEXTS, load_catalog, translated_version
from assistant.pack.translations import FOLDER, Table, Translator

DATA = Path(__file__).resolve().parent.parent / "data"
THAI_PAGE = {  # the store's page in Thai, by where each text is said, as the tests expect to see it
    "page.placeholder": "ขอคำแนะนำ หรือบอกปัญหาที่เจอได้เลย…",
    "page.labels.send": "ส่ง",
    "page.labels.new_conversation": "เริ่มบทสนทนาใหม่",
    "page.labels.message": "ข้อความของคุณ",
    "page.labels.attach": "แนบรูปภาพหรือ PDF",
    "page.labels.suggested_replies": "คำตอบที่แนะนำ",
}


def untranslated_pack(folder: Path, pack: str) -> Path:
    """A copy of data/<pack> under `folder`, without its translations."""
    target = folder / pack
    shutil.copytree(DATA / pack, target, ignore=shutil.ignore_patterns(FOLDER))
    return target


def translated_pack(folder: Path, pack: str, code: str, words: dict[str, str]) -> Path:
    """A copy of data/<pack> under `folder` whose translation into `code` says the texts at the
    paths `words` names as it has them ("page.labels.send"), and every other as "[code] text"
    (its figures and placeholders kept)."""
    target = untranslated_pack(folder, pack)
    catalog = load_catalog(target, translated=False)
    wanted = Translator(code, catalog.language, ENGINE_TEXTS, Table(), Table(), target)
    translated_version(code, wanted, catalog.own_pack, catalog.own_faq, catalog.own_extras)

    def said(text: str) -> str:
        return words.get(wanted.missing.get(text, ""), f"[{code}] {text}")

    articles = {
        entry.id: {
            "question": said(entry.question),
            "answer": said(entry.answer),
            "steps": [said(step) for step in entry.steps],
            **({"category": said(entry.category)} if entry.category else {}),
        }
        for entry in wanted.missing_articles
    }
    (target / FOLDER).mkdir()
    table = {"texts": {text: said(text) for text in wanted.missing}, "articles": articles}
    (target / FOLDER / f"{code}.yaml").write_text(yaml.safe_dump(table, allow_unicode=True), encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("store-th")
    return app_for(folder, data_dir=translated_pack(folder, "store", "th", THAI_PAGE)).test_client()


def test_the_page_in_a_language_the_business_speaks(store):
    thai = store.get("/about?lang=th")
    assert thai.status_code == 200
    page = thai.get_json()
    assert page["lang"] == "th" and page["languages"] == ["en", "th"]
    assert page["placeholder"] == "ขอคำแนะนำ หรือบอกปัญหาที่เจอได้เลย…"
    assert page["labels"]["send"] == "ส่ง" and page["labels"]["attach"] == "แนบรูปภาพหรือ PDF"
    assert page["title"].startswith("[th] ") and page["welcome"].startswith("[th] ")
    assert all(example.startswith("[th] ") for example in page["examples"])
    assert page["labels"]["booking_confirmed"] == "[th] {subject} confirmed · {id}"  # the page fills it in


def test_the_page_in_its_own_language_by_default_and_when_asked(store):
    own, english = store.get("/about").get_json(), store.get("/about?lang=en").get_json()
    assert own == english
    assert own["lang"] == "en" and own["labels"]["send"] == "Send" and not own["placeholder"].startswith("[th]")


def test_the_page_fact_choices_in_the_language_asked_for(tmp_path):
    """The bank's "I am a…" list: the same values, each choice in the page's language."""
    bank = translated_pack(tmp_path, "bank", "bn", {"profile.employment.choices[0]": "চাকরিজীবী"})
    client = app_for(tmp_path, data_dir=bank).test_client()
    english, bengali = client.get("/about").get_json(), client.get("/about?lang=bn").get_json()
    assert [c["value"] for c in bengali["profile_choices"]] == [c["value"] for c in english["profile_choices"]]
    labels = {c["label"] for c in bengali["profile_choices"]}
    assert "চাকরিজীবী" in labels and all(label.startswith("[bn] ") for label in labels - {"চাকরিজীবী"})
    assert bengali["lang"] == "bn" and bengali["item"].startswith("[bn] ")


@pytest.mark.parametrize("lang", ["bn", "xx", "TH", "th-TH", "", "th;<script>", "ท" * 200])
def test_a_language_the_business_does_not_speak_is_a_400(store, lang):
    response = store.get("/about", query_string={"lang": lang})
    assert response.status_code == 400
    assert response.get_json() == {"error": "unknown_language", "message": "lang is one of this business's languages: en, th."}


def test_a_language_not_translated_yet_shows_the_pack_own_words(tmp_path):
    """Until a language's file lands, its page is the pack's own words, and its `lang` says they
    are (<html lang> is what screen readers read them in)."""
    client = app_for(tmp_path, data_dir=untranslated_pack(tmp_path, "cars")).test_client()
    own, hindi = client.get("/about").get_json(), client.get("/about?lang=hi")
    assert hindi.status_code == 200
    assert hindi.get_json() == own and own["lang"] == "en"
