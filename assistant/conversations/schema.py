"""The file format of a conversation test: what the customer says, turn by turn, and what each
reply must show (docs/conversation-tests.md).

Extra keys are refused everywhere, so a misspelt expectation ("reply_contain") is an error when
the file loads instead of a check that silently never runs; a turn must check something.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    ValidationError,
    model_validator,
)

CODE = "<code>"  # in a message: the one-time code last sent to the customer's phone

Scalar = StrictStr | StrictBool | StrictInt | StrictFloat
# One text or a list of them. Tagged, so a mistake is reported once, against the form written.
Texts = Annotated[
    Annotated[StrictStr, Tag("text")] | Annotated[list[StrictStr], Tag("list")],
    Discriminator(lambda v: "list" if isinstance(v, list) else "text"),
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Bound(Strict):
    """A number attribute's range, for `products_all` ("every card's annual fee at most 500")."""

    at_least: StrictInt | StrictFloat | None = None
    at_most: StrictInt | StrictFloat | None = None

    @model_validator(mode="after")
    def _bounded(self) -> Bound:
        if self.at_least is None and self.at_most is None:
            raise ValueError("give at_least, at_most or both")
        return self


# An attribute's wanted value: a bound when written as a mapping, any of several as a list, else the value itself.
Wanted = Annotated[
    Annotated[Bound, Tag("bound")] | Annotated[list[Scalar], Tag("any")] | Annotated[Scalar, Tag("value")],
    Discriminator(lambda v: "bound" if isinstance(v, dict | Bound) else "any" if isinstance(v, list) else "value"),
]


class Person(Strict):
    """What a person of the business does in the conversation, through the console's API: takes
    it over, says something under their name, and hands it back to the assistant with a note."""

    says: StrictStr | None = Field(default=None, min_length=1)
    hands_back: StrictStr | None = Field(default=None, min_length=1)  # the note; the assistant answers again


class Turn(Strict):
    """One customer message and what the reply to it must show, every expectation optional; or
    what a person of the business does (`person`)."""

    user: StrictStr | None = Field(
        default=None, min_length=1, description=f"the message; {CODE} in it types the one-time code last sent"
    )
    person: Person | None = None
    attach: list[Literal["image", "pdf"]] | None = None  # files sent with it: a small picture or PDF each
    intent: StrictStr | None = None
    agents: list[StrictStr] | None = Field(default=None, min_length=1)
    agents_include: list[StrictStr] | None = Field(default=None, min_length=1)
    products: list[StrictStr] | None = None  # the ids shown, in order ([] for none)
    products_include: list[StrictStr] | None = Field(default=None, min_length=1)
    products_all: dict[str, Wanted] | None = Field(default=None, min_length=1)
    products_count: StrictInt | None = Field(default=None, ge=0)
    reply_contains: Texts | None = None
    reply_not_contains: Texts | None = None
    ask_user: StrictBool | StrictStr | None = None  # asks something back, or asks something containing this
    booking: StrictStr | None = None  # `confirmed`, a waiting goal's status (`blocked`), or `none`
    handled_by: Literal["assistant", "human"] | None = None  # who answers the conversation after this message
    choices_include: list[StrictStr] | None = Field(default=None, min_length=1)
    language: StrictStr | None = None  # the reply's language (its `language`, and its letters' script)

    @model_validator(mode="after")
    def _checks_something(self) -> Turn:
        if (self.user is None) == (self.person is None):
            raise ValueError("a turn is what the customer says (user) or what a person of the business does (person)")
        if self.person is not None:
            if self.expectations() or self.attach:
                raise ValueError("a person's turn sends nothing to check: check the customer's next message")
            return self
        if not self.expectations():
            raise ValueError("a turn must check something: add intent, agents, products, reply_contains, ...")
        for name in ("reply_contains", "reply_not_contains", "ask_user"):
            value = getattr(self, name)
            if value == "" or value == [] or (isinstance(value, list) and "" in value):
                raise ValueError(f"{name}: an empty text matches every reply")
        return self

    def expectations(self) -> dict[str, Any]:
        """The expectations this turn sets, by key (in the order the format lists them)."""
        return {name: value for name, value in self if name not in ("user", "person", "attach") and value is not None}


class Conversation(Strict):
    """One conversation with the assistant, from a fresh session, as one test."""

    name: StrictStr | None = None  # default: the file's name
    description: StrictStr | None = None
    now: dt.datetime | None = None  # the booking desk's clock; without a zone, the pack's time zone
    user_employment: StrictStr | None = None  # the page fact every message carries (the chat request's field)
    language: StrictStr | None = None  # every reply's language, unless a turn says another
    turns: list[Turn] = Field(min_length=1)


def load(path: Path) -> Conversation:
    """A conversation file, checked; ValueError names the file and what is wrong in it."""
    try:
        return Conversation.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except ValidationError as error:  # one line per mistake, where it is: "turn 4, reply_contains: ..."
        mistakes = [f"  {_where(e['loc'])}: {e['msg'].removeprefix('Value error, ')}" for e in error.errors()]
        raise ValueError("\n".join([f"{path} is not a valid conversation:", *mistakes])) from error
    except yaml.YAMLError as error:
        raise ValueError(f"{path} is not valid YAML: {error}") from error


def _where(loc: tuple[int | str, ...]) -> str:
    """A mistake's place as the runner counts turns: ("turns", 3, "intent") is "turn 4, intent"."""
    if len(loc) >= 2 and loc[0] == "turns" and isinstance(loc[1], int):
        return ", ".join([f"turn {loc[1] + 1}", *map(str, loc[2:3])]) + "".join(f".{part}" for part in loc[3:])
    return ".".join(map(str, loc)) or "the file"
