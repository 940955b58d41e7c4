-- tugas schema, version 5: webhooks (docs/webhooks.md).
--
-- A delivery is a row of webhook_deliveries, written by the sequencer (004) in the transaction
-- that gives the event its id: any event numbered has its deliveries, whichever process
-- numbered it, and a delivery stays until it is delivered or has failed for good. It carries
-- its own copy of the event, which EVENTS_RETAIN may forget first. A process claims due
-- deliveries with FOR UPDATE SKIP LOCKED by moving `next_at` past the attempt's timeout: no
-- other process takes it meanwhile, and if the process dies it is due again at that time.
CREATE TABLE webhooks (
  id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  url text NOT NULL,
  -- As sent: event types, or `<resource>.*`.
  types text[] NOT NULL,
  -- Needed to sign each delivery: as secret as the credentials (docs/webhooks.md).
  secret text NOT NULL,
  created_at timestamptz(3) NOT NULL
);

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id bigint NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  event_id bigint NOT NULL,
  type text NOT NULL,
  subject text NOT NULL,
  time timestamptz(3) NOT NULL,
  data text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id);

-- The most recent attempts of each subscription, for GET /webhooks/<id>/deliveries.
CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id bigint NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  event_id bigint NOT NULL,
  attempt integer NOT NULL,
  status_code integer,
  error text,
  time timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  duration_ms integer NOT NULL,
  result text NOT NULL
);
CREATE INDEX webhook_attempts_newest ON webhook_attempts (webhook_id, id DESC);
