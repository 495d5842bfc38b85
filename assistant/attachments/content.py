"""What an uploaded file really is, read from its first bytes and never from its name, and its
bytes made safe to keep. An image is decoded and encoded again: that drops its metadata (the
EXIF a phone writes into every photo, with the place it was taken) and anything hidden after
the picture, and a file that only claims to be an image fails to decode."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageOps

Kind = Literal["image", "pdf"]
MAX_PIXELS = 50_000_000  # beyond a phone camera's: a small file that decodes huge is refused, not decoded
JPEG_QUALITY = 90
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


def cleaned(data: bytes) -> Cleaned:
    """The bytes to keep, or `Refused` saying why the file is not kept."""
    found = sniff(data)
    if found is None:
        raise Refused(415, "unsupported_file", f"That file is not {ACCEPTED}: its content was checked, not its name.")
    if found == "pdf":
        if b"%%EOF" not in data[-PDF_TAIL:]:
            raise Refused(400, "damaged_file", "That PDF is incomplete or damaged: send it again.")
        return Cleaned("pdf", "application/pdf", "pdf", data)
    return _image(data, found)


def _image(data: bytes, found: str) -> Cleaned:
    too_large = Refused(413, "image_too_large", f"That image has more than {MAX_PIXELS // 1_000_000} million pixels.")
    try:
        with Image.open(io.BytesIO(data)) as opened:
            if opened.width * opened.height > MAX_PIXELS:
                raise too_large
            opened.load()
            upright = ImageOps.exif_transpose(opened)  # turned as it was taken, before the orientation tag goes with the rest
    except Refused:
        raise
    except Image.DecompressionBombError:  # Pillow's own cap, far beyond ours, met before ours is checked
        raise too_large from None
    except (OSError, SyntaxError, ValueError):
        if found == "heic":  # Pillow reads HEIC only with a plugin
            raise Refused(415, "unsupported_file", HEIC_ADVICE) from None
        raise Refused(400, "damaged_file", "That image could not be read: it is damaged or incomplete.") from None
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
