ALTER TABLE "approvals" DROP CONSTRAINT "approvals_state_check";--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_state_check" CHECK ("approvals"."state" in ('pending', 'approved', 'denied', 'expired', 'withdrawn'));--> statement-breakpoint
-- a request that ended before its expiry was withdrawn (the state did not exist then); older ones cannot be told apart and stay expired
UPDATE "approvals" SET "state" = 'withdrawn' WHERE "state" = 'expired' AND "expires_at" > now();