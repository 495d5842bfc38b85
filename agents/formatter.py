"""The Formatter, always last: whatever the other agents produced, as the reply."""

from __future__ import annotations

from agents.work import TurnWork, goal_of
from assistant.dialogue.commands import Greet, ShowMore, first
from assistant.pack import texts as formatting
from assistant.pack.model import HELP_INTENTS


def formatter(work: TurnWork) -> None:
    """Always last: turns whatever the other agents produced into the reply."""
    request, out = work.request, work.out
    kind, catalog = request.intent.type, work.services.catalog
    more = first(request.commands, ShowMore) is not None
    sections: list[str | None] = []
    out.products = list(out.selection)
    if out.pending == "clarify_product":
        out.products, sections = [], [out.ask_user]
    elif out.part:  # an extension's agent worded its own part (a quote)
        out.products, sections = [], list(out.part.sections)
    elif out.flow_step:
        step, flow = out.flow_step, catalog.pack.flows[goal_of(work).type]
        items = [step.slots.get(s.slot) for s in flow.slots() if s.kind == "item"] if flow.books else []
        out.products = [p for p in catalog.products_by_id([i for i in items if i])]
        refused = [v for v in out.verdicts or [] if v.eligible is False]  # the item booked isn't open to them: said first
        sections = [
            *(formatting.not_open(v, catalog) for v in refused),
            formatting.faq_answer(out.faq, catalog) if out.faq else step.text,
        ]
        sections.append(out.ask_user)
        out.handover = step.done and flow.action == "troubleshoot" and not out.faq  # no fix known: people
    elif kind == "cancel":
        out.products, sections = [], [formatting.cancelled(request.goal, catalog)]
    elif kind == "calculate":
        out.products, sections = [], [out.calculation or formatting.say(catalog, "unknown")]
    elif kind == "greeting":
        greeting = "thanks" if request.intent.thanks else "greeting"
        said = formatting.say(catalog, "nice_to_meet", name=request.intent.name) if request.intent.name else None
        out.products, sections = [], [said, formatting.say(catalog, greeting)]
    elif kind in HELP_INTENTS:
        out.products = []
        if out.faq:
            sections.append(formatting.faq_answer(out.faq, catalog))
        else:  # a hand-over to people, with the nearest articles as quick replies
            out.handover = True
            sections.append(formatting.say(catalog, "faq_not_found" if kind == "faq" else kind))
            if out.suggestions:
                sections.append(formatting.suggestions(out.suggestions, catalog))
                out.choices = [catalog.article(entry).question for entry in out.suggestions]
    elif not out.selection and more:
        sections.append(formatting.say(catalog, "no_more", what=formatting.describe_filters(request.state.filters, catalog)))
    elif not out.selection:
        said_back = [formatting.unapplied(request.intent.unapplied, catalog)] if request.intent.unapplied else []
        sections += [*said_back, formatting.no_match(request.state.filters, _relaxable(work), catalog)]
    else:
        intent, filters = request.intent, request.state.filters
        asked = formatting.asked_lines(intent.feature_topics, intent.feature_lines, catalog)  # "the late fee": that line
        if out.across_catalog:
            pass  # the verdicts below say what is open to them
        elif out.ranking and intent.rank:  # "which is the safest?": the winner on that, no list or table of everything
            out.products, out.comparison = out.ranking, None
            sections.append(formatting.ranking(out.ranking, intent.rank, catalog))
        else:
            if intent.absent:  # "a Corolla": named back, and what we have is the closest, not a match
                sections.append(formatting.say(catalog, "absent", names=formatting.one_of(intent.absent, catalog)))
            if intent.unavailable:
                sections.append(formatting.say(catalog, "unavailable", names=formatting.one_of(intent.unavailable, catalog)))
            if intent.unapplied:  # "battery above 5000 mAh": no filter narrows it, so no list matches it
                sections.append(formatting.unapplied(intent.unapplied, catalog))
            if kind == "product_info":  # found now: list them
                closest = bool(intent.absent or intent.unavailable or intent.unapplied)
                listed = formatting.product_list(out.selection, filters, not out.retrieved, catalog, intent.rank, closest, more)
                sections.append(listed)
            elif kind == "feature_query" and out.retrieved:  # found now to answer a fact: what they are, then only that
                sections.append(formatting.list_intro(out.selection, filters, False, catalog, intent.rank))
            if out.comparison:  # of the lines asked, if any ("compare their fees"), on the page too
                out.comparison = formatting.on_lines(out.comparison, out.selection, asked, catalog)
                sections.append(formatting.comparison_table(out.comparison, out.selection, catalog))
            elif intent.wants_comparison:
                sections.append(formatting.single_product_note(out.selection[0], catalog))
        ruled_out = bool(out.verdicts) and all(v.eligible is False for v in out.verdicts or [])
        if out.verdicts is not None and out.across_catalog and ruled_out:  # "a credit card" for a student: why not, what is
            out.products = out.qualifying
            sections = [formatting.ruled_out(out.verdicts, out.selection, filters, catalog)]
            sections += [formatting.qualifying(out.qualifying, catalog, "qualifying_instead") if out.qualifying else None]
            sections += [out.ask_user or (None if out.qualifying else formatting.say(catalog, "qualifying_none"))]
        elif out.verdicts is not None and out.across_catalog:  # what they can get, not a verdict on every item
            out.products = out.qualifying
            sections = [formatting.qualifying(out.qualifying, catalog, "qualifying")] if out.qualifying else []
            sections += [out.ask_user or (None if out.qualifying else formatting.say(catalog, "qualifying_none"))]
        elif out.verdicts is not None:
            sections.append(formatting.eligibility_report(out.verdicts, catalog))
            if out.qualifying:  # nothing at hand is open to them: what is
                out.products = [*out.selection, *out.qualifying]
                sections.append(formatting.qualifying(out.qualifying, catalog, "qualifying_instead"))
            sections += [out.ask_user] if out.ask_user else []
        if kind == "feature_query" and not (out.comparison or out.ranking):  # those already show what was asked
            sections.append(formatting.features_report(out.selection, asked, catalog))
    if request.intent.profile and kind != "greeting":  # "I make 60k a month": heard, and used in this answer
        sections.insert(0, formatting.noted(request.intent.profile, catalog))
    greeted: Greet | None = first(request.commands, Greet)
    if greeted and kind != "greeting":  # "hi, I want a gaming laptop": hello, then the laptops
        hello = formatting.say(catalog, "nice_to_meet", name=greeted.name) if greeted.name else formatting.say(catalog, "hello")
        sections.insert(0, hello)
    out.reply = "\n\n".join(section for section in sections if section)


def _relaxable(work: TurnWork) -> str | None:
    """The filter whose removal would bring back the most products, to suggest relaxing it."""
    filters = work.request.state.filters
    counts = {name: work.services.index.count_products({k: v for k, v in filters.items() if k != name}) for name in filters}
    best = max(counts, key=counts.__getitem__, default=None)
    return best if best and counts[best] else None
