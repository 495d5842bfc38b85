"""The Formatter, always last: whatever the other agents produced, as the reply. It decides the
kind of answer the turn's is, asks every agent of the registry, in order, for its part of it (on
its own `Draft`), frames the whole (the facts a message told said back, a hello), and returns it
as a `Formatted`, which the pipeline applies."""

from __future__ import annotations

from agents.comparator import asked_lines, features_report
from agents.spec import Agent, Answer, Asked, Draft, Step
from assistant.dialogue.commands import Greet, ShowMore, first
from assistant.dialogue.goals import Goal
from assistant.dialogue.work import Formatted, TurnWork
from assistant.pack.model import HELP_INTENTS, Catalog, FactValue
from assistant.pack.texts import fact_words, say


def formatter(work: TurnWork) -> Formatted:
    """Always last: turns whatever the other agents produced into the reply."""
    from agents.registry import AGENTS  # the registry lists this module's agent too

    request, out = work.request, work.out
    kind, catalog = request.intent.type, work.services.catalog
    draft = Draft(list(out.selection), out.comparison, list(out.choices), out.handover)
    if out.pending == "clarify_product":
        draft.products, draft.sections = [], [out.ask_user]
    elif out.part:  # an extension's agent worded its own part (a quote)
        draft.products, draft.sections = [], list(out.part.sections)
    else:
        answer = _answer(work)
        for agent in AGENTS:
            if agent.show:
                agent.show(answer, work, draft)
    sections = draft.sections
    if request.intent.profile and kind != "greeting":  # "I make 60k a month": heard, and used in this answer
        sections.insert(0, noted(request.intent.profile, catalog))
    greeted: Greet | None = first(request.commands, Greet)
    if greeted and kind != "greeting":  # "hi, I want a gaming laptop": hello, then the laptops
        hello = say(catalog, "nice_to_meet", name=greeted.name) if greeted.name else say(catalog, "hello")
        sections.insert(0, hello)
    reply = "\n\n".join(section for section in sections if section)
    return Formatted(reply, draft.products, draft.comparison, draft.choices, draft.handover)


def _answer(work: TurnWork) -> Answer:
    """The kind of answer the turn's is, the first that holds: a flow's step, a cancellation, a
    sum, a greeting, a help question, nothing (more) found, or the items at hand."""
    out, kind = work.out, work.request.intent.type
    if out.flow_step:
        return Answer.FLOW
    kinds = {"cancel": Answer.CANCEL, "calculate": Answer.CALCULATION, "greeting": Answer.GREETING}
    if kind in kinds:
        return kinds[kind]
    if kind in HELP_INTENTS:
        return Answer.HELP
    if not out.selection:
        return Answer.NOTHING_MORE if first(work.request.commands, ShowMore) else Answer.NO_MATCH
    return Answer.PRODUCTS


def needed(asked: Asked) -> Step | None:
    """Never chosen: the pipeline runs the Formatter last on every turn."""
    return None


def show(answer: Answer, work: TurnWork, draft: Draft) -> None:
    """Its own answers (a cancellation, a greeting) and, last, the facts a question asked of the
    items when no table or ranking showed them already."""
    request, out, catalog = work.request, work.out, work.services.catalog
    intent = request.intent
    if answer is Answer.CANCEL:
        draft.products = []
        draft.sections.append(cancelled(request.goal, catalog))
    elif answer is Answer.GREETING:
        said = say(catalog, "nice_to_meet", name=intent.name) if intent.name else None
        draft.products = []
        draft.sections += [said, say(catalog, "thanks" if intent.thanks else "greeting")]
    elif answer is Answer.PRODUCTS and intent.type == "feature_query" and not (draft.comparison or out.ranking):
        asked = asked_lines(intent.feature_topics, intent.feature_lines, catalog)  # "the late fee": that line
        draft.sections.append(features_report(out.selection, asked, catalog))


AGENT = Agent("formatter", (), needed, formatter, show)


def noted(facts: dict[str, FactValue], catalog: Catalog) -> str:
    """ "Noted: monthly income ৳60,000." The facts a message told, said back before they are used."""
    profile = catalog.pack.profile
    said = [f"{profile[name].label or name.replace('_', ' ')} {fact_words(catalog, name, value)}" for name, value in facts.items()]
    return say(catalog, "noted", facts="; ".join(said))


def cancelled(goal: Goal | None, catalog: Catalog) -> str:
    if goal is None:
        return say(catalog, "nothing_to_cancel")
    return say(catalog, "cancelled_booking" if goal.type == "booking" else "cancelled")
