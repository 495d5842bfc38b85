"""The domain pack: its typed model and loader, how items are shown, the reply texts, and the scaffold for a new pack."""
