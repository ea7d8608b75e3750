"""Profile results as a report reads them: with the verdicts the run would have stored."""

from ssdlab.model.profile import ProfileResults
from ssdlab.registry import profile_record
from ssdlab.registry.record import fill_verdicts


def with_stored_verdicts(results: ProfileResults) -> ProfileResults:
    """`results` with its profile's verdicts as the store gives them back after the run."""
    return fill_verdicts(results, profile_record(results.plan.profile).parts().analyse)
