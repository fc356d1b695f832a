-- The test application's own second migration: its versions and the starter's overlap.
ALTER TABLE orders ADD COLUMN note VARCHAR(100) NULL;
