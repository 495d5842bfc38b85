"""The homologation desk's quotation and case for the office: the extension the homologation pack loads."""
