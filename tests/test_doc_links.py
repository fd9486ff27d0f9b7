"""The docs and the benchmark results link to each other by relative paths and headings: every such link
resolves, and no page of the docs grows past what a reader takes in (its dated runs go to bench/results/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("bench/results/*.md"), ROOT / "README.md", ROOT / "CHANGELOG.md"])
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```.*?^\s*```", re.M | re.S)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.+)$", FENCE.sub("", page.read_text()), re.M):
        name = slug(heading)
        found.add(f"{name}-{seen[name]}" if name in seen else name)
        seen[name] = seen.get(name, 0) + 1
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    text = FENCE.sub("", page.read_text()).replace("\n", " ")
    for link in LINK.findall(text):
        if re.match(r"^[a-z]+:", link):
            continue
        path, _, fragment = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.exists(), f"{page.relative_to(ROOT)}: {link}"
        if fragment and target.suffix == ".md":
            assert fragment in anchors(target), f"{page.relative_to(ROOT)}: {link}"


@pytest.mark.parametrize("page", sorted(ROOT.glob("docs/*.md")), ids=lambda p: p.name)
def test_no_docs_page_is_over_500_lines(page: Path) -> None:
    assert len(page.read_text().splitlines()) <= 500
