"""The seed's six-message conversation (flow 6 plus the filter change), replayed by every benchmark."""

SEED_CONVERSATION = [
    "I want a platinum conventional credit card for business",
    "Which is best for me? Compare them",
    "Am I eligible for the Mastercard one?",
    "Compare them and check eligibility",
    "Actually show me Islamic options instead",
    "What are the fees?",
]
