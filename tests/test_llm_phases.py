"""LLM mode by phase (each phase sends only its own prompt module) on the homologation pack: each
turn's model frames the verified reply from the core prompt, that phase's module alone and a state
summary, and is offered no tool (the engine has run them); the pack's constraints still hold."""

from __future__ import annotations

import io
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import app_for
from PIL import Image
from scripted_llm import ScriptedLLM, restate_draft

from assistant.attachments.store import ATTACHMENTS
from assistant.pack.loading import load_catalog
from assistant.pack.model import DataError

DOMAIN = "homologation"
TOOL = re.compile(r"^Tool Name: (\w+)$", re.MULTILINE)
MODULES = {  # each phase module's heading (data/homologation/prompts/<phase>.md)
    "quote": "## Fase: presupuesto",
    "documents": "## Fase: documentación del vehículo",
    "personal": "## Fase: datos personales",
    "vehicle": "## Fase: datos del vehículo",
    "review": "## Fase: revisión",
}


class Case:
    """One conversation on the homologation pack in LLM mode; `offline=True` turns skip the model."""

    def __init__(self, tmp_path: Path):
        self.llm = ScriptedLLM(default=restate_draft)
        app = app_for(tmp_path, DOMAIN, llm_model="openai/test", llm_base_url="http://127.0.0.1:9/v1")
        app.extensions["pipeline"].crew_mode.llm = self.llm
        self.client, self.store, self.session = app.test_client(), ATTACHMENTS.get(app), str(uuid.uuid4())
        self.first = 0  # the first model call of the last turn

    def say(self, query: str, photos: int = 0, offline: bool = False) -> dict[str, Any]:
        ids = [self.store.save(self.session, f"photo{i}.png", _png()).id for i in range(photos)]
        body: dict[str, Any] = {"query": query, "session_id": self.session, **({"attachments": ids} if ids else {})}
        self.first = len(self.llm.calls)
        response = self.client.post("/chat", json={**body, **({"mode": "offline"} if offline else {})})
        assert response.status_code == 200, response.get_json()
        data: dict[str, Any] = response.get_json()
        return data

    def prompts(self) -> list[str]:
        """The last turn's prompts, one per model call (the formatter's, on a case's turns)."""
        return [self.llm.prompt_text(i) for i in range(self.first, len(self.llm.calls))]

    def to_personal_data(self, offline_last: bool = True) -> dict[str, Any]:
        """A quote, the case opened, both elements' photos and fields; the base documents sent last."""
        self.say("quiero homologar el escape y el amortiguador delantero de mi moto", offline=True)
        for query, photos in [("dale, adelante", 0), ("ahí van", 3), ("Akrapovic\nGP-1\ne13*1234\n95\nsí", 0), ("fotos", 2)]:
            self.say(query, photos, offline=True)
        self.say("Öhlins", offline=True)
        self.say("FG 432", offline=True)
        return self.say("ficha y permiso", photos=2, offline=offline_last)


def _png() -> bytes:
    kept = io.BytesIO()
    Image.new("RGB", (64, 48), (10, 120, 200)).save(kept, "PNG")
    return kept.getvalue()


def tools_shown(prompt: str) -> list[str]:
    return TOOL.findall(prompt)


@pytest.fixture
def case(tmp_path) -> Case:
    return Case(tmp_path)


def test_a_quote_turn_frames_with_only_the_quote_module_and_no_tool(case):
    body = case.say("quiero homologar el escape y el amortiguador delantero de mi moto")
    assert body["mode"] == "crew" and body["grounding"] == "passed"
    [formatter] = case.prompts()
    assert tools_shown(formatter) == [] and "Tool Name" not in formatter
    assert MODULES["quote"] in formatter and not any(MODULES[p] in formatter for p in MODULES if p != "quote")
    assert "Quote: Escape, Suspensión delantera = 300 € +IVA" in formatter


