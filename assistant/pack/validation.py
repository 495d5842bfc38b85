"""Checks across a pack's files, which no one file's schema can make: the catalog's items
against the attributes pack.yaml declares, the vocabulary and the help articles against its
filters (an extension checks its own data against the pack as it loads it)."""

from __future__ import annotations

from collections.abc import Mapping

from assistant.pack.model import COMMON_PLACEHOLDERS, CUES, FaqEntry, Pack, Product, Vocabulary, placeholders


def check_item(item: Product, pack: Pack) -> None:
    """An item's attributes must be declared, of their type, and from their enum's values."""
    for name, value in (item.model_extra or {}).items():
        attribute = pack.attributes.get(name)
        if attribute is None:
            raise ValueError(f"item '{item.id}': attribute '{name}' is not declared in pack.yaml")
        if value is None:
            continue
        kinds = {"number": (int, float), "boolean": (bool,), "text": (str,), "enum": (str,), "list": (list,)}
        if not isinstance(value, kinds[attribute.type]) or (attribute.type == "number" and isinstance(value, bool)):
            raise ValueError(f"item '{item.id}': '{name}' should be {attribute.type}, got {value!r}")
        allowed = attribute.values
        said = value if isinstance(value, list) else [value] if attribute.type == "enum" else []
        wrong = [v for v in said if allowed and v not in allowed]
        if wrong:
            raise ValueError(f"item '{item.id}': '{name}' has {wrong}, not among {sorted(allowed)}")
    for name, attribute in pack.attributes.items():
        if attribute.required and item.value(name) is None:
            raise ValueError(f"item '{item.id}': '{name}' is required")


def check_vocabulary(vocabulary: Vocabulary, pack: Pack) -> None:
    """Every section names the filters, values, topics, ranks and facts pack.yaml declares, and cues the engine reads."""
    filters = pack.filter_attributes()
    for name, section in vocabulary.filters.items():
        if name not in filters:
            raise ValueError(f"filters.{name} is not a filter in pack.yaml")
        _, attribute = filters[name]
        for value in section:
            if attribute.values:
                ok = value in attribute.values
            elif attribute.type == "boolean":
                ok = value in ("true", "false")
            else:  # a number's amount ("0": "no annual fee"), or any value the items' text may mention
                ok = attribute.as_filter.match == "mentions" or _is_number(value)
            if not ok:
                raise ValueError(f"filters.{name}: '{value}' is not a value of '{name}'")
    unsaid = [n for n, (_, a) in filters.items() if a.as_filter.match == "mentions" and not vocabulary.filters.get(n)]
    if unsaid:
        raise ValueError(f"filters {unsaid} match what the items mention, and the vocabulary gives them no values")
    unknown_cues = [cue for cue in vocabulary.intents if cue not in CUES]
    if unknown_cues:
        raise ValueError(f"intents has {unknown_cues}; the engine reads {list(CUES)}")
    for topic in vocabulary.features:
        if topic not in pack.display.topics:
            raise ValueError(f"features.{topic} has no display.topics.{topic} in pack.yaml")
    for name in vocabulary.ranks:
        ranked = pack.attributes.get(name)
        if ranked is None or ranked.type != "number":
            raise ValueError(f"ranks.{name} is not a number attribute in pack.yaml")
    for name, section in vocabulary.facts.items():
        fact = pack.profile.get(name)
        if fact is None or fact.kind != "category":
            raise ValueError(f"facts.{name} is not a category fact in pack.yaml's profile")
        unknown = sorted(set(section) - set(fact.values))
        if unknown:
            raise ValueError(f"facts.{name}: {unknown} are not values of '{name}'")


def devices_named(entries: list[FaqEntry], pack: Pack) -> list[FaqEntry]:
    """Articles name the devices they fix as the device filter's values ("Gaming Mouse" -> gaming_mouse)."""
    device = pack.device_filter
    if device is None:
        return entries
    values = pack.filter_attributes()[device][1].values
    named = []
    for entry in entries:
        applies_to = [v.lower().replace(" ", "_") for v in entry.applies_to]
        unknown = [v for v in applies_to if v not in values]
        if unknown:
            raise ValueError(f"article '{entry.id}': applies_to {unknown} are not values of '{device}'")
        named.append(entry.model_copy(update={"applies_to": applies_to}))
    return named


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_texts(pack: Pack, said: Mapping[str, str]) -> None:
    """Every text is one the engine or one of the pack's extensions says (`said`: their defaults),
    using only the placeholders filled for it: the common four and those its default uses; and
    every constraint's template is one of them."""
    for key, text in pack.texts.items():
        if key not in said:
            raise ValueError(f"texts.{key} is not a text the engine says (assistant/pack/texts.yaml lists them)")
        allowed = {*COMMON_PLACEHOLDERS, *placeholders(said[key])}
        unknown = placeholders(text) - allowed
        if unknown:
            raise ValueError(f"texts.{key} uses {{{sorted(unknown)[0]}}}; it may use {sorted(allowed)}")
    for rule in pack.constraints:
        if rule.template not in said:
            raise ValueError(f"constraints.{rule.name}: template '{rule.template}' is not a text the engine says")
