-- tugas schema, version 3: pages of the task list at any offset without walking the rows before
-- it (docs/performance.md#counted-buckets).
--
-- Three orders are kept, each ascending on a pair (k, n): 0 is ids ('', id); 1 titles
-- (title_key, id); 2 titles with ties in descending id (title_key, -id), which read from the
-- end is the list's descending title order (ties in ascending id). Each order is cut into
-- buckets of consecutive rows, each known by its first place (k, n) and counted per status;
-- the buckets are grouped into leaves, and one row per order lists its leaves with the rows
-- before each. A page finds its leaf by binary search over those counts, its bucket in the
-- leaf's few buckets, then skips fewer than a bucket's rows in the order's index.
--
-- Writers never touch the counts: a writing statement appends one signed row per row it adds
-- or removes to `tugas_pending`, and the service folds pending rows into the counts in the
-- background, one fold at a time. A page adds the pending rows its snapshot sees, so it is
-- exact whenever it runs.

-- (title_key, -id), for order 2: ascending, so that a row comparison seeks it in one index
-- condition; read backwards it is the descending title order. `id` is included so that a scan
-- of the order reads no table row.
DROP INDEX tugas_title_desc;
DROP INDEX tugas_status_title_desc;
CREATE INDEX tugas_title_desc ON tugas (title_key, (-id)) INCLUDE (id);
CREATE INDEX tugas_status_title_desc ON tugas (status, title_key, (-id)) INCLUDE (id);

-- Rows added (+1) or removed (-1) that are not in the counts yet, few at any time: each fold
-- deletes those it counted. Every reader asks for `seq >= 0`, so that after a burst, while
-- the table keeps its size until a vacuum can shorten it (writers appending at its end may
-- keep that from happening for a long time), the planner reads the few live rows through the
-- index instead of every page. The tasks there already are not added: the first fold, finding
-- no buckets, counts every task.
CREATE TABLE tugas_pending (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  status text NOT NULL,
  title_key bytea NOT NULL,
  id bigint NOT NULL,
  sign smallint NOT NULL
);

-- A bucket: its first place in the order, its leaf, and its rows per status. The first bucket
-- of each order starts at ('', the smallest bigint), before every row.
CREATE TABLE tugas_bucket (
  ord smallint NOT NULL,
  k bytea NOT NULL,
  n bigint NOT NULL,
  leaf bigint NOT NULL,
  belum bigint NOT NULL,
  selesai bigint NOT NULL,
  PRIMARY KEY (ord, k, n)
-- Room on each page for the new versions of rows whose counts change (HOT updates).
) WITH (fillfactor = 70);
CREATE INDEX tugas_bucket_leaf ON tugas_bucket (ord, leaf, k, n);

-- Per order, its leaves in order: the leaf, its number of buckets, and the rows before it per
-- status and in all (cumulative, for width_bucket).
CREATE TABLE tugas_directory (
  ord smallint PRIMARY KEY,
  leaves bigint[] NOT NULL,
  buckets int[] NOT NULL,
  before_all bigint[] NOT NULL,
  before_belum bigint[] NOT NULL,
  before_selesai bigint[] NOT NULL,
  belum bigint NOT NULL,
  selesai bigint NOT NULL
);
CREATE SEQUENCE tugas_leaf;

CREATE OR REPLACE FUNCTION tugas_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE tugas_count c SET n = c.n + d.k
      FROM (SELECT status, count(*) AS k FROM new_rows GROUP BY status) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
    INSERT INTO tugas_pending (status, title_key, id, sign) SELECT status, title_key, id, 1 FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE tugas_count c SET n = c.n - d.k
      FROM (SELECT status, count(*) AS k FROM old_rows GROUP BY status) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
    INSERT INTO tugas_pending (status, title_key, id, sign) SELECT status, title_key, id, -1 FROM old_rows;
  ELSE
    UPDATE tugas_count c SET n = c.n + d.k
      FROM (SELECT status, sum(k) AS k FROM (
          SELECT status, 1 AS k FROM new_rows UNION ALL SELECT status, -1 FROM old_rows) m
        GROUP BY status HAVING sum(k) <> 0) d
      WHERE c.status = d.status AND c.slot = pg_backend_pid() % 16;
    -- Only rows whose place in some order changed.
    INSERT INTO tugas_pending (status, title_key, id, sign)
      SELECT o.status, o.title_key, o.id, -1 FROM old_rows o JOIN new_rows n USING (id)
        WHERE o.status <> n.status OR o.title_key <> n.title_key
      UNION ALL
      SELECT n.status, n.title_key, n.id, 1 FROM old_rows o JOIN new_rows n USING (id)
        WHERE o.status <> n.status OR o.title_key <> n.title_key;
  END IF;
  RETURN NULL;
END
$$;

-- Where the page at offset `p` of order `o` (filtered by status `s`, or not when null) starts:
-- a bucket's first place (k, n), and how many of the list's rows to skip from it. STABLE, so
-- it reads in the snapshot of the statement that calls it: the counts and the pending rows it
-- sees add up to the rows that statement sees.
CREATE FUNCTION tugas_locate(o smallint, s text, p bigint, OUT k bytea, OUT n bigint,
    OUT skip bigint) LANGUAGE plpgsql STABLE
  -- One plan per statement, kept: planning anew for each call's values costs more than a call.
  SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  target bigint;
  before bigint := 0;
  at int;
  at_leaf bigint;
  counted bigint;
  bucket record;
BEGIN
  k := ''::bytea;
  n := -9223372036854775808;
  -- Pending additions can only move a row later: aiming that many rows early, the bucket
  -- found never starts after row p, and the skip is never negative.
  SELECT p - count(*) INTO target FROM tugas_pending t
    WHERE t.seq >= 0 AND t.sign > 0 AND (s IS NULL OR t.status = s);
  IF target > 0 THEN
    SELECT width_bucket(target, CASE s WHEN 'belum' THEN d.before_belum
        WHEN 'selesai' THEN d.before_selesai ELSE d.before_all END)
      INTO at FROM tugas_directory d WHERE d.ord = o;
    IF at IS NOT NULL THEN
      SELECT d.leaves[at], CASE s WHEN 'belum' THEN d.before_belum[at]
          WHEN 'selesai' THEN d.before_selesai[at] ELSE d.before_all[at] END
        INTO at_leaf, before FROM tugas_directory d WHERE d.ord = o;
      FOR bucket IN SELECT b.k, b.n, b.belum, b.selesai FROM tugas_bucket b
          WHERE b.ord = o AND b.leaf = at_leaf ORDER BY b.k, b.n LOOP
        counted := CASE s WHEN 'belum' THEN bucket.belum WHEN 'selesai' THEN bucket.selesai
          ELSE bucket.belum + bucket.selesai END;
        k := bucket.k;
        n := bucket.n;
        EXIT WHEN before + counted > target;
        before := before + counted;
      END LOOP;
      IF before + counted <= target THEN
        -- The leaf ended first (only if the counts were wrong): its last bucket.
        before := before - counted;
      END IF;
    END IF;
  END IF;
  -- The pending rows before the bucket's first place, in the order.
  SELECT p - before - coalesce(sum(t.sign), 0) INTO skip FROM tugas_pending t
    WHERE t.seq >= 0 AND (s IS NULL OR t.status = s) AND CASE o
      WHEN 0 THEN t.id < tugas_locate.n
      WHEN 1 THEN (t.title_key, t.id) < (tugas_locate.k, tugas_locate.n)
      ELSE (t.title_key, -t.id) < (tugas_locate.k, tugas_locate.n) END;
END
$$;

-- The ids of the page of `lim` rows at offset `p` of order `o` (see tugas_locate), filtered by
-- status `s` when not null, in the order: from the bucket tugas_locate finds, skipping the
-- rest in the order's index.
CREATE FUNCTION tugas_page_ids(o smallint, s text, p bigint, lim bigint) RETURNS SETOF bigint
    LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  l record;
BEGIN
  IF lim <= 0 THEN
    RETURN;
  END IF;
  SELECT * INTO l FROM tugas_locate(o, s, p);
  IF o = 0 AND s IS NULL THEN
    RETURN QUERY SELECT t.id FROM tugas t WHERE t.id >= l.n
      ORDER BY t.id OFFSET l.skip LIMIT lim;
  ELSIF o = 0 THEN
    RETURN QUERY SELECT t.id FROM tugas t WHERE t.status = s AND t.id >= l.n
      ORDER BY t.status, t.id OFFSET l.skip LIMIT lim;
  ELSIF o = 1 AND s IS NULL THEN
    RETURN QUERY SELECT t.id FROM tugas t WHERE (t.title_key, t.id) >= (l.k, l.n)
      ORDER BY t.title_key, t.id OFFSET l.skip LIMIT lim;
  ELSIF o = 1 THEN
    RETURN QUERY SELECT t.id FROM tugas t
      WHERE t.status = s AND (t.title_key, t.id) >= (l.k, l.n)
      ORDER BY t.status, t.title_key, t.id OFFSET l.skip LIMIT lim;
  ELSIF s IS NULL THEN
    RETURN QUERY SELECT t.id FROM tugas t WHERE (t.title_key, -t.id) >= (l.k, l.n)
      ORDER BY t.title_key, -t.id OFFSET l.skip LIMIT lim;
  ELSE
    RETURN QUERY SELECT t.id FROM tugas t
      WHERE t.status = s AND (t.title_key, -t.id) >= (l.k, l.n)
      ORDER BY t.status, t.title_key, -t.id OFFSET l.skip LIMIT lim;
  END IF;
END
$$;

-- Pending rows, counted up to `up_to`: whether a fold is due (see tugas_pending).
CREATE FUNCTION tugas_pending_rows(up_to int) RETURNS bigint LANGUAGE sql STABLE
  RETURN (SELECT count(*) FROM (SELECT FROM tugas_pending WHERE seq >= 0 LIMIT up_to) AS few);
