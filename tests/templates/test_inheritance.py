"""Inheritance through parent_template_id: merging, overriding, depth, cycles, missing parents."""

from __future__ import annotations

from typing import Any

import pytest

from remember.errors import TemplateError
from remember.templates import ancestors, lookup_from, parse_template, resolve

from .conftest import check, codes


def define(template_id: str, parent: str | None, *fields: dict[str, Any]) -> Any:
    raw: dict[str, Any] = {"id": template_id, "name": template_id.title(), "fields": list(fields)}
    if parent is not None:
        raw["parent_template_id"] = parent
    return parse_template(raw)


CONTACT = define("contact", None, {"name": "name", "required": True}, {"name": "email"}, {"name": "phone"})
BUSINESS = define(
    "business_contact",
    "contact",
    {"name": "company", "required": True},
    {"name": "job_title", "required": True},
    {"name": "linkedin"},
)


def test_the_spec_business_contact_inherits_from_contact():
    resolved = resolve(BUSINESS, lookup_from([CONTACT]))
    assert [field.name for field in resolved.fields] == ["name", "email", "phone", "company", "job_title", "linkedin"]
    assert resolved.ancestor_ids == ("contact",)
    result = check(resolved, {"company": "Acme"})
    assert codes(result) == [("name", "required"), ("job_title", "required")]


def test_depth_three_with_an_override_in_place():
    root = define("a", None, {"name": "x"}, {"name": "y"})
    middle = define("b", "a", {"name": "x", "type": "integer", "required": True}, {"name": "z"})
    leaf = define("c", "b", {"name": "w", "type": "computed", "formula": "x * 2"})
    resolved = resolve(leaf, lookup_from([root, middle]))
    assert [(f.name, f.type) for f in resolved.fields] == [
        ("x", "integer"),
        ("y", "string"),
        ("z", "string"),
        ("w", "computed"),
    ]
    assert resolved.ancestor_ids == ("b", "a")
    assert check(resolved, {"x": 4}).normalized == {"x": 4, "w": 8}
    assert codes(check(resolved, {"x": "4"})) == [("x", "type")]


def test_a_child_formula_must_name_a_field_of_the_chain():
    child = define("c", "contact", {"name": "label", "type": "computed", "formula": "concat(name, nickname)"})
    with pytest.raises(TemplateError) as caught:
        resolve(child, lookup_from([CONTACT]))
    assert [(e.field, e.code) for e in caught.value.errors] == [("label", "formula")]
    assert caught.value.message.startswith("template 'C' (inheriting from 'Contact') is invalid: 1 problem\n- label: ")


def test_missing_parent():
    with pytest.raises(TemplateError) as caught:
        resolve(BUSINESS, lookup_from([]))
    error = caught.value.errors[0]
    assert (error.field, error.code) == ("parent_template_id", "missing_parent")
    assert error.message == "parent template 'contact' does not exist; create it first or remove the link"
    with pytest.raises(TemplateError):
        resolve(BUSINESS)


def test_missing_grandparent_is_named():
    with pytest.raises(TemplateError) as caught:
        resolve(define("c", "b", {"name": "z"}), lookup_from([define("b", "a", {"name": "y"})]))
    assert "(the parent of 'b')" in caught.value.message


def test_cycles_are_refused():
    a = define("a", "c", {"name": "x"})
    b = define("b", "a", {"name": "y"})
    c = define("c", "b", {"name": "z"})
    with pytest.raises(TemplateError) as caught:
        resolve(a, lookup_from([a, b, c]))
    error = caught.value.errors[0]
    assert error.code == "parent_cycle"
    assert error.message == "template inheritance would form a cycle: a -> c -> b -> a"


def test_a_template_cannot_be_its_own_parent():
    with pytest.raises(TemplateError, match="cycle: a -> a"):
        ancestors(define("a", "a", {"name": "x"}), lookup_from([]))


def test_changing_a_parent_link_is_checked_before_storing():
    stored = lookup_from([define("a", None, {"name": "x"}), define("b", "a", {"name": "y"})])
    # Making "a" a child of "b" would close a loop; making it a child of nothing would not.
    with pytest.raises(TemplateError, match="cycle: a -> b -> a"):
        ancestors(define("a", "b", {"name": "x"}), stored)
    assert ancestors(define("a", None, {"name": "x"}), stored) == ()


def test_a_cycle_among_stored_ancestors_is_refused():
    stored = lookup_from([define("a", "b", {"name": "x"}), define("b", "a", {"name": "y"})])
    with pytest.raises(TemplateError, match="cycle"):
        resolve(define("c", "a", {"name": "z"}), stored)


def test_very_long_chains_are_bounded():
    chain = [define("t0", None, {"name": "f0"})]
    chain += [define(f"t{i}", f"t{i - 1}", {"name": f"f{i}"}) for i in range(1, 40)]
    resolved = resolve(chain[20], lookup_from(chain))
    assert len(resolved.fields) == 21
    with pytest.raises(TemplateError) as caught:
        resolve(chain[39], lookup_from(chain))
    assert caught.value.errors[0].code == "limit"


def test_a_child_may_hide_parent_fields_behind_conditions_of_its_own():
    child = define("c", "contact", {"name": "email", "conditional": {"show_if": "phone == null"}})
    resolved = resolve(child, lookup_from([CONTACT]))
    assert check(resolved, {"name": "A", "phone": "1", "email": "a@b.c"}).normalized == {"name": "A", "phone": "1"}


def test_a_template_is_resolved_once_over_the_same_parents_and_again_over_changed_ones():
    first = resolve(BUSINESS, lookup_from([CONTACT]))
    assert resolve(BUSINESS, lookup_from([CONTACT])) is first
    changed = define("contact", None, {"name": "name", "required": True}, {"name": "mobile"})
    again = resolve(BUSINESS, lookup_from([changed]))
    assert [field.name for field in again.fields] == ["name", "mobile", "company", "job_title", "linkedin"]
    with pytest.raises(TemplateError, match="does not exist"):
        resolve(BUSINESS, lookup_from([]))
