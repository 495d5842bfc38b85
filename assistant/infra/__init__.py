"""Configuration and the one way to open SQLite."""
