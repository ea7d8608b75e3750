-- ssdlab store, schema 8: a store that stays small and fast with a fleet's runs in it.
-- `ssdlab runs` reads plain, indexed columns only: an import's tool (source_tool, from its
-- settings) and the model and serial of the drive a run tested (from its device) are copied
-- into the run row, kept filled by triggers on every insert or change, and every column the
-- listing filters on has an index, so listing or filtering 100,000 runs reads the rows it
-- prints and none of the large JSON columns (a run's plan follows its target in the row and
-- is read only for `show`, `report` and `export`). The children of a run are found by index.
-- Raw evidence (tool output, logs) written from schema 8 on may be stored compressed: such a
-- value is a BLOB (store/raw.py), where a value stored before is TEXT and reads as it is;
-- `raw_dictionaries` holds the zstd dictionaries compressed values refer to, by the hash of
-- their content, so a value always decodes in any store it is copied to.
ALTER TABLE runs ADD COLUMN source_tool TEXT;
ALTER TABLE runs ADD COLUMN drive_model TEXT;
ALTER TABLE runs ADD COLUMN drive_serial TEXT;
UPDATE runs SET
    source_tool = CASE WHEN kind = 'import' AND json_valid(settings_json)
        AND json_type(settings_json, '$.source_tool') = 'text'
        THEN json_extract(settings_json, '$.source_tool') END,
    drive_model = (SELECT model FROM devices WHERE devices.id = runs.device_id),
    drive_serial = (SELECT serial FROM devices WHERE devices.id = runs.device_id);
CREATE TRIGGER runs_listing_on_insert AFTER INSERT ON runs BEGIN
    UPDATE runs SET
        source_tool = CASE WHEN NEW.kind = 'import' AND json_valid(NEW.settings_json)
            AND json_type(NEW.settings_json, '$.source_tool') = 'text'
            THEN json_extract(NEW.settings_json, '$.source_tool') END,
        drive_model = (SELECT model FROM devices WHERE devices.id = NEW.device_id),
        drive_serial = (SELECT serial FROM devices WHERE devices.id = NEW.device_id)
    WHERE id = NEW.id; END;
CREATE TRIGGER runs_listing_on_update AFTER UPDATE OF kind, settings_json, device_id ON runs
BEGIN
    UPDATE runs SET
        source_tool = CASE WHEN NEW.kind = 'import' AND json_valid(NEW.settings_json)
            AND json_type(NEW.settings_json, '$.source_tool') = 'text'
            THEN json_extract(NEW.settings_json, '$.source_tool') END,
        drive_model = (SELECT model FROM devices WHERE devices.id = NEW.device_id),
        drive_serial = (SELECT serial FROM devices WHERE devices.id = NEW.device_id)
    WHERE id = NEW.id; END;
CREATE INDEX runs_by_host ON runs(host);
CREATE INDEX runs_by_kind ON runs(kind, profile);
CREATE INDEX runs_by_status ON runs(status);
CREATE INDEX runs_by_target ON runs(target_path);
CREATE INDEX runs_by_started ON runs(started_at_s);
CREATE INDEX runs_by_drive_serial ON runs(drive_serial);
CREATE INDEX runs_by_drive_model ON runs(drive_model);
CREATE INDEX captures_by_run ON captures(run_id);
CREATE INDEX test_files_by_run ON test_files(run_id);
CREATE INDEX test_files_by_path ON test_files(path);
CREATE TABLE raw_dictionaries (
    key TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    content BLOB NOT NULL,
    created_at_s REAL NOT NULL
);
CREATE INDEX raw_dictionaries_by_source ON raw_dictionaries(source, created_at_s);