def test_the_personal_data_phase_gives_its_module_and_the_state(case):
    body = case.to_personal_data(offline_last=False)
    assert body["mode"] == "crew" and body["grounding"] == "passed" and "Datos personales" in body["reply"]
    [formatter] = case.prompts()
    assert tools_shown(formatter) == [] and MODULES["personal"] in formatter
    assert not any(MODULES[p] in formatter for p in MODULES if p != "personal")
    assert "Case phase: Datos personales" in formatter and "Quote: Escape, Suspensión delantera" in formatter
    assert "Missing now: Nombre y apellidos, DNI/NIE, Dirección, Email, Teléfono" in formatter
    assert "Suspensión delantera: Fotos=2 file(s), Marca=Öhlins, Referencia=FG 432" in formatter


def test_the_state_summary_masks_who_the_customer_is(case):
    case.to_personal_data()
    case.say("Juan García López\n12345678Z\nCalle Mayor 5, 28013 Madrid\njuan@example.com\n612345678", offline=True)
    body = case.say("1234 BCD\nYamaha\nMT-07\nJYARM06E0JA000001")  # the workshop is asked next
    assert body["mode"] == "crew"
    prompt = case.prompts()[-1]
    assert "Case phase: Taller" in prompt and "Datos personales: Nombre y apellidos=J*** G***** L****" in prompt
    for private in ("Juan", "García", "12345678Z", "Calle Mayor", "juan@example.com", "612345678"):
        assert private not in prompt, private  # told in an earlier turn: only the summary, masked, carries it
    summary = prompt[prompt.index("State of the conversation") :]
    assert "1234 BCD" not in summary and "JYARM06E0JA000001" not in summary  # this turn's message alone says them
    assert "Marca=Yamaha" in summary


def test_a_price_in_a_phase_without_the_tariff_is_replaced(case):
    case.to_personal_data()
    case.llm.script = [
        "Final Answer: Recibido. Tu homologación sale por 300 € +IVA; dime tu nombre.",
        "Son 300 € más IVA; dime tu nombre.",  # the regeneration keeps the price
    ]
    body = case.say("¿y ahora qué?")
    assert body["grounding"] == "fallback" and "300" not in body["reply"]
    assert "price_requires_tool" in case.prompts()[-1]


def test_the_review_frames_the_summary_whose_price_the_tariff_gave(case):
    case.to_personal_data()
    case.say("Juan García López\n12345678Z\nCalle Mayor 5, 28013 Madrid\njuan@example.com\n612345678", offline=True)
    case.say("1234 BCD\nYamaha\nMT-07\nJYARM06E0JA000001", offline=True)
    body = case.say("todavía no")
    assert body["grounding"] == "passed" and "300 € +IVA" in body["reply"]
    assert MODULES["review"] in case.prompts()[-1]


def test_a_pack_must_give_every_stage_a_phase(tmp_path):
    folder = tmp_path / "pack"
    source = Path("data/homologation")
    for path in source.rglob("*"):
        if path.is_file():
            target = folder / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    pack = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
    del pack["prompting"]["phases"]["personal"]
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataError, match="prompting.phases lacks"):
        load_catalog(folder)
    pack["prompting"]["phases"]["personal"] = {"prompt": "prompts/nowhere.md"}
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataError, match="nowhere.md is not in the pack"):
        load_catalog(folder)
    pack["prompting"]["phases"]["personal"] = {"prompt": "prompts/personal.md"}
    pack["prompting"]["phases"]["haggling"] = {"prompt": "prompts/personal.md"}  # no step, nor the extension, has it
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataError, match=r"prompting.phases \['haggling'\]: no flow step has that stage"):
        load_catalog(folder)
    del pack["prompting"]["phases"]["haggling"]
    pack["prompting"]["phases"]["element"] = {"prompt": "prompts/personal.md"}  # a stage the extension's case steps have
    (folder / "pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    assert "element" in load_catalog(folder, translated=False).own_pack.prompting.phases
