"""Reading a message: intent, filters and facts, from the pack's words and examples."""
