ALTER TABLE "approvals" ADD COLUMN "tool_scope" text[];--> statement-breakpoint
ALTER TABLE "job_grants" ADD COLUMN "tool_scope" text[];