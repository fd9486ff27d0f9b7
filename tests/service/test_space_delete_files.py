"""A deleted space leaves none of its index files beside the database (approximate vectors, ranked keywords)."""

from __future__ import annotations

from pathlib import Path

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied
from remember.search.embedders.minilm import MiniLMEmbedder
from remember.service import Services
from remember.store import open_store
from remember.store.index_files.files import user_stem

ANN, BEN = Caller("ann"), Caller("ben")


def _files_of(root: Path, owner: str) -> list[str]:
    stem = user_stem(owner)
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if stem in p.name)


@pytest.fixture
def indexed(store_url: str, tmp_path: Path, embedder: MiniLMEmbedder) -> Services:
    """Ann's personal space and her space "Team", each past the sizes at which index files are kept."""
    store = open_store(store_url, vector_index_min=10, keyword_index_min=10, keywords_home=tmp_path / "keywords")
    services = Services.over(store, embedder=embedder)
    key = services.spaces.create(ANN, "Team").space.key
    services.spaces.add_member(ANN, key, "ben", "writer")
    services.spaces.accept(BEN, key)
    for owner in (ANN, services.spaces.writing(ANN, key)):
        for n in range(14):
            services.memories.create(owner, {"content": f"the boiler service visit number {n} went well"})
        services.indexer.build_vector_index(owner.user)
        services.indexer.build_keyword_index(owner.user)
    return services


def test_deleting_a_space_removes_its_index_files_and_no_one_else_s(
    indexed: Services, tmp_path: Path, backend: str
) -> None:
    services = indexed
    key = services.spaces.reading(ANN, ["Team"])[0].user
    readers = services.spaces.reading(ANN, None)
    from remember.service import space_reads

    assert space_reads.search(services.search, readers, "boiler visit", limit=30, record_access=False).hits
    kept, theirs = _files_of(tmp_path, "ann"), _files_of(tmp_path, key)
    assert theirs and kept  # the indexes are open in this process, and on disk
    if backend == "sqlite":  # both kinds of file: the vector index is kept by the SQLite backend only
        assert any(".vectors" in f for f in theirs) and any(".keywords" in f for f in theirs)
    with pytest.raises(AccessDenied):
        services.spaces.delete(BEN, "Team")  # a writer may not: nothing is removed
    assert _files_of(tmp_path, key) == theirs
    services.spaces.delete(ANN, "Team")
    assert _files_of(tmp_path, key) == []
    assert _files_of(tmp_path, "ann") == kept
    left = space_reads.search(services.search, services.spaces.reading(ANN, None), "boiler", limit=30)
    assert len(left.hits) == 14 and {h.memory.user_id for h in left.hits} == {"ann"}
    services.close()


def test_a_space_deleted_by_another_process_leaves_no_files_either(
    indexed: Services, store_url: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """A process that never opened the space's indexes (``remember space delete``) removes them too."""
    key = indexed.spaces.reading(ANN, ["Team"])[0].user
    theirs = _files_of(tmp_path, key)
    indexed.close()
    store = open_store(store_url, vector_index_min=10, keyword_index_min=10, keywords_home=tmp_path / "keywords")
    other = Services.over(store, embedder=embedder)
    assert _files_of(tmp_path, key) == theirs and theirs
    other.spaces.delete(ANN, key)
    assert _files_of(tmp_path, key) == [] and _files_of(tmp_path, "ann")
    other.close()
