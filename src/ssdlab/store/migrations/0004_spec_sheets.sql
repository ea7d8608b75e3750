-- ssdlab store, schema 4: vendor spec sheets added by the user (`ssdlab spec add`), kept as
-- the TOML text they were written in; the sheets shipped with ssdlab are not stored.
CREATE TABLE spec_sheets (
    key TEXT PRIMARY KEY,
    toml_text TEXT NOT NULL,
    origin TEXT NOT NULL,
    added_at_s REAL NOT NULL
);
