"""Shared test options and capability gates."""

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.suite_order import longest_first

# No per-example time limit: speed is measured in bench/, and a loaded 2-core machine must not
# turn a slow example into a failure. Tests that guard against hangs set their own deadline.
settings.register_profile("ssdlab", deadline=None)
settings.load_profile("ssdlab")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
# How long a test waits for something that ends by itself (a command, a process, a row in the
# store) before calling it a hang. A hang detector, never a measure: a machine loaded forty-fold
# finishes every step of the suite long before; only a real hang reaches it.
HANG_S = 1800.0


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files under tests/golden instead of comparing",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest test files first, for xdist's workers (tests/suite_order.py)."""
    items[:] = longest_first(items)


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def assert_golden(path: Path, text: str, update: bool) -> None:
    """Compare `text` with the golden file; with --update-golden, write it instead."""
    if update or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not update:
            pytest.fail(f"golden file {path} did not exist; written now, review and commit it")
        return
    assert text == path.read_text(encoding="utf-8"), f"{path} differs; rerun with --update-golden"


def have_fio() -> bool:
    return shutil.which(os.environ.get("SSDLAB_FIO", "fio")) is not None


needs_fio = pytest.mark.skipif(not have_fio(), reason="fio is not installed")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


SHARED_SMART = SHARED / "testdata" / "smart"


def shared_smart_sample(name: str) -> Path:
    """A real smartctl capture from ../shared/testdata/smart; the test skips when it is absent."""
    path = SHARED_SMART / name
    if not path.exists():
        pytest.skip(f"shared SMART test data not present: {path}")
    return path


def load_json_object(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document
