-- ssdlab store, schema 3: what a profile run found, as JSON documents with their criteria:
-- analysis verdicts (cache cliff, sweep knee, alignment, …) and the facts gathered about the
-- target while it ran (partition start, LBA formats, discard support, fstrim time).
CREATE TABLE findings (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('verdict', 'facts')),
    body_json TEXT NOT NULL,
    created_at_s REAL NOT NULL,
    UNIQUE (run_id, name)
);
CREATE INDEX findings_by_run ON findings(run_id);
