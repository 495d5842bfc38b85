"""Files sent with chat messages: checked by their content, kept without their metadata, under
their own size cap, usable only in the conversation they were sent to, by upload or with the message."""

from __future__ import annotations

import io
import struct
import uuid
import zlib
from dataclasses import replace

import pytest
from conftest import app_for, durable, signed_in
from fpdf import FPDF
from PIL import Image, ImageFile

from agents import registry
from assistant.attachments import content
from assistant.attachments.content import sniff
from assistant.attachments.store import ATTACHMENTS
from assistant.web.edge import body_limit

DOMAIN = "homologation"  # its cases ask for photos and documents
GPS = 0x8825
MAKER = 0x010F


def asking(client, **headers) -> str:
    """A conversation whose case asks for the exhaust's photos now: the only kind that takes files."""
    conversation = str(uuid.uuid4())
    for query in ("quiero homologar el escape de mi moto", "dale, adelante"):
        response = client.post("/chat", json={"query": query, "session_id": conversation}, headers=headers)
        assert response.status_code == 200, response.get_json()
    assert "fotos" in response.get_json()["reply"]
    return conversation


@pytest.fixture
def session(client) -> str:
    return asking(client)


def jpeg_with_gps() -> bytes:
    """A phone's photo: where it was taken, in its EXIF."""
    exif = Image.Exif()
    exif[MAKER] = "PhoneMaker"
    exif[GPS] = {1: "N", 2: (40.0, 25.0, 1.5), 3: "W", 4: (3.0, 42.0, 2.0)}
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 30)).save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def png(size: tuple[int, int] = (32, 32)) -> bytes:
    out = io.BytesIO()
    Image.effect_noise(size, 80).convert("RGB").save(out, "PNG")
    return out.getvalue()


def pdf() -> bytes:
    document = FPDF()
    document.add_page()
    document.set_font("Helvetica", size=12)
    document.cell(0, 10, "Registration certificate")
    return bytes(document.output())


def upload(client, session: str, data: bytes, name: str = "photo.jpg", **headers):
    form = {"session_id": session, "file": (io.BytesIO(data), name)}
    return client.post("/attachments", data=form, content_type="multipart/form-data", headers=headers)


def kept_files(tmp_path, session: str) -> list:
    """The session's files in the default directory (their descriptions are the database's)."""
    folder = tmp_path / "attachments" / session
    return sorted(folder.iterdir()) if folder.exists() else []


def test_a_photo_is_kept_without_its_location(client, tmp_path, session):
    photo = jpeg_with_gps()
    assert b"PhoneMaker" in photo and Image.open(io.BytesIO(photo)).getexif().get_ifd(GPS)
    response = upload(client, session, photo)
    assert response.status_code == 201
    body = response.get_json()
    assert body["kind"] == "image" and body["mime"] == "image/jpeg" and set(body) == {"id", "kind", "mime", "size"}
    [kept] = kept_files(tmp_path, session)
    stored = kept.read_bytes()
    assert len(stored) == body["size"] and b"PhoneMaker" not in stored and b"Exif" not in stored
    with Image.open(kept) as image:
        assert image.format == "JPEG" and image.size == (64, 48) and not image.getexif()


def test_a_png_and_a_pdf_are_kept(client, tmp_path, session):
    assert upload(client, session, png(), "screen.png").get_json()["mime"] == "image/png"
    kept = upload(client, session, pdf(), "ficha.pdf").get_json()
    assert kept["kind"] == "pdf" and kept["mime"] == "application/pdf"
    assert sorted(p.suffix for p in kept_files(tmp_path, session)) == [".pdf", ".png"]


def test_text_named_like_a_photo_is_refused_and_not_kept(client, tmp_path, session):
    response = upload(client, session, b"just some text, not a picture\n" * 5, "photo.jpg")
    assert response.status_code == 415
    assert response.get_json()["error"] == "unsupported_file" and "content" in response.get_json()["message"]
    assert kept_files(tmp_path, session) == []


