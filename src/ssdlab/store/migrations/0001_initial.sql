-- ssdlab store, schema 1: devices, runs, raw captures, step results and per-second series.
CREATE TABLE devices (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    model TEXT,
    serial TEXT,
    firmware TEXT,
    capacity_bytes INTEGER,
    transport TEXT,
    identity_json TEXT NOT NULL UNIQUE
);

CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    profile TEXT NOT NULL,
    profile_version INTEGER NOT NULL,
    preset TEXT,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
    status_reason TEXT,
    target_kind TEXT NOT NULL,
    target_path TEXT NOT NULL,
    target_json TEXT NOT NULL,
    device_id INTEGER REFERENCES devices(id),
    settings_json TEXT NOT NULL,
    plan_json TEXT NOT NULL,
    environment_json TEXT NOT NULL,
    started_at_s REAL NOT NULL,
    ended_at_s REAL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    boot_id TEXT
);

CREATE TABLE captures (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    tool TEXT NOT NULL,
    tool_version TEXT,
    argv_json TEXT NOT NULL,
    input_text TEXT,
    exit_code INTEGER,
    stdout TEXT NOT NULL,
    stderr TEXT NOT NULL,
    started_at_s REAL NOT NULL,
    ended_at_s REAL NOT NULL
);

CREATE TABLE capture_files (
    capture_id INTEGER NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    content TEXT NOT NULL,
    PRIMARY KEY (capture_id, name)
);

CREATE TABLE step_results (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    capture_id INTEGER NOT NULL REFERENCES captures(id),
    step_key TEXT NOT NULL,
    step_label TEXT NOT NULL,
    direction TEXT NOT NULL,
    round_index INTEGER NOT NULL,
    discarded INTEGER NOT NULL,
    bw_bytes_per_s REAL NOT NULL,
    iops REAL NOT NULL,
    lat_mean_ns REAL,
    read_json TEXT,
    write_json TEXT,
    UNIQUE (run_id, step_key, round_index)
);

CREATE TABLE series (
    step_result_id INTEGER NOT NULL REFERENCES step_results(id) ON DELETE CASCADE,
    elapsed_s REAL NOT NULL,
    direction TEXT NOT NULL,
    bw_bytes_per_s REAL,
    iops REAL,
    lat_mean_ns REAL
);
CREATE INDEX series_by_step ON series(step_result_id);

CREATE TABLE test_files (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    created_at_s REAL NOT NULL,
    removed_at_s REAL
);
