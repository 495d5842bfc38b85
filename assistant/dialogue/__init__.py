"""What a conversation remembers: the session state, its goals, the flows that collect details, and the stores."""
