"""What an uploaded file really is, read from its first bytes and never from its name, and its
bytes made safe to keep. An image is decoded and encoded again: that drops its metadata (the
EXIF a phone writes into every photo, with the place it was taken) and anything hidden after
the picture, and a file that only claims to be an image fails to decode.

What decoding costs is known from the header before it starts: an image whose pixels would take
more memory than `Limits.max_decoded_bytes` (16-bit samples count twice), or far more than its
file's size (a few hundred kB of zeros that decode to a hundred MB), is refused undecoded; the
rest decode a few at a time per process (`Limits.decoding`), so concurrent uploads cannot
multiply the memory one costs."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageFile, ImageMode, ImageOps

from assistant.attachments.pdf import Unchecked, active_content

Kind = Literal["image", "pdf"]
MAX_PIXELS = 50_000_000  # beyond a phone camera's: a small file that decodes huge is refused, not decoded
JPEG_QUALITY = 90
RATIO_FLOOR = 16 * 1024 * 1024  # below this an image decodes cheaply however well it compressed
DECODE_WAIT_S = 10  # how long an upload waits for a turn to decode before it is told to try again
PDF_TAIL = 2048  # a complete PDF ends with %%EOF, perhaps followed by a few bytes of padding
_SIGNATURES = ((b"\xff\xd8\xff", "jpeg"), (b"\x89PNG\r\n\x1a\n", "png"), (b"%PDF-", "pdf"))
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}  # an ISO box "ftyp" names one
_PNG_MODES = {"1", "L", "LA", "I", "I;16", "P", "RGB", "RGBA"}
_JPEG_MODES = {"L", "RGB", "CMYK"}
ACCEPTED = "a photo (JPEG, PNG or HEIC) or a PDF"
HEIC_ADVICE = "HEIC photos cannot be read here: send it as JPEG (on an iPhone: Settings > Camera > Formats > Most Compatible)."


class Refused(Exception):
    """A file that is not kept, with the HTTP status, code and message its sender gets."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True)
class Limits:
    """What decoding an image may cost (IMAGE_MAX_DECODED_BYTES, IMAGE_MAX_RATIO), and the
    process's turns to decode (IMAGE_DECODES_AT_ONCE)."""

    max_decoded_bytes: int
    max_ratio: int
    decoding: threading.BoundedSemaphore


@dataclass(frozen=True)
class Cleaned:
    kind: Kind
    mime: str
    extension: str
    data: bytes


def sniff(data: bytes) -> str | None:
    """The format the content is in (jpeg, png, pdf, heic), whatever the file is called; None for any other."""
    for magic, name in _SIGNATURES:
        if data.startswith(magic):
            return name
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "heic"
    return None


def cleaned(data: bytes, limits: Limits) -> Cleaned:
    """The bytes to keep, or `Refused` saying why the file is not kept."""
    found = sniff(data)
    if found is None:
        raise Refused(415, "unsupported_file", f"That file is not {ACCEPTED}: its content was checked, not its name.")
    if found == "pdf":
        if b"%%EOF" not in data[-PDF_TAIL:]:
            raise Refused(400, "damaged_file", "That PDF is incomplete or damaged: send it again.")
        _inert(data)
        return Cleaned("pdf", "application/pdf", "pdf", data)
    return _image(data, found, limits)


def _inert(pdf: bytes) -> None:
    """A PDF that could act when the office opens it is not kept (attachments.pdf)."""
    again = "print it to a new PDF, or send a photo of it"
    try:
        active = active_content(pdf)
    except Unchecked as exc:
        raise Refused(415, "unchecked_pdf", f"That PDF could not be checked ({exc}): {again}.") from None
    if active:
        raise Refused(415, "active_pdf", f"That PDF holds scripts or actions (/{active}), which are not accepted: {again}.")


def decoded_bytes(image: ImageFile.ImageFile) -> int:
    """The memory its pixels take once decoded, read from its header: every band at the file's
    bits per sample (a 16-bit PNG's samples take two bytes each while decoding)."""
    mode = ImageMode.getmode(image.mode)
    sixteen = any("16" in str(tile.args) for tile in image.tile)
    return image.width * image.height * len(mode.bands) * max(int(mode.typestr[-1]), 2 if sixteen else 1)


def _image(data: bytes, found: str, limits: Limits) -> Cleaned:
    too_large = Refused(413, "image_too_large", f"That image has more than {MAX_PIXELS // 1_000_000} million pixels.")
    try:
        with Image.open(io.BytesIO(data)) as opened:  # the header only: nothing is decoded yet
            if opened.width * opened.height > MAX_PIXELS:
                raise too_large
            _affordable(decoded_bytes(opened), len(data), limits)
            with _turn(limits.decoding):
                opened.load()
                upright = ImageOps.exif_transpose(opened)  # turned as it was taken, before the orientation tag goes with the rest
                return _encoded(upright, found)
    except Refused:
        raise
    except Image.DecompressionBombError:  # Pillow's own cap, far beyond ours, met before ours is checked
        raise too_large from None
    except (OSError, SyntaxError, ValueError):
        if found == "heic":  # Pillow reads HEIC only with a plugin
            raise Refused(415, "unsupported_file", HEIC_ADVICE) from None
        raise Refused(400, "damaged_file", "That image could not be read: it is damaged or incomplete.") from None


def _affordable(decoded: int, size: int, limits: Limits) -> None:
    if decoded > limits.max_decoded_bytes:
        raise Refused(413, "image_too_large", f"That image is too large to read: {decoded // 1024**2} MB of pixels.")
    if decoded > RATIO_FLOOR and decoded > size * limits.max_ratio:
        raise Refused(413, "image_too_compressed", "That image decodes to far more than its file holds: send an ordinary photo.")


@contextmanager
def _turn(decoding: threading.BoundedSemaphore) -> Iterator[None]:
    if not decoding.acquire(timeout=DECODE_WAIT_S):
        raise Refused(503, "busy", "Many photos are being read right now: send it again in a moment.")
    try:
        yield
    finally:
        decoding.release()


def _encoded(upright: Image.Image, found: str) -> Cleaned:
    transparency = upright.info.get("transparency")
    upright.info = {}  # metadata an encoder would copy: comments, XMP, EXIF, ICC profile
    out = io.BytesIO()
    if found == "png":
        image = upright if upright.mode in _PNG_MODES else upright.convert("RGBA")
        image.save(out, "PNG", **({"transparency": transparency} if transparency is not None else {}))
        return Cleaned("image", "image/png", "png", out.getvalue())
    image = upright if upright.mode in _JPEG_MODES else upright.convert("RGB")
    image.save(out, "JPEG", quality=JPEG_QUALITY)
    return Cleaned("image", "image/jpeg", "jpg", out.getvalue())
