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
