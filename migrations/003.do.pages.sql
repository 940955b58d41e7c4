-- tugas schema, version 3: pages of the task list at any offset without walking the rows before
-- it (docs/performance.md#counted-buckets).
--
-- Each order of the list (0: id; 1: title_key, id; 2: title_key descending, id) is cut into
-- buckets of consecutive rows, each known by its first row's key and counted per status. A
-- page finds the bucket holding its offset by binary search over cumulative counts, then skips
-- fewer than a bucket's rows in the order's index. Writers never touch the counts: a writing
-- statement appends one signed row per row it adds or removes to `tugas_pending`, and the
-- service folds pending rows into the counts in the background (one folder at a time). A page
-- adds the pending rows still visible to its snapshot, so it is exact whenever it runs.

-- Title descending with ties in ascending id, as one direction: (title_key, -id) read
-- backwards. A row comparison can then seek to a bucket's first row in one index condition.
-- `id` is included so that a scan of the order needs no table row.
DROP INDEX tugas_title_desc;
DROP INDEX tugas_status_title_desc;
CREATE INDEX tugas_title_desc ON tugas (title_key, (-id)) INCLUDE (id);
CREATE INDEX tugas_status_title_desc ON tugas (status, title_key, (-id)) INCLUDE (id);

-- Rows added (+1) or removed (-1) that are not in the counts yet. No index: a page reads them
-- all, and the folding keeps them few; the service vacuums the table after each fold.
CREATE TABLE tugas_pending (
  status text NOT NULL,
  title_key bytea NOT NULL,
  id bigint NOT NULL,
  sign smallint NOT NULL
);
-- The tasks there already: the first fold counts them all.
INSERT INTO tugas_pending (status, title_key, id, sign) SELECT status, title_key, id, 1 FROM tugas;

-- A two-level directory per order. Node 0 lists the leaves; each leaf lists its buckets. An
-- entry is the first row of its leaf or bucket (key and id; null in the very first entry of an
-- order, which starts where the order starts) and the rows before it, per status and in all:
-- in the whole order for node 0's entries, from the leaf's first row for a leaf's.
CREATE TABLE tugas_directory (
  ord smallint NOT NULL,
  node bigint NOT NULL,
  keys bytea[] NOT NULL,
  ids bigint[] NOT NULL,
  -- Node 0 only: the leaf of each entry.
  nodes bigint[],
  before_all bigint[] NOT NULL,
  before_belum bigint[] NOT NULL,
  before_selesai bigint[] NOT NULL,
  -- The rows of the whole node.
  belum bigint NOT NULL,
  selesai bigint NOT NULL,
  PRIMARY KEY (ord, node)
);
CREATE SEQUENCE tugas_directory_node;

CREATE OR REPLACE FUNCTION tugas_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE tugas_count c SET n = c.n + d.k
      FROM (SELECT status, count(*) AS k FROM new_rows GROUP BY status) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
    INSERT INTO tugas_pending SELECT status, title_key, id, 1 FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE tugas_count c SET n = c.n - d.k
      FROM (SELECT status, count(*) AS k FROM old_rows GROUP BY status) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
    INSERT INTO tugas_pending SELECT status, title_key, id, -1 FROM old_rows;
  ELSE
    UPDATE tugas_count c SET n = c.n + d.k
      FROM (SELECT status, sum(k) AS k FROM (
          SELECT status, 1 AS k FROM new_rows UNION ALL SELECT status, -1 FROM old_rows) m
        GROUP BY status HAVING sum(k) <> 0) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
    -- Only rows whose place in some order changed.
    INSERT INTO tugas_pending
      SELECT o.status, o.title_key, o.id, -1 FROM old_rows o JOIN new_rows n USING (id)
        WHERE o.status <> n.status OR o.title_key <> n.title_key
      UNION ALL
      SELECT n.status, n.title_key, n.id, 1 FROM old_rows o JOIN new_rows n USING (id)
        WHERE o.status <> n.status OR o.title_key <> n.title_key;
  END IF;
  RETURN NULL;
END
$$;

-- Where a page at offset `p` of order `o` (filtered by status `s`, or not when null) starts:
-- the first row of a bucket, and how many rows of the list to skip from it. STABLE, so it
-- reads in the snapshot of the statement that calls it: the directory and the pending rows it
-- sees always add up to the rows that statement sees.
CREATE FUNCTION tugas_locate(o smallint, s text, p bigint, OUT key bytea, OUT id bigint,
    OUT skip bigint) LANGUAGE plpgsql STABLE
  -- One plan per statement, kept: planning anew for each call's values costs more than the call.
  SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  top tugas_directory;
  leaf tugas_directory;
  added bigint;
  target bigint;
  at int;
  before bigint := 0;
BEGIN
  -- Pending additions can only move a row later: aiming that many rows early, the bucket
  -- found never starts after row p, and the skip is never negative.
  SELECT count(*) INTO added FROM tugas_pending t WHERE t.sign > 0 AND (s IS NULL OR t.status = s);
  target := p - added;
  SELECT * INTO top FROM tugas_directory d WHERE d.ord = o AND d.node = 0;
  IF FOUND AND target > 0 THEN
    at := width_bucket(target, CASE s WHEN 'belum' THEN top.before_belum
      WHEN 'selesai' THEN top.before_selesai ELSE top.before_all END);
    before := CASE s WHEN 'belum' THEN top.before_belum[at]
      WHEN 'selesai' THEN top.before_selesai[at] ELSE top.before_all[at] END;
    SELECT * INTO leaf FROM tugas_directory d WHERE d.ord = o AND d.node = top.nodes[at];
    at := width_bucket(target - before, CASE s WHEN 'belum' THEN leaf.before_belum
      WHEN 'selesai' THEN leaf.before_selesai ELSE leaf.before_all END);
    before := before + CASE s WHEN 'belum' THEN leaf.before_belum[at]
      WHEN 'selesai' THEN leaf.before_selesai[at] ELSE leaf.before_all[at] END;
    key := leaf.keys[at];
    id := leaf.ids[at];
  END IF;
  IF id IS NULL THEN
    -- The order's start: its first row, if any.
    IF o = 0 THEN
      SELECT ''::bytea, t.id INTO key, id FROM tugas t ORDER BY t.id LIMIT 1;
    ELSIF o = 1 THEN
      SELECT t.title_key, t.id INTO key, id FROM tugas t ORDER BY t.title_key, t.id LIMIT 1;
    ELSE
      SELECT t.title_key, t.id INTO key, id FROM tugas t
        ORDER BY t.title_key DESC, -t.id DESC LIMIT 1;
    END IF;
    skip := p;
    RETURN;
  END IF;
  -- The pending rows before the bucket's first row, in the order.
  SELECT before + coalesce(sum(t.sign), 0) INTO before FROM tugas_pending t
    WHERE (s IS NULL OR t.status = s) AND CASE o
      WHEN 0 THEN t.id < tugas_locate.id
      WHEN 1 THEN (t.title_key, t.id) < (tugas_locate.key, tugas_locate.id)
      ELSE (t.title_key, -t.id) > (tugas_locate.key, -tugas_locate.id) END;
  skip := p - before;
END
$$;

-- The ids of the page of `lim` rows at offset `p` of order `o`, filtered by status `s` when not
-- null, in the order: from the bucket tugas_locate finds, skipping the rest in the order's index.
CREATE FUNCTION tugas_page_ids(o smallint, s text, p bigint, lim bigint) RETURNS SETOF bigint
    LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  l record;
BEGIN
  IF lim <= 0 THEN
    RETURN;
  END IF;
  SELECT * INTO l FROM tugas_locate(o, s, p);
  IF l.id IS NULL THEN
    RETURN;
  END IF;
  IF o = 0 AND s IS NULL THEN
    RETURN QUERY SELECT t.id FROM tugas t WHERE t.id >= l.id
      ORDER BY t.id OFFSET l.skip LIMIT lim;
  ELSIF o = 0 THEN
    RETURN QUERY SELECT t.id FROM tugas t WHERE t.status = s AND t.id >= l.id
      ORDER BY t.status, t.id OFFSET l.skip LIMIT lim;
  ELSIF o = 1 AND s IS NULL THEN
    RETURN QUERY SELECT t.id FROM tugas t WHERE (t.title_key, t.id) >= (l.key, l.id)
      ORDER BY t.title_key, t.id OFFSET l.skip LIMIT lim;
  ELSIF o = 1 THEN
    RETURN QUERY SELECT t.id FROM tugas t
      WHERE t.status = s AND (t.title_key, t.id) >= (l.key, l.id)
      ORDER BY t.status, t.title_key, t.id OFFSET l.skip LIMIT lim;
  ELSIF s IS NULL THEN
    RETURN QUERY SELECT t.id FROM tugas t WHERE (t.title_key, -t.id) <= (l.key, -l.id)
      ORDER BY t.title_key DESC, -t.id DESC OFFSET l.skip LIMIT lim;
  ELSE
    RETURN QUERY SELECT t.id FROM tugas t
      WHERE t.status = s AND (t.title_key, -t.id) <= (l.key, -l.id)
      ORDER BY t.status DESC, t.title_key DESC, -t.id DESC OFFSET l.skip LIMIT lim;
  END IF;
END
$$;