def test_a_broken_image_and_a_cut_pdf_are_refused(client, tmp_path, session):
    assert upload(client, session, jpeg_with_gps()[:200]).status_code == 400
    assert upload(client, session, pdf()[:-300], "cut.pdf").status_code == 400
    assert kept_files(tmp_path, session) == []


def test_heic_is_known_by_its_box_and_refused_with_advice_where_pillow_cannot_read_it(client, tmp_path, session):
    heic = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64)
    assert sniff(heic) == "heic" and sniff(b"GIF89a") is None
    response = upload(client, session, heic, "IMG_0001.HEIC")
    assert response.status_code == 415 and "JPEG" in response.get_json()["message"]
    assert kept_files(tmp_path, session) == []


def test_over_the_size_limit_is_413(tmp_path):
    client = app_for(tmp_path, DOMAIN, attachment_max_bytes=4096).test_client()
    session = asking(client)
    big = png((200, 200))
    assert len(big) > 4096
    response = upload(client, session, big, "big.png")
    assert response.status_code == 413
    assert kept_files(tmp_path, session) == []
    assert upload(client, session, jpeg_with_gps()).status_code == 201  # under it


def test_uploads_have_their_own_cap_and_everything_else_keeps_16_kib():
    from assistant.infra.config import Settings

    settings = Settings()
    multipart = {"CONTENT_TYPE": "multipart/form-data; boundary=x"}
    assert body_limit({"PATH_INFO": "/attachments", **multipart}, settings) == 16 * 1024 + 8 * 1024 * 1024
    assert body_limit({"PATH_INFO": "/chat", **multipart}, settings) == 16 * 1024 + 10 * 8 * 1024 * 1024
    assert body_limit({"PATH_INFO": "/chat", "CONTENT_TYPE": "application/json"}, settings) == 16 * 1024
    assert body_limit({"PATH_INFO": "/customers/x/preferences", **multipart}, settings) == 16 * 1024


def test_a_large_photo_passes_the_request_cap_and_json_does_not(client, session):
    photo = png((400, 400))
    assert len(photo) > 16 * 1024
    assert upload(client, session, photo, "big.png").status_code == 201
    assert client.post("/chat", json={"query": "x" * 20_000}).status_code == 413


def test_upload_needs_a_session_and_one_file(client, session):
    assert client.post("/attachments", data={"session_id": session}, content_type="multipart/form-data").status_code == 400
    assert upload(client, "not-a-uuid", png()).status_code == 400
    assert client.post("/attachments", json={"session_id": session}).status_code == 415


def test_a_page_of_another_site_cannot_upload(client, session):
    response = upload(client, session, png(), "x.png", Origin="https://evil.example")
    assert response.status_code == 403
    assert upload(client, session, png(), "x.png", Origin="http://localhost").status_code == 201  # the test client's host


@pytest.fixture
def seen(monkeypatch):
    """The attachments each turn's agents saw."""
    turns: list[list] = []
    formatter = registry.BY_NAME["formatter"]

    def spy(work):
        turns.append(list(work.request.attachments))
        return formatter.run(work)

    monkeypatch.setitem(registry.BY_NAME, "formatter", replace(formatter, run=spy))
    return turns


def test_the_next_message_brings_uploaded_ids_to_the_turn(client, session, seen):
    file_id = upload(client, session, jpeg_with_gps()).get_json()["id"]
    response = client.post("/chat", json={"query": "here is the photo", "session_id": session, "attachments": [file_id]})
    assert response.status_code == 200
    [attachment] = seen[-1]
    assert attachment.id == file_id and attachment.kind == "image" and attachment.session_id == session


def test_an_id_from_another_conversation_is_not_usable(client, session, seen):
    file_id = upload(client, session, png()).get_json()["id"]
    other = asking(client)
    seen.clear()
    response = client.post("/chat", json={"query": "hello", "session_id": other, "attachments": [file_id]})
    assert response.status_code == 404 and response.get_json()["error"] == "unknown_attachment"
    assert seen == []
    assert client.post("/chat", json={"query": "hello", "attachments": [file_id]}).status_code == 404  # no session at all
    assert client.post("/chat", json={"query": "hello", "session_id": session, "attachments": ["../../x"]}).status_code == 400


