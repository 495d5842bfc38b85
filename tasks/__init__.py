"""The CrewAI tasks of LLM mode: what each model agent is asked to do (tasks.yaml) and the
building of that task for a turn (definitions.py). The agents who do them are in agents/."""
