-- tugas schema, version 6: credentials managed at run time (`/kredensial`, docs/supporting.md).
--
-- Each credential gets an id (the seed's in the order they were loaded), when it was created,
-- when it stops being accepted (none: never), when it was last used (written at most once a
-- second per credential and process), and when it was revoked: a revoked credential is out of
-- sight (404), its digest kept only so that a later use of it is counted as such. The secret is
-- still kept only as its digest.
ALTER TABLE credentials
  ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991),
  ADD COLUMN created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  ADD COLUMN kedaluwarsa timestamptz(3),
  ADD COLUMN last_used_at timestamptz(3),
  ADD COLUMN revoked_at timestamptz(3);
ALTER TABLE credentials ADD CONSTRAINT credentials_id UNIQUE (id);
-- Revocation locks every admin credential: found by this index, not by reading the table.
CREATE INDEX credentials_admins ON credentials (id) WHERE peran = 'admin' AND revoked_at IS NULL;
