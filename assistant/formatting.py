"""The Formatter's templates: markdown replies built only from tool results and catalog data."""

from __future__ import annotations

from collections.abc import Callable

from assistant.comparison import Comparison, percent, taka
from assistant.domain import Catalog, FaqEntry, Product
from assistant.eligibility import Verdict
from assistant.retrieval import Filters

FILTER_WORDS = {
    "banking_type": {"islami": "Islamic", "conventional": "conventional"},
    "product_type": {"credit_card": "credit cards", "debit_card": "debit cards", "prepaid_card": "prepaid cards"},
    "network": {"amex": "American Express", "jcb": "JCB", "unionpay": "UnionPay", "visa": "Visa", "mastercard": "Mastercard"},
}

# The one clarifying question per missing filter, in the order they are asked, with quick replies.
CLARIFYING_QUESTIONS: dict[str, tuple[str, list[str]]] = {
    "product_type": ("Which kind of card are you looking for: credit, debit or prepaid?",
                     ["Credit card", "Debit card", "Prepaid card"]),
    "banking_type": ("Would you like a conventional card or an Islamic (Shariah-compliant) one?",
                     ["Conventional", "Islamic"]),
    "use_case": ("What will you mostly use the card for?",
                 ["Travel", "Shopping", "Business", "Dining", "Fuel", "Everyday"]),
}

PROFILE_QUESTIONS: dict[str, tuple[str, list[str]]] = {
    "employment": ("To check eligibility, what is your employment?",
                   ["Salaried", "Business owner", "Self-employed", "Student", "Retired"]),
    "monthly_income": ("To confirm eligibility, what is your monthly income? (for example 80k or 1.5 lakh)", []),
}

_FeatureLine = tuple[str, Callable[[Product], str | None]]
FEATURE_TOPICS: dict[str, list[_FeatureLine]] = {
    "fees": [
        ("Annual fee", lambda p: taka(p.fees.annual_fee) + (f" ({p.fees.annual_fee_waiver})" if p.fees.annual_fee_waiver else "")),
        ("Supplementary card", lambda p: taka(p.fees.supplementary_card_fee)),
        ("Late payment fee", lambda p: p.fees.late_payment_fee is not None and taka(p.fees.late_payment_fee) or None),
        ("Cash advance fee", lambda p: p.fees.cash_advance_fee_pct is not None and percent(p.fees.cash_advance_fee_pct) or None),
        ("Foreign transaction fee", lambda p: percent(p.fees.foreign_transaction_fee_pct)),
        ("Card replacement", lambda p: taka(p.fees.card_replacement_fee)),
        ("ATM withdrawal", lambda p: taka(p.fees.atm_withdrawal_fee)),
    ],
    "rate": [
        ("Rate", lambda p: p.rate and f"{p.rate.label}: {percent(p.rate.annual_pct)} a year"),
        ("Interest-free period", lambda p: p.interest_free_days and f"up to {p.interest_free_days} days"),
    ],
    "limit": [("Credit limit", lambda p: p.credit_limit and f"{taka(p.credit_limit.min)} to {taka(p.credit_limit.max)}")],
    "rewards": [("Rewards", lambda p: p.rewards)],
    "lounge": [("Airport lounge visits", lambda p: f"{p.lounge_visits_per_year} a year" if p.lounge_visits_per_year else "none")],
    "benefits": [("Benefits", lambda p: "; ".join(p.benefits))],
}


def describe_filters(filters: Filters, count: int = 2) -> str:
    """'Islamic platinum credit cards for business' (or '... card ...' for one) from the filters in effect."""
    def words(name: str) -> list[str]:
        value = filters.get(name)
        values = value if isinstance(value, list) else [value] if value is not None else []
        return [FILTER_WORDS.get(name, {}).get(str(v), str(v)) for v in values]

    parts = [" or ".join(words("banking_type")), " or ".join(words("tier")), " or ".join(words("network")),
             " or ".join(words("product_type")) or "cards"]
    if count == 1:
        parts[-1] = parts[-1].replace("cards", "card")
    text = " ".join(p for p in parts if p)
    if filters.get("use_case"):
        text += " for " + " or ".join(words("use_case"))
    if filters.get("max_annual_fee") == 0:
        text += " with no annual fee"
    elif "max_annual_fee" in filters:
        text += f" with an annual fee up to {taka(int(filters['max_annual_fee']))}"
    return text


def product_line(p: Product) -> str:
    facts = [f"annual fee {taka(p.fees.annual_fee)}"]
    if p.rate:
        facts.append(f"{p.rate.label.lower()} {percent(p.rate.annual_pct)}")
    if p.credit_limit:
        facts.append(f"limit up to {taka(p.credit_limit.max)}")
    kind = "Islamic" if p.banking_type == "islami" else "Conventional"
    return (f"**{p.name}** ({kind}, {FILTER_WORDS['network'][p.network]} {p.tier}): " + ", ".join(facts)
            + f". Good for {', '.join(p.use_cases)}. {p.benefits[0]}.")


