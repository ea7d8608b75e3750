"""The plays a fleet command runs through the real ansible-playbook, recorded in process: each
with its outcome and the ssh master connections already open in its folder when it began."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ssdlab.fleet import play_hosts
from ssdlab.system.ansible_play import Play, PlayEvent, PlayOutcome


@dataclass(frozen=True)
class PlayedPlay:
    play: Play
    outcome: PlayOutcome
    masters_before: tuple[str, ...]  # the control sockets in the play's folder as it began


def record_plays(monkeypatch: pytest.MonkeyPatch) -> list[PlayedPlay]:
    """Every play the fleet's code runs from now on, appended as it ends."""
    plays: list[PlayedPlay] = []
    real = play_hosts.run_play

    def run_play(
        private: Path,
        play: Play,
        on_event: Callable[[PlayEvent], None] | None = None,
        *,
        keep_masters: bool = False,
    ) -> PlayOutcome:
        control = private / "cp"
        masters = tuple(sorted(p.name for p in control.iterdir())) if control.is_dir() else ()
        outcome = real(private, play, on_event, keep_masters=keep_masters)
        plays.append(PlayedPlay(play, outcome, masters))
        return outcome

    monkeypatch.setattr(play_hosts, "run_play", run_play)
    return plays
