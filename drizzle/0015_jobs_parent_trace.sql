ALTER TABLE "jobs" ADD COLUMN "parent_trace_id" text;--> statement-breakpoint
CREATE INDEX "jobs_parent_trace_idx" ON "jobs" USING btree ("parent_trace_id") WHERE "jobs"."parent_trace_id" is not null;