-- ssdlab store, schema 5: what ssdlab owns, recorded so that it is never judged by a name.
-- A test file is ssdlab's only when the file at its path is the one ssdlab created: the same
-- device and inode (st_dev, st_ino) as recorded right after creating it and, where the
-- filesystem keeps extended attributes, the random marker ssdlab set on it (a file made later
-- at the same name may get the same inode number). A run records the PID namespace of its
-- process, so a command in another namespace never takes the run for dead.
ALTER TABLE test_files ADD COLUMN device INTEGER;
ALTER TABLE test_files ADD COLUMN inode INTEGER;
ALTER TABLE test_files ADD COLUMN marker TEXT;
ALTER TABLE runs ADD COLUMN pid_namespace TEXT;
