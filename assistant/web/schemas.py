"""What only HTTP adds to the chat contract: the console's operator messages, and the query an
upload-only message carries. The chat turn itself is assistant/dialogue/turns.py."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictStr

ATTACHMENTS_ONLY = "\N{PAPERCLIP}"  # the query of a message that is files and no words
MAX_OPERATOR_CHARS = 2000  # an operator's reply, or the note they hand a conversation back with
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # all but tab and line breaks


def _printable(value: str) -> str:
    """No control characters (NUL, escape, ...): a person's words hold none, and shown they garble
    or hide text. A lone surrogate never gets here: StrictStr refuses it, as in a chat message."""
    if _CONTROL.search(value):
        raise ValueError("must not contain control characters")
    return value


Said = Annotated[StrictStr, AfterValidator(_printable)]  # words a person wrote, for other people to read


class OperatorReply(BaseModel):
    """What an operator says in a conversation they took over (the console)."""

    model_config = ConfigDict(str_strip_whitespace=True)

    text: Said = Field(min_length=1, max_length=MAX_OPERATOR_CHARS, json_schema_extra={"pattern": r"\S"})


class ReleaseNote(BaseModel):
    """What an operator did, noted as they hand a conversation back."""

    model_config = ConfigDict(str_strip_whitespace=True)

    note: Said | None = Field(default=None, max_length=MAX_OPERATOR_CHARS)
