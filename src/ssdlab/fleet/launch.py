"""A fleet run's node commands: the same command on every target of every node, detached there
(a cut network or a closed laptop never stops it), all waiting for one start time, then
followed here.

Each node runs ssdlab itself (`ssdlab node start --batch`, the command lines `quick TARGET …`
of all its targets, sent by the collection's ssdlab_run module: fleet/run_play.py), so every
safety rule runs on the machine that owns the device, against its own mount table and
holders; a device is written only when the inventory names it in `ssdlab_destroy_data` as well
as in `ssdlab_targets` (`--destroy-data`, as on one machine). The node's store keeps the run.
Following is ssdlab's own ssh: one `ssdlab node follow` a host streams the progress lines of
all its runs as they come and resumes each where it was after a dropped connection.
"""

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ssdlab.model.fleet import FleetHost, JobOutcome
from ssdlab.system.ssh import RemoteStream, SshSettings

RECONNECT_PAUSE_S = 2.0

# options a fleet sets per node from the inventory; given after -- they would fight it
FLEET_SET = ("--db", "--destroy-data", "--start-at", "--start-sent-at", "--json")


@dataclass(frozen=True, slots=True)
class NodeJob:
    """One run to start (or started) on one target of one node."""

    host: FleetHost
    target: str
    words: tuple[str, ...]  # the ssdlab command the node runs, without the command itself
    job: str | None = None  # the node's job id once started
    problem: str | None = None  # why it did not start


def profile_words(profile: str) -> tuple[str, ...]:
    """The command that runs `profile` on one machine: quick, endure, or run PROFILE."""
    if profile in ("quick", "endure"):
        return (profile,)
    return ("run", profile)


def fleet_option(word: str) -> str | None:
    """The option of FLEET_SET that `word` names in any spelling argparse takes for it: in
    full, as --option=value, or cut short (`--destroy-dat`, `--destroy`, `--start`), which an
    argparse that allows abbreviations (a node's older ssdlab) expands; None for any other word.
    No option of a profile is itself the beginning of one of these, so a word cut short that
    could begin two options (`--d`) is refused too: no command line needs it."""
    name = word.split("=", 1)[0]
    if len(name) < 3 or not name.startswith("--"):
        return None  # a value, a short option, or the -- that ends the options
    return next((option for option in FLEET_SET if option.startswith(name)), None)


def set_by_fleet(profile_args: Sequence[str]) -> list[str]:
    """The words after -- that name an option the fleet sets itself from the inventory."""
    return [arg for arg in profile_args if fleet_option(arg) is not None]


def node_words(
    host: FleetHost, target: str, profile: str, profile_args: Sequence[str], start_at_s: float
) -> tuple[str, ...]:
    """What the node runs for one target: its store, the synchronized start, and
    --destroy-data only for a target the inventory names twice."""
    words = [*profile_words(profile), target, *profile_args, "--json"]
    if host.db is not None:
        words += ["--db", host.db]
    words += ["--start-at", f"{start_at_s:.3f}"]
    if target in host.destroy_data:
        words += ["--destroy-data", target]
    return tuple(words)


def _store_words(host: FleetHost) -> list[str]:
    return ["--db", host.db] if host.db is not None else []


# a progress line of a node's run, with what it comes from ("node1 /mnt/ssd")
OnLine = Callable[[str, str], None]


@dataclass(slots=True)
class _Followed:
    """What this machine has read of one job: its outputs' offsets, its document, its end."""

    job: NodeJob
    offsets: dict[str, int] = field(default_factory=lambda: {"stdout": 0, "stderr": 0})
    stdout: list[str] = field(default_factory=list)
    exit_code: int | None = None
    lost: str | None = None
    said: str | None = None

    @property
    def ended(self) -> bool:
        return self.exit_code is not None or self.lost is not None

    def point(self) -> str:
        """`JOB:STDOUT:STDERR`: where `node follow` goes on with this job."""
        return f"{self.job.job}:{self.offsets['stdout']}:{self.offsets['stderr']}"

    def outcome(self) -> JobOutcome:
        job = self.job
        return JobOutcome(
            job.host.name,
            job.target,
            job.job,
            self.exit_code,
            self.lost,
            "".join(self.stdout),
            self.said,
        )


