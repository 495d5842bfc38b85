"""The restaurant concierge's data: pack.yaml's `extensions: restaurants:` settings (its calendar,
members, service schema, channels and the flow an instruction must complete), checked against
the pack: its restaurants carry what the concierge reads of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from assistant.pack.flows import Flow
from assistant.pack.ingest import validated
from assistant.pack.loading import said_back
from assistant.pack.model import Catalog, DataError, Pack, Product

NAME = "restaurants"
ATTRIBUTES = ("city", "locality", "address", "cuisines", "rating", "opens", "closes", "tables")  # what it reads of a restaurant


class ConciergeSetup(BaseModel):
    """The restaurant concierge (POST /assistant): its calendar, its members, its default channel,
    and the Schema-Guided Dialogue schema its instructions are read by (assistant.understanding.nlu)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    calendar: str  # restaurant id -> weekday -> fully booked "HH:MM" slots (the simulated availability)
    members: str  # registered users: user_id, name, phone
    service_schema: str  # SGD schema: the slots (city, locality, cuisine, restaurant_name, date, time, party_size)
    default_channel: Literal["sms", "whatsapp"] = "sms"
    channels: dict[Literal["sms", "whatsapp"], list[str]] = {}  # what customers call each: "text message", "wa"
    flow: Flow  # what an instruction must say, asked for in this order (the flow engine's questions)


class Data:
    folder = Path(__file__).parent
    stages: tuple[str, ...] = ()
    tools: dict[str, tuple[str, ...]] = {}

    def load(self, folder: Path, settings: dict[str, Any], pack: Pack, products: list[Product]) -> ConciergeSetup:
        setup = validated(folder / "pack.yaml", ConciergeSetup.model_validate, settings)
        lacking = [a for a in ATTRIBUTES if a not in pack.attributes]
        if lacking:
            raise DataError(f"{folder / 'pack.yaml'}: the concierge needs the attributes {lacking}")
        return setup

    def said_back(self, data: BaseModel, translations: list[BaseModel]) -> BaseModel:
        assert isinstance(data, ConciergeSetup), "the concierge's own data"
        flows = [t.flow for t in translations if isinstance(t, ConciergeSetup)]
        return data.model_copy(update={"flow": said_back(data.flow, flows)})


DATA = Data()


def setup_of(catalog: Catalog) -> ConciergeSetup:
    """The concierge's settings, in the reply's language (its flow's questions)."""
    setup = catalog.extra(NAME)
    assert isinstance(setup, ConciergeSetup), "the restaurants extension loaded its data"
    return setup
