"""One module per concern, each with a ``register(server, tool_context)``."""
