"""The README's seed conversation (flow 6 with a verdict, then the filter change), replayed by every benchmark."""

SEED_CONVERSATION = [
    "I want a platinum conventional credit card for business",
    "Which is best for me? Compare them",
    "Am I eligible for the Mastercard one?",
    "I earn 1.5 lakh a month",
    "Actually show me Islamic options instead",
    "What are the fees?",
]
