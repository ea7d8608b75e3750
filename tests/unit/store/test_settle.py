"""The store made durable before a pass on the target's device: through SQLite's own
descriptors, so that no lock of SQLite's is dropped (closing any other descriptor of the file
would drop them all)."""

import os
from pathlib import Path

from ssdlab.store.db import open_store
from ssdlab.store.settle import settle_store, store_descriptors


def test_the_stores_own_descriptors_are_synced_and_none_is_opened(tmp_path: Path) -> None:
    database = tmp_path / "runs.db"
    conn = open_store(database)
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS t (x)")
        conn.commit()
        held = store_descriptors(database)
        paths = {os.readlink(f"/proc/self/fd/{fd}") for fd in held}
        assert str(database.resolve()) in paths
        assert f"{database.resolve()}-shm" in paths
        before = sorted(os.listdir("/proc/self/fd"))
        settle_store(conn)
        assert store_descriptors(database) == held
        assert sorted(os.listdir("/proc/self/fd")) == before
        conn.execute("INSERT INTO t VALUES (1)")
        conn.commit()
    finally:
        conn.close()
    assert store_descriptors(database) == ()
