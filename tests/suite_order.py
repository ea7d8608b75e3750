"""The order the suite's test files are handed to xdist's workers: the longest first.

`make test` runs `pytest -n 3 --dist loadfile --no-loadscope-reorder`: each test file goes whole
to one worker, in the order collected. xdist's own order (without --no-loadscope-reorder) is by
number of tests, which starts the many short unit files first and leaves files of one or two
long tests (an Ansible deploy into a fresh venv, a fleet endurance run, kill -9 and resume)
to start last and run alone at the end while the other workers sit idle. Handing out the
longest files first (as in longest-processing-time scheduling) lets the short files fill the
workers' ends instead.

LONGEST_FIRST lists the files that took 45 s or more (the sum of their tests' setup, call and
teardown) in a whole-suite run on the 2-core machine (2026-11-29, three workers, other
engineers' suites running too), longest first. It needs no exact upkeep: a file left out runs
in collection order after these, a file listed that no longer exists is ignored (and
tests/unit/test_suite_order.py says so), and no test depends on the order.
"""

from collections.abc import Sequence

import pytest

LONGEST_FIRST = (
    "tests/fleet/test_ansible_playbooks.py",  # 187 s
    "tests/e2e/test_import_inputs.py",  # 141 s
    "tests/e2e/test_write_gate.py",  # 133 s
    "tests/e2e/test_pts.py",  # 120 s
    "tests/fleet/test_fleet_run.py",  # 110 s
    "tests/reliability/test_kill_9.py",  # 109 s
    "tests/e2e/test_quick_baseline.py",  # 106 s
    "tests/e2e/test_report_html.py",  # 97 s
    "tests/e2e/test_store_robustness.py",  # 96 s
    "tests/corpus/test_bench_corpus.py",  # 94 s
    "tests/e2e/test_quick_file.py",  # 89 s
    "tests/reliability/test_faults.py",  # 88 s
    "tests/e2e/test_endure.py",  # 88 s
    "tests/e2e/test_documented_examples.py",  # 88 s
    "tests/e2e/test_sim_cli.py",  # 77 s
    "tests/e2e/test_node_cli.py",  # 76 s
    "tests/fleet/test_ansible_collection.py",  # 69 s
    "tests/fleet/test_fleet_load.py",  # 64 s
    "tests/fleet/test_fleet_doctor_status.py",  # 53-64 s alone (not yet in a whole-suite run)
    "tests/e2e/test_import_cli.py",  # 61 s
    "tests/fuzz/test_fuzz_health.py",  # 61 s
    "tests/e2e/test_card.py",  # 58 s
    "tests/e2e/test_profile_cachefit.py",  # 54 s
    "tests/bench/test_fleet_scale_bench.py",  # 52 s
    "tests/reliability/test_sighup.py",  # 47 s
    "tests/fleet/test_fleet_deploy.py",  # 47 s
    "tests/reliability/test_ctrl_c_at_start.py",  # 45 s
)


def file_of(item: pytest.Item) -> str:
    """The test file an item is collected from, as its node id names it (from the rootdir)."""
    return item.nodeid.split("::", 1)[0]


def longest_first(items: Sequence[pytest.Item]) -> list[pytest.Item]:
    """The items with LONGEST_FIRST's files first, in its order, then every other file's in
    the order collected; within a file the order is kept."""
    rank = {path: at for at, path in enumerate(LONGEST_FIRST)}
    return sorted(items, key=lambda item: rank.get(file_of(item), len(rank)))
