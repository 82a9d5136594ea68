CREATE TABLE "tool_effects" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"tool" text NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
