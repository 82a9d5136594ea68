DROP INDEX "jobs_due_idx";--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("next_fire_at") WHERE "jobs"."removed_at" is null;