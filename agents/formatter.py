"""The Formatter, always last: whatever the other agents produced, as the reply."""

from __future__ import annotations

from agents.work import HELP_INTENTS, TurnWork, goal_of
from assistant.pack import texts as formatting


def formatter(work: TurnWork) -> None:
    """Always last: turns whatever the other agents produced into the reply."""
    kind, catalog = work.intent.type, work.catalog
    sections: list[str | None] = []
    work.products = list(work.selection)
    if work.pending == "clarify_product":
        work.products, sections = [], [work.ask_user]
    elif work.flow_step:
        step, flow = work.flow_step, catalog.pack.flows[goal_of(work).type]
        items = [step.slots.get(s.slot) for s in flow.slots() if s.kind == "item"] if flow.action == "book" else []
        work.products = [p for p in catalog.products_by_id([i for i in items if i])]
        sections = [formatting.faq_answer(work.faq) if work.faq else step.text, step.question]
        work.ask_user, work.choices = step.question, step.choices
        work.handover = step.done and flow.action == "troubleshoot" and not work.faq  # no fix known: people take it
    elif kind == "cancel":
        work.products, sections = [], [formatting.cancelled(work.goal, catalog)]
    elif kind == "calculate":
        work.products, sections = [], [work.calculation or formatting.say(catalog, "unknown")]
    elif kind == "greeting":
        work.products, sections = [], [formatting.say(catalog, "thanks" if work.intent.thanks else "greeting")]
    elif kind in HELP_INTENTS:
        work.products = []
        if work.faq:
            sections.append(formatting.faq_answer(work.faq))
        else:  # a hand-over to people, with the nearest articles as quick replies
            work.handover = True
            sections.append(formatting.say(catalog, "faq_not_found" if kind == "faq" else kind))
            if work.suggestions:
                sections.append(formatting.suggestions(work.suggestions, catalog))
                work.choices = [entry.question for entry in work.suggestions]
    elif not work.selection:
        sections.append(formatting.no_match(work.state.filters, _relaxable(work), catalog))
    else:
        if kind == "product_info" or (kind == "feature_query" and work.retrieved):  # found now: list them
            sections.append(formatting.product_list(
                work.selection, work.state.filters, not work.retrieved, catalog, work.intent.cheapest_first
            ))
        if work.comparison:
            sections.append(formatting.comparison_table(work.comparison, work.selection, catalog))
        elif work.intent.wants_comparison:
            sections.append(formatting.single_product_note(work.selection[0], catalog))
        if work.verdicts is not None:
            sections.append(formatting.eligibility_report(work.verdicts, catalog))
            _ask_for_missing_fact(work)
            sections += [work.ask_user] if work.ask_user else []
        if kind == "feature_query":
            sections.append(formatting.features_report(work.selection, work.intent.feature_topics,
                                                            work.intent.feature_lines, catalog))
    work.reply = "\n\n".join(section for section in sections if section)


def _ask_for_missing_fact(work: TurnWork) -> None:
    """If a verdict waits on a fact, ask for the first one missing, in the order the pack lists them."""
    waiting = [v for v in work.verdicts or [] if v.eligible is None]
    for name, fact in work.catalog.pack.profile.items():
        if any(name in v.missing for v in waiting):
            work.ask_user, work.choices = fact.question, list(fact.choices)
            work.pending = name
            return


def _relaxable(work: TurnWork) -> str | None:
    """The filter whose removal would bring back the most products, to suggest relaxing it."""
    filters = work.state.filters
    counts = {
        name: work.index.count_products({k: v for k, v in filters.items() if k != name}) for name in filters
    }
    best = max(counts, key=counts.__getitem__, default=None)
    return best if best and counts[best] else None
