-- ssdlab store, schema 11: the drive's temperatures read once a second while a pass ran
-- (runner/thermal_watch.py), for thermal throttling (analysis/thermal.py, docs/thermal.md).
-- One row per step result and reading: elapsed_s the seconds from the pass's start to the
-- middle of the reading's call, composite_c the composite temperature in °C, sensors_json the
-- drive's temperature sensors 1-8 in °C as it reports them ([] when none). Whether a run's
-- drive gave temperatures at all, and from which tool, is its `thermal` finding. Steps stored
-- before schema 11, and passes on a drive without temperatures, have none.
CREATE TABLE step_temperatures (
    step_result_id INTEGER NOT NULL REFERENCES step_results(id) ON DELETE CASCADE,
    elapsed_s REAL NOT NULL,
    composite_c REAL NOT NULL,
    sensors_json TEXT NOT NULL,
    UNIQUE (step_result_id, elapsed_s)
);
