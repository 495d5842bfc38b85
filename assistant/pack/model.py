"""A domain pack's schema: one business's data as pydantic models, each file and field checked.

A pack is a folder under data/ (chosen with DOMAIN=<name>): `pack.yaml` declares the
business, the attribute schema (which attributes are filters, their types and how they are
shown), the facts customers tell and the eligibility rules that read them, booking, goals,
and the texts it words its own way (assistant/pack/texts.yaml has every other); the catalog
(JSON, or a shop's CSV export with a column mapping), the knowledge base and the vocabulary
sit beside it. The engine reads only this. Every file and field is checked at start-up, so a
broken pack fails loudly with the file and field named, never mid-conversation: the loader
(assistant/pack/loading.py) reads the files (ingest.py) and checks them against each other
(validation.py). See docs/domain-packs.md.
"""

from __future__ import annotations

import re
import string
import unicodedata
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from assistant.language import DateOrder, Languages, load_languages
from assistant.pack.constraints import Constraint
from assistant.pack.flows import Flow
from assistant.pack.handover import HandoverRules
from assistant.pack.translations import REPLY_LANGUAGE

FilterValue = str | int | float | list[str]  # one value, an amount, or any of several values
FactValue = str | int  # what the customer told of a fact: a category's value, an amount or a number
ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{1,63}$"
NAME_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
BOUNDS: tuple[Literal["min", "max"], ...] = ("min", "max")  # the directions a number filter bounds its attribute in
MIN_EXAMPLES = 10  # per intent: fewer cannot teach the router a way of asking
Template = str | list[str]  # a list's pieces are joined; a piece naming a missing value is left out
# An agent of the registry's or of an extension's, and a tool of the gateway's or of an extension's:
# names the app checks at start-up against what it loaded (agents/registry.py, extensions/base.py).
AgentName = Annotated[str, Field(pattern=NAME_PATTERN)]
ToolName = Annotated[str, Field(pattern=NAME_PATTERN)]
# What a message can ask for; a pack's nlu.yml gives examples of the ones its business serves.
IntentName = Literal[
    "product_info", "comparison", "eligibility_check", "feature_query", "faq", "support", "calculate", "greeting",
    "thanks", "booking", "cancel", "out_of_scope",
]  # fmt: skip


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ValueWords(Strict):
    """How one enum value is said: "credit card" / "credit cards"."""

    shown: ClassVar[tuple[str, ...]] = ("one", "many")

    one: str
    many: str | None = None
    includes: list[str] = []  # narrower values a customer asking for this one also means: an SUV may be a compact SUV


class Filter(Strict):
    """How customers narrow the catalog by an attribute."""

    shown: ClassVar[tuple[str, ...]] = ("says", "says_zero", "question", "choices")

    name: str = Field(pattern=NAME_PATTERN)  # the filter's name in vocabulary, state and API
    # any: one of the values; max: at most; min: at least; mentions: the item's text says one of the
    # values in the vocabulary's words for it (a free-text list of features, an area's name)
    match: Literal["any", "max", "min", "mentions"] = "any"
    place: Literal["before", "noun", "after"] = "before"  # where it goes in "gold credit cards for travel"
    says: str | None = None  # an "after" filter: "for {value}", "up to {value}"
    says_zero: str | None = None  # a max of 0: "with no annual fee"
    cues: list[str] = []  # number filters: words that make an amount in the message this filter
    units: list[str] = []  # number filters: words right after the number ("7 seater")
    needs_bound: bool = False  # number filters: only with "under", "below", "up to"...
    question: str | None = None  # the clarifying question when this filter is missing
    choices: list[str] = []


