"""Pack extensions: a business's own machinery (data, state, tools, agents, actions, routes),
loaded by the packs that name it."""
