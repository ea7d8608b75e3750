"""A measured run's plan and target rebuilt from the stored JSON (quick and profile runs: what
`resume` continues with, what a profile's document is built from)."""

from typing import Any

from ssdlab.errors import StoreError
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.run import RunKind, RunRecord
from ssdlab.model.target import Target
from ssdlab.store.codec import decode
from ssdlab.store.quick_plans import is_pass_list_plan, migrate_pass_list_plan


def _with_loops(data: dict[str, Any]) -> dict[str, Any]:
    """A plan stored before plans held several round loops (its one loop, or null, under
    `rounds`) in today's shape."""
    if "rounds" not in data or "loops" in data:
        return data
    loop = data["rounds"]
    return {
        **{k: v for k, v in data.items() if k != "rounds"},
        "loops": [] if loop is None else [loop],
    }


def profile_plan_of(run: RunRecord) -> ProfilePlan:
    """The ProfilePlan a profile run executed, as stored with it (decoded by the store's
    codec field by field; a field it does not know is an error, not dropped)."""
    data: dict[str, Any] = dict(run.plan)
    where = f"run {run.run_id}'s stored plan"
    try:
        if is_pass_list_plan(data):
            data = migrate_pass_list_plan(data)
        data = _with_loops(data)
    except (KeyError, TypeError, ValueError) as error:
        raise StoreError(f"{where} cannot be read: {error}") from error
    return decode(ProfilePlan, data, where)


def measured_target(run: RunRecord) -> Target:
    """The file or device a quick or profile run measured, as stored with it (decoded by the
    store's codec field by field; a target that does not fit is a StoreError naming it).
    `run.target` keeps the stored JSON as it is: the documents print it so."""
    where = f"run {run.run_id}'s stored target"
    if run.kind not in (RunKind.QUICK, RunKind.PROFILE):
        raise StoreError(f"{where} is not a file or device it measured: it is a {run.kind} run")
    return decode(Target, dict(run.target), where)
