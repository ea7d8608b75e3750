"""A fleet run: the same command started on every target of every node, detached there (a cut
network or a closed laptop never stops it), all waiting for one start time, then followed.

Each node runs ssdlab itself (`ssdlab node start -- quick TARGET …`), so every safety rule runs
on the machine that owns the device, against its own mount table and holders; a device is
written only when the inventory names it in `ssdlab_destroy_data` as well as in
`ssdlab_targets` (`--destroy-data`, as on one machine). The node's store keeps the run.
"""

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ssdlab.model.fleet import FleetHost, JobOutcome
from ssdlab.system.ssh import RemoteStream, SshSettings, on_every_host, run_remote

START_TIMEOUT_S = 60.0
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


def plan_jobs(
    hosts: Sequence[FleetHost], profile: str, profile_args: Sequence[str], start_at_s: float
) -> list[NodeJob]:
    """One job per target of every host; a host without targets gets one job that says so."""
    jobs = []
    for host in hosts:
        if not host.targets:
            jobs.append(NodeJob(host, "", (), problem="the inventory gives it no ssdlab_targets"))
        for target in host.targets:
            words = node_words(host, target, profile, profile_args, start_at_s)
            jobs.append(NodeJob(host, target, words))
    return jobs


def _store_words(host: FleetHost) -> list[str]:
    return ["--db", host.db] if host.db is not None else []


def start_job(
    job: NodeJob, settings: SshSettings, clock: Callable[[], float] = time.time
) -> NodeJob:
    """Start one job detached on its node; the job with its id, or with why it did not start.
    The run is told this machine's clock as the start leaves (--start-sent-at), against which
    the node tells a start that arrives late from a clock that disagrees."""
    if job.problem is not None:
        return job
    sent = ("--start-sent-at", f"{clock():.3f}") if "--start-at" in job.words else ()
    words = [*job.words, *sent]
    remote = [*job.host.command, "node", "start", *_store_words(job.host), "--", *words]
    result = run_remote(job.host, remote, settings, timeout_s=START_TIMEOUT_S)
    if not result.ok:
        return NodeJob(job.host, job.target, job.words, problem=result.failure())
    try:
        started = json.loads(result.text)
        return NodeJob(job.host, job.target, job.words, job=str(started["job"]))
    except (json.JSONDecodeError, KeyError, TypeError):
        return NodeJob(
            job.host, job.target, job.words, problem="ssdlab node start printed no job id"
        )


def start_jobs(jobs: Sequence[NodeJob], settings: SshSettings) -> list[NodeJob]:
    """Every job started, at most `settings.parallel` hosts at once (a host's jobs in turn)."""
    by_host: dict[str, list[NodeJob]] = {}
    for job in jobs:
        by_host.setdefault(job.host.name, []).append(job)
    hosts = [group[0].host for group in by_host.values()]
    started = on_every_host(
        hosts,
        lambda host: [start_job(job, settings) for job in by_host[host.name]],
        settings.parallel,
    )
    return [job for host in hosts for job in started[host.name]]


# a progress line of a node's run, with what it comes from ("node1 /mnt/ssd")
OnLine = Callable[[str, str], None]


class _Follower:
    """Follows one started job to its end, reconnecting after a dropped connection and
    resuming where the output was (the node counts bytes per stream)."""

    def __init__(
        self, job: NodeJob, settings: SshSettings, on_line: OnLine, patience_s: float, later: str
    ):
        self.job = job
        self.settings = settings
        self.on_line = on_line
        self.patience_s = patience_s
        self.later = later
        self.offsets = {"stdout": 0, "stderr": 0}
        self.stdout: list[str] = []
        self.exit_code: int | None = None
        self.lost: str | None = None
        self.said: str | None = None

    def words(self) -> list[str]:
        host = self.job.host
        return [
            *host.command,
            "node",
            "follow",
            str(self.job.job),
            *_store_words(host),
            "--offset-stdout",
            str(self.offsets["stdout"]),
            "--offset-stderr",
            str(self.offsets["stderr"]),
        ]

    def run(self) -> JobOutcome:
        last_contact = time.monotonic()
        reason = "the connection dropped"
        while True:
            stream = RemoteStream(self.job.host, self.words(), self.settings)
            heard = self._read(stream)
            code, stderr = stream.finish()
            if heard:
                last_contact = time.monotonic()
            if self.exit_code is not None or self.lost is not None:
                break
            reason = _last_words(stderr) or f"ssh ended with exit {code}"
            if time.monotonic() - last_contact > self.patience_s:
                self.lost = f"lost contact ({reason}); the run goes on there: {self.later}"
                break
            time.sleep(RECONNECT_PAUSE_S)
        return JobOutcome(
            self.job.host.name,
            self.job.target,
            self.job.job,
            self.exit_code,
            self.lost,
            "".join(self.stdout),
            self.said,
        )

    def _read(self, stream: RemoteStream) -> bool:
        heard = False
        for line in stream.lines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            heard = True
            self._take(event)
        return heard

    def _take(self, event: dict[str, object]) -> None:
        if "exit" in event:
            code = event.get("exit")
            self.exit_code = code if isinstance(code, int) else None
            if self.exit_code is None:
                self.lost = f"the run's supervisor on the node is gone ({event.get('lost')})"
            return
        stream, text, offset = event.get("stream"), event.get("text"), event.get("offset")
        if stream not in self.offsets or not isinstance(text, str):
            return
        if isinstance(offset, int):
            self.offsets[str(stream)] = offset + len(text.encode("utf-8"))
        if stream == "stdout":
            self.stdout.append(text)
        else:
            for line in text.splitlines():
                if line.strip():
                    self.said = line.strip()
                    self.on_line(f"{self.job.host.name} {self.job.target}", line)


def _last_words(stderr: str) -> str | None:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else None


def follow_jobs(
    jobs: Sequence[NodeJob], settings: SshSettings, on_line: OnLine, patience_s: float, later: str
) -> list[JobOutcome]:
    """Every started job followed at once to its end; a node that drops for longer than
    `patience_s` is given up (its run goes on there; `later` says how to see it and bring it
    here) and never holds up the others."""
    outcomes: dict[int, JobOutcome] = {}
    threads = []
    for index, job in enumerate(jobs):
        if job.job is None:
            outcomes[index] = JobOutcome(job.host.name, job.target, None, None, job.problem, "")
            continue

        def follow(index: int = index, job: NodeJob = job) -> None:
            outcomes[index] = _Follower(job, settings, on_line, patience_s, later).run()

        thread = threading.Thread(target=follow, name=f"follow-{job.host.name}", daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return [outcomes[index] for index in range(len(jobs))]
