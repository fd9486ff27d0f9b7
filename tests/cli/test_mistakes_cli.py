"""Mistakes on the command line, said under the usage of the command they were made in, with the names close
to a mistyped one and the flags that set each field (never the service's field paths)."""

from __future__ import annotations

import pytest

from remember.cli import main
from support import run, run_json


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``remember ARGV``, which must stop at reading the command line (exit 2): its stderr."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


@pytest.mark.parametrize(
    ("argv", "usage", "says"),
    [
        (["lst"], "usage: remember [-h]", "remember: error: unknown command 'lst'. Did you mean list?"),
        (["serach", "x"], "usage: remember [-h]", "Did you mean search?"),
        (["template", "lst"], "usage: remember template", "remember template: error: unknown action 'lst'. "
                                                          "Did you mean list?"),
        (["prefs", "gte"], "usage: remember prefs", "unknown action 'gte'. Did you mean get?"),
        (["add", "x", "--wieght", "0.3"], "usage: remember add", "remember add: error: unknown option --wieght. "
                                                                "Did you mean --weight?"),
        (["add", "x", "--wieght=0.3"], "usage: remember add", "Did you mean --weight?"),
        (["list", "--sicne", "2026-01-01"], "usage: remember list", "Did you mean --since?"),
        (["template", "list", "--categroy", "x"], "usage: remember template list", "Did you mean --category?"),
        (["list", "--sort", "wieght"], "usage: remember list", "--sort: invalid choice: 'wieght' (choose from "
                                                               "created_at, updated_at, weight, occurred_at). "
                                                               "Did you mean weight?"),
        (["get", "abcd", "efgh"], "usage: remember get", "unexpected argument 'efgh'"),
        (["add", "x", "--zzzzzz"], "usage: remember add", "unknown option --zzzzzz. `remember add --help` lists"),
    ],
)  # fmt: skip
def test_a_mistyped_name_is_answered_with_the_close_ones(
    capsys: pytest.CaptureFixture[str], argv: list[str], usage: str, says: str
) -> None:
    err = usage_error(capsys, *argv)
    assert err.startswith(usage) and says in err


def test_a_mistyped_option_stores_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    usage_error(capsys, "add", "x", "--wieght", "0.3")
    assert run_json(capsys, "list")["total"] == 0


def test_a_negative_number_is_a_value_not_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "add", "x", "--weight", "-1")
    assert code == 1 and "--weight must be a number from 0 to 1" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["add", "x", "--when", "tomorrow"], "- --when: 'tomorrow' is not an ISO 8601 date"),
        (["update", "{id}", "--when", "later"], "- --when: 'later' is not an ISO 8601 date"),
        (["list", "--since", "garbage"], "- --since: 'garbage' is not an ISO 8601 date"),
        (["list", "--until", "nope"], "- --until: 'nope' is not an ISO 8601 date"),
        (["add", "x", "--tag", ""], "- --tag: Each tag must be a text of 1 to 64 characters"),
        (["add", "x", "--ref", "ftp://x"], "- --ref: Each reference must be an http:// or https:// URL"),
        (["add", "x", "--weight", "2", "--trust", "3"], "- --weight must be a number from 0 to 1; got 2.0.\n"
                                                        "- --trust must be a number from 0 to 1; got 3.0."),
        (["list", "--limit", "0"], "remember list: error: --limit must be a whole number from 1 to 100."),
        (["list", "--type", "Bad Type!"], "- --type may hold letters"),
        (["list", "--filter", '{"colour": 1}'], "- --filter colour: Unknown filter field 'colour'"),
        (["context", "q", "--token-budget", "5"], "--token-budget must be a whole number from 100 to 32000."),
        (["related", "{id}", "--depth", "9"], "--depth must be a whole number from 1 to 3."),
        (["relationships", "search", "--after", "nope"], "- --after: 'nope' is not an ISO 8601 date"),
        (["search", "x", "--limit", "500"], "--limit must be a whole number from 1 to 100"),
        (["similar"], "Give a memory's ID or --text TEXT, not both."),
        (["add", "--template", "book_review", "--field", "rating=9"], "- --field rating: Rate from 1 to 5"),
        (["add", "--template", "book_review"], "- --field author: author is required"),
    ],
)  # fmt: skip
def test_bad_values_are_named_by_their_flags(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    made = run_json(capsys, "add", "a note", "--no-suggestion")["id"]
    code, out, err = run(capsys, *(a.replace("{id}", made) for a in argv))
    assert (code, out) == (1, "")
    assert err.startswith(f"usage: remember {argv[0]}")
    assert says in err
    for path in ("context.timestamp", "arguments.", "tags[0]", "references[0]", "token_budget", "filters.", "limit:"):
        assert path not in err
    assert run_json(capsys, "list")["total"] == 1


def test_an_unknown_id_is_said_without_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "get", "nope-nope")
    assert code == 1
    assert err.startswith("remember get: error: No memory with id 'nope-nope'")
