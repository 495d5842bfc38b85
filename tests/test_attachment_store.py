"""The attachment store as several machines share it: descriptions in the durable database (SQLite
or a real PostgreSQL), bytes in a directory or a real S3 server (moto's, on loopback), each pair
opened again as another worker would open it; and the app keeping a customer's upload in S3."""

from __future__ import annotations

import io
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import pytest
from conftest import OPERATOR_KEY, app_for
from PIL import Image
from pydantic import ValidationError
from servers import free_port
from test_attachments import asking, upload

from assistant.attachments.blobs import open_blobs
from assistant.attachments.content import Refused
from assistant.attachments.store import ATTACHMENTS, AttachmentStore
from assistant.infra.config import Settings


def png(shade: int = 0) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (shade, 80, 160)).save(out, "PNG")
    return out.getvalue()


@pytest.fixture(params=["directory", "s3"])
def blobs_url(request, tmp_path) -> str:
    """ATTACHMENTS_URL: a folder, or a new bucket of the run's S3."""
    return (tmp_path / "files").as_uri() if request.param == "directory" else request.getfixturevalue("s3_url")


def kept_keys(url: str) -> list[str]:
    """The blobs the storage holds, read from the storage itself, under the URL's prefix."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        folder = Path(parts.path)
        return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []
    s3 = boto3.session.Session().client("s3", endpoint_url=parts.query.removeprefix("endpoint_url="))
    listed = s3.list_objects_v2(Bucket=parts.netloc, Prefix="files/").get("Contents", [])
    return sorted(o["Key"].removeprefix("files/") for o in listed)


@pytest.fixture
def open_store(open_db, blobs_url):
    """Opens the store as one more worker would: its own database connection and storage client."""

    def opening(**limits) -> AttachmentStore:
        return AttachmentStore(open_db(), open_blobs(blobs_url), Settings(**limits))

    return opening


def test_a_file_kept_by_one_worker_is_found_and_read_by_another(open_store, blobs_url):
    session, other = str(uuid.uuid4()), str(uuid.uuid4())
    first = open_store().save(session, "C:\\fotos\\escape.png", png(1))
    second = open_store().save(session, "ficha.png", png(2))
    store = open_store()
    assert store.of_session(session) == [first, second] and store.count(session) == 2 and store.count(session, "pdf") == 0
    assert store.get(session, [second.id, "../../x", first.id, "0" * 32]) == [second, first]
    assert store.get(other, [first.id]) == [] and store.of_session(other) == []
    assert first.name == "escape.png" and Image.open(io.BytesIO(store.read(first))).size == (16, 16)
    assert kept_keys(blobs_url) == sorted(f"{session}/{a.id}.png" for a in (first, second))


def test_only_a_canonical_session_id_names_files(open_store, blobs_url):
    store = open_store()
    for session in ("../etc", str(uuid.uuid4()).upper(), "x"):
        with pytest.raises(Refused) as refused:
            store.save(session, "p.png", png())
        assert refused.value.code == "invalid_session_id"
        with pytest.raises(Refused):
            store.of_session(session)
    assert kept_keys(blobs_url) == []


def test_quotas_hold_across_workers_and_a_refused_file_leaves_nothing(open_store, blobs_url):
    limits = {"attachments_per_session": 2, "attachments_total_files": 3}
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    for _ in range(2):
        open_store(**limits).save(first, "p.png", png())
    with pytest.raises(Refused) as full:
        open_store(**limits).save(first, "p.png", png())
    assert full.value.status == 413 and full.value.code == "conversation_files_full"
    open_store(**limits).save(second, "p.png", png())
    with pytest.raises(Refused) as everything:
        open_store(**limits).save(second, "p.png", png())
    assert everything.value.status == 503 and everything.value.code == "files_full"
    assert len(kept_keys(blobs_url)) == 3


def test_a_discarded_file_goes_from_the_database_and_the_storage(open_store, blobs_url):
    session = str(uuid.uuid4())
    store = open_store()
    kept, dropped = store.save(session, "a.png", png(1)), store.save(session, "b.png", png(2))
    store.discard(dropped)
    assert open_store().of_session(session) == [kept] and kept_keys(blobs_url) == [f"{session}/{kept.id}.png"]


def test_a_sweep_removes_the_files_of_conversations_left_without_a_case(open_store, open_db, blobs_url):
    left, handed, recent = (str(uuid.uuid4()) for _ in range(3))
    store = open_store(attachments_unused_s=3600)
    kept = {session: store.save(session, "p.png", png()) for session in (left, handed, recent)}
    open_db().write("UPDATE attachments SET created_at = ? WHERE session_id IN (?, ?)", (time.time() - 7200, left, handed))
    assert store.sweep(lambda session: session == handed) == 1
    assert store.of_session(left) == [] and store.of_session(handed) == [kept[handed]]
    assert kept_keys(blobs_url) == sorted(f"{s}/{kept[s].id}.png" for s in (handed, recent))
    assert store.sweep(lambda session: session == handed) == 0


def test_the_storage_is_named_by_one_url():
    with pytest.raises(ValueError, match="endpoint_url alone"):
        open_blobs("s3://bucket/files?endpoint=http://127.0.0.1:9")
    with pytest.raises(ValueError, match="file:///path or s3://"):
        open_blobs("s3:///files")
    with pytest.raises(ValidationError, match="not both"):
        Settings(attachments_dir="/tmp/files", attachments_url="s3://bucket")
    with pytest.raises(ValidationError):
        Settings(attachments_url="ftp://host/files")


def test_an_upload_is_kept_in_s3_and_the_office_downloads_it(tmp_path, s3_url):
    from extensions.homologation.case_store import CASES

    app = app_for(tmp_path, "homologation", attachments_url=s3_url)
    client = app.test_client()
    session = asking(client)
    sent = png(7)
    uploaded = upload(client, session, sent, "escape.png")
    assert uploaded.status_code == 201, uploaded.get_json()
    file_id = uploaded.get_json()["id"]
    assert kept_keys(s3_url) == [f"{session}/{file_id}.png"] and not (tmp_path / "attachments").exists()
    case_id = CASES.get(app).submit({"session_id": session, "title": "a case", "documents": {"ficha": [file_id]}})
    office = client.get(f"/cases/{case_id}/attachments/{file_id}", headers={"X-API-Key": OPERATOR_KEY})
    assert office.status_code == 200 and office.mimetype == "image/png"
    assert Image.open(io.BytesIO(office.data)).getpixel((0, 0)) == (7, 80, 160)
    assert office.data == ATTACHMENTS.get(app).read(ATTACHMENTS.get(app).get(session, [file_id])[0])


def test_an_s3_out_of_reach_is_a_503_to_try_again(tmp_path, s3_url, monkeypatch):
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")  # boto3's own retries would only make the test slow
    unreachable = s3_url.split("?")[0] + f"?endpoint_url=http://127.0.0.1:{free_port()}"
    client = app_for(tmp_path, "homologation", attachments_url=unreachable).test_client()
    refused = upload(client, asking(client), png(), "p.png")
    assert refused.status_code == 503 and refused.get_json()["error"] == "store_unavailable"


def test_files_kept_before_the_database_described_them_are_adopted(open_db, tmp_path):
    """A folder as the store left it before: <session>/<id>.<ext> with <id>.json beside it."""
    folder, session = tmp_path / "files", str(uuid.uuid4())
    db = open_db()
    kept = AttachmentStore(db, open_blobs(folder.as_uri()), Settings()).save(session, "old.png", png())
    (folder / session / f"{kept.id}.json").write_text(kept.model_dump_json())
    db.write("DELETE FROM attachments")
    again = AttachmentStore(open_db(), open_blobs(folder.as_uri()), Settings())
    assert again.of_session(session) == [] and again.adopt(folder) == 1
    assert again.of_session(session) == [kept] and again.read(kept) == png()
    assert not list(folder.glob("*/*.json")) and again.adopt(folder) == 0