class Attribute(Strict):
    """One attribute of the catalog's items: its type, label, values and display."""

    shown: ClassVar[tuple[str, ...]] = ("label", "values", "zero", "unit")

    type: Literal["enum", "list", "number", "boolean", "text"]
    label: str
    values: dict[str, str | ValueWords] = {}  # enum (and a list of them): the allowed values, as said
    unit: str | None = None  # number: "currency", "percent", or a word shown after it ("km/l")
    style: Literal["plain", "scaled"] = "plain"  # currency: "scaled" reads in the business's money_scales
    zero: str | None = None  # number: what 0 reads as ("none")
    required: bool = False
    filter: Filter | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Attribute:
        if self.type == "enum" and not self.values:
            raise ValueError("an enum attribute needs its values")
        match = self.filter.match if self.filter else None
        if match == "any" and self.type in ("list", "text") and not self.values:
            raise ValueError(f"a {self.type} attribute filtered on needs its values, or match: mentions")
        if match in ("max", "min") and self.type != "number":
            raise ValueError(f"a '{match}' filter needs a number attribute")
        if match == "mentions" and self.type not in ("list", "text"):
            raise ValueError("a 'mentions' filter needs a list or text attribute")
        if match == "any" and self.type == "boolean" and set(self.values) - {"true", "false"}:
            raise ValueError("a boolean attribute's values are 'true' and 'false'")
        if self.style == "scaled" and self.unit != "currency":
            raise ValueError("style: scaled is for currency amounts")
        return self

    @property
    def as_filter(self) -> Filter:
        """The filter of an attribute from Pack.filter_attributes, which holds only filtered ones."""
        assert self.filter is not None, f"the attribute '{self.label}' is not a filter"
        return self.filter

    def meant(self, value: str) -> list[str]:
        """The value and every narrower value it includes, however deep."""
        said = self.values.get(value)
        narrower = said.includes if isinstance(said, ValueWords) else []
        return [value, *(v for inner in narrower for v in self.meant(inner) if v != value)]

    @model_validator(mode="after")
    def _includes_known(self) -> Attribute:
        for value, said in self.values.items():
            unknown = [v for v in (said.includes if isinstance(said, ValueWords) else []) if v not in self.values]
            if unknown:
                raise ValueError(f"value '{value}' includes {unknown}, which are not values of '{self.label}'")
        return self

    def words(self, value: str, many: bool = False) -> str:
        said = self.values.get(value)
        if said is None:
            return str(value)
        if isinstance(said, str):
            return said
        return (said.many or said.one + "s") if many else said.one


class Filtering(Strict):
    """A filter as the engine applies it: the attribute it narrows, and how (Pack.filters)."""

    attribute: str
    of: Attribute
    filter: Filter


class Row(Strict):
    """One row of the comparison table."""

    shown: ClassVar[tuple[str, ...]] = ("label", "show")

    attribute: str
    label: str | None = None
    better: Literal["low", "high"] | None = None
    show: Template | None = None


class TopicLine(Strict):
    shown: ClassVar[tuple[str, ...]] = ("label", "show")

    label: str
    show: Template


class Display(Strict):
    """How an item reads in a list, on a card and in a comparison."""

    shown: ClassVar[tuple[str, ...]] = ("head", "facts", "tail")

    head: Template  # "**{name}** ({banking_type}, {network} {tier})"
    facts: list[Template]  # "annual fee {annual_fee}", ...
    tail: Template | None = None
    badge: str | None = None  # the attribute shown as the card's badge
    meta: list[str] = []  # attributes shown under the name
    headline: TopicLine | None = None  # the one figure on the card
    highlights: str | None = None  # a list attribute shown as bullets
    compare: list[Row] = Field(min_length=1)
    topics: dict[str, list[TopicLine]] = {}  # what "fees?" or "stock?" shows, per feature topic

    def lines_named(self, words: set[str]) -> dict[str, list[str]]:
        """Per topic, the labels of the lines a message names by a word only that line's label has
        in its topic: "late" picks "Late payment fee" out of the fees; "fee" alone picks none."""
        named: dict[str, list[str]] = {}
        for topic, labels in self._own_words.items():
            for label, own in labels.items():
                if own & words:
                    named.setdefault(topic, []).append(label)
        return named

    @cached_property
    def _own_words(self) -> dict[str, dict[str, set[str]]]:
        """Per topic, each line's label and the words of it no other label of the topic has:
        worked out once, as every chat turn asks."""
        own: dict[str, dict[str, set[str]]] = {}
        for topic, lines in self.topics.items():
            labels = {line.label: set(line.label.lower().split()) for line in lines}
            own[topic] = {
                label: words - set().union(*(ws for other, ws in labels.items() if other != label))
                for label, words in labels.items()
            }
        return own


class CustomerFact(Strict):
    """Something the customer tells about themselves that eligibility rules read: a category
    ("salaried"), an amount of money (a monthly income) or a number (an age)."""

    shown: ClassVar[tuple[str, ...]] = ("label", "question", "choices", "values")

    kind: Literal["category", "amount", "number"]
    label: str | None = None  # how sentences name it ("monthly income"); default: its name with spaces
    question: str | None = None  # asked when a verdict waits on it; a fact without one is never waited for
    choices: list[str] = []  # quick replies with the question: a category's, one per value in order
    values: dict[str, str] = {}  # category: each value and how it is said ("salaried employees")
    cues: list[str] = []  # amount: words that make an amount this fact ("salary"); number: words right before it ("aged")
    units: list[str] = []  # number: words right after it ("years")
    range: tuple[int, int] | None = None  # number: the values it can take (an age of 16 to 100)
    bands: list[int] = []  # amount: the ranges remembered instead of the figure (ascending)
    on_page: bool = False  # category: the chat page offers its choices (sent in the request's facts)

    @model_validator(mode="after")
    def _consistent(self) -> CustomerFact:
        if self.kind == "category" and (not self.values or len(self.choices) != len(self.values)):
            raise ValueError("a category fact needs its values, and one choice per value in the same order")
        if self.kind != "category" and (self.values or self.on_page):
            raise ValueError(f"values and on_page are for category facts, not {self.kind}")
        if self.kind == "number" and not (self.cues or self.units):
            raise ValueError("a number fact needs cues or units to be read by")
        if self.bands != sorted(set(self.bands)):
            raise ValueError("bands must ascend")
        return self

    def accepts(self, value: object) -> bool:
        """Whether a told value is one of this fact's: a known category, or a whole number in range."""
        if self.kind == "category":
            return value in self.values
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        low, high = self.range or (value, value)
        return low <= value <= high


