"""The restaurant concierge (POST /assistant, its tables and plans): the extension the restaurants pack loads."""
