"""The dashboard: pages in the browser and the JSON API they call, served by ``remember serve --http``.

``routes.py`` gives the HTTP application its routes (``/``, ``/static/…``,
``/api/…``); ``session.py`` decides who a request acts for (the same API tokens
as MCP sent as a bearer token, or a dashboard session made from one);
``api/`` holds one module of endpoints per page; ``static/`` the page itself:
plain ES modules and a vendored charting library, nothing fetched at run time.

What the other edges use of it is exported here: the routes over a ``WebContext``
(which the HTTP application fills in, with its way of reading tokens) and the
one-time login codes ``remember ui`` issues, and the rule by which a ``Host`` header matches an allowed
host (the HTTP application checks every route by it).
"""

from remember.web.codes import LoginCodes
from remember.web.context import Tokens, WebContext
from remember.web.routes import web_routes
from remember.web.session import host_matches

__all__ = ["LoginCodes", "Tokens", "WebContext", "host_matches", "web_routes"]
