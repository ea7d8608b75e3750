"""The names under which each profile's verdicts are stored as findings (store/findings.py):
written by analysis/profiles/, read back by report/ and by other runs (cachefit --from-run)."""

CACHE_CLIFF = "cache-cliff"
CACHE_RECOVERY = "cache-recovery"
ALIGNMENT = "alignment"
SWEEP_CELLS = "sweep-cells"
SWEEP_KNEE = "sweep-knee"
CACHEFIT_TABLE = "cachefit-table"
TRIM_SUPPORT = "trim-support"
TRIM_EFFECT = "trim-effect"
FILL_LEVELS = "fill-levels"
ENDURANCE_ITERATIONS = "endurance-iterations"
PTS_CONFORMANCE = "pts-conformance"
PTS_RESULTS = "pts-results"
PTS_STEADY_STATE = "pts-steady-state"  # one per round loop: "-<loop name>" after it when named
BASELINE = "baseline"  # a quick run made with --baseline NAME: reference, or judged against it
TARGET_FACTS = "target-facts"  # what a profile run found about its target when it started
SIM_RESULT = "sim-result"  # one per simulated drive: "-<point key>" after it
QOS_VERDICT = "qos-verdict"  # a qos run's targets judged
THERMAL = "thermal"  # whether a run's drive gave temperatures during its passes, and from what
THERMAL_PASS = "thermal-pass"  # one per pass read: ":<step key>:<round>" after it
LATENCY_MONITOR = "latency-monitor"  # a --latency-monitor run: the drive's C3h before the run
LATENCY_MONITOR_PASS = "latency-monitor-pass"  # one per pass reconciled: ":<step key>:<round>"
