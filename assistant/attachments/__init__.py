"""Files customers send with their messages: photos and PDFs, checked by their content and kept per session."""
