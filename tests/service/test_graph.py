"""The graph of the whole memory against a Python reference, on both backends: random memories (templates, tags,
times, trust levels, some in the trash, some ended) and relationships (types, validity, some ended), asked with random
filters, limits and trust levels; the SQL's memories, degrees, relationships and totals are the reference's."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from remember.caller import Caller
from remember.clock import from_text
from remember.service import Services
from remember.service.graph import GraphRequest
from remember.service.relationships import RelationshipDraft

USER = "ann"
TYPES = ("knows", "about", "part_of")
TAGS = ("red", "blue", "green")
START = datetime(2025, 1, 1, tzinfo=UTC)


@dataclass
class Stored:
    id: str
    template_id: str | None
    tags: tuple[str, ...]
    happened: datetime
    trust: float
    deleted: bool = False
    until: datetime | None = None  # when it stopped being true


@dataclass
class Link:
    id: str
    members: tuple[str, ...]
    kind: str
    since: datetime
    until: datetime | None


def furnished(services: Services, rng: random.Random) -> tuple[list[Stored], list[Link]]:
    me = Caller(USER)
    memories: list[Stored] = []
    for n in range(24):
        happened = START + timedelta(days=rng.randrange(700))
        tags = tuple(sorted(rng.sample(TAGS, rng.randrange(3))))
        trust = rng.choice((0.3, 0.6, 0.9))
        draft: dict[str, Any] = {"content": f"memory {n}", "title": f"M{n}", "tags": list(tags), "trust": trust,
                                 "context": {"timestamp": happened.isoformat()}}  # fmt: skip
        templated = rng.random() < 0.4
        if templated:
            draft = {**draft, "template_id": "builtin:idea", "structured_content": {"title": f"M{n}"}}
        made = services.memories.create(me, draft)
        memories.append(Stored(made.id, made.template_id, made.tags, made.occurred_at, trust))
    links: list[Link] = []
    for _ in range(50):
        members = tuple(m.id for m in rng.sample(memories, rng.choice((2, 2, 2, 3))))
        since = START + timedelta(days=rng.randrange(400))
        until = since + timedelta(days=rng.randrange(1, 800)) if rng.random() < 0.4 else None
        rel = services.relationships.create(
            me, RelationshipDraft(list(members), rng.choice(TYPES), valid_from=since.isoformat(),
                                  valid_until=until.isoformat() if until else None),
        )  # fmt: skip
        links.append(Link(rel.id, members, rel.relationship_type, since, until))
    for memory in rng.sample(memories, 3):
        services.memories.delete(me, memory.id)
        memory.deleted = True
    for memory in rng.sample([m for m in memories if not m.deleted], 3):  # no longer true
        memory.until = memory.happened + timedelta(days=1)
        services.memories.update(me, memory.id, {"valid_until": memory.until.isoformat()})
    return memories, links


def reference(
    memories: list[Stored], links: list[Link], request: GraphRequest, trust: float, now: datetime
) -> tuple[dict[str, int], set[str]]:
    """The degree of every memory the request reaches, and the relationships it admits."""
    by_id = {m.id: m for m in memories}
    since = from_text(request.since) if request.since else None
    until = from_text(request.until) if request.until else None

    def current(m: Stored) -> bool:
        return request.include_ended or m.until is None or m.until > now

    def member_fits(m: Stored) -> bool:
        if not current(m):
            return False
        if request.template_ids and m.template_id not in request.template_ids:
            return False
        if request.tags and not set(request.tags) & set(m.tags):
            return False
        if request.dated_by == "happened":
            if since is not None and m.happened < since:
                return False
            if until is not None and m.happened >= until:
                return False
        return True

    def admitted(link: Link) -> bool:
        members = [by_id[i] for i in link.members]
        if any(m.deleted or m.trust > trust for m in members):
            return False
        if request.types and link.kind not in request.types:
            return False
        if not request.include_ended and link.until is not None and link.until <= now:
            return False
        if sum(current(m) for m in members) < 2:
            return False
        if request.dated_by == "valid":
            if until is not None and link.since >= until:
                return False
            if since is not None and link.until is not None and link.until <= since:
                return False
        return any(member_fits(m) for m in members)

    kept = {link.id for link in links if admitted(link)}
    degree: dict[str, int] = {}
    for link in links:
        if link.id in kept:
            for m in link.members:
                if current(by_id[m]):
                    degree[m] = degree.get(m, 0) + 1
    return degree, kept


def random_request(rng: random.Random, memories: list[Stored]) -> GraphRequest:
    day = lambda: (START + timedelta(days=rng.randrange(750))).date().isoformat()  # noqa: E731
    since, until = sorted((day(), day()))
    dated = rng.random() < 0.5
    return GraphRequest(
        types=rng.sample(TYPES, rng.randrange(2)), tags=rng.sample(TAGS, rng.randrange(2)),
        template_ids=["builtin:idea"] if rng.random() < 0.2 else [],
        since=since if dated and since != until else None, until=until if dated and since != until else None,
        dated_by=rng.choice(("happened", "valid")), include_ended=rng.random() < 0.5,
        limit=rng.choice((3, 8, 1_000)),
    )  # fmt: skip


def test_the_graph_is_the_references(services: Services) -> None:
    rng = random.Random(42)
    memories, links = furnished(services, rng)
    for _ in range(60):
        request = random_request(rng, memories)
        trust = rng.choice((0.5, 1.0))
        graph = services.graph.graph(Caller(USER, trust=trust), request)
        now = services.graph.clock()
        degree, kept = reference(memories, links, request, trust, now)
        said = (request, trust)
        assert (graph.total_memories, graph.total_relationships) == (len(degree), len(kept)), said
        drawn = {n.id: n.degree for n in graph.nodes}
        assert all(degree[i] == d for i, d in drawn.items()), said
        assert len(drawn) == min(len(degree), request.limit), said
        if drawn:  # the most connected: none left out has more relationships than one drawn
            assert max((d for i, d in degree.items() if i not in drawn), default=0) <= min(drawn.values()), said
        among = {link.id for link in links if link.id in kept and sum(m in drawn for m in link.members) >= 2}
        assert {e.id for e in graph.edges} == among, said
        for edge in graph.edges:
            assert all(m in drawn for m in edge.memory_ids) and len(edge.memory_ids) >= 2, said
        assert graph.sampled == (len(drawn) < len(degree) or len(among) < len(kept)), said
