"""The agents: each one's offline function (a module here) beside its CrewAI definition
(agents.yaml; their tasks are in tasks/), with the crew assembled in one place (crew.py)."""