def test_multipart_chat_uploads_and_answers_at_once(client, tmp_path, session, seen):
    form = {
        "query": "mis fotos",
        "session_id": session,
        "file": [(io.BytesIO(jpeg_with_gps()), "a.jpg"), (io.BytesIO(pdf()), "b.pdf")],
    }
    response = client.post("/chat", data=form, content_type="multipart/form-data")
    assert response.status_code == 200 and response.get_json()["session_id"] == session
    assert [a.kind for a in seen[-1]] == ["image", "pdf"]
    assert len(kept_files(tmp_path, session)) == 2


def test_files_go_only_to_a_conversation_that_asks_for_them_now(client, tmp_path, seen):
    made_up, chatting = str(uuid.uuid4()), str(uuid.uuid4())
    assert client.post("/chat", json={"query": "hola", "session_id": chatting}).status_code == 200
    turns = len(seen)
    for conversation in (made_up, chatting):  # no conversation at all; one that asks for no file
        response = upload(client, conversation, png(), "p.png")
        assert response.status_code == 409 and response.get_json()["error"] == "files_not_asked"
        form = {"query": "mira", "session_id": conversation, "file": (io.BytesIO(png()), "p.png")}
        assert client.post("/chat", data=form, content_type="multipart/form-data").status_code == 409
        assert kept_files(tmp_path, conversation) == []
    only_files = client.post("/chat", data={"file": (io.BytesIO(png()), "p.png")}, content_type="multipart/form-data")
    assert only_files.status_code == 409 and len(seen) == turns and not (tmp_path / "attachments").exists()


def test_a_bad_file_in_a_multipart_message_keeps_none_and_answers_nothing(client, tmp_path, session, seen):
    form = {"query": "hi", "session_id": session, "file": [(io.BytesIO(png()), "ok.png"), (io.BytesIO(b"MZ\x90\x00"), "x.jpg")]}
    response = client.post("/chat", data=form, content_type="multipart/form-data")
    assert response.status_code == 415 and seen == [] and kept_files(tmp_path, session) == []


def test_other_bodies_are_still_415(client):
    assert client.post("/chat", data="query=hi", content_type="text/plain").status_code == 415
    assert client.post("/chat", data={"query": "hi"}, content_type="application/x-www-form-urlencoded").status_code == 415


def test_a_signed_in_customers_conversation_takes_files_from_them_alone(client):
    session = asking(client, **signed_in("ana"))
    assert upload(client, session, png()).status_code == 401
    assert upload(client, session, png(), **signed_in("bob")).status_code == 403
    assert upload(client, session, png(), **signed_in("ana")).status_code == 201


def test_a_chunked_upload_is_read_up_to_the_uploads_cap(tmp_path):
    """A chunked body has no Content-Length: edge.SizedBody reads it to the cap of its kind of request."""
    from werkzeug.datastructures import FileStorage
    from werkzeug.test import encode_multipart

    client = app_for(tmp_path, DOMAIN, attachment_max_bytes=64 * 1024).test_client()
    session = asking(client)

    def chunked_upload(data: bytes):
        boundary, body = encode_multipart({"session_id": session, "file": FileStorage(io.BytesIO(data), "p.png")})
        headers = {"Transfer-Encoding": "chunked", "Content-Type": f"multipart/form-data; boundary={boundary}"}
        return client.post("/attachments", input_stream=io.BytesIO(body), headers=headers)

    photo = png((120, 120))
    assert 16 * 1024 < len(photo) < 64 * 1024
    assert chunked_upload(photo).status_code == 201  # past MAX_REQUEST_BYTES, within ATTACHMENT_MAX_BYTES
    assert chunked_upload(png((300, 300))).status_code == 413


def test_a_small_file_that_decodes_huge_is_refused_undecoded(client, tmp_path, session):
    out = io.BytesIO()
    Image.new("1", (8000, 8000)).save(out, "PNG")  # 64 million pixels in 10 KB
    response = upload(client, session, out.getvalue(), "bomb.png")
    assert response.status_code == 413 and response.get_json()["error"] == "image_too_large"
    assert kept_files(tmp_path, session) == []


