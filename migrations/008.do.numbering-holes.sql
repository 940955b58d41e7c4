-- tugas schema, version 8: no committed event left unnumbered, whatever the interleaving
-- (docs/events.md#nothing-lost-nothing-renamed).
--
-- Version 7 noted with each hole the xmax of the snapshot that found it missing, and let the
-- hole go once the xmin of a later snapshot reached that value. But xmax is one past the latest
-- transaction to have *ended*: a transaction still running can hold an id at or above it. A
-- writer that drew the hole's seq could so still be running when the hole was let go, and its
-- event, committed after, was never numbered.
--
-- Now the value noted is the numbering transaction's own id, drawn after the statement that
-- found the events. The writer of a hole drew its seq before a larger seq was committed (seqs
-- are drawn in order), so before that statement's snapshot; and it had its transaction id
-- before it drew the seq (its statement wrote its row first). So its id is below the noted one,
-- and once a snapshot's xmin has passed the noted id, the writer has ended: committed, and then
-- seen and numbered by that numbering, or rolled back. The function refuses to run in a
-- transaction that already has an id, which would be drawn too early for this.
--
-- Holes noted by version 7 are kept until every transaction running now has ended: they get
-- this migration's own transaction id, which is above the id of any writer that drew them.
UPDATE event_batches SET holes_xmax = array_fill(pg_current_xact_id()::text::bigint,
  ARRAY[cardinality(holes)])
WHERE last_id = (SELECT max(last_id) FROM event_batches) AND cardinality(holes) > 0;

CREATE OR REPLACE FUNCTION events_number(size integer, channel text, OUT newest bigint, OUT queued bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  ended_before bigint := pg_snapshot_xmin(pg_current_snapshot())::text::bigint;
  prior event_batches%ROWTYPE;
  found bigint[];
  from_id bigint;
  top bigint;
  begun_after bigint;
  kept bigint[];
  kept_xmax bigint[];
BEGIN
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'events_number must run before its transaction writes anything';
  END IF;
  SELECT * INTO prior FROM event_batches ORDER BY last_id DESC LIMIT 1;
  prior.max_seq := coalesce(prior.max_seq, 0);
  SELECT array_agg(seq ORDER BY seq) INTO found FROM (
    SELECT seq FROM events WHERE seq = ANY (coalesce(prior.holes, '{}'))
    UNION ALL (SELECT seq FROM events WHERE seq > prior.max_seq ORDER BY seq LIMIT size)
    ORDER BY seq LIMIT size) new;
  IF found IS NULL THEN
    RETURN;
  END IF;
  -- Drawn now, after the statement above found the events: above every transaction id drawn
  -- before it, the ids of the writers of the holes among them.
  begun_after := pg_current_xact_id()::text::bigint;
  from_id := coalesce(prior.last_id, 0) + 1;
  top := greatest(prior.max_seq, found[cardinality(found)]);
  -- Holes still to come: the old ones not numbered now that are there (past `size`) or may
  -- still be in flight, and the gaps between the old max_seq and the new.
  SELECT coalesce(array_agg(seq ORDER BY seq), '{}'), coalesce(array_agg(xmax ORDER BY seq), '{}')
  INTO kept, kept_xmax FROM (
    SELECT h.seq, h.xmax FROM unnest(prior.holes, prior.holes_xmax) AS h (seq, xmax)
    WHERE h.seq <> ALL (found)
      AND (h.xmax > ended_before OR EXISTS (SELECT 1 FROM events e WHERE e.seq = h.seq))
    UNION ALL
    SELECT gap.seq, begun_after FROM (
      SELECT generate_series(prior.max_seq + 1, top) EXCEPT SELECT unnest(found)) AS gap (seq)
  ) holes;
  newest := from_id + cardinality(found) - 1;
  INSERT INTO event_batches (last_id, first_id, seqs, max_seq, holes, holes_xmax)
  VALUES (newest, from_id, found, top, kept, kept_xmax);
  INSERT INTO webhook_deliveries (webhook_id, event_id, type, subject, time, data)
  SELECT w.id, from_id + n.i - 1, e.type, e.subject, e.time, e.data
  FROM unnest(found) WITH ORDINALITY AS n (seq, i)
  JOIN events e ON e.seq = n.seq
  JOIN webhooks w ON e.type = ANY (w.types) OR split_part(e.type, '.', 1) || '.*' = ANY (w.types);
  GET DIAGNOSTICS queued = ROW_COUNT;
  PERFORM pg_notify(channel, newest || ',' || queued);
END $$;

