"""The package's public names: exported, documented, and importable from remember.templates."""

from __future__ import annotations

import inspect
import re
import sys

from remember import templates


def test_all_names_exist_and_are_documented():
    for name in templates.__all__:
        value = getattr(templates, name)
        if inspect.isfunction(value) or inspect.isclass(value):
            assert inspect.getdoc(value), f"{name} has no docstring"


def test_all_is_sorted_and_complete():
    assert templates.__all__ == sorted(templates.__all__, key=lambda n: (not n.isupper(), n))
    public = {
        "parse_template",
        "parse_fields",
        "resolve",
        "validate_content",
        "to_json_schema",
        "render_text",
        "builtin_templates",
        "parse_expression",
        "evaluate",
        "referenced_names",
        "FieldDef",
        "TemplateDefinition",
        "ResolvedTemplate",
        "ValidationResult",
    }
    assert public <= set(templates.__all__)


def test_the_package_does_no_io_and_never_runs_python_code():
    # The engine is pure, and expressions are interpreted: no eval, exec or compile anywhere.
    forbidden_imports = ("sqlite3", "remember.store", "remember.service", "remember.mcp", "socket", "httpx")
    code_runners = re.compile(r"(?<![\w.])(eval|exec|compile|__import__)\(")
    modules = [m for name, m in sys.modules.items() if name.startswith("remember.templates")]
    assert len(modules) > 10
    for module in modules:
        source = inspect.getsource(module)
        for name in forbidden_imports:
            assert f"import {name}" not in source, (module.__name__, name)
            assert f"from {name}" not in source, (module.__name__, name)
        assert not code_runners.search(source), module.__name__
