"""Conversation tests as data: a pack's expected conversations in YAML, played against a real app (docs/conversation-tests.md)."""
