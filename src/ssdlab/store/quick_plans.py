"""Quick runs stored before quick became a profile plan: their plan JSON (a file preparation
and a list of passes) rewritten as the profile plan the runner executes today, so they show,
compare, export and resume like every run."""

from typing import Any

from ssdlab.model.plan import Direction, Pattern, QuickTest

# the order of QuickSettings' fields: a quick plan's settings pairs
SETTING_NAMES = (
    "preset",
    "size_bytes",
    "count",
    "measure_s",
    "interval_s",
    "mode",
    "mix_read_pct",
    "data",
    "ioengine",
    "direct_io",
)
LOG_INTERVAL_MS = 1000


def is_pass_list_plan(data: dict[str, Any]) -> bool:
    """Whether a stored plan is a quick plan of the old shape (prepare + passes)."""
    return "passes" in data and "steps" not in data


def _step(
    *,
    key: str,
    label: str,
    role: str,
    direction: str,
    job: object,
    comment: str,
    round_index: int | None,
    expected_s: float | None,
    expected_bytes: int | None,
    pause_before_s: float,
    keep_result: bool,
) -> dict[str, Any]:
    return {
        "key": key,
        "label": label,
        "role": role,
        "direction": direction,
        "job": job,
        "idle_s": 0.0,
        "command": [],
        "params": [],
        "log_interval_ms": LOG_INTERVAL_MS if keep_result else None,
        "expected_s": expected_s,
        "expected_bytes": expected_bytes,
        "pause_before_s": pause_before_s,
        "round_index": round_index,
        "comment": comment,
        "keep_result": keep_result,
    }


def _test(data: dict[str, Any]) -> QuickTest:
    return QuickTest(
        pattern=Pattern(data["pattern"]),
        block_size_bytes=int(data["block_size_bytes"]),
        iodepth=int(data["iodepth"]),
        numjobs=int(data["numjobs"]),
        direction=Direction(data["direction"]),
        rwmixread_pct=data.get("rwmixread_pct"),
    )


def migrate_pass_list_plan(data: dict[str, Any]) -> dict[str, Any]:
    """The stored quick plan of the old shape as the profile plan it is now: the preparation
    a step whose raw output is kept, every pass a step stored under its test's key and pass
    number (pass 0 the discarded warm-up), the pause before every test but the first."""
    settings = data["settings"]
    profile, preset = data["profile"], settings["preset"]
    count = settings["count"]
    steps: list[dict[str, Any]] = []
    if data.get("prepare") is not None:
        steps.append(
            _step(
                key="prepare",
                label="prepare test file",
                role="prepare",
                direction="write",
                job=data["prepare"],
                comment=f"ssdlab {profile}: prepare test file",
                round_index=None,
                expected_s=None,
                expected_bytes=int(settings["size_bytes"]),
                pause_before_s=0.0,
                keep_result=False,
            )
        )
    first_key: str | None = None
    for planned in data["passes"]:
        test = _test(planned["test"])
        first_key = first_key or test.key
        index = int(planned["pass_index"])
        which = "warm-up (discarded)" if planned["warmup"] else f"pass {index}"
        steps.append(
            _step(
                key=test.key,
                label=test.label,
                role="warmup" if planned["warmup"] else "measure",
                direction=test.direction.value,
                job=planned["job"],
                comment=(
                    f"ssdlab {profile}/{preset}: {test.label} {test.direction.value}, "
                    f"{which} of {count}"
                ),
                round_index=index,
                expected_s=float(settings["measure_s"]),
                expected_bytes=None,
                pause_before_s=float(settings["interval_s"])
                if index == 0 and test.key != first_key
                else 0.0,
                keep_result=True,
            )
        )
    return {
        "profile": profile,
        "profile_version": data["profile_version"],
        "settings": [[name, settings[name]] for name in SETTING_NAMES],
        "target_path": data["target_path"],
        "target_kind": data["target_kind"],
        "destructive": data["destructive"],
        "steps": steps,
        "notes": [],
        "loops": [],
        "after": [],
        "params": [],
        "pass_seeds": False,
    }
