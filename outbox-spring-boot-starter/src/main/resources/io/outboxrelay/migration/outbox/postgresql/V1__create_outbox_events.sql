-- outbox-relay's outbox table (PostgreSQL 12+): the statement of config/postgresql/outbox-schema.sql, with
-- IF NOT EXISTS, so that a table the application created before (from that file, or an older
-- layout) is kept as it is; the later versions add the columns it lacks. Run by the Spring Boot
-- starter when outbox.migrations.enabled=true, with its own history table (outbox_schema_history).
CREATE TABLE IF NOT EXISTS outbox_events (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id         uuid         NOT NULL,               -- the Kafka header "id", consumers deduplicate on it
  aggregate_type   varchar(255) NOT NULL,               -- e.g. "order"; picks the topic (outbox.event.order)
  aggregate_id     varchar(255) NOT NULL,               -- the Kafka key: per-aggregate order
  event_type       varchar(255) NOT NULL,               -- e.g. "OrderCreated"; the header "event_type"
  payload          jsonb        NOT NULL,               -- published as PostgreSQL's text of the jsonb value
  created_at       timestamptz  NOT NULL DEFAULT clock_timestamp(),
  -- Optional (leave it out, or NULL, for events without a version): the version this event brings
  -- its aggregate to, 1, 2, 3... per aggregate; published as the header "aggregate_version"
  -- (decimal text), which consumer-idempotency's version check reads.
  aggregate_version bigint      NULL,
  -- Optional (leave it out, or NULL, for events without): application headers, a JSON object of
  -- string values, e.g. {"tenant":"acme"}, published as Kafka headers after the relay's own. The
  -- contract (reserved names, sizes): README.md, "Application headers". jsonb orders an object's
  -- members its own way (shorter names first) and keeps the last of duplicate names: declare
  -- "headers text NULL CHECK (headers::jsonb IS NOT NULL)" where the order is yours to choose.
  headers          jsonb        NULL,
  -- Polling bookkeeping (the application never sets these).
  status           varchar(16)  NOT NULL DEFAULT 'PENDING'
                   CHECK (status IN ('PENDING', 'PROCESSING', 'PUBLISHED', 'DEAD', 'SKIPPED')),
  attempts         integer      NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz  NOT NULL DEFAULT clock_timestamp(),
  claim_token      uuid         NULL,                  -- NULL when no claim owns the row
  processing_until timestamptz  NULL,                  -- when the lease ends or the last one ended; NULL before
  published_at     timestamptz  NULL,
  last_error       varchar(1000) NULL,
  CONSTRAINT ux_outbox_events_event_id UNIQUE (event_id)
);
-- Claims walk due rows of one status in id order, never touching PUBLISHED rows; retention walks
-- the oldest PUBLISHED rows the same way.
CREATE INDEX IF NOT EXISTS ix_outbox_events_status_id ON outbox_events (status, id);
-- "Is this the aggregate's oldest unpublished event?" reads a few entries of one status, never the
-- aggregate's published history.
CREATE INDEX IF NOT EXISTS ix_outbox_events_aggregate ON outbox_events (aggregate_type, aggregate_id, status, id);

-- jsonb stores a parsed form: the published payload is PostgreSQL's rendering of it (key order and
-- spacing may differ from what the application wrote). For byte-identical payloads use
--   payload text NOT NULL CHECK (payload::jsonb IS NOT NULL)
