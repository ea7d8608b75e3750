"""Fixtures the application tests share."""

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.app.run_store import open_run_store
from tests.conftest import ROOT

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """A copy of the store an earlier ssdlab wrote (tests/data/store/main-98b38bc.sqlite:
    quick, profile, import, sim, health and endurance runs), opened and migrated."""
    copy = tmp_path / "store.sqlite"
    shutil.copyfile(OLD_STORE, copy)
    opened = open_run_store(copy)
    try:
        yield opened
    finally:
        opened.close()
