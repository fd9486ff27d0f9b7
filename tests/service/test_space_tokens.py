"""A token limited to spaces: which spaces it may name when it is made, how the limit is stored, and that a
caller carrying it reaches those spaces only (the HTTP tests run the same over real tokens)."""

from __future__ import annotations

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied, NotFound, ValidationFailed
from remember.service import MemoryDraft, Services

ANN = Caller("ann")


def _spaces(services: Services) -> tuple[str, str, str]:
    """Ann's "Team" and "Side", and Bob's "Bobs" (Ann is not in it)."""
    team = services.spaces.create(ANN, "Team").space.key
    side = services.spaces.create(ANN, "Side").space.key
    bobs = services.spaces.create(Caller("bob"), "Bobs").space.key
    return team, side, bobs


def test_a_limit_names_spaces_the_user_is_in_and_is_stored_with_the_token(services: Services) -> None:
    team, _, _ = _spaces(services)
    limit = services.spaces.limit(ANN, ["Team", "personal", team])
    assert limit == frozenset({team, "ann"})
    made = services.tokens.create("ann", spaces=limit)
    stored = services.store.tokens.get(made.token.id)
    assert stored is not None and stored.spaces == frozenset({team, "ann"})
    assert services.spaces.limit_names(ANN, stored.spaces) == ["Team", "personal"]
    assert services.spaces.limit(ANN, None) is None
    unlimited = services.store.tokens.get(services.tokens.create("ann").token.id)
    assert unlimited is not None and unlimited.spaces is None and unlimited.public()["spaces"] is None


@pytest.mark.parametrize(
    ("given", "error", "says"),
    [
        (["Nowhere"], NotFound, "Unknown space 'Nowhere'"),
        (["Bobs"], NotFound, "Unknown space 'Bobs'"),
        (["~0123456789abcdef"], NotFound, "Unknown space"),
        (["bob"], NotFound, "Unknown space 'bob'"),  # another user's personal space is a name like any other
        ([""], ValidationFailed, "Name a space"),
        ([None], ValidationFailed, "Name a space"),
        ([], ValidationFailed, "Name the spaces"),
        ("Team", ValidationFailed, "Name the spaces"),
        (["x" * 100_000], NotFound, "Unknown space"),
        ([f"s{i}" for i in range(1000)], ValidationFailed, "at most 20 spaces"),
    ],
)
def test_a_limit_is_refused_clearly_for_spaces_the_user_is_not_in(
    services: Services, given: object, error: type[Exception], says: str
) -> None:
    _, _, bobs = _spaces(services)
    named = [bobs if g == "~0123456789abcdef" else g for g in given] if isinstance(given, list) else given
    with pytest.raises(error, match=says):
        services.spaces.limit(ANN, named)  # type: ignore[arg-type]


def test_a_limited_token_makes_tokens_limited_as_much(services: Services) -> None:
    team, side, _ = _spaces(services)
    limited = Caller("ann", spaces=frozenset({team}))
    assert services.spaces.limit(limited, None) == frozenset({team})
    with pytest.raises(NotFound, match="Unknown space 'Side'"):
        services.spaces.limit(limited, ["Side"])
    with pytest.raises(NotFound, match="Unknown space"):
        services.spaces.limit(limited, [side])
    with pytest.raises(NotFound, match="Unknown space 'personal'"):
        services.spaces.limit(limited, ["personal"])


def test_a_limited_caller_acts_only_in_its_spaces(services: Services) -> None:
    team, side, _ = _spaces(services)
    limited = Caller("ann", spaces=frozenset({team, side}))
    with pytest.raises(ValueError, match="does not reach"):
        limited.in_space("ann")
    assert sorted(c.user for c in services.spaces.reading(limited, None)) == sorted([team, side])
    assert sorted(s.space.key for s in services.spaces.list(limited)) == sorted([team, side])
    with pytest.raises(ValidationFailed, match="Name the space to write to: this token reaches Side, Team"):
        services.spaces.writing(limited, None)
    with pytest.raises(AccessDenied, match="cannot create space"):
        services.spaces.create(limited, "Third")
    own = services.memories.store_new(ANN.in_space("ann"), MemoryDraft(content="ann's own note")).memory
    with pytest.raises(NotFound, match=f"No memory with id {own.id!r}"):
        services.spaces.on_memory(limited, own.id)
    with pytest.raises(NotFound, match="No memory with id"):
        services.spaces.on_memory(limited, None)


def test_a_session_limited_to_spaces_sees_and_revokes_only_tokens_within_its_limit(services: Services) -> None:
    team, _, _ = _spaces(services)
    whole = services.tokens.create("ann").token
    inside = services.tokens.create("ann", spaces=frozenset({team})).token
    wider = services.tokens.create("ann", spaces=frozenset({team, "ann"})).token
    limit = frozenset({team})
    assert [t.id for t in services.tokens.list("ann", within=limit)] == [inside.id]
    for token in (whole, wider):
        with pytest.raises(NotFound, match="No token with id"):
            services.tokens.revoke(token.id, user_id="ann", within=limit)
    assert {t.id for t in services.tokens.list("ann")} == {whole.id, inside.id, wider.id}
    assert all(t.revoked_at is None for t in services.tokens.list("ann"))
    assert services.tokens.revoke(inside.id, user_id="ann", within=limit).revoked_at is not None
