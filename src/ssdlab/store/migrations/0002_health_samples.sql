-- ssdlab store, schema 2: normalised health samples, each belonging to a run
-- (a quick run's before/after samples, a `health` check, a `watch` series or an import).
CREATE TABLE health_samples (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    phase TEXT NOT NULL,
    device_key TEXT NOT NULL,
    taken_at_s REAL,
    model TEXT,
    serial TEXT,
    host_written_bytes REAL,
    nand_written_bytes REAL,
    wear_used_pct REAL,
    temperature_c REAL,
    sample_json TEXT NOT NULL,
    capture_ids_json TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX health_by_run ON health_samples(run_id);
CREATE INDEX health_by_device ON health_samples(device_key, taken_at_s);