class _HostFollower:
    """Follows every started job of one node to its end through one `node follow`,
    reconnecting after a dropped connection and resuming each job where its output was (the
    node counts bytes per stream)."""

    def __init__(
        self,
        jobs: Sequence[NodeJob],
        settings: SshSettings,
        on_line: OnLine,
        patience_s: float,
        later: str,
    ):
        self.host = jobs[0].host
        self.followed = {str(job.job): _Followed(job) for job in jobs}
        self.settings = settings
        self.on_line = on_line
        self.patience_s = patience_s
        self.later = later

    def words(self) -> list[str]:
        points = [f.point() for f in self.followed.values() if not f.ended]
        return [*self.host.command, "node", "follow", *_store_words(self.host), *points]

    def run(self) -> list[JobOutcome]:
        last_contact = time.monotonic()
        reason = "the connection dropped"
        while True:
            stream = RemoteStream(self.host, self.words(), self.settings)
            heard = self._read(stream)
            code, stderr = stream.finish()
            if heard:
                last_contact = time.monotonic()
            if all(f.ended for f in self.followed.values()):
                break
            reason = _last_words(stderr) or f"ssh ended with exit {code}"
            if time.monotonic() - last_contact > self.patience_s:
                for followed in self.followed.values():
                    if not followed.ended:
                        followed.lost = (
                            f"lost contact ({reason}); the run goes on there: {self.later}"
                        )
                break
            time.sleep(RECONNECT_PAUSE_S)
        return [f.outcome() for f in self.followed.values()]

    def _read(self, stream: RemoteStream) -> bool:
        heard = False
        for line in stream.lines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            followed = self.followed.get(str(event.get("job"))) if isinstance(event, dict) else None
            if followed is None:
                continue
            heard = True
            self._take(followed, event)
        return heard

    def _take(self, followed: _Followed, event: dict[str, object]) -> None:
        if "exit" in event:
            code = event.get("exit")
            followed.exit_code = code if isinstance(code, int) else None
            if followed.exit_code is None:
                followed.lost = f"the run's supervisor on the node is gone ({event.get('lost')})"
            return
        stream, text, offset = event.get("stream"), event.get("text"), event.get("offset")
        if stream not in followed.offsets or not isinstance(text, str):
            return
        if isinstance(offset, int):
            followed.offsets[str(stream)] = offset + len(text.encode("utf-8"))
        if stream == "stdout":
            followed.stdout.append(text)
        else:
            for line in text.splitlines():
                if line.strip():
                    followed.said = line.strip()
                    self.on_line(f"{self.host.name} {followed.job.target}", line)


def _last_words(stderr: str) -> str | None:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else None


def follow_jobs(
    jobs: Sequence[NodeJob], settings: SshSettings, on_line: OnLine, patience_s: float, later: str
) -> list[JobOutcome]:
    """Every started job followed to its end, all of a node's through one connection and every
    node at once; a node that drops for longer than `patience_s` is given up (its runs go on
    there; `later` says how to see them and bring them here) and never holds up the others."""
    outcomes: dict[int, JobOutcome] = {}
    by_host: dict[str, list[int]] = {}
    for index, job in enumerate(jobs):
        if job.job is None:
            outcomes[index] = JobOutcome(job.host.name, job.target, None, None, job.problem, "")
        else:
            by_host.setdefault(job.host.name, []).append(index)
    threads = []
    for name, indexes in by_host.items():

        def follow(indexes: list[int] = indexes) -> None:
            group = [jobs[index] for index in indexes]
            ended = _HostFollower(group, settings, on_line, patience_s, later).run()
            outcomes.update(zip(indexes, ended, strict=True))

        thread = threading.Thread(target=follow, name=f"follow-{name}", daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return [outcomes[index] for index in range(len(jobs))]
