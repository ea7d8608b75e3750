"""A playbook of ssdlab's Ansible collection (ssdlab.bench) run by ansible-core's own
`ansible-playbook`, as a child process, with the collection's `ssdlab_events` callback: one
JSON line per task result and host, read here.

Ansible works on a private temporary folder given by the caller: its home, local temporary
folder, ssh control sockets, the inventory written for the play and an empty ansible.cfg (the
user's settings do not change what a fleet command does), so a play writes nothing under
$HOME. Every text of that inventory that could hold a Jinja template (`{{ }}`, `{% %}`,
`{# #}`) is marked `!unsafe`: Ansible never renders one it finds in a host's values. The ssh master
connections it leaves behind are told to exit when the play ends.
"""

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import ssdlab
from ssdlab.errors import FleetError
from ssdlab.system.inventory import INSTALL_HINT
from ssdlab.system.ssh import close_masters

COLLECTION = ("ansible_collections", "ssdlab", "bench")


@dataclass(frozen=True, slots=True)
class PlayEvent:
    """One task result of one host, as the callback printed it."""

    event: str  # ok, failed, unreachable, skipped
    host: str
    action: str
    time_s: float
    task: str = ""  # the task's name
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PlayOutcome:
    returncode: int
    started_s: float | None  # the play's start, by the callback's clock
    events: tuple[PlayEvent, ...]
    stderr: str


@dataclass(frozen=True, slots=True)
class Play:
    playbook: str  # a file of the collection's playbooks/, e.g. collect.yml
    inventory: Mapping[str, Mapping[str, Any]]  # host name → its variables
    forks: int
    connect_timeout_s: int
    task_timeout_s: int
    skip_tags: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # only the plays and tasks of these tags (all when empty)


def collections_path() -> Path:
    """The folder that holds `ansible_collections/ssdlab/bench`: the checkout this ssdlab runs
    from, else where ssdlab's wheel installed it (<prefix>/share/ssdlab, from its RECORD; or
    share/ssdlab beside the package, as `pip install --target` puts it)."""
    package = Path(ssdlab.__file__).resolve().parent
    checkout = package.parents[1]
    for folder in (checkout, package.parent / "share" / "ssdlab"):
        if (folder.joinpath(*COLLECTION) / "galaxy.yml").is_file():
            return folder
    try:
        files = metadata.distribution("ssdlab").files or []
    except metadata.PackageNotFoundError:
        files = []
    marker = "/".join(["share", "ssdlab", *COLLECTION, "galaxy.yml"])
    for entry in files:
        if str(entry).endswith(marker):
            found = Path(str(entry.locate())).resolve()
            if found.is_file():
                return found.parents[3]
    raise FleetError(
        f"ssdlab's Ansible collection ssdlab.bench is neither in the checkout ({checkout}) nor "
        "where ssdlab's wheel installs it (<prefix>/share/ssdlab); reinstall ssdlab"
    )


def play_environment(private: Path, play: Play) -> dict[str, str]:
    """The user's environment (the ssh agent, PATH) with Ansible's settings for this play."""
    cfg = private / "ansible.cfg"
    cfg.write_text("")
    settings = {
        "ANSIBLE_CONFIG": str(cfg),
        "ANSIBLE_HOME": str(private / "home"),
        "ANSIBLE_LOCAL_TEMP": str(private / "tmp"),
        "ANSIBLE_SSH_CONTROL_PATH_DIR": str(private / "cp"),
        "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(private / "pc"),
        "ANSIBLE_COLLECTIONS_PATH": str(collections_path()),
        "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "False",
        "ANSIBLE_STDOUT_CALLBACK": "ssdlab.bench.ssdlab_events",
        "ANSIBLE_INVENTORY_ENABLED": "yaml",
        "ANSIBLE_PIPELINING": "True",
        "ANSIBLE_TIMEOUT": str(play.connect_timeout_s),
        "ANSIBLE_TASK_TIMEOUT": str(play.task_timeout_s),
        "ANSIBLE_SSH_ARGS": "-o ControlMaster=auto -o ControlPersist=60s",
        "ANSIBLE_RETRY_FILES_ENABLED": "False",
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_DEPRECATION_WARNINGS": "False",
        "ANSIBLE_PYTHON_INTERPRETER": "python3",
    }
    return {**os.environ, **settings}


