"""One chat turn's request and response: what the pipeline takes and answers with, and so what
/chat accepts and returns (clients and tests depend on their fields and JSON). They live here,
below the pipeline and web, because the pipeline and the layers under it build them; web only
carries them over HTTP."""

from __future__ import annotations

import re
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationInfo, field_validator, model_validator

from assistant.attachments.store import ATTACHMENT_ID
from assistant.pack.model import CustomerFact, FactValue

MAX_QUERY_CHARS = 1000
CUSTOMER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_ATTACHMENTS = 10  # ids one message may reference; ATTACHMENTS_PER_MESSAGE may allow fewer


FACT_WORD = r"^[a-z_]{1,40}$"  # a fact's name, or a category's value
FactName = Annotated[StrictStr, Field(pattern=FACT_WORD)]
FactGiven = Annotated[StrictStr, Field(pattern=FACT_WORD)] | Annotated[StrictInt, Field(ge=0)]
MAX_FACTS = 20  # facts one message may tell; a pack declares a handful


RANDOM_UUID = 4  # the UUID version made of random bits: the only kind a session id may be
SESSION_ID_PATTERN = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-4[0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}$"


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    # The schema states what the validators enforce, so /openapi.json tells clients the truth.
    query: StrictStr = Field(min_length=1, max_length=MAX_QUERY_CHARS, json_schema_extra={"pattern": r"\S"})
    session_id: StrictStr | None = Field(default=None, json_schema_extra={"pattern": SESSION_ID_PATTERN})
    # What the customer tells of themselves, by the names of the pack's profile facts (pack.yaml):
    # a category's value ("employment": "salaried"), or an amount or number as a whole number.
    facts: dict[FactName, FactGiven] = Field(default_factory=dict, max_length=MAX_FACTS)
    # The page fact's value under the bank's old name: read as facts[<the page fact>] for a release.
    user_employment: StrictStr | None = Field(
        default=None,
        pattern=FACT_WORD,
        deprecated="send facts: {<the page fact>: value} (GET /about names it, profile_fact)",
    )
    mode: Literal["offline", "crew"] | None = None
    customer_id: StrictStr | None = Field(default=None, pattern=rf"^{CUSTOMER_ID.pattern}$")
    # Files uploaded to this session (POST /attachments) that the message brings.
    attachments: list[Annotated[StrictStr, Field(pattern=rf"^{ATTACHMENT_ID.pattern}$")]] | None = Field(
        default=None, max_length=MAX_ATTACHMENTS
    )

    @field_validator("facts")
    @classmethod
    def _declared_facts(cls, facts: dict[str, FactValue], info: ValidationInfo) -> dict[str, FactValue]:
        """Facts the pack declares, each with a value it takes (the API passes the pack's profile as context)."""
        profile: dict[str, CustomerFact] | None = (info.context or {}).get("profile")
        if profile is None:
            return facts
        for name, value in facts.items():
            if name not in profile:
                raise ValueError(f"{name} is not a fact this business asks; it asks: {', '.join(profile) or 'none'}")
            fact = profile[name]
            if not fact.accepts(value):
                takes = f"one of: {', '.join(sorted(fact.values))}" if fact.kind == "category" else "a whole number in range"
                raise ValueError(f"{name} must be {takes}")
        return facts

    @field_validator("user_employment")
    @classmethod
    def _known_page_value(cls, value: str | None, info: ValidationInfo) -> str | None:
        """One of the values of the pack's page fact (the API passes the pack's profile as context)."""
        context = info.context or {}
        if value is None or "profile" not in context:
            return value
        page = context.get("page_fact")
        allowed = context["profile"][page].values if page else {}
        if value not in allowed:
            raise ValueError(f"must be one of: {', '.join(sorted(allowed)) or 'nothing here'}")
        return value

    @model_validator(mode="after")
    def _old_field_is_the_page_fact(self, info: ValidationInfo) -> ChatRequest:
        """user_employment, when the pack is known, becomes the page fact in facts (facts, the newer, wins)."""
        legacy, page = self.__dict__["user_employment"], (info.context or {}).get("page_fact")
        if legacy is not None and page is not None:
            self.facts = {page: legacy, **self.facts}
        return self

    @field_validator("session_id")
    @classmethod
    def _canonical_uuid(cls, value: str | None) -> str | None:
        return None if value is None else session_id(value)


def session_id(value: str) -> str:
    """Any spelling of a random (version 4) UUID, in its canonical lowercase form. A session id is
    a bearer secret: the nil UUID, or one made up by hand or from a clock, would let clients
    share, or guess, each other's conversations."""
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        raise ValueError("must be a UUID such as 123e4567-e89b-42d3-a456-426614174000") from None
    if parsed.version != RANDOM_UUID:
        raise ValueError("must be a random (version 4) UUID, such as crypto.randomUUID() makes")
    return str(parsed)


Handler = Literal["assistant", "human"]  # who answers the conversation now


class HelpResult(BaseModel):
    """What the help centre did with the message, so a client can tell an answer from a hand-over."""

    article: str | None = None  # the help article that answered
    suggested: list[str] = []  # articles offered as quick replies instead
    handover: bool = False  # the reply sends the customer to people (hotline, e-mail, branch)


PACK_FILES = "/pack-files"  # where web serves a pack's example drawings (assistant/web/pack_files.py)


def example_url(example: str) -> str:
    """Where the page fetches a pack's example ("images/escape.svg"): an ImageLink's url."""
    return f"{PACK_FILES}/{example}"


class ImageLink(BaseModel):
    """An example image the reply sends (a drawing of a document the office needs)."""

    url: str
    label: str


class ChatResponse(BaseModel):
    session_id: str
    reply: str
    intent: dict[str, Any]
    agents: list[str]
    products: list[dict[str, Any]]
    comparison: dict[str, Any] | None
    eligibility: list[dict[str, Any]] | None
    ask_user: str | None
    choices: list[str]
    mode: Literal["offline", "crew", "offline-fallback"]
    grounding: Literal["passed", "regenerated", "fallback"] | None = None
    llm_calls: int = 0
    booking: dict[str, Any] | None = None
    images: list[ImageLink] = []
    help: HelpResult = HelpResult()
    handled_by: Handler = "assistant"  # "human": people have the conversation (assistant/handover)
    language: str = "en"  # the language the reply is in (a code of the pack's languages)
    state: dict[str, Any]
