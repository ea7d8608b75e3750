-- ssdlab store, schema 10: a step's completion latency histograms per second, in fio's fixed
-- buckets (model/fio_buckets.py: 64 per power of two, 1,856, the last open above 17.0 s), so
-- that the histograms of many drives add bucket by bucket: `fleet compare` gives fleet-wide
-- percentiles from them, never an average of the drives' percentiles. One row per step result,
-- direction and second of the step's fio job (time_ms // 1000 of fio's histogram log);
-- counts_json holds the buckets that have I/Os as [[bucket, I/Os], ...], buckets ascending,
-- and ios their sum. Parsed from fio's histogram logs, which stay stored raw as the step
-- capture's files. Steps stored before schema 10 have none.
CREATE TABLE step_histograms (
    step_result_id INTEGER NOT NULL REFERENCES step_results(id) ON DELETE CASCADE,
    direction TEXT NOT NULL,
    second INTEGER NOT NULL,
    ios INTEGER NOT NULL,
    counts_json TEXT NOT NULL,
    UNIQUE (step_result_id, direction, second)
);
