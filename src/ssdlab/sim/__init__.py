"""What-if SSD simulator: page-mapped FTL, GC policies, TRIM, pseudo-SLC cache, timing.

Pure: no clock, no processes; randomness from the configuration's seed. The compiled core
(`ssdlab_simcore`, built from simcore/) is used when installed, the Python core otherwise.
"""

from ssdlab.sim.config import GcPolicy, SimConfig, Timing, validate_config
from ssdlab.sim.engine import SimInterval, SimResult, available_cores, simulate
from ssdlab.sim.trace import TraceOp, read_trace
from ssdlab.sim.workload import Workload, parse_workload

__all__ = [
    "GcPolicy",
    "SimConfig",
    "SimInterval",
    "SimResult",
    "Timing",
    "TraceOp",
    "Workload",
    "available_cores",
    "parse_workload",
    "read_trace",
    "simulate",
    "validate_config",
]
