"""The MCP tools: plain functions, one module per group, each module listing its own in ``TOOLS``.

A tool takes the request's ``Context`` (the SDK injects it and leaves it out of the
tool's parameters) and reads from it the services and the caller it passes first to
every service call (``state.services_of``, ``state.caller_of``). Its docstring is what
a model reads about it, its parameters are described once where several tools share
them (``params.py``), and its annotations say only what differs from MCP's defaults
(``hints.py``). A tool's name, description and parameters must not depend on settings
or stored data: the server keeps the ``tools/list`` answer between starts (``listing.py``).

``BY_MODULE`` names each module's tools without importing it, so that a call can register
its own tool alone: building a tool's argument and result models is most of what
registering it costs, and a server answering its first call needs only that tool's.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Collection
from types import ModuleType

#: The tool modules in listing order, with the tools each lists in its ``TOOLS`` (a test keeps them the same).
BY_MODULE: dict[str, tuple[str, ...]] = {
    "memories": (
        "remember_create_memory", "remember_get_memory", "remember_update_memory", "remember_delete_memory",
        "remember_restore_memory", "remember_list_memories",
    ),
    "search": ("remember_search_memory", "remember_find_similar", "remember_query_memory"),
    "templates": (
        "remember_create_template", "remember_list_templates", "remember_get_template", "remember_update_template",
        "remember_delete_template", "remember_copy_template", "remember_validate_memory",
        "remember_template_analytics",
    ),
    "suggestions": ("remember_suggest_templates", "remember_apply_template", "remember_infer_templates"),
    "preferences": ("remember_get_preferences", "remember_update_preferences"),
    "relationships": (
        "remember_create_relationship", "remember_update_relationship", "remember_delete_relationship",
        "remember_search_relationships", "remember_get_related",
    ),
    "spaces": ("remember_manage_space",),
}  # fmt: skip
#: Every tool's name, in listing order.
NAMES: tuple[str, ...] = tuple(name for names in BY_MODULE.values() for name in names)


def add_all(add_tool: Callable[..., None]) -> None:
    """Register every tool through ``add_tool`` (the SDK's ``MCPServer.add_tool``)."""
    add(add_tool, NAMES)


def import_modules(names: Collection[str]) -> list[ModuleType]:
    """The modules of the tools ``names`` lists, imported (imports may run on any thread; registering may not)."""
    return [
        importlib.import_module(f"{__name__}.{module}") for module, its in BY_MODULE.items() if set(its) & set(names)
    ]


def add(add_tool: Callable[..., None], names: Collection[str]) -> None:
    """Register the tools ``names`` lists, in listing order, through ``add_tool``. Their modules are
    imported first: one that fails to import registers nothing."""
    wanted = set(names)
    for module in import_modules(wanted):
        for fn, hints in module.TOOLS:
            if fn.__name__ in wanted:
                # No display title: clients show the name, and every byte of the list is in the model's context.
                add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=hints, structured_output=True)
