"""`ssdlab model fit` on the store an earlier ssdlab wrote (tests/data/store/main-98b38bc.sqlite:
a cache run on a file of a virtio disk, an endurance run whose health came from the MX500's
recorded cron log, a simulated drive): what each run gives or why it gives nothing, the fit
stored as a run linked to its inputs and read back as it was fitted, and runs it cannot read
refused. The fit against a drive with known internals is tests/e2e/test_model_fit.py."""

import sqlite3

import pytest

from ssdlab.app.listing import ListingRequest, list_stored_runs, run_label
from ssdlab.app.model_fit import FitRequest, fit_runs
from ssdlab.app.runs import run_document, stored_run
from ssdlab.errors import UsageError
from ssdlab.store.listing import UnreadableRun


def test_runs_without_what_a_parameter_needs_name_the_run_to_add(
    old_store: sqlite3.Connection,
) -> None:
    outcome = fit_runs(old_store, FitRequest(("7", "14")))
    body = outcome.body
    by_name = {p["name"]: p for p in body["parameters"]}
    # the old cache run kept no bandwidth log: no cliff, and the cache run to add
    assert by_name["cache size"]["value"] is None
    assert by_name["cache size"]["needs"] == "ssdlab run cache /dev/vda --destroy-data"
    assert "series too short: 0 points" in by_name["cache size"]["note"]
    # the endurance run's samples are a replayed MX500 log: 161 GB of host writes against
    # fio's 8.4 MB, so its WAF is not the range's
    assert any("rose 161 GB while fio wrote 0.00839 GB" in n for n in body["notes"])
    assert by_name["spare (of logical)"]["value"] is None
    assert by_name["spare (of logical)"]["needs"] == (
        "blkdiscard /dev/vda && ssdlab run endurance /dev/vda --destroy-data --size 256GiB "
        "--workload randwrite-4k --until-written 2560GiB"
    )
    assert by_name["GC class"]["value"] == "unknown"
    assert "--size 204GiB" in by_name["GC class"]["needs"]
    assert body["simulator"]["spare_of_logical"] is None
    assert [(i["run_id"], i["gave"]) for i in body["inputs"]] == [(7, "cache cliff"), (14, None)]


def test_the_fit_is_a_run_linked_to_its_inputs_and_reads_back_as_fitted(
    old_store: sqlite3.Connection,
) -> None:
    outcome = fit_runs(old_store, FitRequest(("7",)))
    stored = stored_run(old_store, outcome.run_id)
    assert stored.run.profile == "model-fit"
    assert stored.run.status.value == "complete"
    inputs = stored.run.settings["inputs"]
    assert isinstance(inputs, list)
    assert [(i["run_id"], i["uuid"]) for i in inputs] == [(7, stored_run(old_store, 7).run.uuid)]
    document = run_document(stored)
    assert document.data["parameters"] == outcome.body["parameters"]
    assert document.sections[0].tables[0].columns[-1] == "needs (the run to add)"
    newest = list_stored_runs(old_store, ListingRequest(limit=1)).runs[0]
    assert not isinstance(newest, UnreadableRun)
    assert run_label(newest) == "model-fit"  # `ssdlab runs` names it, not 'sim'


def test_runs_it_cannot_read_are_refused_with_what_it_reads(old_store: sqlite3.Connection) -> None:
    with pytest.raises(UsageError, match=r"run 11 is a sim cache run; 'ssdlab model fit' reads"):
        fit_runs(old_store, FitRequest(("11",)))
    with pytest.raises(UsageError, match="there is no run 999"):
        fit_runs(old_store, FitRequest(("999",)))
