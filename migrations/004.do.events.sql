-- tugas schema, version 4: the change feed's events (docs/events.md), a transactional outbox.
--
-- A write inserts its event in the same statement as its change, so an acknowledged write
-- always has its event and a rolled-back one never does. `seq` is drawn then, before commit,
-- so it cannot be the public order: a reader could see seq 11 committed while 10 is still in
-- flight. The public `id` is given after commit by the sequencer, one at a time over every
-- process (an advisory lock): it numbers the committed events that have none, in seq order,
-- continuing from the largest id. Whatever a reader has seen numbered, anything numbered later
-- gets a larger id. `data` is the written row's columns as JSON; the service renders it as the
-- surface's item read.
--
-- A write pays for one index entry: the partial index of the events not numbered yet (the
-- sequencer's work, few at any time). The id's unique index holds only numbered events, so an
-- event enters it when it is numbered.
CREATE TABLE events (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id bigint,
  type text NOT NULL,
  subject text NOT NULL,
  -- Who may see it where not everyone may: a document's owner (dokumen.*).
  owner text,
  time timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  data text NOT NULL
);
CREATE INDEX events_unnumbered ON events (seq) WHERE id IS NULL;
CREATE UNIQUE INDEX events_id ON events (id) WHERE id IS NOT NULL;
