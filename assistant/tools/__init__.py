"""The deterministic tools the agents call: retrieval, comparison, eligibility, calculation, and the gateway that allows them."""
