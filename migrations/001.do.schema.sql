-- tugas schema, version 1: every surface's data (decisions.md 7).
--
-- Ids come from identity columns and are never reused; they stay within JavaScript's safe
-- integers (MAXVALUE), so they travel as JSON numbers exactly.
-- Text sort keys (`*_key bytea`) hold the text as UTF-16 big-endian code units, computed by the
-- service: byte order is then JavaScript's code-unit order (decisions.md 6), which no
-- collation gives (COLLATE "C" compares code points).

-- Surface A: tasks and their comments.
CREATE TABLE tugas (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  title text NOT NULL,
  title_key bytea NOT NULL,
  status text NOT NULL CHECK (status IN ('belum', 'selesai'))
);
-- One index per order the list serves, each with ties in ascending id (both directions).
CREATE INDEX tugas_title_asc ON tugas (title_key, id);
CREATE INDEX tugas_title_desc ON tugas (title_key DESC, id);
CREATE INDEX tugas_status_asc ON tugas (status, id);
CREATE INDEX tugas_status_desc ON tugas (status DESC, id);
CREATE INDEX tugas_status_title_asc ON tugas (status, title_key, id);
CREATE INDEX tugas_status_title_desc ON tugas (status, title_key DESC, id);

-- meta.total without counting rows: per-status counts kept in the writing statement. Each
-- status has 16 slots and a connection writes the slot of its backend, so concurrent writers
-- do not queue on one row lock until they commit; a status's count is the sum of its slots
-- (one slot may go below zero: a task deleted through another connection than made it).
CREATE TABLE tugas_count (
  status text NOT NULL,
  slot smallint NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (status, slot)
);
INSERT INTO tugas_count (status, slot, n)
  SELECT status, slot, 0
  FROM unnest(ARRAY['belum', 'selesai']) AS status, generate_series(0, 15) AS slot;

-- Statement-level, over the statement's transition tables: one count update per statement and
-- status, however many rows it touched (a row-level trigger would rewrite one count row per
-- row, which a bulk load of a million rows makes quadratic).
CREATE FUNCTION tugas_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE tugas_count c SET n = c.n + d.k
      FROM (SELECT status, count(*) AS k FROM new_rows GROUP BY status) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE tugas_count c SET n = c.n - d.k
      FROM (SELECT status, count(*) AS k FROM old_rows GROUP BY status) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
  ELSE
    UPDATE tugas_count c SET n = c.n + d.k
      FROM (SELECT status, sum(k) AS k FROM (
          SELECT status, 1 AS k FROM new_rows UNION ALL SELECT status, -1 FROM old_rows) m
        GROUP BY status HAVING sum(k) <> 0) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER tugas_count_insert AFTER INSERT ON tugas
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tugas_count_change();
CREATE TRIGGER tugas_count_delete AFTER DELETE ON tugas
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tugas_count_change();
CREATE TRIGGER tugas_count_update AFTER UPDATE ON tugas
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tugas_count_change();

CREATE TABLE komentar (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  -- A comment never outlives its task, nor lands on one deleted at the same time.
  tugas_id bigint NOT NULL REFERENCES tugas (id) ON DELETE CASCADE,
  isi text NOT NULL
);
CREATE INDEX komentar_tugas ON komentar (tugas_id, id);

-- Surface B.
CREATE TABLE compact_tugas (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  judul text NOT NULL,
  selesai boolean NOT NULL
);

-- Surface C. `priority` and `due_date` only for todos made by the priority variant.
CREATE TABLE todos (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  title text NOT NULL,
  done boolean NOT NULL,
  priority smallint,
  -- As sent (YYYY-MM-DD, any year the rules admit, 0000 included): no date type reads it back.
  due_date text,
  created_at timestamptz(3) NOT NULL
);

-- Surface D.
CREATE TABLE users (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  -- The email as uniqueness compares it (letter case ignored), computed by the service.
  email_key text NOT NULL UNIQUE,
  password_hash text,
  created_at timestamptz(3) NOT NULL
);

CREATE TABLE pesanan (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  email text NOT NULL,
  jumlah bigint NOT NULL CHECK (jumlah > 0),
  status text NOT NULL CHECK (status IN ('MENUNGGU', 'LUNAS'))
);

CREATE TABLE produk (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  nama text NOT NULL,
  harga bigint NOT NULL,
  stok bigint NOT NULL
);

CREATE TABLE dokumen (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  judul text NOT NULL,
  pemilik text NOT NULL
);
CREATE INDEX dokumen_pemilik ON dokumen (pemilik, id);

-- One table for Bearer tokens and API keys; a secret is kept only as its SHA-256 digest.
CREATE TABLE credentials (
  digest bytea PRIMARY KEY,
  nama text NOT NULL,
  peran text NOT NULL CHECK (peran IN ('user', 'admin'))
);

-- Set once, in the transaction that loads the seed: a database is seeded at most once.
CREATE TABLE seeded (
  at timestamptz NOT NULL,
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton)
);