def grey16_png(width: int, height: int) -> bytes:
    """A PNG of 16-bit grey zeros, written row by row: a few hundred kB that decode to width*height*2 bytes."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    packer, row = zlib.compressobj(9), bytes(1 + 2 * width)  # each row: its filter byte, then its samples
    pixels = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 16, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def test_a_16_bit_image_under_the_pixel_cap_that_decodes_huge_is_refused_undecoded(client, tmp_path, session, monkeypatch):
    bomb = grey16_png(7000, 7000)  # 49 million pixels, under the cap; 98 MB of samples
    assert len(bomb) < 1024 * 1024 and Image.open(io.BytesIO(bomb)).size == (7000, 7000)
    decoded: list[object] = []
    load = ImageFile.ImageFile.load
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda image: decoded.append(image) or load(image))
    response = upload(client, session, bomb, "bomb.png")
    assert response.status_code == 413 and response.get_json()["error"] == "image_too_compressed"
    assert decoded == [] and kept_files(tmp_path, session) == []


def test_decoded_bytes_count_16_bit_samples_twice(tmp_path):
    client = app_for(tmp_path, DOMAIN, image_max_decoded_bytes=1024 * 1024).test_client()
    session = asking(client)
    noise = bytes(range(256)) * (800 * 800 * 2 // 256)  # incompressible enough: no ratio to blame
    eight = Image.frombytes("L", (800, 800), noise[: 800 * 800])  # 640 kB of pixels
    sixteen = Image.frombytes("I;16", (800, 800), noise)  # the same pixels at 16 bits: 1.28 MB
    for image, status in ((eight, 201), (sixteen, 413)):
        out = io.BytesIO()
        image.save(out, "PNG")
        response = upload(client, session, out.getvalue(), "scan.png")
        assert response.status_code == status, response.get_json()
    assert response.get_json()["error"] == "image_too_large" and len(kept_files(tmp_path, session)) == 1


def test_images_decode_under_the_processs_semaphore(tmp_path, monkeypatch):
    app = app_for(tmp_path, DOMAIN, image_decodes_at_once=1)
    session = asking(app.test_client())
    decoding = ATTACHMENTS.get(app).limits.decoding
    free_while_decoding: list[bool] = []
    transpose = content.ImageOps.exif_transpose

    def spy(image):
        free_while_decoding.append(decoding.acquire(blocking=False))
        return transpose(image)

    monkeypatch.setattr(content.ImageOps, "exif_transpose", spy)
    assert upload(app.test_client(), session, png(), "p.png").status_code == 201
    assert free_while_decoding == [False]  # the one turn was taken by this decode
    assert decoding.acquire(blocking=False)  # and given back


def pdf_acting(body: bytes) -> bytes:
    """A small PDF whose catalog or objects are `body`, ending as a complete PDF does."""
    return b"%PDF-1.7\n" + body + b"\ntrailer <</Root 1 0 R>>\n%%EOF\n"


def object_stream(objects: bytes) -> bytes:
    packed = zlib.compress(objects)
    head = b"4 0 obj <</Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d>>\nstream\n" % len(packed)
    return head + packed + b"\nendstream\nendobj"


@pytest.mark.parametrize(
    "body",
    [
        b"1 0 obj <</Type /Catalog /OpenAction 2 0 R>> endobj 2 0 obj <</S /JavaScript /JS (app.alert(1))>> endobj",
        b"1 0 obj <</Type /Catalog /Open#41ction <</S /J#61vaScript /J#53 (app.alert(1))>> >> endobj",  # #xx escapes
        b"1 0 obj <</Type /Catalog /Names <</EmbeddedFiles 3 0 R>> >> endobj",
        b"1 0 obj <</Type /Catalog /AcroForm <</XFA 5 0 R>> >> endobj",
        object_stream(b"2 0 <</S /Launch /F (cmd.exe)>>"),  # compressed where a byte search does not look
    ],
)
def test_a_pdf_that_can_act_when_opened_is_refused_and_not_kept(client, tmp_path, session, body):
    response = upload(client, session, pdf_acting(body), "ficha.pdf")
    assert response.status_code == 415 and response.get_json()["error"] == "active_pdf", response.get_json()
    assert kept_files(tmp_path, session) == []


def test_a_pdf_whose_object_streams_cannot_be_read_is_refused(client, tmp_path, session):
    unreadable = object_stream(b"x").replace(zlib.compress(b"x"), b"\x00garbage!")
    response = upload(client, session, pdf_acting(unreadable), "ficha.pdf")
    assert response.status_code == 415 and response.get_json()["error"] == "unchecked_pdf"
    assert upload(client, session, pdf(), "plain.pdf").status_code == 201  # an ordinary PDF still is


def test_invisible_characters_leave_a_files_name(client, session, app):
    kept = upload(client, session, png(), "invoice\u202egnp\u200b\x00.png").get_json()
    [attachment] = ATTACHMENTS.get(app).get(session, [kept["id"]])
    assert attachment.name == "invoicegnp.png"


class Endless(io.RawIOBase):
    """A client that sends a chunked body forever; it counts what was read of it."""

    def __init__(self) -> None:
        self.read_bytes, self.largest = 0, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = 1 << 30 if size is None or size < 0 else size
        self.read_bytes, self.largest = self.read_bytes + size, max(self.largest, size)
        return b"x" * size


def test_a_chunked_body_is_streamed_to_disk_and_refused_once_past_the_cap(tmp_path):
    import tracemalloc

    from werkzeug.test import EnvironBuilder, run_wsgi_app

    app = app_for(tmp_path, DOMAIN, attachment_max_bytes=32 * 1024 * 1024)
    client = Endless()
    headers = {"Transfer-Encoding": "chunked", "Content-Type": "multipart/form-data; boundary=x"}
    environ = EnvironBuilder(path="/attachments", method="POST", headers=headers).get_environ()
    environ["wsgi.input"] = client
    tracemalloc.start()
    try:
        body, status, _ = run_wsgi_app(app.wsgi_app, environ, buffered=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status.startswith("413") and b"request_entity_too_large" in b"".join(body)
    assert client.read_bytes == body_limit(environ, ATTACHMENTS.get(app).settings) + 1  # not a byte more
    assert client.largest <= 64 * 1024 and peak < 8 * 1024 * 1024  # 32 MB read, never held


def test_a_conversation_and_the_store_keep_their_quota(tmp_path):
    app = app_for(tmp_path, DOMAIN, attachments_per_session=2, attachments_total_files=3)
    client = app.test_client()
    first, second = asking(client), asking(client)
    assert [upload(client, first, png(), "p.png").status_code for _ in range(3)] == [201, 201, 413]
    assert upload(client, first, png(), "p.png").get_json()["error"] == "conversation_files_full"
    assert upload(client, second, png(), "p.png").status_code == 201
    full = upload(client, second, png(), "p.png")
    assert full.status_code == 503 and full.get_json()["error"] == "files_full"
    assert len(kept_files(tmp_path, first)) == 2 and len(kept_files(tmp_path, second)) == 1


def test_files_no_case_took_are_swept_once_left(tmp_path):
    import time

    from extensions.homologation.case_store import CASES

    app = app_for(tmp_path, DOMAIN, attachments_unused_s=3600)
    client = app.test_client()
    left, handed, recent = asking(client), asking(client), asking(client)
    for conversation in (left, handed, recent):
        assert upload(client, conversation, png(), "p.png").status_code == 201
    CASES.get(app).submit({"session_id": handed, "title": "a case"})
    durable(tmp_path).write("UPDATE attachments SET created_at = ? WHERE session_id IN (?, ?)", (time.time() - 7200, left, handed))
    store = ATTACHMENTS.get(app)
    assert store.sweep(CASES.get(app).handed_in) == 1
    assert kept_files(tmp_path, left) == [] and kept_files(tmp_path, handed) and kept_files(tmp_path, recent)
    assert store.of_session(left) == [] and len(store.of_session(handed)) == 1  # the descriptions went with the files