class Rule(Strict):
    """An eligibility rule: a customer fact against an item's attributes; an item without them is not checked."""

    fact: str
    in_: str | None = Field(default=None, alias="in")  # a list attribute of the category values accepted
    at_least: str | None = None  # a number attribute: the least the fact may be
    between: tuple[str, str] | None = None  # two number attributes: the least and the most

    @model_validator(mode="after")
    def _one_test(self) -> Rule:
        if sum(test is not None for test in (self.in_, self.at_least, self.between)) != 1:
            raise ValueError(f"the rule on '{self.fact}' needs exactly one of in, at_least, between")
        return self

    @property
    def test(self) -> Literal["in", "at_least", "between"]:
        return "in" if self.in_ else "at_least" if self.at_least else "between"

    @property
    def attributes(self) -> list[str]:
        return [self.in_] if self.in_ else [self.at_least] if self.at_least else list(self.between or ())


class GoalKind(Strict):
    shown: ClassVar[tuple[str, ...]] = ("resumed",)

    priority: int = 2  # higher interrupts lower
    intents: list[str] = Field(min_length=1)
    stays_open: bool = False  # a sale is not over when one answer is given
    resumed: str  # "Back to your appointment:"


class Search(Strict):
    shown: ClassVar[tuple[str, ...]] = ("cheapest",)

    rank_by: str  # the number attribute behind "cheapest" and unranked lists
    cheapest: str  # "lowest annual fee first"
    max_results: int = Field(default=5, ge=1, le=10)
    always: dict[str, FilterValue] = {}  # filters every search applies ("in stock")
    require: list[str] = []  # filters asked for before any search (a budget)
    clarify: list[str] = []  # filters asked about, in order, when a search is too broad
    carry: list[str] = []  # filters a returning customer's new session starts from
    topic: list[str] = []  # filters whose new value starts a new topic, dropping what was said before ("a mouse" after laptops)


# What the engine understands: the intents a message is read as (a goal can group them), and
# the cue sections of vocabulary.intents.
IntentType = Literal[
    "product_info", "comparison", "eligibility_check", "feature_query", "faq", "support", "calculate", "greeting",
    "booking", "cancel", "out_of_scope", "unknown", "extension",
]  # fmt: skip
INTENTS: tuple[str, ...] = get_args(IntentType)
# Groups of those intents, for the layers above (the one place intents are named):
NEEDS_PRODUCTS: tuple[IntentType, ...] = ("product_info", "comparison", "eligibility_check", "feature_query")  # about items
HELP_INTENTS: tuple[IntentType, ...] = ("faq", "out_of_scope", "unknown")  # answered by the help centre or handed to people
CUES = ("greeting", "thanks", "comparison", "eligibility", "want", "cheapest", "booking", "cancel", "faq", "support", "calculate")
TEMPLATE_FILTERS = ("raw", "first", "lower", "title", "semicolons")
# Every text the engine says, with its default words and placeholders: a pack's texts override them.
DEFAULT_TEXTS: dict[str, str] = yaml.safe_load((Path(__file__).parent / "texts.yaml").read_text(encoding="utf-8"))
COMMON_PLACEHOLDERS = ("business", "support", "item", "items")  # filled in every text


