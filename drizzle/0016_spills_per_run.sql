ALTER TABLE "spills" ADD COLUMN "run_trace" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "spills_run_trace_idx" ON "spills" USING btree ("run_trace");