"""The office's side: a completed case is one record, kept once however often its turn is
retried, readable by operators only as JSON and as a one-page PDF, with the files its
conversation sent."""

from __future__ import annotations

import io
import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from conftest import OPERATOR_KEY, signed_in
from pdfminer.high_level import extract_text
from test_attachments import asking, jpeg_with_gps, upload

from extensions.homologation.case_store import CASES

DOMAIN = "homologation"
OPERATOR = {"X-API-Key": OPERATOR_KEY}
ADDRESS = "Calle de la Princesa de Éboli 125, escalera B, piso 4º, puerta izquierda, urbanización Los Almendros, 28013 Madrid"
VIN = "VF1AB000123456789"


@pytest.fixture
def session(client) -> str:
    """A conversation whose case asks for photos: the kind that takes files."""
    return asking(client)


def record(session: str, **more) -> dict:
    """A case as a flow hands it in: its sections under the names it gives them."""
    return {
        "session_id": session,
        "title": "Expediente de homologación",
        "labels": {"elements": "Elementos", "personal": "Datos personales"},
        "elements": ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"],
        "variants": {"SUSPENSION_MOTO": "DEL"},
        "tariff": {"price": 300, "tax_note": "+IVA", "warnings": ["No incluye el certificado del taller de montaje"]},
        "fields": {"ESCAPE_MOTO": {"marca": "Akrapovič", "db_nivel": 95}},
        "documents": {"ficha_tecnica": []},
        "personal": {"nombre": "José Núñez", "email": "jose@example.es", "telefono": "+34 600 000 000"},
        "vehicle": {"matricula": "1234BCD", "vin": "VF1AB000123456789"},
        "workshop": {"own": False},
        "transcript": [{"role": "user", "text": "quiero homologar el escape"}, {"role": "assistant", "text": "180 € +IVA"}],
        **more,
    }


def test_a_case_is_kept_once_and_listed_by_status(app, session):
    cases = CASES.get(app)
    case_id = cases.submit(record(session))
    assert cases.submit(record(session)) == case_id  # a retried turn hands the same record in again
    assert re.fullmatch(r"\d{8}-[0-9A-F]{6}", case_id)
    kept = cases.get(case_id)
    assert kept["status"] == "submitted" and kept["elements"] == ["ESCAPE_MOTO", "SUSPENSION_MOTO_DEL"]
    assert list(kept)[:5] == ["id", "status", "created_at", "updated_at", "session_id"]
    assert [c["id"] for c in cases.list("submitted")] == [case_id] and "transcript" not in cases.list()[0]
    assert cases.list("done") == []
    assert cases.set_status(case_id, "done")["status"] == "done" and cases.list("done")[0]["id"] == case_id
    assert cases.get("nope") is None and cases.set_status("nope", "done") is None


def test_the_office_reads_cases_with_the_operator_key_only(app, client, session):
    case_id = CASES.get(app).submit(record(session))
    for path in ("/cases", f"/cases/{case_id}", f"/cases/{case_id}/summary.pdf"):
        assert client.get(path).status_code == 401
        assert client.get(path, headers=signed_in("ana")).status_code == 403
        assert client.get(path, headers={"X-API-Key": "wrong"}).status_code == 401
        assert client.get(path, headers=OPERATOR).status_code == 200
    assert client.get("/cases", headers=signed_in("staff", role="operator")).status_code == 200
    listed = client.get("/cases?status=submitted", headers=OPERATOR).get_json()["cases"]
    assert [c["id"] for c in listed] == [case_id]
    assert client.get("/cases?status=nonsense", headers=OPERATOR).status_code == 400
    whole = client.get(f"/cases/{case_id}", headers=OPERATOR).get_json()
    assert whole["personal"]["nombre"] == "José Núñez" and len(whole["transcript"]) == 2
    assert client.get("/cases/20990101-000000", headers=OPERATOR).status_code == 404


def test_the_summary_is_one_pdf_page(app, client, session):
    busy = record(session, fields={f"E{i}": {f"f{j}": "x" * 200 for j in range(6)} for i in range(30)})
    for case_id in (CASES.get(app).submit(record(session)), CASES.get(app).submit(busy)):
        response = client.get(f"/cases/{case_id}/summary.pdf", headers=OPERATOR)
        assert response.mimetype == "application/pdf"
        assert response.data.startswith(b"%PDF")
        assert len(re.findall(rb"/Type\s*/Page\b", response.data)) == 1
    assert "líneas más: el expediente completo está en su JSON" in pdf_text(response.data)  # the busy one's foot


def full(session: str, photos: list[str]) -> dict:
    """A case as the case desk hands it in (extensions/homologation/case.py)."""
    return {
        "session_id": session,
        "title": "Expediente de homologación",
        "labels": {"elements": "Elementos", "tariff": "Presupuesto", "documents": "Documentación", "data": "Datos"},
        "elements": [
            {
                "code": "ESCAPE_MOTO",
                "element": "ESCAPE_MOTO",
                "variant": None,
                "name": "Escape",
                "fields": {"Marca": "Akrapovic", "Nº de homologación": "E13*1234", "Lleva catalizador": "No"},
                "photos": photos,
            },
            {
                "code": "SUSPENSION_MOTO_DEL",
                "element": "SUSPENSION_MOTO",
                "variant": "DEL",
                "name": "Suspensión delantera",
                "fields": {"Marca": "Öhlins", "Referencia": "FG 432"},
                "photos": [],
            },
        ],
        "tariff": {"price": 300.0, "tax_note": "+IVA", "warnings": ["No incluye el certificado del taller de montaje"]},
        "documents": [],
        "data": {
            "Datos personales": {"Nombre y apellidos": "Juan García López", "Dirección": ADDRESS, "Email": "juan@example.com"},
            "Datos del vehículo": {"Matrícula": "1234 BCD", "Nº de bastidor (VIN)": VIN},
            "Taller": {"Taller": "Todavía no"},
        },
        "transcript": [{"role": "user", "text": "quiero homologar el escape"}, {"role": "assistant", "text": "300 € +IVA"}],
    }