def product_list(products: list[Product], filters: Filters, from_cache: bool, cheapest: bool = False) -> str:
    one = len(products) == 1
    what = describe_filters(filters, len(products))
    if cheapest:
        intro = f"Here {'is the cheapest' if one else f'are the {len(products)} cheapest'} {what}, lowest annual fee first:"
    elif from_cache:
        intro = f"Here {'is' if one else 'are'} {len(products)} {what} (the ones we found earlier):"
    else:
        intro = f"Here {'is' if one else 'are'} {len(products)} {what} that {'matches' if one else 'match'}:"
    lines = [intro, ""] + [f"{i}. {product_line(p)}" for i, p in enumerate(products, 1)]
    lines.append("")
    if len(products) == 1:
        lines.append("Ask me **whether you're eligible** or about its **fees**.")
    else:
        lines.append("Ask me to **compare them**, check **whether you're eligible**, or about **fees**.")
    return "\n".join(lines)


def no_match(filters: Filters, relax: str | None) -> str:
    text = f"I couldn't find any {describe_filters(filters)} in our range."
    if relax:
        text += f" Without the {relax.replace('_', ' ')} preference there are options; tell me what to change."
    return text


def comparison_table(comparison: Comparison, products: list[Product]) -> str:
    by_id = {p.id: p for p in products}
    header = "| | " + " | ".join(by_id[pid].name for pid in comparison.products) + " |"
    lines = [header, "|---" * (len(comparison.products) + 1) + "|"]
    for row in comparison.rows:
        cells = [f"**{row.values[pid]}** ✓" if pid in row.best else row.values[pid] for pid in comparison.products]
        lines.append(f"| {row.label} | " + " | ".join(cells) + " |")
    summary = [
        f"- **{by_id[pid].name}** is best on: {', '.join(won).lower()}."
        for pid, won in comparison.wins.items() if won
    ]
    text = "\n".join(lines) + "\n\n" + "\n".join(summary)
    if comparison.recommended:
        best = by_id[comparison.recommended]
        most = len(comparison.wins[best.id])
        tied = any(len(won) == most for pid, won in comparison.wins.items() if pid != best.id)
        verdict = "ties for the most rows and has the lowest annual fee of those" if tied else "wins the most rows"
        text += f"\n\nOverall, **{best.name}** {verdict}."
    return text


def single_product_note(product: Product) -> str:
    return f"There is only one card to compare: {product_line(product)}"


def eligibility_report(verdicts: list[Verdict]) -> str:
    lines = []
    for v in verdicts:
        head = {True: "✅ You're eligible", False: "❌ Not eligible", None: "❔ Need a bit more information"}[v.eligible]
        lines.append(f"**{v.product_name}**: {head}")
        lines += [f"- {reason}" for reason in v.reasons]
        lines.append("")
    return "\n".join(lines).strip()


def features_report(products: list[Product], topics: list[str]) -> str:
    topics = [t for t in topics if t in FEATURE_TOPICS] or ["fees"]
    blocks = []
    for p in products:
        lines = [f"**{p.name}**"]
        for topic in topics:
            for label, show in FEATURE_TOPICS[topic]:
                value = show(p)
                if value:
                    lines.append(f"- {label}: {value}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def faq_answer(entry: FaqEntry) -> str:
    return f"**{entry.question}**\n\n{entry.answer}"


def faq_not_found(catalog: Catalog) -> str:
    return ("I don't have a verified answer to that in our help articles, so I won't guess. "
            f"Our support team can help: {catalog.support_contact}.")


def greeting(catalog: Catalog) -> str:
    return (f"Hello! I'm the {catalog.name} card assistant. I can find credit, debit and prepaid cards "
            "(conventional or Islamic), compare them, check whether you're eligible, and answer questions "
            "about your card. What are you looking for?")


def cancelled(goal) -> str:
    if goal is None:
        return "There's nothing to cancel. What can I help you with?"
    return "Okay, I've cancelled that." if goal.type != "booking" else "Okay, I've cancelled the appointment request."


def resumed(goal) -> str:
    what = "your appointment" if goal.type == "booking" else "what you asked before"
    return f"Back to {what}: {goal.next_question}"


def refusal(catalog: Catalog) -> str:
    return (f"I'm sorry, I can't do that. I'm the {catalog.name} card assistant: I can't change prices, fees or "
            "rates, or share how I work inside, but I'm happy to help you find, compare or apply for a card.")


def thanks(catalog: Catalog) -> str:
    return f"You're welcome! Ask me anytime about {catalog.name} cards."


def unknown(catalog: Catalog) -> str:
    return ("Sorry, I didn't quite get that. You can ask me things like *\"I want a platinum credit card "
            "for travel\"*, *\"compare them\"*, *\"am I eligible?\"* or *\"I lost my card\"*. "
            f"For anything else, our support team is at {catalog.support_contact}.")
