"""The agents: each one's offline function (a module here) beside its CrewAI definition
(agents.yaml, tasks.yaml), with the crew assembled in one place (crew.py)."""
