"""The collection's ssdlab_run module reads `ssdlab node start --batch`'s answer for each of
its targets, and knows a run it started before when the start is sent again later."""

import pytest

pytest.importorskip("ansible")

from ansible_collections.ssdlab.bench.plugins.modules import ssdlab_run


def test_each_command_line_gets_its_job_or_why_not() -> None:
    answers = [{"job": "j1", "dir": "/x/j1"}, {"problem": "cannot make a job folder"}, 7]
    assert ssdlab_run.answered(answers, 3) == [
        {"job": "j1", "dir": "/x/j1"},
        {"problem": "cannot make a job folder"},
        {"problem": "ssdlab node start gave no job id for it"},
    ]


@pytest.mark.parametrize(
    ("answers", "said"),
    [
        ([{"job": "j1"}], "ssdlab node start answered for 1 of 2 runs"),
        ({"job": "j1"}, "ssdlab node start printed no list of job ids"),
        (None, "ssdlab node start printed no list of job ids"),
    ],
)
def test_an_answer_that_does_not_fit_leaves_every_run_unstarted(answers: object, said: str) -> None:
    assert ssdlab_run.answered(answers, 2) == [{"problem": said}] * 2


def test_the_same_start_sent_again_is_the_same_run() -> None:
    words = ["quick", "/mnt/a", "--json", "--start-at", "1800000000.000"]
    assert ssdlab_run.without_sent([*words, "--start-sent-at", "1799999990.500"]) == words
    assert ssdlab_run.without_sent(words) == words


def test_the_node_runs_what_fleet_run_has_it_run() -> None:
    params = {
        "profile": "cache",
        "args": ["--size", "8MiB"],
        "db": "/var/lib/ssdlab.db",
        "start_at": "1800000000.1234",
        "destroy_data": ["/dev/nvme1n1"],
    }
    assert ssdlab_run.node_words(params, "/dev/nvme1n1") == [
        "run", "cache", "/dev/nvme1n1", "--size", "8MiB", "--json",
        "--db", "/var/lib/ssdlab.db", "--start-at", "1800000000.123",
        "--destroy-data", "/dev/nvme1n1",
    ]  # fmt: skip
    assert "--destroy-data" not in ssdlab_run.node_words(params, "/mnt/a")
