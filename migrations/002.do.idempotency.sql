-- tugas schema, version 2: the keys of idempotent requests (Idempotency-Key, decisions.md 8),
-- each with the first request's body fingerprint and, once answered, that answer.
--
-- A key is per request target, and a target may be longer than an index entry can hold (an id
-- of 5,000 digits): the primary key holds the target's SHA-256, `scope` the target itself.
-- A key is forgotten 24 hours after its first request (`created_at`): the service ignores older
-- rows, takes their key anew, and deletes them in batches. While `status` is null the first
-- request is in flight, held by `owner` until `lease_until`.
CREATE TABLE idempotency_keys (
  scope_hash bytea NOT NULL,
  key text NOT NULL,
  scope text NOT NULL,
  fingerprint text NOT NULL,
  owner uuid NOT NULL,
  created_at timestamptz(3) NOT NULL,
  lease_until timestamptz(3) NOT NULL,
  status smallint,
  -- The body exactly as sent: bytes, since no text column holds every string (U+0000).
  body bytea,
  headers jsonb,
  PRIMARY KEY (scope_hash, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
