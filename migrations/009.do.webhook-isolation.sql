-- tugas schema, version 9: each subscription's due deliveries found on their own
-- (docs/webhooks.md#isolation).
--
-- A claim takes, for every subscription, its oldest due deliveries up to a per-subscription
-- room, so that one with any number pending cannot fill every slot: it looks them up by
-- (webhook_id, next_at). That index also serves the cascade from webhooks, so the one on
-- webhook_id alone goes; the one on next_at alone, which claims used before, goes too.
CREATE INDEX webhook_deliveries_webhook_due ON webhook_deliveries (webhook_id, next_at);
DROP INDEX webhook_deliveries_webhook;
DROP INDEX webhook_deliveries_due;
