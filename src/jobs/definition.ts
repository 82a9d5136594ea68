import { z } from 'zod';

const step = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
});

export const payloadSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('steps'), steps: z.array(step).min(1).max(200) }),
  z.strictObject({ kind: z.literal('agent'), prompt: z.string().min(1).max(100_000), model: z.string().min(1).optional() }),
]);

export type JobPayload = z.infer<typeof payloadSchema>;

const seconds = z.number().int().min(0);

/**
 * A job as an agent builder writes it (jobs/*.yaml, `jobs create`, the cronjob
 * tool). Durations are whole seconds.
 */
export const jobDefinitionSchema = z.strictObject({
  name: z.string().min(1).max(200),
  schedule: z.string().min(1),
  timezone: z.string().min(1).default('UTC'),
  payload: payloadSchema,
  tools: z.array(z.string().min(1)).default([]),
  delivery: z.strictObject({ notify: z.string().min(1) }).nullable().default(null),
  overlap_policy: z.enum(['skip', 'buffer_one', 'allow', 'cancel_other']).default('skip'),
  misfire_policy: z.enum(['skip', 'run_once', 'run_all']).default('run_once'),
  catchup_window_seconds: seconds.default(3600),
  jitter_seconds: seconds.default(0),
  timeout_seconds: z.number().int().positive().default(600),
  max_retries: z.number().int().min(0).max(20).default(0),
  retry_backoff_seconds: seconds.default(30),
  max_runs: z.number().int().positive().nullable().default(null),
});

export type JobDefinition = z.infer<typeof jobDefinitionSchema>;
export type JobDefinitionInput = z.input<typeof jobDefinitionSchema>;

/** The fields whose change needs a fresh human approval (I2). */
export const AUTHORISED_FIELDS = ['payload', 'tools', 'schedule', 'timezone', 'delivery'] as const;
