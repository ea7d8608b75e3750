-- ssdlab store, schema 7: every run carries a random UUID (RFC 4122 version 4, as text), so
-- that a run copied from one store into another (`ssdlab fleet collect` pulls the runs of
-- lab nodes into a central store) is the same run there and is stored once however often it
-- is collected. A collected run records when it was collected (collected_at_s) and the
-- node's own hostname (node_host, what the node stored as its host); its host is then the
-- node's name in the fleet inventory. Runs made in this store have neither.
-- SQLite has no UUID function: 16 random bytes as hex, then the version nibble set to 4 and
-- the variant nibble to one of 8, 9, a, b (from the random nibble in its place, mod 4).
ALTER TABLE runs ADD COLUMN uuid TEXT;
ALTER TABLE runs ADD COLUMN collected_at_s REAL;
ALTER TABLE runs ADD COLUMN node_host TEXT;
UPDATE runs SET uuid = lower(hex(randomblob(16))) WHERE uuid IS NULL;
UPDATE runs SET uuid = substr(uuid, 1, 8) || '-' || substr(uuid, 9, 4) || '-4'
    || substr(uuid, 14, 3) || '-'
    || substr('89ab', 1 + (instr('0123456789abcdef', substr(uuid, 17, 1)) - 1) % 4, 1)
    || substr(uuid, 18, 3) || '-' || substr(uuid, 21, 12)
WHERE length(uuid) = 32;
CREATE UNIQUE INDEX runs_by_uuid ON runs(uuid);
