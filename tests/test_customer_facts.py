"""Customer facts, eligibility rules and texts are pack data: a pack that declares another fact
asks for it and judges by it, the page's fact may be called anything, and a pack without texts
speaks the engine's defaults."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import Conversation, app_for

from assistant.pack.loading import load_catalog
from assistant.pack.model import DEFAULT_TEXTS, placeholders
from assistant.pack.texts import say
from assistant.tools.eligibility import check

DATA = Path(__file__).resolve().parent.parent / "data"
MIN_SCORE = 700


def _pack(tmp_path: Path, name: str, change) -> Path:
    """A copy of a pack under data/, with `change(pack_yaml, items, vocabulary)` applied."""
    folder = tmp_path / f"{name}-copy"
    shutil.copytree(DATA / name, folder)
    pack = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
    items_path = folder / pack["catalog"]["file"]
    items = json.loads(items_path.read_text(encoding="utf-8"))
    vocabulary = json.loads((folder / "vocabulary.json").read_text(encoding="utf-8"))
    change(pack, items, vocabulary)
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True, sort_keys=False), encoding="utf-8")
    items_path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    (folder / "vocabulary.json").write_text(json.dumps(vocabulary, ensure_ascii=False), encoding="utf-8")
    return folder


def _credit_score(pack: dict, items: list[dict], vocabulary: dict) -> None:
    """The bank asks a credit score first, and each card needs one of at least MIN_SCORE."""
    pack["attributes"]["min_credit_score"] = {"type": "number", "label": "Minimum credit score"}
    score = {
        "kind": "number",
        "question": "What is your credit score?",
        "cues": ["credit score", "credit score is", "score"],
        "range": [300, 900],
    }
    pack["profile"] = {"credit_score": score, **pack["profile"]}
    pack["eligibility"].append({"fact": "credit_score", "at_least": "min_credit_score"})
    for item in items:
        item["min_credit_score"] = MIN_SCORE


def _translated(folder: Path, code: str, texts: dict[str, str]) -> None:
    """The pack's translation into `code` with `texts` added: a new text a pack says needs its
    translation in every language the pack replies in, or start-up refuses the pack."""
    path = folder / "translations" / f"{code}.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    table["texts"].update(texts)
    path.write_text(yaml.safe_dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")


@pytest.fixture
def scored(tmp_path):
    folder = _pack(tmp_path, "bank", _credit_score)
    _translated(folder, "bn", {"Minimum credit score": "ন্যূনতম ক্রেডিট স্কোর", "What is your credit score?": "আপনার ক্রেডিট স্কোর কত?"})
    app = app_for(tmp_path, data_dir=folder)
    return app, app.extensions["pipeline"].catalog


def test_a_fact_the_pack_declares_is_asked_for_and_decides_the_verdict(scored):
    app, catalog = scored
    chat = Conversation(app.test_client(), employment="business_owner")
    chat.say("show me visa platinum credit cards")
    asked = chat.say("am I eligible? I earn 3 lakh a month")
    assert asked["ask_user"] == "What is your credit score?"
    assert asked["eligibility"] and all(v["missing"] == ["credit_score"] for v in asked["eligibility"])
    assert all(v["eligible"] is None for v in asked["eligibility"])

    answered = chat.say("720")
    assert answered["intent"]["type"] == "eligibility_check" and answered["ask_user"] is None
    told = {"employment": "business_owner", "monthly_income": 300_000, "credit_score": 720}
    for verdict in answered["eligibility"]:
        assert verdict["missing"] == []
        assert f"Your credit score 720 meets the {MIN_SCORE} minimum." in verdict["reasons"]
        assert verdict["eligible"] is check(catalog.product(verdict["product_id"]), told, catalog).eligible

    low = Conversation(app.test_client(), employment="business_owner")
    low.say("show me visa platinum credit cards")
    refused = low.say("am I eligible? my credit score is 610 and I earn 3 lakh a month")
    assert refused["eligibility"] and all(v["eligible"] is False for v in refused["eligibility"])
    assert all(f"Needs a credit score of at least {MIN_SCORE}; you told us 610." in v["reasons"] for v in refused["eligibility"])


def test_the_page_fact_may_be_called_anything(tmp_path):
    """The page fact, sent in facts or as the old user_employment, is whichever fact the pack puts on the page."""

    def rename(pack: dict, items: list[dict], vocabulary: dict) -> None:
        pack["profile"] = {"occupation" if k == "employment" else k: v for k, v in pack["profile"].items()}
        pack["eligibility"][0]["fact"] = "occupation"
        vocabulary["facts"] = {"occupation": vocabulary["facts"].pop("employment")}

    app = app_for(tmp_path, data_dir=_pack(tmp_path, "bank", rename))
    client, pipeline = app.test_client(), app.extensions["pipeline"]
    chat = Conversation(client, employment="student")
    chat.say("show me prepaid cards")
    assert pipeline.store.load(chat.session_id).profile == {"occupation": "student"}
    about = client.get("/about").get_json()
    assert {choice["value"] for choice in about["profile_choices"]} == set(pipeline.catalog.pack.profile["occupation"].values)
    refused = client.post("/chat", json={"query": "hi", "user_employment": "astronaut"})
    assert refused.status_code == 400 and "user_employment" in json.dumps(refused.get_json())


def test_a_pack_without_texts_speaks_the_engine_defaults(tmp_path):
    folder = _pack(tmp_path, "cars", lambda pack, items, vocabulary: pack.pop("texts"))
    catalog = load_catalog(folder)
    assert catalog.text == DEFAULT_TEXTS
    hello = Conversation(app_for(tmp_path, data_dir=folder).test_client()).say("hello")
    assert hello["reply"] == DEFAULT_TEXTS["greeting"].format(business=catalog.name, items="items")


def test_a_pack_words_only_what_it_changes(tmp_path):
    """The shipped packs and the template carry no text that reads the same as the engine's default."""
    from assistant.pack.scaffold import new_domain

    folders = [path.parent for path in sorted(DATA.glob("*/pack.yaml"))] + [new_domain("acme", tmp_path)]
    for folder in folders:
        catalog = load_catalog(folder)
        fill = {"business": catalog.name, "support": "", "item": catalog.text["item"], "items": catalog.text["items"]}
        defaults = {**DEFAULT_TEXTS, **catalog.extension_texts}  # the engine's and its extensions'
        for key, own in catalog.pack.texts.items():
            blanks = {name: f"<{name}>" for name in placeholders(defaults[key])} | fill
            assert own.format(**blanks) != defaults[key].format(**blanks), f"{folder.name}: texts.{key}"


def test_every_default_text_fills_with_its_own_placeholders(catalog):
    for key, text in DEFAULT_TEXTS.items():
        said = say(catalog, key, **{name: "x" for name in placeholders(text)})
        assert said and "{" not in said and "}" not in said, key