def placeholders(text: str) -> set[str]:
    """The names a text fills in ("{what}" in "I couldn't find any {what}")."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


_CURRENCY_SIGNS = "".join(ch for ch in map(chr, range(0x10000)) if unicodedata.category(ch) == "Sc")  # $, €, ...


class Business(Strict):
    """The business and its country's conventions (its locale); a new pack's defaults assume none."""

    shown: ClassVar[tuple[str, ...]] = ("support_contact",)

    name: str = Field(min_length=1)
    currency_symbol: str
    currency_after: bool = False  # "390 €", as Spain writes it, rather than "৳390"
    currency_words: list[str] = []  # what customers type for the currency besides its sign ("usd", "dollars")
    money_scales: dict[str, Annotated[int, Field(gt=1)]] = {}  # what `style: scaled` amounts read in: {million: 1000000}
    date_order: DateOrder = "day_first"  # 3/4 is 3 April (month_first: March 4); 2026-04-03 reads either way
    timezone: str
    support_contact: str
    country_code: str = Field(pattern=r"^\+[1-9]\d{0,2}$")
    national_number_digits: int = Field(ge=4, le=13)

    @model_validator(mode="after")
    def _known_timezone(self) -> Business:
        try:
            ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"timezone '{self.timezone}' is not an IANA time zone (Area/City)") from None
        return self

    @property
    def currency_mark(self) -> str:
        """A regex of the currency as written, in any case: its sign or words ("usd."), or any currency sign."""
        words = sorted(self.currency_words, key=len, reverse=True)
        marks = [
            f"[{re.escape(_CURRENCY_SIGNS)}]",
            re.escape(self.currency_symbol),
            *(rf"(?<![^\W\d_]){re.escape(word)}(?![^\W\d_])\.?" for word in words),
        ]
        return f"(?i:{'|'.join(marks)})"


class Source(Strict):
    """Where the catalog comes from: a JSON list, or a CSV export with a column mapping."""

    file: str
    columns: dict[str, str] = {}  # CSV header -> attribute ("Price (THB)" -> price)
    list_separator: str = ";"


class Labels(Strict):
    """The chat page's own words (static/index.html, static/app.js): its buttons, messages and the
    labels screen readers say. English unless the pack words them; a `{name}` is filled by the page."""

    shown: ClassVar[tuple[str, ...]] = (
        "new_conversation",
        "send",
        "message",
        "conversation",
        "attach",
        "remove_file",
        "files_for_next",
        "profile",
        "profile_unset",
        "suggested_replies",
        "agents",
        "comparison",
        "best",
        "eligible",
        "not_eligible",
        "need_more_info",
        "booking_confirmed",
        "booking_in_progress",
        "call_back",
        "how",
        "day",
        "time",
        "name",
        "phone",
        "confirm",
        "code_placeholder",
        "one_time_code",
        "error",
        "unknown_error",
        "unreachable",
        "server_error",
        "cut_off",
        "too_long",
        "operator_label",
        "sent",
    )

    new_conversation: str = "New conversation"
    send: str = "Send"
    message: str = "Your message"  # the message box's label (screen readers)
    conversation: str = "Conversation"  # the log's label (screen readers)
    attach: str = "Attach a photo or PDF"
    remove_file: str = "Remove {name}"
    files_for_next: str = "Files for your next message"
    profile: str = "I am a…"  # the page fact's list (profile facts' on_page)
    profile_unset: str = "not set"
    suggested_replies: str = "Suggested replies"
    agents: str = "Agents that answered"  # the hint on the quiet agent trace under each reply
    comparison: str = "Product comparison"
    best: str = "Best"
    eligible: str = "Eligible"
    not_eligible: str = "Not eligible"
    need_more_info: str = "Need more info"
    booking_confirmed: str = "{subject} confirmed · {id}"
    booking_in_progress: str = "{subject} in progress"
    call_back: str = "Call-back to {phone}"
    how: str = "How"
    day: str = "Day"
    time: str = "Time"
    name: str = "Name"
    phone: str = "Phone"
    confirm: str = "Confirm"
    code_placeholder: str = "6-digit code"
    one_time_code: str = "One-time code"
    error: str = "Sorry, something went wrong: {message}"
    unknown_error: str = "unknown error"
    unreachable: str = "could not reach the server. Please try again."
    server_error: str = "the server returned an error ({status})."
    cut_off: str = "the answer was cut off. Please try again."
    too_long: str = "Your message is too long (max {max} characters)."
    operator_label: str = "{name} (staff)"  # above what a person of the business writes
    sent: str = "Sent"  # under a message a person will answer

    @model_validator(mode="after")
    def _placeholders(self) -> Labels:
        """Each label names only what the page fills in for it."""
        for key, text in self.model_dump().items():
            unknown = placeholders(text) - placeholders(type(self).model_fields[key].default)
            if unknown:
                raise ValueError(f"page.labels.{key} names {sorted(unknown)}, which the page does not fill")
        return self


class Page(Strict):
    """The chat page's words for this business."""

    shown: ClassVar[tuple[str, ...]] = ("title", "placeholder", "welcome", "examples")

    title: str
    placeholder: str
    welcome: str
    examples: list[str] = Field(default=[], max_length=4)
    lang: str = Field(default="en", pattern=r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")  # BCP-47: <html lang>, dates
    labels: Labels = Labels()


class Phase(Strict):
    """One phase of the conversation in LLM mode (its own prompt module)."""

    prompt: str | None = None  # the phase's prompt module: a text file of the pack ("prompts/personal.md")


class Prompting(Strict):
    """pack.yaml `prompting:` what LLM mode says per phase: only the current phase's prompt
    module, after the core prompt. No phase offers tools: in LLM mode every tool has run before
    the model is asked (agents/crew.py)."""

    phases: dict[str, Phase] = Field(min_length=1)  # by stage: a flow step's `stage`, or one the engine builds


class Pack(Strict):
    """pack.yaml: everything about a business except the catalog, knowledge and vocabulary."""

    shown: ClassVar[tuple[str, ...]] = ("texts",)

    business: Business
    page: Page
    catalog: Source
    knowledge: str = "faq.json"
    # The help centre's belief in an article from which it answers: the same belief means less
    # among many articles than among few, so a pack with real customers' questions tunes its own
    # (bench/intent_eval.py); 0.55 keeps a small help centre from answering what it should hand over.
    answers_from: float = Field(default=0.55, gt=0, lt=1)
    languages: list[str] = Field(default=["en"], min_length=1)  # codes of assistant/language/data/<code>.yml
    romanised_reply: str = "en"  # the reply to Banglish or Hinglish (a native language typed in Latin letters)
    names: list[str] = []  # attributes whose values also name an item ("Thar" for the Thar LX)
    short_names: bool = False  # an item's name cut short still names it ("Lenovo Legion" for the Legion 5 15ARP8)
    name_pattern: str | None = None  # what a product name looks like in a reply, to catch invented ones
    attributes: dict[str, Attribute]
    display: Display
    search: Search
    profile: dict[Annotated[str, Field(pattern=NAME_PATTERN)], CustomerFact] = {}  # what customers tell, in asking order
    eligibility: list[Rule] = []
    flows: dict[str, Flow] = {}  # what goals collect step by step (assistant/pack/flows.py)
    # the extensions it loads (extensions/<name>/), each with its settings (assistant/pack/extension.py)
    extensions: dict[Annotated[str, Field(pattern=NAME_PATTERN)], dict[str, Any]] = {}
    goals: dict[str, GoalKind] = {}
    tools: dict[
        AgentName, list[ToolName]
    ]  # which tools each agent may call (loading fills in the agents' own where it is left out)
    texts: dict[str, str] = {}  # the pack's own words; the engine's defaults say the rest (Catalog.text)
    constraints: list[Constraint] = []  # rules on every reply (assistant/pack/constraints.py)
    prompting: Prompting | None = None  # LLM mode's prompt module per phase; None: one prompt
    handover: HandoverRules = HandoverRules()  # when people take a conversation over (assistant/pack/handover.py)

    @model_validator(mode="after")
    def _references(self) -> Pack:
        """Every attribute, filter and text the pack names exists."""
        attributes, filters = self.attributes, self.filter_attributes()
        named = [("names", n) for n in self.names] + [("search.rank_by", self.search.rank_by)]
        named += [("display.compare", r.attribute) for r in self.display.compare]
        named += [(f"eligibility[{i}]", a) for i, rule in enumerate(self.eligibility) for a in rule.attributes]
        named += [("display.badge", self.display.badge)] if self.display.badge else []
        named += [("display.meta", m) for m in self.display.meta]
        named += [("display.highlights", self.display.highlights)] if self.display.highlights else []
        for where, name in named:
            if name not in attributes:
                raise ValueError(f"{where} names '{name}', which is not in attributes")
        for where, names in (
            ("search.always", list(self.search.always)),
            ("search.require", self.search.require),
            ("search.clarify", self.search.clarify),
            ("search.carry", self.search.carry),
            ("search.topic", self.search.topic),
        ):
            for name in names:
                if name not in filters:
                    raise ValueError(f"{where} names '{name}', which is not a filter")
                if where in ("search.require", "search.clarify") and not filters[name][1].as_filter.question:
                    raise ValueError(f"{where} names '{name}', whose filter has no question to ask")
        every = [f.filter.name for f in self._filterings()]
        twice = sorted({name for name in every if every.count(name) > 1})
        if twice:
            raise ValueError(f"filters {twice} are named twice (a number attribute's other bound is named min_/max_<attribute>)")
        for name, flow in self.flows.items():
            if flow.intent not in INTENTS:
                raise ValueError(f"flows.{name} starts on intent '{flow.intent}'; known: {list(INTENTS)}")
            if unknown := sorted(set(flow.interrupted_by) - set(INTENTS)):
                raise ValueError(f"flows.{name}.interrupted_by names intents {unknown}; known: {list(INTENTS)}")
            for slot in flow.slots():
                if slot.filter and slot.filter not in filters:
                    raise ValueError(f"flows.{name}.{slot.slot} names '{slot.filter}', which is not a filter")
        if self.name_pattern:
            re.compile(self.name_pattern)
        for name in self.handover.flows:
            if name not in self.flows:
                raise ValueError(f"handover.flows names '{name}', which is not in flows")
        if self.romanised_reply not in self.languages:
            raise ValueError(f"romanised_reply '{self.romanised_reply}' is not among languages {self.languages}")
        if self.language not in self.languages:
            raise ValueError(f"page.lang '{self.page.lang}' is not among languages {self.languages}")
        unknown = [i for kind in self.goals.values() for i in kind.intents if i not in INTENTS]
        if unknown:
            raise ValueError(f"goals name intents {unknown}; known: {list(INTENTS)}")
        self._check_facts()
        self._check_templates()
        self._check_tools()
        self._check_constraints()
        self._check_prompting()
        return self

    def _check_facts(self) -> None:
        """Each rule tests a declared fact of a kind it can test against attributes of the right type."""
        if sum(fact.on_page for fact in self.profile.values()) > 1:
            raise ValueError("at most one profile fact can be on_page")
        for i, rule in enumerate(self.eligibility):
            fact = self.profile.get(rule.fact)
            if fact is None:
                raise ValueError(f"eligibility[{i}] tests '{rule.fact}', which is not in profile")
            kinds, types = (("category",), ("list",)) if rule.test == "in" else (("amount", "number"), ("number",))
            if fact.kind not in kinds:
                raise ValueError(
                    f"eligibility[{i}]: '{rule.test}' needs a fact of kind {' or '.join(kinds)}; '{rule.fact}' is {fact.kind}"
                )
            wrong = [a for a in rule.attributes if self.attributes[a].type not in types]
            if wrong:
                raise ValueError(f"eligibility[{i}]: '{rule.test}' needs {types[0]} attributes; {wrong} are not")

    def _check_templates(self) -> None:
        """Display templates name only declared attributes ("{annual_fee}", "{benefits|first}")."""
        shown = self.display
        templates = [("display.head", shown.head), ("display.tail", shown.tail)]
        templates += [("display.facts", t) for t in shown.facts]
        templates += [("display.headline", shown.headline.show)] if shown.headline else []
        templates += [("display.compare", r.show) for r in shown.compare if r.show]
        templates += [(f"display.topics.{topic}", line.show) for topic, lines in shown.topics.items() for line in lines]
        for where, template in templates:
            for piece in [template] if isinstance(template, str) else template or []:
                for name, how in re.findall(r"\{(\w+)(?:\|(\w+))?\}", piece):
                    if name != "name" and name not in self.attributes:
                        raise ValueError(f"{where} uses {{{name}}}, which is not in attributes")
                    if how and how not in TEMPLATE_FILTERS:
                        raise ValueError(f"{where} uses |{how}; known: {sorted(TEMPLATE_FILTERS)}")

    def _check_tools(self) -> None:
        """The tools each part of the conversation needs are allowed to some agent."""
        needs: list[tuple[AgentName, ToolName]] = [("retriever", "search_products"), ("comparator", "compare_products")]
        needs += [("eligibility", "check_eligibility")] if self.eligibility else []
        needs += [(flow.agent, "search_faq") for flow in self.flows.values() if flow.action == "troubleshoot"]
        for agent, tool in needs:
            if tool not in self.tools.get(agent, []):
                raise ValueError(f"tools.{agent} needs {tool}")
        if not any("search_faq" in tools for tools in self.tools.values()):
            raise ValueError("some agent in tools needs search_faq to answer help questions")

    def _check_constraints(self) -> None:
        """A constraint requires a tool some agent has (the loader checks it says a text the engine has)."""
        tools = {tool for allowed in self.tools.values() for tool in allowed}
        for rule in self.constraints:
            missing = [tool for tool in rule.requires if tool not in tools]
            if missing:
                raise ValueError(f"constraints.{rule.name} requires {missing}, which no agent in tools has")

    def _check_prompting(self) -> None:
        """Every stage a flow step names has its phase (the loader checks every phase is a stage:
        extensions add the stages of the steps they build)."""
        stages = {step.stage for flow in self.flows.values() for step in flow.steps if step.stage}
        if self.prompting is None:
            if stages:
                raise ValueError(f"flows name stages {sorted(stages)}, and there is no prompting: section")
            return
        phases = self.prompting.phases
        missing = sorted(stages - set(phases))
        if missing:
            raise ValueError(f"flows name stages {missing}, which prompting.phases lacks")

    @model_validator(mode="after")
    def _scales_for_money(self) -> Pack:
        """Amounts shown scaled need the business's scales to be shown in."""
        scaled = [name for name, a in self.attributes.items() if a.style == "scaled"]
        if scaled and not self.business.money_scales:
            raise ValueError(f"attributes {scaled} have style: scaled, and business.money_scales is empty")
        return self

    @property
    def language(self) -> str:
        """The language the pack itself is written in: its page's ("es" of "es-ES")."""
        return self.page.lang.split("-")[0].lower()

    def filter_attributes(self) -> dict[str, tuple[str, Attribute]]:
        """filter name -> (attribute name, attribute), of the filters pack.yaml declares."""
        return {a.filter.name: (name, a) for name, a in self.attributes.items() if a.filter}

    @cached_property
    def filters(self) -> dict[str, Filtering]:
        """Every filter by name, in the attributes' order: those declared, and for a number
        attribute filtered on, its other direction too, named `min_<attribute>` or
        `max_<attribute>` ("above 20 lakh" of a pack that declares only `max_price`), said in
        the texts `filter_min`/`filter_max`: a number customers filter by is bounded either way
        without the pack declaring both."""
        return {f.filter.name: f for f in self._filterings()}

    def _filterings(self) -> list[Filtering]:
        found = []
        for name, attribute in self.attributes.items():
            if attribute.filter is None:
                continue
            found.append(Filtering(attribute=name, of=attribute, filter=attribute.filter))
            for direction in BOUNDS if attribute.type == "number" else ():
                if attribute.filter.match != direction:
                    derived = Filter(name=f"{direction}_{name}"[:40], match=direction, place="after")
                    found.append(Filtering(attribute=name, of=attribute, filter=derived))
        return found

    def bound(self, attribute: str, direction: Literal["min", "max"]) -> str | None:
        """The filter that bounds a number attribute this way, if customers can filter by it."""
        return next((n for n, f in self.filters.items() if f.attribute == attribute and f.filter.match == direction), None)

    def said(self, name: str, filters: dict[str, FilterValue]) -> bool:
        """Whether the filters say what the filter `name` asks (a budget): it, or another bound
        of its attribute ("above 20 lakh" says a budget as much as "under 15 lakh" does)."""
        attribute = self.filters[name].attribute
        return any(self.filters[other].attribute == attribute for other in filters if other in self.filters)

    @property
    def page_fact(self) -> str | None:
        """The fact the chat page offers choices for, if the pack has one."""
        return next((name for name, fact in self.profile.items() if fact.on_page), None)

    def told(self, facts: dict[str, Any]) -> dict[str, FactValue]:
        """Of what a customer told, the facts this pack declares, each with a value the fact takes."""
        return {name: value for name, value in facts.items() if name in self.profile and self.profile[name].accepts(value)}

    def goal_kind(self, intent: str) -> tuple[str, GoalKind | None]:
        """The goal type an intent serves (a pack may group intents, e.g. a sale; a flow is a
        goal of its own) and its kind."""
        for name, kind in self.goal_kinds.items():
            if intent in kind.intents:
                return name, kind
        return intent, None

    @cached_property
    def goal_kinds(self) -> dict[str, GoalKind]:
        """Every kind of goal: the pack's groups of intents, and its flows."""
        flows = {name: GoalKind(priority=f.priority, intents=[f.intent], resumed=f.resumed) for name, f in self.flows.items()}
        return {**self.goals, **flows}

    @cached_property
    def private_slots(self) -> frozenset[str]:
        """The flows' slots that say who the customer is (a name, a phone): masked wherever state is shown."""
        return frozenset(s.slot for flow in self.flows.values() for s in flow.slots() if s.private or s.kind in ("person", "phone"))

    def flow_for(self, intent: str) -> str | None:
        """The flow an intent starts, if the pack has one."""
        return next((name for name, flow in self.flows.items() if flow.intent == intent), None)

    @cached_property
    def device_filter(self) -> str | None:
        """The filter that names the device a fault is about, from the troubleshooting flow ("category")."""
        return next(
            (
                slot.filter
                for flow in self.flows.values()
                if flow.action == "troubleshoot"
                for slot in flow.slots()
                if slot.kind == "filter"
            ),
            None,
        )


class Product(BaseModel):
    """One catalog item: id, name and description, then the pack's attributes, flat."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = Field(pattern=ID_PATTERN)
    name: str = Field(min_length=1)
    description: str = ""

    def value(self, attribute: str) -> Any:
        return (self.model_extra or {}).get(attribute)

    def search_text(self) -> str:
        """What the embedding index reads for this item: its words, not its figures."""
        words = [
            str(v) if not isinstance(v, list) else ", ".join(map(str, v))
            for v in (self.model_extra or {}).values()
            if isinstance(v, (str, list))
        ]
        return f"{self.name}. {self.description} " + ". ".join(words)


class FaqEntry(Strict):
    """A help article: a question and its answer, with the steps of a fix where it has them."""

    shown: ClassVar[tuple[str, ...]] = ("question", "answer", "steps", "category")

    id: str = Field(pattern=ID_PATTERN)
    category: str
    question: str
    answer: str
    steps: list[str] = []
    keywords: list[str] = []
    paraphrases: list[str] = []  # the question as customers put it, in their own words and languages
    applies_to: list[str] = []  # the device filter's values it is for; empty means any


class Vocabulary(Strict):
    """Words customers use, mapped to the pack's values (synonyms, typos, Hinglish, Banglish)."""

    filters: dict[str, dict[str, list[str]]]
    facts: dict[str, dict[str, list[str]]] = {}  # category fact -> value -> phrases ("salaried": ["job holder"])
    intents: dict[str, list[str]]
    features: dict[str, list[str]] = {}
    places: dict[str, list[str]] = {}  # a place as the catalog names it ("Bandra") -> other spellings (बांद्रा)
    # what customers rank items by: a number attribute -> its low and high ends' words
    # ("annual_fee": {"low": ["cheaper", "lowest fee"]}); vocabulary.intents' `cheapest` is rank_by's low end
    ranks: dict[str, dict[Literal["low", "high"], list[str]]] = {}

    @cached_property
    def words(self) -> frozenset[str]:
        """Every single word of the business's own phrases, lower-cased: "I am salaried" gives no name."""
        sections = [self.intents, *self.filters.values(), *self.facts.values()]
        return frozenset(w for s in sections for phrases in s.values() for p in phrases for w in p.lower().split())


class Examples(Strict):
    """nlu.yml: example messages per intent, which the router learns from at start-up."""

    intents: dict[IntentName, list[str]]

    @model_validator(mode="after")
    def _enough(self) -> Examples:
        few = {name: len(texts) for name, texts in self.intents.items() if len(texts) < MIN_EXAMPLES}
        if few:
            raise ValueError(f"each intent needs at least {MIN_EXAMPLES} examples; these have fewer: {few}")
        return self


class Version(BaseModel):
    """The pack's words in one language it replies in (assistant/pack/translations.py)."""

    pack: Pack
    faq: list[FaqEntry]
    extras: dict[str, BaseModel] = {}  # the extensions' data, by extension


class Catalog(BaseModel):
    """One business's whole data set, loaded once per app.

    Its words are in the language the current turn replies in (translations.speaking): `pack`,
    `faq` and each extension's data are that language's version where the pack has one, its own otherwise.
    Understanding reads the pack's own (`own_pack`), whose words know every translation."""

    model_config = ConfigDict(populate_by_name=True)

    name: str
    own_pack: Pack = Field(alias="pack")
    products: list[Product]
    own_faq: list[FaqEntry] = Field(alias="faq")
    vocabulary: Vocabulary
    examples: Examples
    own_extras: dict[str, BaseModel] = Field(default={}, alias="extras")  # each extension's data (assistant/pack/extension.py)
    extension_texts: dict[str, str] = {}  # the default texts of its extensions, under the pack's own
    prompts: dict[str, str] = {}  # each phase's prompt module (pack.yaml prompting), read from its file
    versions: dict[str, Version] = {}  # by language code: the pack's words in the other languages it replies in

    def _version(self) -> Version | None:
        code = REPLY_LANGUAGE.get()
        return self.versions.get(code) if code else None

    @property
    def pack(self) -> Pack:
        version = self._version()
        return version.pack if version else self.own_pack

    @property
    def faq(self) -> list[FaqEntry]:
        version = self._version()
        return version.faq if version else self.own_faq

    def extra(self, extension: str) -> BaseModel:
        """The data of one of the pack's extensions, in the reply's language."""
        version = self._version()
        return (version.extras if version else self.own_extras)[extension]

    @property
    def language(self) -> str:
        """The language the pack itself is written in: its page's."""
        return self.own_pack.language

    def article(self, entry: FaqEntry) -> FaqEntry:
        """A help article as the reply's language has it (the help centre finds the pack's own)."""
        return next((e for e in self.faq if e.id == entry.id), entry)

    @property
    def business(self) -> Business:
        return self.pack.business

    @property
    def languages(self) -> Languages:
        """The languages its customers write in, reading dates in the country's order (loaded once)."""
        return load_languages(self.own_pack.languages, date_order=self.business.date_order)

    @property
    def text(self) -> dict[str, str]:
        """The engine's default texts and its extensions', with the pack's own words over them."""
        return {**DEFAULT_TEXTS, **self.extension_texts, **self.pack.texts}

    def product(self, product_id: str) -> Product | None:
        return self._by_id.get(product_id)

    def products_by_id(self, ids: list[str]) -> list[Product]:
        """The catalog's products for stored ids, in order; ids no longer in the data are skipped."""
        return [p for pid in ids if (p := self._by_id.get(pid))]

    @model_validator(mode="after")
    def _index(self) -> Catalog:
        ids = [p.id for p in self.products]
        duplicates = {i for i in ids if ids.count(i) > 1}
        if duplicates:
            raise ValueError(f"duplicate product ids: {sorted(duplicates)}")
        self._by_id = {p.id: p for p in self.products}
        articles = {entry.id for entry in self.own_faq}
        unknown = [a for a in self.own_pack.handover.articles if a not in articles]
        if unknown:
            raise ValueError(f"handover.articles names {unknown}, which are not help articles")
        return self

    _by_id: dict[str, Product] = PrivateAttr(default_factory=dict)


class DataError(RuntimeError):
    """A pack file is missing or does not match its schema."""
