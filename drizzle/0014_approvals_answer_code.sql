ALTER TABLE "approvals" ADD COLUMN "code_hash" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "answer_proof" text;