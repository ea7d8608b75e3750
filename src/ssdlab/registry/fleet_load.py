"""`ssdlab fleet load`: one fio job on every host of an inventory at once, stored as one run
with a step per host, laid out as a run of passes."""

from ssdlab.model.run import RunKind
from ssdlab.registry.kind import KindRecord
from ssdlab.registry.passes import passes_parts

RECORDS = (
    KindRecord("fleet load", RunKind.FLEET_LOAD, passes_parts, main_table="passes", passes=True),
)
