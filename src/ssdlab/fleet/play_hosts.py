"""How a fleet command hands its hosts to a playbook of ssdlab's collection and reads each
host's results back: the inventory of ssdlab's own making (each host as ssdlab read it, with
the ssh arguments in the order docs/fleet.md gives), the one place a fleet command's play is
made and run in a private folder (system/ansible_play.py), and a host's failure in one line."""

import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from ssdlab.model.fleet import FleetHost
from ssdlab.system.ansible_play import (
    Play,
    PlayEvent,
    PlayOutcome,
    ansible_words,
    close_play_masters,
    run_play,
)
from ssdlab.system.ssh import SshSettings


def play_host(host: FleetHost, settings: SshSettings) -> dict[str, object]:
    """A host's variables in the inventory the play is given: how ssh reaches it, its ssdlab
    and store. The inventory's own ssh arguments go first, as Ansible's `ssh_args`, the only
    ones its ssh plugin puts before its own ConnectTimeout, Port and User: ssh takes the
    first value it is given, so an inventory's `-o ConnectTimeout=3` wins over
    `--connect-timeout`, as in ssdlab's own ssh commands."""
    words = [*host.ssh_args, "-o", "BatchMode=yes"]
    words += ["-o", f"ServerAliveInterval={settings.alive_interval_s}"]
    words += ["-o", f"ServerAliveCountMax={settings.alive_count}"]
    words += ["-o", "ControlMaster=auto", "-o", "ControlPersist=60s"]
    found: dict[str, object] = {
        "ansible_host": host.address,
        "ansible_ssh_args": ansible_words(words),
        "ssdlab_command": list(host.command),
    }
    optional = {
        "ansible_port": host.port,
        "ansible_user": host.user,
        "ansible_ssh_private_key_file": host.key_file,
        "ssdlab_db": host.db,
    }
    found.update({key: value for key, value in optional.items() if value is not None})
    return found


def run_fleet_play(
    playbook: str,
    inventory: Mapping[str, Mapping[str, Any]],
    settings: SshSettings,
    task_timeout_s: float,
    skip_tags: tuple[str, ...] = (),
    *,
    tags: tuple[str, ...] = (),
    private: Path | None = None,
    on_event: Callable[[PlayEvent], None] | None = None,
    keep_masters: bool = False,
) -> PlayOutcome:
    """`playbook` of the collection on the hosts of `inventory`, `--parallel` at once, in
    `private` (Ansible's folder, kept by the caller: `fleet deploy` names it in its
    inventory; `fleet run`'s two plays share it and its ssh master connections, kept open with
    `keep_masters`), else in a private temporary folder removed afterwards; every host's
    result is also given to `on_event` as it comes (progress)."""
    play = Play(
        playbook=playbook,
        inventory=inventory,
        forks=max(1, min(settings.parallel, len(inventory))),
        connect_timeout_s=settings.connect_timeout_s,
        task_timeout_s=int(task_timeout_s),
        skip_tags=skip_tags,
        tags=tags,
    )
    given = private is not None
    with ExitStack() as stack:
        if private is None:
            own = tempfile.TemporaryDirectory(prefix="ssdlab-ansible-", ignore_cleanup_errors=True)
            private = Path(stack.enter_context(own))
        return run_play(private, play, on_event, keep_masters=keep_masters and given)


@contextmanager
def play_folder() -> Iterator[Path]:
    """A private folder for several plays in turn, which share its ssh master connections
    (one login a host for them all); they are told to exit, and the folder removed, at the
    end."""
    with tempfile.TemporaryDirectory(prefix="ssdlab-ansible-", ignore_cleanup_errors=True) as own:
        try:
            yield Path(own)
        finally:
            close_play_masters(Path(own))


def host_events(outcome: PlayOutcome, host: str) -> list[PlayEvent]:
    return [event for event in outcome.events if event.host == host]


def first_failure(events: Sequence[PlayEvent]) -> PlayEvent | None:
    """The first task of a host that failed or could not reach it."""
    return next((e for e in events if e.event in ("failed", "unreachable")), None)


def event_message(event: PlayEvent) -> str:
    return " ".join(str(event.fields.get("msg") or "no message").split())


def event_problem(event: PlayEvent, steps: Mapping[str, str]) -> str:
    """Why a host's task failed, in one line: `ssh failed: …` when Ansible could not reach it,
    else the step (`steps`: the end of an action's name → what to call it) and its message."""
    if event.event == "unreachable":
        return f"ssh failed: {event_message(event)}"
    step = next((said for end, said in steps.items() if event.action.endswith(end)), event.action)
    return f"{step} failed: {event_message(event)}"
