"""The steps of the deploy playbook as `ssdlab fleet deploy` reports them: a progress line per
host when a step is done, and how long each step took (from the callback's event times)."""

from collections.abc import Callable, Mapping, Sequence

from ssdlab.system.ansible_play import PlayEvent
from ssdlab.system.wheels import WheelSet

Progress = Callable[[str, str], None]  # (host name or "here", what it is doing now)

# the deploy playbook's task names → the step they belong to
STEPS: Mapping[str, str] = {
    "Probe the node's Python and the venv": "probe",
    "Make the venv, without pip": "venv",
    "Make the wheels folder": "copy",
    "List the wheels the node holds": "copy",
    "Pack the wheels the node lacks into one archive on the seat": "copy",
    "Fill the archive": "copy",
    "Copy the wheels the node lacks": "copy",
    "Install ssdlab and its dependencies, never from an index": "install",
    "Put this build of ssdlab in place (its dependencies left as they are)": "install",
    "Check that the venv answers with the wheels' version": "check",
    "Mark the venv with the build": "check",
    "Read the node's facts": "facts",
}


class StepClock:
    """Turns the play's events into progress lines as they come."""

    def __init__(self, progress: Progress, wheels: WheelSet):
        self.progress = progress
        self.wheels = wheels

    def seen(self, event: PlayEvent) -> None:
        said = self._said(event)
        if said is not None:
            self.progress(event.host, said)

    def _said(self, event: PlayEvent) -> str | None:
        if event.event != "ok":
            return None
        node = event.fields.get("ssdlab_node")
        if isinstance(node, Mapping):
            python = ".".join(str(part) for part in node.get("python") or [])
            answer = node.get("answer") or "no ssdlab"
            return f"python3 {python}; {answer} in {node.get('venv')}"
        done = event.fields.get("ssdlab_deployed")
        if isinstance(done, Mapping):
            return str(done.get("state"))
        wheels = self.wheels
        said = {
            "Make the venv, without pip": "the venv is there",
            "Copy the wheels the node lacks": f"copied the wheels it lacked (of {len(wheels.files)}"
            f", {wheels.size / 2**20:.1f} MiB)",
            "Install ssdlab and its dependencies, never from an index": f"installed ssdlab "
            f"{wheels.version} and its dependencies",
            "Check that the venv answers with the wheels' version": "checked: the venv's ssdlab "
            f"answers {wheels.version}",
            "Read the node's facts": "read the node's facts",
        }
        return said.get(event.task)

    @staticmethod
    def seconds(events: Sequence[PlayEvent], started_s: float | None) -> dict[str, float]:
        """Seconds per step of one host: from its previous result to the step's result
        (a step a host skipped is left out)."""
        found: dict[str, float] = {}
        previous = started_s
        for event in events:
            step = STEPS.get(event.task)
            if step is not None and event.event == "ok" and previous is not None:
                found[step] = round(found.get(step, 0.0) + event.time_s - previous, 3)
            previous = event.time_s
        return found
