"""The MCP edge: tools, resources and prompts over the services."""
