"""Every preset's plan, as job files, pinned as golden files (reviewed as diffs)."""

from pathlib import Path

import pytest

from ssdlab.model.units import GiB
from ssdlab.plan.jobfile import render_job
from ssdlab.plan.quick import plan_quick
from ssdlab.plan.quick_settings import quick_settings
from ssdlab.profiles.quick import load_quick_profile
from tests.conftest import ROOT, assert_golden

GOLDEN = ROOT / "tests" / "golden" / "plan"
PROFILE = load_quick_profile()
TARGETS = {
    "file": ("/srv/ssd/ssdlab-0123456789ab.tmp", True),
    "device": ("/dev/nvme0n1", True),
}


def render_plan_text(preset: str, kind: str) -> str:
    path, fill = TARGETS[kind]
    settings = quick_settings(
        {"preset": preset, "count": 1}, size_bytes=GiB, direct_io=True, profile=PROFILE
    )
    plan = plan_quick(PROFILE, settings, target_path=path, target_kind=kind, fill=fill)
    parts = []
    for step in plan.steps:
        assert step.job is not None
        if step.round_index is None:
            parts.append(("prepare", render_job(step.job, comment="prepare")))
        else:
            name = f"{step.key}-p{step.round_index}"
            parts.append((name, render_job(step.job, comment=step.comment)))
    return "".join(f"### {name}\n{text}" for name, text in parts)


def split_golden(text: str) -> list[tuple[str, str]]:
    """Undo render_plan_text: (name, job file text) pairs."""
    jobs = []
    for chunk in text.split("### ")[1:]:
        name, _, body = chunk.partition("\n")
        jobs.append((name, body))
    return jobs


CASES = [(preset, kind) for preset in sorted(PROFILE.presets) for kind in TARGETS]


def golden_path(preset: str, kind: str) -> Path:
    return GOLDEN / f"quick__{preset}__{kind}.fio"


@pytest.mark.parametrize(("preset", "kind"), CASES)
def test_plan_matches_golden(preset: str, kind: str, update_golden: bool) -> None:
    assert_golden(golden_path(preset, kind), render_plan_text(preset, kind), update_golden)


def test_golden_covers_every_preset() -> None:
    assert {p.name.split("__")[1] for p in GOLDEN.glob("quick__*.fio")} == set(PROFILE.presets)
