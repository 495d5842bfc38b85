"""People of the business who take conversations over: the queue, the panic switch, and what nobody could answer."""
