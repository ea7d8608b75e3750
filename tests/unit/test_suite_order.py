"""The suite's file order (tests/suite_order.py): the longest files first, every other file
after them as collected, and every file it names still there."""

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.suite_order import LONGEST_FIRST, file_of, longest_first


def test_every_listed_file_exists_once() -> None:
    missing = [path for path in LONGEST_FIRST if not (ROOT / path).is_file()]
    assert missing == [], "rename or drop these in tests/suite_order.py"
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)


def test_this_file_is_after_the_listed_ones_and_in_place(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    files = list(dict.fromkeys(file_of(item) for item in items))
    listed = [path for path in LONGEST_FIRST if path in files]
    assert files[: len(listed)] == listed  # the collected order is longest_first's
    here = file_of(request.node)
    assert here not in LONGEST_FIRST
    assert Path(ROOT / here).resolve() == Path(__file__).resolve()


def test_the_order_keeps_each_files_tests_together_and_in_order(
    request: pytest.FixtureRequest,
) -> None:
    items = request.session.items
    ordered = longest_first(list(reversed(items)))
    assert sorted(ordered, key=id) == sorted(items, key=id)  # nothing lost, nothing added
    seen: list[str] = []
    for item in ordered:
        if not seen or seen[-1] != file_of(item):
            assert file_of(item) not in seen, f"{file_of(item)} split apart"
            seen.append(file_of(item))
