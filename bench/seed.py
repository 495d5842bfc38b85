"""The README's example conversation (cards found, compared, an eligibility verdict, then a filter change and
the fees), replayed by every benchmark."""

SEED_CONVERSATION = [
    "I want a platinum conventional credit card for business",
    "Which is best for me? Compare them",
    "Am I eligible for the Mastercard one?",
    "I earn 1.5 lakh a month",
    "Actually show me Islamic options instead",
    "What are the fees?",
]
