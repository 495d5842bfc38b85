"""The one-instruction concierge (POST /assistant): a plan of service calls per user."""
