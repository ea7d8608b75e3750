-- ssdlab store, schema 9: `ssdlab metrics` reads the latest state of every drive from indexes.
-- A scrape needs, of every health sample of a drive, the few numbers the wear analysis fits
-- (time, wear indicator and average erase count with their counters' resolutions, host bytes
-- written), and of every quick run the drive it measured (the model, serial and firmware of
-- its last sample). The resolutions, the erase count and the firmware are inside the
-- sample's JSON; they are copied into plain columns here, filled for existing samples and
-- kept filled by triggers on every insert or change (so `fleet collect`, which copies rows,
-- fills them too), from the health-sample blob's version 1 layout (store/codec.py: a later
-- version of that blob must update these triggers). Two indexes hold them, so that the scrape
-- reads index entries only and never a sample's JSON: health_by_device (a drive's series in
-- time order) and health_by_run (a run's last sample), which replace the narrower indexes of
-- those names (schema 2); runs_by_profile finds the complete quick runs and the endurance runs
-- with what the scrape reads of them. Values that are not where or what version 1 puts them
-- are left NULL here; reading the sample itself reports them.
ALTER TABLE health_samples ADD COLUMN firmware TEXT;
ALTER TABLE health_samples ADD COLUMN wear_used_resolution REAL;
ALTER TABLE health_samples ADD COLUMN erase_count_avg REAL;
ALTER TABLE health_samples ADD COLUMN erase_count_resolution REAL;
UPDATE health_samples SET
    (firmware, wear_used_resolution, erase_count_avg, erase_count_resolution) = (
        SELECT json_extract(f, '$[0]'), json_extract(f, '$[1]'), json_extract(f, '$[2]'),
            json_extract(f, '$[3]')
        FROM (SELECT CASE WHEN json_valid(health_samples.sample_json) THEN json_extract(
            health_samples.sample_json, '$.identity.firmware',
            '$.wear_used_pct.provenance.resolution', '$.erase_count_avg.value',
            '$.erase_count_avg.provenance.resolution') END AS f));
CREATE TRIGGER health_figures_on_insert AFTER INSERT ON health_samples BEGIN
    UPDATE health_samples SET
        (firmware, wear_used_resolution, erase_count_avg, erase_count_resolution) = (
            SELECT json_extract(f, '$[0]'), json_extract(f, '$[1]'), json_extract(f, '$[2]'),
                json_extract(f, '$[3]')
            FROM (SELECT CASE WHEN json_valid(NEW.sample_json) THEN json_extract(
                NEW.sample_json, '$.identity.firmware',
                '$.wear_used_pct.provenance.resolution', '$.erase_count_avg.value',
                '$.erase_count_avg.provenance.resolution') END AS f))
    WHERE id = NEW.id; END;
CREATE TRIGGER health_figures_on_update AFTER UPDATE OF sample_json ON health_samples BEGIN
    UPDATE health_samples SET
        (firmware, wear_used_resolution, erase_count_avg, erase_count_resolution) = (
            SELECT json_extract(f, '$[0]'), json_extract(f, '$[1]'), json_extract(f, '$[2]'),
                json_extract(f, '$[3]')
            FROM (SELECT CASE WHEN json_valid(NEW.sample_json) THEN json_extract(
                NEW.sample_json, '$.identity.firmware',
                '$.wear_used_pct.provenance.resolution', '$.erase_count_avg.value',
                '$.erase_count_avg.provenance.resolution') END AS f))
    WHERE id = NEW.id; END;
DROP INDEX health_by_device;
CREATE INDEX health_by_device ON health_samples(device_key, taken_at_s, id, phase, run_id,
    wear_used_pct, wear_used_resolution, erase_count_avg, erase_count_resolution,
    host_written_bytes);
DROP INDEX health_by_run;
CREATE INDEX health_by_run ON health_samples(run_id, taken_at_s, id, model, serial, firmware);
CREATE INDEX runs_by_profile ON runs(profile, status, started_at_s, id, kind, host, ended_at_s,
    device_id);
