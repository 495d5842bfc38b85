"""LLM mode: the model client, the CrewAI run of a turn, and the grounding check of its reply."""
