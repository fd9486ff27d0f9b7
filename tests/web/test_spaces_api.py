"""Shared spaces over the dashboard's API, on both backends: the spaces page's endpoints manage members as
``remember_manage_space`` does, the lists, searches and the graph read the spaces asked for (all by default),
a memory is opened, changed and deleted in the space that holds it with the role checked, and hostile input
(another user's space, a non-member, a reader managing, a lower-trust session, no or a wrong token, malformed
bodies) is refused with a message naming the fix while nothing stored changes."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.models import MemoryQuery
from remember.service import Services
from remember.service.relationships import RelationshipDraft
from remember.store import Store
from web_support import WRITE, client


def team(services: Services, admin: str = "ann", **members: str) -> str:
    """A space named Team administered by ``admin``, with ``members`` (user: role); its key."""
    key = services.spaces.create(Caller(admin), "Team").space.key
    for user, role in members.items():
        services.spaces.add_member(Caller(admin), key, user, role)
        services.spaces.accept(Caller(user), key)
    return key


def stored(store: Store, key: str) -> str:
    """Everything a space holds (its memories, their history, its members), as text: equal means unchanged."""
    memories = store.memories.page(key, MemoryQuery(deleted="include", limit=500)).items
    history = [h for m in memories for h in store.memories.history(key, m.id)]
    members = [*store.spaces.members(key), *store.spaces.invitations(key)]
    return json.dumps([[m.as_dict() for m in memories], [repr(h) for h in history], [repr(m) for m in members]])


def roles(answer: dict[str, Any]) -> dict[str, str]:
    return {m["user"]: m["role"] for m in answer["spaces"][0]["members"]}


def test_an_admin_creates_a_space_and_manages_its_members(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    with client(server, services, "ann") as http:
        made = http.post("/api/spaces", json={"name": "  Team  "})
        assert made.status_code == 200, made.text
        key = made.json()["spaces"][0]["space"]
        assert made.json()["spaces"][0]["name"] == "Team" and made.json()["spaces"][0]["role"] == "admin"
        added = http.post(f"/api/spaces/{key}/members", json={"user": "bob", "role": "writer"})
        assert added.status_code == 200 and roles(added.json()) == {"ann": "admin"}
        assert added.json()["spaces"][0]["invited"] == [{"user": "bob", "role": "writer"}]
        assert http.post("/api/spaces/Team/members", json={"user": "cid", "role": "reader"}).status_code == 200
    for user in ("bob", "cid"):
        with client(server, services, user) as http:
            offered = http.get("/api/spaces").json()
            assert offered["spaces"] == [] and [i["name"] for i in offered["invitations"]] == ["Team"]
            assert http.post("/api/spaces/Team/accept").json()["message"].startswith("Joined space Team as ")
    with client(server, services, "ann") as http:
        changed = http.patch(f"/api/spaces/{key}/members/cid", json={"role": "admin"})
        assert changed.status_code == 200 and roles(changed.json())["cid"] == "admin"
        removed = http.delete(f"/api/spaces/{key}/members/bob")
        assert removed.status_code == 200 and roles(removed.json()) == {"ann": "admin", "cid": "admin"}
        listed = http.get("/api/spaces").json()
        assert listed["personal"] == "ann" and listed["trust_level"] == 1.0
        assert [(s["name"], s["role"]) for s in listed["spaces"]] == [("Team", "admin")]
    with client(server, services, "cid") as http:
        left = http.post(f"/api/spaces/{key}/leave")
        assert left.status_code == 200 and left.json()["message"] == "Left."
        assert http.get("/api/spaces").json()["spaces"] == []
    assert [m.user for m in services.store.spaces.members(key)] == ["ann"]


def test_managing_is_refused_with_the_fix_and_changes_nothing(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services, bob="reader")
    other = services.spaces.create(Caller("eve"), "Eve's").space.key
    before, before_other = stored(services.store, key), stored(services.store, other)
    with client(server, services, "ann") as http:
        last = http.patch(f"/api/spaces/{key}/members/ann", json={"role": "writer"})
        assert last.status_code == 422 and "last admin" in last.json()["message"]
        assert last.json()["errors"][0]["code"] == "last_admin"
        assert http.post(f"/api/spaces/{key}/leave").status_code == 422
        assert http.delete(f"/api/spaces/{key}/members/ann").status_code == 422
        bad_user = http.post(f"/api/spaces/{key}/members", json={"user": "not a user!", "role": "reader"})
        assert bad_user.status_code == 422 and "is not a user id" in bad_user.json()["message"]
        assert bad_user.json()["errors"][0]["field"] == "user"
        bad_role = http.post(f"/api/spaces/{key}/members", json={"user": "dan", "role": "owner"})
        assert bad_role.status_code == 422 and "use one of reader, writer, admin" in bad_role.json()["message"]
        twice = http.post(f"/api/spaces/{key}/members", json={"user": "bob", "role": "writer"})
        assert twice.status_code == 422 and "already a member" in twice.json()["message"]
        missing = http.post(f"/api/spaces/{key}/members", json={"role": "reader"})
        assert missing.status_code == 422 and missing.json()["errors"][0]["field"] == "user"
        extra = http.post(f"/api/spaces/{key}/members", json={"user": "dan", "role": "reader", "as": "admin"})
        assert extra.status_code == 422 and "Send only user, role" in extra.json()["message"]
        assert http.post(f"/api/spaces/{key}/members", json=["dan"]).status_code == 422
        assert http.post(f"/api/spaces/{key}/members", content=b"{not json").status_code == 422
        huge = http.post(f"/api/spaces/{key}/members", json={"user": "d" * 100_000, "role": "reader"})
        assert huge.status_code == 422 and len(huge.text) < 2_000
        assert http.patch(f"/api/spaces/{key}/members/nobody", json={"role": "writer"}).status_code == 404
        for name in ("", "   ", "~0123456789abcdef", "personal", "x" * 101, "a\x00b", 7):
            refused = http.post("/api/spaces", json={"name": name})
            assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "name", name
        # Another user's space answers as one that does not exist, by key or by name.
        for where in (other, "Eve's", "~ffffffffffffffff", "~nothex", "Nobody at all"):
            refused = http.post(f"/api/spaces/{where}/members", json={"user": "dan", "role": "admin"})
            assert refused.status_code == 404 and "Unknown space" in refused.json()["message"], where
            assert http.post(f"/api/spaces/{where}/leave").status_code == 404
    assert stored(services.store, key) == before and stored(services.store, other) == before_other


def test_only_its_admins_on_a_full_trust_session_manage_a_space(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services, bob="reader")
    before = stored(services.store, key)
    with client(server, services, "bob") as http:  # a reader
        refused = http.post(f"/api/spaces/{key}/members", json={"user": "bob2", "role": "admin"})
        assert refused.status_code == 403 and "you are a reader there" in refused.json()["message"]
        assert http.patch(f"/api/spaces/{key}/members/bob", json={"role": "admin"}).status_code == 403
        assert http.delete(f"/api/spaces/{key}/members/ann").status_code == 403
    with client(server, services, "mallory") as http:  # no member at all
        refused = http.patch(f"/api/spaces/{key}/members/ann", json={"role": "reader"})
        assert refused.status_code == 404 and "Unknown space" in refused.json()["message"]
    with client(server, services, "ann", trust_level=0.5) as http:  # the admin, on a lower-trust session
        refused = http.post(f"/api/spaces/{key}/members", json={"user": "dan", "role": "reader"})
        assert refused.status_code == 403 and "needs a full-trust token" in refused.json()["message"]
    with httpx2.Client(base_url=server.url, headers=WRITE, timeout=30) as http:
        assert http.get("/api/spaces").status_code == 401
        assert http.post(f"/api/spaces/{key}/members", json={"user": "dan", "role": "admin"}).status_code == 401
        http.headers["Authorization"] = "Bearer rmb_wrong"
        assert http.post(f"/api/spaces/{key}/members", json={"user": "dan", "role": "admin"}).status_code == 401
    secret = services.tokens.create("ann").secret  # a write without the dashboard's request header
    with httpx2.Client(base_url=server.url, headers={"Authorization": f"Bearer {secret}"}, timeout=30) as http:
        assert http.post(f"/api/spaces/{key}/members", json={"user": "dan", "role": "admin"}).status_code == 403
    assert stored(services.store, key) == before


def test_lists_searches_and_the_graph_read_the_spaces_asked_for(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services, bob="reader")
    with client(server, services, "ann") as http:
        mine = http.post("/api/memories", json={"content": "My own launch checklist", "title": "Mine"}).json()
        shared = http.post("/api/memories", json={"content": "The launch moved to Friday", "space": key}).json()
        named = http.post("/api/memories", json={"content": "Launch party at the office", "space": "Team"}).json()
    services.memories.create(Caller("bob"), {"content": "Bob's launch notes, his own"})
    acting = services.spaces.writing(Caller("ann"), key)
    services.relationships.create(acting, RelationshipDraft([shared["id"], named["id"]], "about"))
    with client(server, services, "bob") as http:
        every = http.get("/api/memories").json()["memories"]
        assert {m["content"] for m in every} == {
            "The launch moved to Friday", "Launch party at the office", "Bob's launch notes, his own"
        }  # fmt: skip
        assert {m.get("space") for m in every} == {key, None}
        only = http.get("/api/memories", params={"space": key}).json()["memories"]
        assert {m["id"] for m in only} == {shared["id"], named["id"]} and all(m["space"] == key for m in only)
        own = http.get("/api/memories", params={"space": "personal"}).json()["memories"]
        assert [m["content"] for m in own] == ["Bob's launch notes, his own"]
        both = http.get("/api/memories", params=[("space", "personal"), ("space", "Team")]).json()["memories"]
        assert len(both) == 3
        found = http.get("/api/search", params={"q": "launch", "alpha": 0}).json()["results"]
        assert {r["memory"]["id"] for r in found} >= {shared["id"], named["id"]}
        assert mine["id"] not in {r["memory"]["id"] for r in found}  # ann's own memory never reaches bob
        in_team = http.get("/api/search", params={"q": "launch", "alpha": 0, "space": key}).json()["results"]
        assert {r["memory"]["space"] for r in in_team} == {key}
        graph = http.get("/api/graph").json()
        assert {n["id"]: n.get("space") for n in graph["nodes"]} == {shared["id"]: key, named["id"]: key}
        assert http.get("/api/graph", params={"space": "personal"}).json()["nodes"] == []
    with client(server, services, "eve") as http:  # not a member: the space does not exist for her
        for path in ("/api/memories", "/api/search", "/api/graph", "/api/trash"):
            refused = http.get(path, params={"space": key, "q": "launch"} if path == "/api/search" else {"space": key})
            assert refused.status_code == 404 and "Unknown space" in refused.json()["message"], path
        assert http.get("/api/memories").json()["memories"] == []
        assert http.get("/api/search", params={"q": "launch", "alpha": 0}).json()["results"] == []
        many = http.get("/api/memories", params=[("space", "personal")] * 21)
        assert many.status_code == 422 and "at most 20 spaces" in many.json()["message"]


def test_pages_over_several_spaces_walk_every_memory_once_in_order(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services, bob="writer")
    acting = services.spaces.writing(Caller("bob"), key)
    made = [services.memories.create(Caller("bob"), {"content": f"own {n}", "weight": n / 20}) for n in range(7)]
    made += [services.memories.create(acting, {"content": f"team {n}", "weight": n / 19}) for n in range(6)]
    with client(server, services, "bob") as http:
        for sort_by, order in (("created_at", "desc"), ("weight", "asc")):
            seen: list[dict[str, Any]] = []
            cursor = None
            while True:
                query = {"limit": 4, "sort_by": sort_by, "sort_order": order, "cursor": cursor}
                page = http.get("/api/memories", params={k: v for k, v in query.items() if v}).json()
                seen += page["memories"]
                if page["next_cursor"] is None:
                    break
                cursor = page["next_cursor"]
            assert sorted(m["id"] for m in seen) == sorted(m.id for m in made)
            keys = [(m[sort_by], m["id"]) for m in seen]
            assert keys == sorted(keys, reverse=order == "desc")


def test_a_shared_memory_by_id_in_the_space_that_holds_it(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services, bob="reader", cid="writer")
    acting = services.spaces.writing(Caller("ann"), key)
    memory = services.memories.create(acting, {"content": "The launch moved to Friday", "title": "Launch"})
    mine = services.memories.create(Caller("ann"), {"content": "Ann's own"})
    with client(server, services, "cid") as http:  # a writer edits
        edited = http.patch(f"/api/memories/{memory.id}", json={"version": 1, "changes": {"title": "Launch day"}})
        assert edited.status_code == 200, edited.text
    before = stored(services.store, key)
    with client(server, services, "bob") as http:  # a reader reads, and is told why they cannot change
        seen = http.get(f"/api/memories/{memory.id}").json()
        assert seen["space"] == key and seen["created_by"] == "ann" and seen["title"] == "Launch day"
        assert [h["by"] for h in seen["history"]] == ["cid"]
        assert http.get(f"/api/memories/{memory.id}/related").status_code == 200
        assert http.get(f"/api/memories/{memory.id}/duplicates").status_code == 200
        for refused in (
            http.patch(f"/api/memories/{memory.id}", json={"version": 2, "changes": {"title": "x"}}),
            http.delete(f"/api/memories/{memory.id}"),
            http.post(f"/api/memories/{memory.id}/restore"),
            http.post("/api/memories/bulk", json={"memory_ids": [memory.id], "add_tags": ["x"]}),
            http.post("/api/memories", json={"content": "from a reader", "space": key}),
        ):
            assert refused.status_code == 403, refused.text
            assert "You are a reader in space Team" in refused.json()["message"]
    with client(server, services, "eve") as http:  # no member: no such memory
        assert http.get(f"/api/memories/{memory.id}").status_code == 404
        assert (
            http.patch(f"/api/memories/{memory.id}", json={"version": 2, "changes": {"title": "x"}}).status_code == 404
        )
        assert http.delete(f"/api/memories/{memory.id}").status_code == 404
        assert http.post("/api/memories", json={"content": "x", "space": key}).status_code == 404
        assert http.post("/api/memories", json={"content": "x", "space": ["Team"]}).status_code == 422
    assert stored(services.store, key) == before
    with client(server, services, "ann") as http:  # the admin trashes and restores it; personal shows no author
        assert http.delete(f"/api/memories/{memory.id}").status_code == 200
        assert [m["id"] for m in http.get("/api/trash", params={"space": key}).json()["memories"]] == [memory.id]
        assert http.post(f"/api/memories/{memory.id}/restore").status_code == 200
        history = http.get(f"/api/memories/{memory.id}").json()["history"]
        assert [(h["action"], h["by"]) for h in history][:2] == [("restore", "ann"), ("delete", "ann")]
        own = http.get(f"/api/memories/{mine.id}").json()
        assert "created_by" not in own and "space" not in own
    assert logical_fingerprint(services.store, ["eve"]) == logical_fingerprint(services.store, ["nobody"])


def test_a_relationship_goes_to_the_space_of_its_members(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services, bob="reader", cid="writer")
    acting = services.spaces.writing(Caller("ann"), key)
    launch = services.memories.create(acting, {"content": "The launch moved to Friday"}).id
    party = services.memories.create(acting, {"content": "Launch party at the office"}).id
    own = services.memories.create(Caller("cid"), {"content": "Cid's own notes"}).id
    link = {"memory_ids": [launch, party], "relationship_type": "part_of"}
    with client(server, services, "bob") as http:
        refused = http.post("/api/relationships", json=link)
        assert refused.status_code == 403 and "You are a reader in space Team" in refused.json()["message"]
    with client(server, services, "cid") as http:
        mixed = http.post("/api/relationships", json={**link, "memory_ids": [launch, own]})
        assert mixed.status_code == 404  # a relationship lives in one space: cid's own memory is not in Team
        assert services.relationships.links(acting, [launch]).get(launch, []) == []
        made = http.post("/api/relationships", json=link)
        assert made.status_code == 200, made.text
        for broken in ([], [7], "x", None):
            assert http.post("/api/relationships", json={**link, "memory_ids": broken}).status_code in (404, 422)
    assert [r.id for r in services.relationships.links(acting, [launch])[launch]] == [made.json()["id"]]
    assert services.relationships.links(Caller("cid"), [own]).get(own, []) == []


def test_the_graph_of_several_spaces_keeps_the_most_connected_past_its_limit(
    served: tuple[HttpServer, Services],
) -> None:
    server, services = served
    key = team(services, bob="writer")
    acting = services.spaces.writing(Caller("bob"), key)

    def star(caller: Caller, centre: str, spokes: int) -> None:
        hub = services.memories.create(caller, {"content": centre, "title": centre}).id
        for n in range(spokes):
            spoke = services.memories.create(caller, {"content": f"{centre} {n}", "title": f"{centre} {n}"}).id
            services.relationships.create(caller, RelationshipDraft([hub, spoke], "near"))

    star(Caller("bob"), "Home", 2)
    star(acting, "Office", 3)
    with client(server, services, "bob") as http:
        whole = http.get("/api/graph").json()
        assert len(whole["nodes"]) == 7 and len(whole["edges"]) == 5 and whole["sampled"] is False
        assert whole["types"] == [{"relationship_type": "near", "count": 5}]
        kept = http.get("/api/graph", params={"limit": 2}).json()
        assert [n["label"] for n in kept["nodes"]] == ["Office", "Home"]  # the most connected of either space
        assert kept["sampled"] is True and kept["total_memories"] == 7 and kept["edges"] == []
        huge = http.get("/api/graph", params={"space": "~" + "f" * 5_000})
        assert huge.status_code == 404 and len(huge.text) < 1_000
        blank = http.get("/api/graph", params={"space": ""}).json()  # an empty choice is no choice: all
        assert len(blank["nodes"]) == 7


def test_an_invitation_is_answered_by_its_user_alone(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services)
    services.spaces.add_member(Caller("ann"), key, "bob", "writer")
    before = stored(services.store, key)
    for user in ("cid", "ann"):
        with client(server, services, user) as http:
            for verb in ("accept", "decline"):
                refused = http.post(f"/api/spaces/{key}/{verb}")
                assert refused.status_code == 404 and "No invitation to a space" in refused.json()["message"]
    with client(server, services, "bob", trust_level=0.5) as http:
        low = http.post(f"/api/spaces/{key}/accept")
        assert low.status_code == 403 and "full-trust" in low.json()["message"]
    assert stored(services.store, key) == before
    with client(server, services, "bob") as http:
        assert http.post("/api/spaces/Team/decline").json()["message"] == "Declined."
        assert http.get("/api/spaces").json()["invitations"] == []
    assert services.spaces.invitations(Caller("bob")) == []
