"""The Formatter, always last: whatever the other agents produced, as the reply."""

from __future__ import annotations

from agents.work import HELP_INTENTS, TurnWork, goal_of
from assistant.pack import texts as formatting


def formatter(work: TurnWork) -> None:
    """Always last: turns whatever the other agents produced into the reply."""
    request, out = work.request, work.out
    kind, catalog = request.intent.type, work.services.catalog
    sections: list[str | None] = []
    out.products = list(out.selection)
    if out.pending == "clarify_product":
        out.products, sections = [], [out.ask_user]
    elif out.flow_step:
        step, flow = out.flow_step, catalog.pack.flows[goal_of(work).type]
        items = [step.slots.get(s.slot) for s in flow.slots() if s.kind == "item"] if flow.action == "book" else []
        out.products = [p for p in catalog.products_by_id([i for i in items if i])]
        sections = [formatting.faq_answer(out.faq) if out.faq else step.text, step.question]
        out.ask_user, out.choices = step.question, step.choices
        out.handover = step.done and flow.action == "troubleshoot" and not out.faq  # no fix known: people take it
    elif kind == "cancel":
        out.products, sections = [], [formatting.cancelled(request.goal, catalog)]
    elif kind == "calculate":
        out.products, sections = [], [out.calculation or formatting.say(catalog, "unknown")]
    elif kind == "greeting":
        out.products, sections = [], [formatting.say(catalog, "thanks" if request.intent.thanks else "greeting")]
    elif kind in HELP_INTENTS:
        out.products = []
        if out.faq:
            sections.append(formatting.faq_answer(out.faq))
        else:  # a hand-over to people, with the nearest articles as quick replies
            out.handover = True
            sections.append(formatting.say(catalog, "faq_not_found" if kind == "faq" else kind))
            if out.suggestions:
                sections.append(formatting.suggestions(out.suggestions, catalog))
                out.choices = [entry.question for entry in out.suggestions]
    elif not out.selection:
        sections.append(formatting.no_match(request.state.filters, _relaxable(work), catalog))
    else:
        intent, filters = request.intent, request.state.filters
        asked = formatting.asked_lines(intent.feature_topics, intent.feature_lines, catalog)  # "the late fee": that line
        if out.ranking and intent.rank:  # "which is cheaper?": the winner on what was asked
            out.products = out.ranking
            sections.append(formatting.ranking(out.ranking, intent.rank, catalog))
        elif kind == "product_info":  # found now: list them
            sections.append(formatting.product_list(out.selection, filters, not out.retrieved, catalog, intent.rank))
        elif kind == "feature_query" and out.retrieved:  # found now to answer a fact: what they are, then only that fact
            sections.append(formatting.list_intro(out.selection, filters, False, catalog, intent.rank))
        if out.comparison:
            sections.append(formatting.comparison_table(out.comparison, out.selection, catalog, asked))
        elif intent.wants_comparison:
            sections.append(formatting.single_product_note(out.selection[0], catalog))
        if out.verdicts is not None:
            sections.append(formatting.eligibility_report(out.verdicts, catalog))
            _ask_for_missing_fact(work)
            sections += [out.ask_user] if out.ask_user else []
        if kind == "feature_query" and not (out.comparison or out.ranking):  # those already show what was asked
            sections.append(formatting.features_report(out.selection, asked, catalog))
    out.reply = "\n\n".join(section for section in sections if section)


def _ask_for_missing_fact(work: TurnWork) -> None:
    """If a verdict waits on a fact, ask for the first one missing, in the order the pack lists them."""
    waiting = [v for v in work.out.verdicts or [] if v.eligible is None]
    for name, fact in work.services.catalog.pack.profile.items():
        if any(name in v.missing for v in waiting):
            work.out.ask_user, work.out.choices = fact.question, list(fact.choices)
            work.out.pending = name
            return


def _relaxable(work: TurnWork) -> str | None:
    """The filter whose removal would bring back the most products, to suggest relaxing it."""
    filters = work.request.state.filters
    counts = {name: work.services.index.count_products({k: v for k, v in filters.items() if k != name}) for name in filters}
    best = max(counts, key=counts.__getitem__, default=None)
    return best if best and counts[best] else None
