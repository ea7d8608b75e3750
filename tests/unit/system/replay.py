"""A ProcessRunner that answers with recorded tool output instead of running anything."""

from collections.abc import Sequence
from pathlib import Path

from ssdlab.model.run import Capture
from ssdlab.system.process import ProcessRunner


class ReplayRunner(ProcessRunner):
    """Answers each command with recorded output: (argv fragment, exit code, stdout file)."""

    def __init__(self, answers: Sequence[tuple[str, int, Path | None]]) -> None:
        super().__init__()
        self.answers = list(answers)
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], **kwargs: object) -> Capture:  # type: ignore[override]
        self.calls.append(tuple(argv))
        joined = " ".join(argv)
        for fragment, code, path in self.answers:
            if fragment in joined:
                stdout = path.read_text() if path else ""
                return Capture(str(kwargs["tool"]), tuple(argv), code, stdout, "", 1.0, 2.0)
        return Capture(str(kwargs["tool"]), tuple(argv), 1, "", "not supported", 1.0, 2.0)
