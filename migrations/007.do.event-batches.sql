-- tugas schema, version 7: events numbered without being written twice (docs/events.md).
--
-- Version 4 gave each event its public id by rewriting its row after commit: a second row
-- version and index entry per event, for the write-ahead log and for vacuum. Now an event is
-- written once, by its write, and the sequencer records a numbering as one row per run: the
-- seqs it numbered, in order, whose ids are first_id, first_id + 1, ... Whatever a reader has
-- seen numbered, anything numbered later gets a larger id, as before.
--
-- What the sequencer has numbered is kept in its newest row: every seq above max_seq is new;
-- at or below it only the `holes` may still come. A hole is a seq drawn by a write not yet
-- committed when its neighbours were numbered, or by one rolled back: it is forgotten once
-- every transaction running when it was first seen has ended (PostgreSQL's snapshot xmin has
-- passed the xmax noted with it) and it is still not there. That holds because a write draws
-- its event's seq only after it has a transaction id: it has already written its row (the
-- outbox inserts the event from the rows its statement wrote), so any transaction that drew a
-- seq below one seen committed had its id before the snapshot that saw it.
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (seq);

CREATE TABLE event_batches (
  last_id bigint PRIMARY KEY,
  first_id bigint NOT NULL,
  -- The seq of the events numbered first_id, first_id + 1, ..., last_id.
  seqs bigint[] NOT NULL,
  -- The sequencer's state after this numbering (read from the newest row only).
  max_seq bigint NOT NULL,
  holes bigint[] NOT NULL,
  -- For each hole, pg_snapshot_xmax when it was first seen missing.
  holes_xmax bigint[] NOT NULL
);

-- What version 4 had numbered keeps its ids, and what it had not is numbered after it, in seq
-- order; in rows of at most 1,000 (the sequencer's batch). No hole is left: the ALTER above
-- waited for every write in flight on `events` (an older process's) and holds the table until
-- this commits, so a later write's seq is drawn after every one numbered here.
WITH last AS (SELECT coalesce(max(id), 0) AS id FROM events),
unnumbered AS (SELECT seq, row_number() OVER (ORDER BY seq) AS rank FROM events WHERE id IS NULL)
UPDATE events e SET id = last.id + unnumbered.rank FROM unnumbered, last
WHERE e.seq = unnumbered.seq;

INSERT INTO event_batches (last_id, first_id, seqs, max_seq, holes, holes_xmax)
SELECT max(id), min(id), array_agg(seq ORDER BY id), max(max(seq)) OVER (), '{}', '{}'
FROM events GROUP BY (id - 1) / 1000;

ALTER TABLE events DROP COLUMN id;

-- One numbering: the new committed events (and holes that came), in seq order, at most `size`,
-- with the deliveries of the webhooks subscribed to them (005) and the NOTIFY that wakes every
-- process's listener. The caller holds the sequencer's lock, taken before this call so that
-- every statement here sees every earlier numbering. Returns the newest id and the deliveries
-- queued, or nulls when there was nothing new.
--
-- Each statement of a function has a snapshot of its own: the xmin that lets holes go is read
-- before the events are looked for, and the xmax noted with new holes after, so each is on the
-- safe side of the snapshot that found what was there.
--
-- Planned at each call (force_custom_plan): a plan kept from the first calls, made while
-- `events` was a page or two, read the whole table to queue deliveries once it had 20,000 rows
-- (5 ms a numbering instead of 1), until something made PostgreSQL plan again.
CREATE FUNCTION events_number(size integer, channel text, OUT newest bigint, OUT queued bigint)
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
  SELECT * INTO prior FROM event_batches ORDER BY last_id DESC LIMIT 1;
  prior.max_seq := coalesce(prior.max_seq, 0);
  SELECT array_agg(seq ORDER BY seq) INTO found FROM (
    SELECT seq FROM events WHERE seq = ANY (coalesce(prior.holes, '{}'))
    UNION ALL (SELECT seq FROM events WHERE seq > prior.max_seq ORDER BY seq LIMIT size)
    ORDER BY seq LIMIT size) new;
  IF found IS NULL THEN
    RETURN;
  END IF;
  begun_after := pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
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

-- The events after id `after`, at most `size`, in id order, with their ids. Ids are consecutive
-- from the oldest kept: they are in the numberings from the one holding the first of them (or
-- the oldest) to the one holding the last. A function of SQL is planned at each call, so its
-- plan follows the tables' sizes (see events_number).
CREATE FUNCTION events_after(after bigint, size integer)
RETURNS TABLE (id bigint, type text, subject text, owner text, "time" timestamptz, data text)
LANGUAGE sql STABLE AS $$
  WITH start AS (
    SELECT greatest(after, (SELECT first_id - 1 FROM event_batches WHERE last_id > after
      ORDER BY last_id LIMIT 1)) AS id),
  span AS (
    SELECT start.id AS low, coalesce((SELECT last_id FROM event_batches
      WHERE last_id >= start.id + size ORDER BY last_id LIMIT 1), 9223372036854775807) AS high
    FROM start)
  SELECT b.first_id + n.i - 1, e.type, e.subject, e.owner, e.time, e.data
  FROM span, event_batches b, unnest(b.seqs) WITH ORDINALITY AS n (seq, i), events e
  WHERE b.last_id > span.low AND b.last_id <= span.high AND e.seq = n.seq
    AND b.first_id + n.i - 1 > span.low
  ORDER BY 1 LIMIT size
$$;
