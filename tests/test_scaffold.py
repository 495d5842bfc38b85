"""`python3 -m assistant new-domain NAME`: the new pack loads, answers, and nothing is ever overwritten."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app import create_app
from assistant.pack.loading import load_catalog
from assistant.pack.model import DEFAULT_TEXTS

ROOT = Path(__file__).resolve().parent.parent


def new_domain(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "assistant", "new-domain", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    data_dir = tmp_path_factory.mktemp("data")
    result = new_domain("acme-plans", "--data-dir", str(data_dir))
    assert result.returncode == 0, result.stderr
    assert "python3 app.py" in result.stdout  # the next steps
    return data_dir / "acme-plans"


def test_the_scaffolded_pack_loads_and_marks_what_to_fill_in(pack):
    assert sorted(p.name for p in pack.iterdir()) == ["faq.json", "nlu.yml", "pack.yaml", "products.json", "vocabulary.json"]
    catalog = load_catalog(pack)
    assert catalog.name == "Acme Plans"
    assert len(catalog.products) == 3 and len(catalog.faq) == 3
    assert set(DEFAULT_TEXTS) <= set(catalog.text)
    pack_yaml = (pack / "pack.yaml").read_text(encoding="utf-8")
    assert "# TODO" in pack_yaml and "__NAME__" not in pack_yaml and "__BUSINESS__" not in pack_yaml
    assert "TODO" in (pack / "products.json").read_text(encoding="utf-8")


def test_an_app_on_the_new_pack_greets_and_finds_its_products(pack, tmp_path):
    app = create_app(
        {"data_dir": pack, "session_db": tmp_path / "s.sqlite3", "bookings_db": tmp_path / "b.sqlite3", "reminder_poll_s": 0}
    )
    client = app.test_client()
    catalog = app.extensions["pipeline"].catalog

    hello = client.post("/chat", json={"query": "hello"})
    assert hello.status_code == 200
    assert hello.get_json()["intent"]["type"] == "greeting"
    assert "Acme Plans" in hello.get_json()["reply"]

    found = client.post("/chat", json={"query": "show me personal plans"}).get_json()
    assert found["intent"] == {"type": "product_info", "filters": {"plan_type": "personal"}}
    ids = [p["id"] for p in found["products"]]
    assert ids == ["personal-basic", "personal-plus"]  # every personal plan, cheapest first
    assert all(catalog.product(i).value("plan_type") == "personal" for i in ids)
    assert "Personal Basic Plan" in found["reply"]

    budget = client.post("/chat", json={"query": "Personal plans under $20"}).get_json()
    assert [p["id"] for p in budget["products"]] == ["personal-basic"]


@pytest.mark.parametrize("name", ["Acme", "-acme", "acme shop", "../acme", "a" * 41, "acme!"])
def test_a_bad_name_is_refused_and_nothing_is_written(tmp_path, name):
    result = new_domain("--data-dir", str(tmp_path), "--", name)  # "--": "-acme" is a name, not an option
    assert result.returncode == 2
    assert "not a domain name" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_never_overwritten(tmp_path):
    existing = tmp_path / "acme"
    existing.mkdir()
    (existing / "pack.yaml").write_text("# the business's own work\n", encoding="utf-8")
    result = new_domain("acme", "--data-dir", str(tmp_path))
    assert result.returncode == 2
    assert "already exists" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["acme"]  # no leftover draft beside it
    assert [p.name for p in existing.iterdir()] == ["pack.yaml"]
    assert (existing / "pack.yaml").read_text(encoding="utf-8") == "# the business's own work\n"
