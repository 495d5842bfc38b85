"""The texts every layer words its replies with: a text by its key, and how days, filters,
facts and lists of words read.

Every sentence comes from the texts (the pack's own words over the engine's defaults in
texts.yaml, one key per sentence); how each agent's results are shown is beside the agent
(agents/*.py, asked by the Formatter).
"""

from __future__ import annotations

import datetime as dt

from assistant.language.lexicon import WEEKDAYS
from assistant.pack.display import money, price
from assistant.pack.model import Catalog, FactValue, FilterValue
from assistant.pack.translations import speaking


def say(catalog: Catalog, key: str, **values: object) -> str:
    """The text `key` with the business, support contact and item words filled in, and `values`
    (which may name a particular item as `item`)."""
    text = catalog.text
    common = {"business": catalog.name, "support": catalog.business.support_contact, "item": text["item"], "items": text["items"]}
    return text[key].format(**{**common, **values})


def every_way(catalog: Catalog, key: str) -> list[str]:
    """Text `key` as each language the pack replies in says it: the words a customer may answer
    a question with, whichever language they answer in ("sí", "yes")."""
    said = []
    for code in (None, *catalog.versions):
        with speaking(code):
            said.append(say(catalog, key))
    return list(dict.fromkeys(said))


def weekday_words(day: dt.date, catalog: Catalog) -> str:
    """A day's name in the reply's language ("Monday", "সোমবার")."""
    return say(catalog, f"weekday_{WEEKDAYS[day.weekday()]}")


def day_words(day: dt.date, catalog: Catalog, year: bool = True) -> str:
    """A day as replies name it, in the reply's language: "Monday 23 November 2026"."""
    parts = {"weekday": weekday_words(day, catalog), "day": day.day, "month": say(catalog, f"month_{day.month}"), "year": day.year}
    return say(catalog, "day_words" if year else "day_words_short", **parts)


def filter_words(catalog: Catalog, name: str, value: FilterValue, many: bool = True) -> str:
    """How a filter's value reads: "Gold", "credit cards", "SUVs", a budget in the pack's currency."""
    attribute = catalog.pack.filters[name].of
    values = value if isinstance(value, list) else [value]
    either = f" {say(catalog, 'or')} "
    if attribute.type == "number":
        return either.join(price(float(v), attribute, catalog) if attribute.unit == "currency" else f"{float(v):g}" for v in values)
    return either.join(attribute.words(str(v), many) for v in values)


def in_sentence(label: str) -> str:
    """A label inside a sentence: "Annual fee" is "annual fee", "RAM" and "(NCAP)" stay as they are."""
    return " ".join(word if sum(c.isupper() for c in word) > 1 else word.lower() for word in label.split())


def one_of(words: list[str], catalog: Catalog, joiner: str = "or") -> str:
    """ "A, B or C": the candidates a question asks the customer to choose among (or, with
    "and", the items that share a place)."""
    return f"{', '.join(words[:-1])} {say(catalog, joiner)} {words[-1]}" if len(words) > 1 else "".join(words)


def fact_words(catalog: Catalog, name: str, value: FactValue) -> str:
    """How a customer fact's value reads: a category's words ("salaried employees"), an amount of money, a number."""
    fact = catalog.pack.profile[name]
    if fact.kind == "category":
        return fact.values.get(str(value), str(value).replace("_", " "))
    return money(int(value), catalog.business) if fact.kind == "amount" else str(value)
