"""The streamable HTTP edge: the MCP server on ``/mcp``, behind tokens, limits and Origin checks.

``app.build_app`` assembles it; ``serve.run`` runs it under uvicorn. The calling
user and trust level of every request come from its token (``auth.py``).
"""
