CREATE TABLE "audit_archives" (
	"id" text PRIMARY KEY NOT NULL,
	"first_seq" bigint NOT NULL,
	"last_seq" bigint NOT NULL,
	"last_hash" text NOT NULL,
	"after_seq" bigint NOT NULL,
	"after_hash" text NOT NULL,
	"records" bigint NOT NULL,
	"before" timestamp with time zone NOT NULL,
	"file" text NOT NULL,
	"file_sha256" text NOT NULL,
	"archived_by" text NOT NULL,
	"archived_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_archives_id_format" CHECK ("audit_archives"."id" ~ '^arc_[a-z0-9]+$')
);
--> statement-breakpoint
CREATE UNIQUE INDEX "audit_archives_last_seq" ON "audit_archives" USING btree ("last_seq");--> statement-breakpoint
-- I8 with archives: a record may be deleted only once an archive covers it (`audit archive` wrote it to a
-- file first and recorded that in the chain); UPDATE and TRUNCATE stay refused.
CREATE OR REPLACE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND OLD.seq <= (SELECT max(last_seq) FROM audit_archives) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
-- No record goes in at or below the archived ones: a writer whose remembered tail was archived would
-- otherwise fill a freed seq with no unique violation to tell it the chain moved on.
CREATE FUNCTION "audit_events_seq_floor"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.seq <= (SELECT coalesce(max(last_seq), 0) FROM audit_archives) THEN
    RAISE EXCEPTION 'audit record % is at or below the archived records', NEW.seq
      USING ERRCODE = 'check_violation', CONSTRAINT = 'audit_events_seq_floor';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_events_seq_floor" BEFORE INSERT ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_seq_floor"();
--> statement-breakpoint
-- Archives are append-only, and each must follow the one before and end at a record still in the chain
-- (never its newest): a row made up to let old records be deleted, or widened later, is refused.
CREATE FUNCTION "audit_archives_guard"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  prev_seq bigint;
  prev_hash text;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    RAISE EXCEPTION 'audit_archives is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT last_seq, last_hash INTO prev_seq, prev_hash FROM audit_archives ORDER BY last_seq DESC LIMIT 1;
  IF NEW.after_seq <> coalesce(prev_seq, 0) OR NEW.after_hash <> coalesce(prev_hash, repeat('0', 64)) OR NEW.first_seq <> NEW.after_seq + 1 THEN
    RAISE EXCEPTION 'an archive must start right after the newest one (record %)', coalesce(prev_seq, 0) USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.last_seq < NEW.first_seq OR NEW.last_seq >= (SELECT max(seq) FROM audit_events)
     OR NEW.last_hash IS DISTINCT FROM (SELECT hash FROM audit_events WHERE seq = NEW.last_seq) THEN
    RAISE EXCEPTION 'an archive must end at a record the chain holds, before its newest' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_archives_append_only" BEFORE INSERT OR UPDATE OR DELETE ON "audit_archives"
  FOR EACH ROW EXECUTE FUNCTION "audit_archives_guard"();
--> statement-breakpoint
CREATE TRIGGER "audit_archives_no_truncate" BEFORE TRUNCATE ON "audit_archives"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_archives_guard"();
--> statement-breakpoint
-- The functions read this schema's tables whatever the caller's search_path: a temporary table of the
-- same name (pg_temp comes first by default) must not stand in for audit_archives.
DO $$
DECLARE
  s text := current_schema();
  f text;
BEGIN
  FOREACH f IN ARRAY ARRAY['audit_events_append_only', 'audit_events_seq_floor', 'audit_archives_guard'] LOOP
    EXECUTE format('ALTER FUNCTION %I.%I() SET search_path = %I, pg_catalog, pg_temp', s, f, s);
  END LOOP;
END
$$;
