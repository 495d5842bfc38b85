"""Cases handed to the office: a completed conversation's record, kept, listed and summarised on one page."""