def pdf_text(data: bytes) -> str:
    """The page's words, each run of spaces and line breaks one space (a long value wraps)."""
    return " ".join(extract_text(io.BytesIO(data)).split())


def test_the_summary_prints_every_value_whole_in_the_packs_words(app, client, session):
    photo = upload(client, session, jpeg_with_gps()).get_json()["id"]
    case_id = CASES.get(app).submit(full(session, [photo]))
    response = client.get(f"/cases/{case_id}/summary.pdf", headers=OPERATOR)
    assert len(re.findall(rb"/Type\s*/Page\b", response.data)) == 1
    text = pdf_text(response.data)
    assert f"Dirección: {ADDRESS}" in text and "Email: juan@example.com" in text  # wrapped, not cut
    assert f"Nº de bastidor (VIN): {VIN}" in text and "Lleva catalizador: No" in text and "..." not in text
    assert "Escape" in text and "Suspensión delantera" in text and "1 foto " in text
    assert "Precio: 300 € +IVA" in text and "Ten en cuenta: - No incluye el certificado del taller de montaje" in text
    assert "Taller: Todavía no" in text and "Taller: Taller" not in text
    kept = CASES.get(app).get(case_id)
    at = datetime.fromisoformat(kept["created_at"]).astimezone(ZoneInfo("Europe/Madrid"))
    assert f"Enviado el {at:%d/%m/%Y} a las {at:%H:%M} · estado: recibido" in text
    assert f"Expediente {case_id} · 2 mensajes · 1 archivos" in text
    for raw in ("code:", "element:", "variant:", "name:", "fields:", "photos:", "price:", "tax_note:", "warnings:"):
        assert raw not in text
    for raw in ("ESCAPE_MOTO", "SUSPENSION_MOTO", "submitted", "UTC", "messages", "300.0"):
        assert raw not in text


def test_the_office_opens_the_files_of_the_cases_conversation_only(app, client, session):
    file_id = upload(client, session, jpeg_with_gps()).get_json()["id"]
    other = asking(client)
    foreign = upload(client, other, jpeg_with_gps()).get_json()["id"]
    case_id = CASES.get(app).submit(record(session, documents={"ficha_tecnica": [file_id]}))
    response = client.get(f"/cases/{case_id}/attachments/{file_id}", headers=OPERATOR)
    assert response.status_code == 200 and response.mimetype == "image/jpeg" and b"PhoneMaker" not in response.data
    assert client.get(f"/cases/{case_id}/attachments/{foreign}", headers=OPERATOR).status_code == 404
    assert client.get(f"/cases/{case_id}/attachments/{file_id}").status_code == 401
    assert io.BytesIO(response.data).read(3) == b"\xff\xd8\xff"


def test_an_operator_moves_a_case_on(app, client, session):
    case_id = CASES.get(app).submit(record(session))
    moved = client.patch(f"/cases/{case_id}", json={"status": "in_review"}, headers=OPERATOR)
    assert moved.status_code == 200 and moved.get_json()["status"] == "in_review"
    assert client.patch(f"/cases/{case_id}", json={"status": "lost"}, headers=OPERATOR).status_code == 400
    assert client.patch(f"/cases/{case_id}", json={"status": "done"}, headers=signed_in("ana")).status_code == 403
    assert client.patch("/cases/nope", json={"status": "done"}, headers=OPERATOR).status_code == 404


def test_the_office_downloads_files_and_summaries_never_renders_them(app, client, session):
    file_id = upload(client, session, jpeg_with_gps()).get_json()["id"]
    case_id = CASES.get(app).submit(record(session, documents={"ficha_tecnica": [file_id]}))
    for path in (f"/cases/{case_id}/attachments/{file_id}", f"/cases/{case_id}/summary.pdf"):
        response = client.get(path, headers=OPERATOR)
        assert response.status_code == 200 and response.headers["Content-Disposition"].startswith("attachment;")
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Content-Security-Policy"] == "sandbox; default-src 'none'"


def test_characters_nobody_sees_leave_case_values_and_the_office_pdf(app, client, session):
    hidden = "Ana\u202eRuiz\u200b\u2066 Gil\x00"
    case_id = CASES.get(app).submit(record(session, personal={"nombre": hidden, "notas\u200d": ["a\u202ab"]}))
    kept = CASES.get(app).get(case_id)
    assert kept["personal"] == {"nombre": "AnaRuiz Gil", "notas": ["ab"]}
    from assistant.tools.retrieval import CATALOG
    from extensions.homologation.case_summary import summary_pdf

    with app.app_context():
        page = summary_pdf({**kept, "personal": {"nombre": hidden}}, [], CATALOG.get())  # as an older record holds it
    assert "nombre: AnaRuiz Gil" in pdf_text(page) and "?" not in pdf_text(page).split("nombre:")[1][:15]
