"""User-supplied patterns run on RE2: linear time, and refused early when RE2 cannot run them."""

from __future__ import annotations

import time

import pytest

from remember.errors import TemplateError
from remember.templates import parse_fields
from remember.templates.validation.regex import compile_pattern

from .conftest import check, codes, template


def test_catastrophic_backtracking_pattern_returns_quickly():
    resolved = template({"name": "s", "type": "text", "validation": {"pattern": "(a+)+$"}})
    hostile = "a" * 50_000 + "b"
    start = time.monotonic()
    result = check(resolved, {"s": hostile})
    elapsed = time.monotonic() - start
    assert elapsed < 1.0
    assert codes(result) == [("s", "pattern")]
    assert check(resolved, {"s": "a" * 50_000}).valid


def test_other_exponential_patterns_return_quickly():
    resolved = template(
        {"name": "s", "type": "text", "validation": {"pattern": "^(a|a)*$"}},
        {"name": "t", "type": "text", "validation": {"pattern": "^(a|aa)+$"}},
        {"name": "u", "type": "text", "validation": {"pattern": "^(.*a){20}$"}},
    )
    hostile = "a" * 50_000 + "b"
    start = time.monotonic()
    result = check(resolved, {"s": hostile, "t": hostile, "u": hostile})
    assert time.monotonic() - start < 1.0
    assert codes(result) == [("s", "pattern"), ("t", "pattern"), ("u", "pattern")]


@pytest.mark.parametrize(("pattern", "why"), [("(a)\\1", "escape"), ("(?=a)", "(?="), ("(?<!a)b", "(?<")])
def test_patterns_re2_cannot_run_are_refused_when_defined(pattern, why):
    with pytest.raises(TemplateError) as caught:
        parse_fields([{"name": "code", "validation": {"pattern": pattern}}])
    error = caught.value.errors[0]
    assert (error.field, error.code) == ("code", "pattern")
    assert why in error.message
    assert "RE2" in error.message


def test_long_patterns_are_refused():
    with pytest.raises(ValueError, match="longer than 1000"):
        compile_pattern("a" * 1001)


def test_re2_prints_nothing(capfd):
    with pytest.raises(ValueError, match="does not compile"):
        compile_pattern("(?P<x>a)(?P=x)")
    assert capfd.readouterr().err == ""


def test_unicode_patterns():
    resolved = template({"name": "s", "validation": {"pattern": "^\\p{L}+$"}})
    assert check(resolved, {"s": "Zoë"}).valid
    assert codes(check(resolved, {"s": "Zoë1"})) == [("s", "pattern")]
