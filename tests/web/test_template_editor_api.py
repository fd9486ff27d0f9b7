"""What the template editor asks of the API, on both backends: a definition read from its text and written
back as YAML or JSON (the form and text views are one definition), the kinds of value a field may declare,
the fields a draft's show_if hides; hostile input (malformed, oversized, aliases, markup, another user's
template, no write header, no token) answered with what to fix and nothing stored."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
import yaml

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.store import Store
from remember.templates import parse_template

WRITE = {"X-Remember-Request": "1"}
WINE = """# tastings
name: Wine tasting
category: food
identity: [wine]
fields:
  - name: wine
    required: true
  - name: style
    type: enum
    options: [red, white]
  - name: grape_notes
    type: text
    conditional: {show_if: "style == 'red'"}
  - name: score
    type: integer
    kind: rating
    validation: {min: 1, max: 10}
  - name: price
    type: number
  - name: price_per_glass
    type: computed
    formula: price / 5
"""


def client(server: HttpServer, services: Services, user: str, *, write: bool = True) -> httpx2.Client:
    secret = services.tokens.create(user).secret
    headers = {"Authorization": f"Bearer {secret}", **(WRITE if write else {})}
    return httpx2.Client(base_url=server.url, headers=headers, timeout=60)


def check(http: httpx2.Client, **body: Any) -> Any:
    answer = http.post("/api/templates/check", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_definition_is_read_and_written_again_as_yaml_or_json_to_the_same_template(
    served: tuple[HttpServer, Services],
) -> None:
    server, services = served
    with client(server, services, "ann") as http:
        as_yaml = check(http, definition=WINE, write_as="yaml")
        assert as_yaml["valid"] is True
        assert as_yaml["document"] == yaml.safe_load(WINE)
        assert as_yaml["text"].startswith("name: Wine tasting\ncategory: food\n")
        as_json = check(http, definition=as_yaml["text"], write_as="json")
        assert json.loads(as_json["text"]) == as_yaml["document"] == as_json["document"]
        again = check(http, definition=json.loads(as_json["text"]))
        assert "text" not in again and again["document"] == as_yaml["document"]
        assert [f["label"] for f in as_yaml["resolved_fields"]][:3] == ["Wine", "Style", "Grape notes"]
        made = http.post("/api/templates", json={"definition": as_json["text"]}).json()
    stored = services.templates.get(Caller("ann"), made["id"]).definition
    assert {**stored.as_dict(), "id": ""} == {**parse_template(yaml.safe_load(WINE)).as_dict(), "id": ""}


def test_an_invalid_definition_is_still_read_so_the_form_can_show_it(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    with client(server, services, "ann") as http:
        broken = WINE.replace("max: 10", "max: 0")
        answer = check(http, definition=broken, write_as="yaml")
        assert answer["valid"] is False
        assert [(e["field"], e["message"]) for e in answer["errors"]] == [("score", "min (1) is greater than max (0)")]
        assert answer["document"]["fields"][3]["validation"] == {"min": 1, "max": 0}
        assert "max: 0" in answer["text"]
        unreadable = check(http, definition="name: [x", write_as="yaml")
        assert unreadable["valid"] is False and "document" not in unreadable and "text" not in unreadable
        assert unreadable["errors"][0]["field"] == "definition"
        assert "not valid YAML or JSON" in unreadable["message"]


def test_the_kinds_each_type_may_declare_are_the_engines(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    with client(server, services, "ann") as http:
        answer = http.get("/api/templates/kinds")
        assert answer.status_code == 200
        kinds = answer.json()
    assert kinds["types"][0] == "string" and "computed" in kinds["types"]
    assert "rating" in kinds["fits"]["integer"] and "rating" not in kinds["fits"]["string"]
    assert "people" in kinds["fits"]["array/string"] and "computed" not in kinds["fits"]
    assert kinds["kinds"]["rating"].startswith("a rating")


def test_a_drafts_show_if_hides_fields_in_the_preview(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    with client(server, services, "ann") as http:
        white = http.post("/api/templates/check-content", json={"definition": WINE, "content": {"style": "white"}})
        red = http.post("/api/templates/check-content", json={"definition": WINE, "content": {"style": "red"}})
    assert white.status_code == red.status_code == 200
    assert "grape_notes" in white.json()["hidden_fields"]
    assert "grape_notes" not in red.json()["hidden_fields"]
    assert {e["field"] for e in red.json()["errors"]} == {"wine"}


HOSTILE: list[tuple[dict[str, Any], int, str]] = [
    ({"definition": WINE, "write_as": "xml"}, 422, "write_as is yaml or json"),
    ({"definition": WINE, "write_as": ["yaml"]}, 422, "write_as is yaml or json"),
    ({"definition": WINE, "template_id": 7}, 422, "template_id is a template's id"),
    ({"write_as": "yaml"}, 200, "Send the template definition"),
    ({"definition": "a: &x [1]\nb: *x\n", "write_as": "yaml"}, 200, "aliases (*name) are not accepted"),
    ({"definition": "name: x\n" + "#" * 200_001, "write_as": "json"}, 200, "longer than 200000 characters"),
    ({"definition": ["name", "fields"], "write_as": "yaml"}, 200, "must be one template"),
    ({"definition": {"name": "<script>alert(1)</script>", "fields": [{"name": "<b>"}]}}, 200, "field name '<b>'"),
]


@pytest.mark.parametrize(("body", "status", "words"), HOSTILE)
def test_hostile_input_is_answered_with_what_to_fix_and_nothing_is_stored(
    served: tuple[HttpServer, Services], store: Store, body: dict[str, Any], status: int, words: str
) -> None:
    server, services = served
    before = logical_fingerprint(store, ["ann"])
    with client(server, services, "ann") as http:
        answer = http.post("/api/templates/check", json=body)
    assert answer.status_code == status, answer.text
    found = answer.json()
    assert words in found["message"] + json.dumps(found.get("errors", [])), found
    assert status != 200 or found["valid"] is False
    assert logical_fingerprint(store, ["ann"]) == before


def test_another_users_template_and_requests_without_header_or_token_are_refused(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    theirs = services.templates.create(Caller("bob"), yaml.safe_load(WINE)).id
    before = logical_fingerprint(store, ["ann", "bob"])
    with client(server, services, "ann") as http:
        for path, body in [
            ("/api/templates/check", {"definition": WINE, "template_id": theirs, "write_as": "yaml"}),
            ("/api/templates/check-content", {"definition": WINE, "template_id": theirs, "content": {}}),
        ]:
            answer = http.post(path, json=body)
            assert answer.status_code == 404 and "No template with id" in answer.json()["message"], answer.text
            assert "Wine" not in answer.text.replace(WINE, "")
    with client(server, services, "ann", write=False) as http:
        answer = http.post("/api/templates/check", json={"definition": WINE, "write_as": "yaml"})
        assert answer.status_code == 403 and "X-Remember-Request" in answer.json()["message"]
    with httpx2.Client(base_url=server.url, headers=WRITE, timeout=60) as anonymous:
        assert anonymous.get("/api/templates/kinds").status_code == 401
        assert anonymous.post("/api/templates/check", json={"definition": WINE}).status_code == 401
    assert logical_fingerprint(store, ["ann", "bob"]) == before
