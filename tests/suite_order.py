"""The order the suite's test files are handed to xdist's workers: the longest first.

`make test` runs `pytest -n 3 --dist loadfile --no-loadscope-reorder`: each test file goes whole
to one worker, in the order collected. xdist's own order (without --no-loadscope-reorder) is by
number of tests, which starts the many short unit files first and leaves files of one or two
long tests (an Ansible deploy into a fresh venv, a fleet endurance run, kill -9 and resume)
to start last and run alone at the end while the other workers sit idle. Handing out the
longest files first (as in longest-processing-time scheduling) lets the short files fill the
workers' ends instead.

LONGEST_FIRST lists the files that took 40 s or more (the sum of their tests' setup, call and
teardown, `--durations=0`) in a whole-suite run on the 2-core machine (2026-11-30, commit
1b7dc4c, three workers, a `nice -n 19` simulation beside it), longest first. It needs no exact
upkeep: a file left out runs in collection order after these, a file listed that no longer
exists is ignored (and tests/unit/test_suite_order.py says so), and no test depends on the
order.
"""

from collections.abc import Sequence

import pytest

LONGEST_FIRST = (
    "tests/e2e/test_import_inputs.py",  # 96 s
    "tests/fleet/test_fleet_deploy.py",  # 95 s (one test of 77 s)
    "tests/fleet/test_fleet_run.py",  # 92 s
    "tests/e2e/test_pts.py",  # 92 s
    "tests/reliability/test_kill_9.py",  # 90 s
    "tests/e2e/test_report_html.py",  # 81 s
    "tests/e2e/test_idle_gc_virtual.py",  # about 75 s alone (two trial HIR runs; added since)
    "tests/e2e/test_write_gate.py",  # 77 s
    "tests/e2e/test_quick_baseline.py",  # 75 s
    "tests/reliability/test_faults.py",  # 74 s
    "tests/e2e/test_documented_examples.py",  # 71 s
    "tests/fleet/test_ansible_playbooks.py",  # 66 s
    "tests/e2e/test_quick_file.py",  # 63 s
    "tests/e2e/test_store_robustness.py",  # 62 s
    "tests/e2e/test_profile_cachefit.py",  # 60 s
    "tests/fleet/test_ansible_collection.py",  # 58 s
    "tests/fuzz/test_fuzz_health.py",  # 56 s
    "tests/e2e/test_model_fit.py",  # 51 s
    "tests/corpus/test_bench_corpus.py",  # 50 s
    "tests/e2e/test_endure.py",  # 49 s
    "tests/bench/test_fleet_scale_bench.py",  # 45 s
    "tests/unit/analysis/test_model_fit_joint.py",  # 42 s
    "tests/e2e/test_interval_fio.py",  # 41 s
)


def file_of(item: pytest.Item) -> str:
    """The test file an item is collected from, as its node id names it (from the rootdir)."""
    return item.nodeid.split("::", 1)[0]


def longest_first(items: Sequence[pytest.Item]) -> list[pytest.Item]:
    """The items with LONGEST_FIRST's files first, in its order, then every other file's in
    the order collected; within a file the order is kept."""
    rank = {path: at for at, path in enumerate(LONGEST_FIRST)}
    return sorted(items, key=lambda item: rank.get(file_of(item), len(rank)))
