"""A fleet follows all of a node's runs through one `ssdlab node follow` (issue #32, item 5):
the node's records name their job, a dropped connection is taken up again where each job's
output was, a run that ended is not asked for again, and a node silent for too long is given
up for its runs that had not ended. The connection is a stand-in that replays node lines."""

import json
from collections.abc import Iterator, Sequence

import pytest

from ssdlab.fleet import launch
from ssdlab.fleet.launch import NodeJob, follow_jobs
from ssdlab.model.fleet import FleetHost
from ssdlab.system.ssh import SshSettings

HOST = FleetHost("node1", "node1", targets=("/mnt/a", "/mnt/b"))
OTHER = FleetHost("node2", "node2", targets=("/mnt/c",))


def _line(job: str, **record: object) -> str:
    return json.dumps({"job": job, **record})


class _Connections:
    """Each `node follow` as it was asked for, answered with the next of `sessions` (lines,
    ssh's exit code) for its host; a host with no session left answers nothing, as a cut one."""

    def __init__(self, sessions: dict[str, list[tuple[list[str], int]]]) -> None:
        self.sessions = sessions
        self.asked: list[tuple[str, list[str]]] = []

    def __call__(self, host: FleetHost, words: Sequence[str], _settings: object) -> "_Stream":
        self.asked.append((host.name, list(words)))
        left = self.sessions.get(host.name, [])
        lines, code = left.pop(0) if left else ([], 255)
        return _Stream(lines, code)


class _Stream:
    def __init__(self, lines: list[str], code: int) -> None:
        self._lines, self._code = lines, code

    def lines(self) -> Iterator[str]:
        yield from self._lines

    def finish(self) -> tuple[int, str]:
        return self._code, "" if self._code == 0 else "Connection reset by peer"


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> _Connections:
    made = _Connections({})
    monkeypatch.setattr(launch, "RemoteStream", made)
    monkeypatch.setattr(launch, "RECONNECT_PAUSE_S", 0.0)
    return made


def _jobs() -> list[NodeJob]:
    return [
        NodeJob(HOST, "/mnt/a", ("quick", "/mnt/a"), job="ja"),
        NodeJob(HOST, "/mnt/b", ("quick", "/mnt/b"), job="jb"),
        NodeJob(HOST, "/mnt/x", (), problem="exit 1: no such target"),
        NodeJob(OTHER, "/mnt/c", ("quick", "/mnt/c"), job="jc"),
    ]


def test_one_follow_per_host_resumes_every_job_where_it_was(connections: _Connections) -> None:
    connections.sessions["node1"] = [
        (
            [
                _line("ja", stream="stderr", offset=0, text="a: [1/2]\n"),
                _line("jb", stream="stderr", offset=0, text="b: refused, mounted\n"),
                _line("jb", exit=3, ended_at_s=1.0),
                _line("ja", stream="stdout", offset=0, text='{"run_id": 7'),
            ],
            255,  # the connection drops with ja still running
        ),
        (
            [
                _line("ja", stream="stdout", offset=12, text="}\n"),
                _line("ja", exit=0, ended_at_s=2.0),
            ],
            0,
        ),
    ]
    connections.sessions["node2"] = [([_line("jc", exit=0, ended_at_s=1.0)], 0)]
    said: list[tuple[str, str]] = []
    outcomes = follow_jobs(_jobs(), SshSettings(), lambda s, t: said.append((s, t)), 60.0, "later")
    a, b, x, c = outcomes
    assert (a.exit_code, a.stdout, a.lost) == (0, '{"run_id": 7}\n', None)
    assert (b.exit_code, b.said) == (3, "b: refused, mounted")
    assert (x.job, x.lost) == (None, "exit 1: no such target")
    assert c.ok
    node1 = [words for host, words in connections.asked if host == "node1"]
    assert len(node1) == 2  # one follow for both jobs, then one reconnect
    assert node1[0][-2:] == ["ja:0:0", "jb:0:0"]
    assert node1[1][-1:] == ["ja:12:9"]  # jb has ended; ja goes on at its bytes
    assert ("node1 /mnt/a", "a: [1/2]") in said
    assert ("node1 /mnt/b", "b: refused, mounted") in said


def test_a_node_silent_too_long_is_given_up_for_its_running_jobs(
    connections: _Connections,
) -> None:
    connections.sessions["node1"] = [([_line("jb", exit=0, ended_at_s=1.0)], 255)]
    connections.sessions["node2"] = [([_line("jc", exit=0, ended_at_s=1.0)], 0)]
    a, b, _x, c = follow_jobs(_jobs(), SshSettings(), lambda *_: None, 0.0, "see fleet status")
    assert a.lost is not None
    assert "lost contact (Connection reset by peer)" in a.lost
    assert a.lost.endswith("the run goes on there: see fleet status")
    assert (b.ok, c.ok) == (True, True)


def test_a_job_whose_supervisor_is_gone_is_lost_alone(connections: _Connections) -> None:
    connections.sessions["node1"] = [
        (
            [
                _line("ja", exit=None, lost="its supervisor (pid 9) ended"),
                _line("jb", exit=0, ended_at_s=1.0),
                _line("unknown", exit=0),  # not a job of this follow: ignored
            ],
            0,
        )
    ]
    connections.sessions["node2"] = [([_line("jc", exit=0, ended_at_s=1.0)], 0)]
    a, b, _x, _c = follow_jobs(_jobs(), SshSettings(), lambda *_: None, 60.0, "later")
    assert a.lost == "the run's supervisor on the node is gone (its supervisor (pid 9) ended)"
    assert b.ok