def run_play(
    private: Path,
    play: Play,
    on_event: Callable[[PlayEvent], None] | None = None,
    *,
    keep_masters: bool = False,
) -> PlayOutcome:
    """Run `play` to its end; every host's results, whatever became of the others, each also
    given to `on_event` as it comes (progress). The ssh master connections are told to exit
    afterwards unless `keep_masters` (the caller plays again in `private` and closes them
    itself: `close_play_masters`). Raises only when ansible-playbook cannot start."""
    playbook = collections_path().joinpath(*COLLECTION) / "playbooks" / play.playbook
    inventory = private / "inventory.yml"
    inventory.write_text(unsafe_yaml({"all": {"hosts": {**play.inventory}}}), encoding="utf-8")
    argv = [sys.executable, "-m", "ansible", "playbook", "-i", str(inventory)]
    argv += ["--forks", str(play.forks), str(playbook)]
    if play.skip_tags:
        argv += ["--skip-tags", ",".join(play.skip_tags)]
    if play.tags:
        argv += ["--tags", ",".join(play.tags)]
    lines: list[str] = []
    errors = private / "stderr.txt"
    try:
        with errors.open("wb") as stderr_file:
            child = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr_file,
                env=play_environment(private, play),
                cwd=private,
            )
            assert child.stdout is not None
            with child.stdout:
                for raw in child.stdout:
                    line = raw.decode("utf-8", "replace")
                    lines.append(line)
                    if on_event is not None:
                        for event in read_events(line)[1]:
                            on_event(event)
            returncode = child.wait()
    except OSError as error:
        raise FleetError(f"cannot start ansible-playbook ({error.strerror})") from error
    finally:
        if not keep_masters:
            close_play_masters(private)
    stderr = errors.read_text(encoding="utf-8", errors="replace")
    if returncode != 0 and "No module named ansible" in stderr:
        raise FleetError(f"ssdlab fleet runs Ansible's playbooks; {INSTALL_HINT}")
    started, events = read_events("".join(lines))
    return PlayOutcome(returncode, started, events, stderr)


def close_play_masters(private: Path) -> None:
    """Tell the ssh master connections of the plays run in `private` to exit."""
    control = private / "cp"
    if control.is_dir():
        close_masters(control)


def unsafe_yaml(value: object) -> str:
    """`value` (mappings, lists, texts, numbers, booleans, None) as YAML in flow style. A text
    is written as JSON writes it, in double quotes, which YAML reads back as that text; one that
    holds a `{` (where every Jinja delimiter begins: `{{`, `{%`, `{#`) is tagged `!unsafe` too,
    so that Ansible takes it as it is and renders nothing in it. Only those: ansible-core 2.19
    reads a text tagged `!unsafe` as if it were unquoted, so `!unsafe "null"` arrives as None,
    `"true"` as True and `"1"` as 1 (`--ioengine null` after `fleet run … --` was sent as
    `--ioengine ''`), and no text with a `{` reads as anything but text."""
    if isinstance(value, Mapping):
        items = (
            f"{json.dumps(str(key), ensure_ascii=False)}: {unsafe_yaml(item)}"
            for key, item in value.items()
        )
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(unsafe_yaml(item) for item in value) + "]"
    if isinstance(value, str):
        quoted = json.dumps(value, ensure_ascii=False)
        return f"!unsafe {quoted}" if "{" in value else quoted
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    raise TypeError(f"no inventory value: {value!r}")


def read_events(text: str) -> tuple[float | None, tuple[PlayEvent, ...]]:
    """The callback's lines; anything else on stdout (a module's stray output) is passed over."""
    started: float | None = None
    events = []
    for line in text.splitlines():
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if not isinstance(found, dict):
            continue
        if found.get("event") == "start":
            started = float(found.get("time", 0.0))
        elif isinstance(found.get("host"), str):
            events.append(
                PlayEvent(
                    str(found.get("event")),
                    found["host"],
                    str(found.get("action", "")),
                    float(found.get("time", 0.0)),
                    str(found.get("task", "")),
                    found,
                )
            )
    return started, tuple(events)


def last_words(outcome: PlayOutcome) -> str:
    """Why a play ended without a host's results, in one line."""
    lines = [line.strip() for line in outcome.stderr.splitlines() if line.strip()]
    said = lines[-1] if lines else "no message"
    return f"ansible-playbook exit {outcome.returncode}: {said}"


def ansible_words(words: Sequence[str]) -> str:
    """ssh arguments as one string, as Ansible's ssh plugin splits them again."""
    return shlex.join(words)
