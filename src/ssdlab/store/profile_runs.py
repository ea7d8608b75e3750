"""A profile run's plan rebuilt from the stored JSON."""

from typing import Any

from ssdlab.errors import StoreError
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.run import RunRecord
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
