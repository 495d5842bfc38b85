"""The office's side: a completed case is one record, kept once however often its turn is
retried, readable by operators only as JSON and as a one-page PDF, with the files its
conversation sent."""

from __future__ import annotations

import io
import re
import uuid

from assistant.cases.store import CASES
from tests.conftest import OPERATOR_KEY, signed_in
from tests.test_attachments import jpeg_with_gps, upload

OPERATOR = {"X-API-Key": OPERATOR_KEY}


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


def test_the_office_opens_the_files_of_the_cases_conversation_only(app, client, session):
    file_id = upload(client, session, jpeg_with_gps()).get_json()["id"]
    other = str(uuid.uuid4())
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
