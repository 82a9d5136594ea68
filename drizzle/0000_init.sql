CREATE TABLE "allowlist_records" (
	"id" text PRIMARY KEY NOT NULL,
	"tool" text NOT NULL,
	"scope" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reason" text NOT NULL,
	"approval_id" text,
	"revoked_at" timestamp with time zone,
	"revoked_by" text,
	"revoked_why" text
);
--> statement-breakpoint
CREATE TABLE "approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"call_hash" text NOT NULL,
	"tool" text NOT NULL,
	"args" jsonb NOT NULL,
	"risk" text NOT NULL,
	"flags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"allow_always" boolean DEFAULT false NOT NULL,
	"channel" text NOT NULL,
	"user_id" text DEFAULT '' NOT NULL,
	"execution_id" text,
	"trace_id" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"answer" text,
	"answered_by" text,
	"answered_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "approvals_state_check" CHECK ("approvals"."state" in ('pending', 'approved', 'denied', 'expired')),
	CONSTRAINT "approvals_answer_check" CHECK ("approvals"."answer" is null or "approvals"."answer" in ('once', 'always', 'deny'))
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"actor" text,
	"job_id" text,
	"run_id" text,
	"execution_id" text,
	"trace_id" text,
	"step" integer,
	"rule" text,
	"outcome" text,
	"risk" text,
	"reason" text,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"cron_authorized" boolean NOT NULL,
	"approval_id" text,
	"approver" text,
	"channel" text,
	"approved_at" timestamp with time zone,
	"definition_hash" text NOT NULL,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" text,
	"revoked_why" text
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"owner" text NOT NULL,
	"schedule" text NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"payload" jsonb NOT NULL,
	"tools" text[] DEFAULT '{}'::text[] NOT NULL,
	"delivery" jsonb,
	"overlap_policy" text DEFAULT 'skip' NOT NULL,
	"misfire_policy" text DEFAULT 'run_once' NOT NULL,
	"catchup_window_seconds" integer DEFAULT 3600 NOT NULL,
	"jitter_seconds" integer DEFAULT 0 NOT NULL,
	"timeout_seconds" integer DEFAULT 600 NOT NULL,
	"max_retries" integer DEFAULT 0 NOT NULL,
	"retry_backoff_seconds" integer DEFAULT 30 NOT NULL,
	"max_runs" integer,
	"fired_count" integer DEFAULT 0 NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"pause_note" text,
	"next_fire_at" timestamp with time zone,
	"last_fire_at" timestamp with time zone,
	"definition_hash" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone,
	CONSTRAINT "jobs_id_format" CHECK ("jobs"."id" ~ '^job_[a-z0-9]+$'),
	CONSTRAINT "jobs_overlap_policy_check" CHECK ("jobs"."overlap_policy" in ('skip', 'buffer_one', 'allow', 'cancel_other')),
	CONSTRAINT "jobs_misfire_policy_check" CHECK ("jobs"."misfire_policy" in ('skip', 'run_once', 'run_all'))
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"nominal_at" timestamp with time zone NOT NULL,
	"trigger" text DEFAULT 'cron' NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"skip_reason" text,
	"attempt" integer DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"not_before" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"output" jsonb,
	"error" text,
	"denials" integer DEFAULT 0 NOT NULL,
	"cron_authorized" boolean,
	"grant_id" text,
	"execution_id" text,
	"trace_id" text,
	CONSTRAINT "runs_job_nominal_unique" UNIQUE("job_id","nominal_at"),
	CONSTRAINT "runs_id_format" CHECK ("runs"."id" ~ '^run_[a-z0-9]+$'),
	CONSTRAINT "runs_state_check" CHECK ("runs"."state" in ('queued', 'running', 'retrying', 'succeeded', 'failed', 'denied', 'timed_out', 'interrupted', 'cancelled', 'skipped')),
	CONSTRAINT "runs_trigger_check" CHECK ("runs"."trigger" in ('cron', 'manual'))
);
--> statement-breakpoint
ALTER TABLE "job_grants" ADD CONSTRAINT "job_grants_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_grant_id_job_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."job_grants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "allowlist_one_live_per_scope" ON "allowlist_records" USING btree ("tool","scope") WHERE "allowlist_records"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "approvals_state_idx" ON "approvals" USING btree ("state","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_job_idx" ON "audit_events" USING btree ("job_id","seq");--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_events_prev_hash_idx" ON "audit_events" USING btree ("prev_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "job_grants_one_live_per_job" ON "job_grants" USING btree ("job_id") WHERE "job_grants"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "job_grants_job_idx" ON "job_grants" USING btree ("job_id","issued_at");--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("next_fire_at") WHERE "jobs"."removed_at" is null and not "jobs"."paused";--> statement-breakpoint
CREATE INDEX "runs_state_idx" ON "runs" USING btree ("state");--> statement-breakpoint
CREATE INDEX "runs_job_nominal_desc_idx" ON "runs" USING btree ("job_id","nominal_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "runs_lease_idx" ON "runs" USING btree ("lease_expires_at") WHERE "runs"."state" = 'running';