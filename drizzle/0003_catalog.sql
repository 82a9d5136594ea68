CREATE TABLE "knowledge_chunks" (
	"id" text PRIMARY KEY NOT NULL,
	"memory_scope" text NOT NULL,
	"path" text NOT NULL,
	"chunk" integer NOT NULL,
	"content" text NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', coalesce(content, ''))) STORED,
	"indexed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "knowledge_chunks_scope_path_chunk" UNIQUE("memory_scope","path","chunk")
);
--> statement-breakpoint
CREATE TABLE "memories" (
	"memory_scope" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memories_memory_scope_key_pk" PRIMARY KEY("memory_scope","key")
);
--> statement-breakpoint
CREATE TABLE "skills" (
	"name" text PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"description" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"dir" text NOT NULL,
	"source" text NOT NULL,
	"manifest" jsonb NOT NULL,
	"installed_by" text NOT NULL,
	"installed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spills" (
	"id" text PRIMARY KEY NOT NULL,
	"execution_id" text DEFAULT '' NOT NULL,
	"tool" text NOT NULL,
	"content" text NOT NULL,
	"bytes" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "todos" (
	"id" text PRIMARY KEY NOT NULL,
	"session_key" text NOT NULL,
	"text" text NOT NULL,
	"done" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"done_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "transcripts" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"session_key" text NOT NULL,
	"memory_scope" text DEFAULT '' NOT NULL,
	"run_id" text,
	"job_id" text,
	"execution_id" text NOT NULL,
	"prompt" text NOT NULL,
	"messages" jsonb NOT NULL,
	"text" text NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', coalesce(text, ''))) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "origin" text DEFAULT 'cronjob' NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "parent_job_id" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "parent_execution_id" text;--> statement-breakpoint
CREATE INDEX "knowledge_chunks_tsv_idx" ON "knowledge_chunks" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "spills_created_idx" ON "spills" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "todos_session_idx" ON "todos" USING btree ("session_key","created_at");--> statement-breakpoint
CREATE INDEX "transcripts_tsv_idx" ON "transcripts" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "transcripts_run_idx" ON "transcripts" USING btree ("run_id");--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_origin_check" CHECK ("jobs"."origin" in ('cronjob', 'task', 'workflow', 'spawn_task'));