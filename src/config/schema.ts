import { join } from 'node:path';
import { z } from 'zod';
import { NETWORK_POLICIES } from '../policy/network-policy.ts';
import { SECURITY_PROFILES } from '../policy/security-profiles.ts';
import { TOOL_PROFILES } from '../policy/tool-profiles.ts';
import { knownToRedaction } from './secrets.ts';
import { postgresUrlProblem, redisUrlProblem } from './connection-urls.ts';

// Every section uses .prefault({}) so its inner defaults apply when it is absent (zod 4).
const names = z.array(z.string().min(1)).default([]);
/** Node's timers overflow past 2^31-1 ms (24.8 days) and then fire at once; a longer duration is a typo. */
export const MAX_TIMER_SECONDS = 2_147_483;
const seconds = (d: number, min = 0) => (min > 0 ? z.number().min(min) : z.number().positive()).max(MAX_TIMER_SECONDS).default(d);
// fetch refuses a URL with credentials in it, so such a value would only fail later, at every call
const optionalUrl = z.url({ protocol: /^https?$/ })
  // zod runs this even when the URL check above failed: a value that is no URL is that check's to report
  .refine((u) => { if (!URL.canParse(u)) return true; const url = new URL(u); return url.username === '' && url.password === ''; }, 'holds a user name or password, which HTTP clients refuse to send; put the key in api_key')
  .optional();
/**
 * A connection URL the driver must parse: the scheme checked first, then what the driver would refuse (a port
 * that is no number, a password cutting the URL short), so a bad one stops here and not at every daemon start.
 * `whole`: the message says what is wrong without the value, which may hold a password (load.ts adds no `got`).
 */
const connectionUrl = (scheme: RegExp, what: string, problem: (url: string) => string | null) => z.string()
  .regex(scheme, `expected a ${what} URL`)
  // zod runs this after a failed regex too: problem() leaves a value of another scheme to the regex
  .superRefine((url, ctx) => {
    const why = problem(url);
    if (why) ctx.addIssue({ code: 'custom', message: why, params: { whole: true } });
  })
  .optional();

const toolsSchema = z.strictObject({
  profile: z.enum(TOOL_PROFILES).default('full'),
  allow: names,
  also_allow: names,
  deny: names,
  restrict_to_workspace: z.boolean().default(false),
  safe_write_root: z.string().default(''),
  /** Where file and exec tools work; empty (the default) means `<daemon.data_dir>/workspace`, never the directory a command happens to start in. */
  workspace: z.string().default(''),
  exec: z.strictObject({
    host: z.enum(['sandbox', 'local', 'remote']).default('sandbox'),
    security: z.enum(['deny', 'allowlist', 'full']).default('allowlist'),
    timeout_seconds: seconds(60),
    max_output_bytes: z.number().int().positive().default(1024 * 1024),
  }).prefault({}),
  /** Tool output larger than this goes to the spill store; the model gets a preview and a spill id. */
  spill_threshold_bytes: z.number().int().positive().default(64 * 1024),
  /** The daemon deletes spills older than this. */
  spill_retention_hours: z.number().positive().default(168),
  read_max_bytes: z.number().int().positive().default(10 * 1024 * 1024),
  web_fetch: z.strictObject({
    max_bytes: z.number().int().positive().default(2 * 1024 * 1024),
    timeout_seconds: seconds(20),
  }).prefault({}),
  /** task, spawn_task and workflow: how far jobs may create jobs, so an agent cannot fan out without end. */
  child_jobs: z.strictObject({
    /** A top-level job's children are depth 1. */
    max_depth: z.number().int().min(1).max(20).default(3),
    /** Child jobs one execution (a run, a session turn) may create. */
    max_per_execution: z.number().int().min(1).max(1000).default(20),
  }).prefault({}),
}).prefault({});

const skillsSchema = z.strictObject({
  /** Where installed skills live; empty means `<daemon.data_dir>/skills`. */
  dir: z.string().default(''),
  max_archive_bytes: z.number().int().positive().default(20 * 1024 * 1024),
}).prefault({});

const approvalSchema = z.strictObject({
  auto_approve: names,
  trusted_channels: names,
  cli_auto_approve: z.boolean().default(false),
  mode: z.enum(['off', 'smart', 'strict']).default('smart'),
  unattended_policy: z.enum(['deny', 'allow_safe']).default('deny'),
  wait_timeout_seconds: seconds(120),
  smart_model: z.string().default(''),
  smart_timeout_seconds: seconds(15),
  max_denials_per_run: z.number().int().positive().default(3),
}).prefault({});

const permissionsSchema = z.strictObject({
  approval: approvalSchema,
  elevated: z.strictObject({
    enabled: z.boolean().default(false),
    allow_from: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
  }).prefault({}),
  admin_users: names,
}).prefault({});

const endpointSchema = z.strictObject({
  base_url: optionalUrl,
  api_key: z.string().optional(),
  model: z.string().optional(),
}).prefault({});

/** pino's levels; also what ECHO_AGENT_LOG_LEVEL may name. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A century: a bound, so a typo of extra digits is refused rather than meaning forever. */
export const MAX_RUN_RETENTION_DAYS = 36_500;

const configShape = z.strictObject({
  tools: toolsSchema,
  security: z.strictObject({
    profile: z.enum(SECURITY_PROFILES).default('personal_cli'),
  }).prefault({}),
  execution: z.strictObject({
    network_policy: z.enum(NETWORK_POLICIES).default('allow'),
    network_allowlist: names,
  }).prefault({}),
  permissions: permissionsSchema,
  database: z.strictObject({
    url: connectionUrl(/^postgres(ql)?:\/\//, 'postgres://', postgresUrlProblem),
    pool_max: z.number().int().positive().default(10),
    embedded_port: z.number().int().min(1024).max(65535).default(54329),
  }).prefault({}),
  queue: z.strictObject({
    redis_url: connectionUrl(/^rediss?:\/\//, 'redis://', redisUrlProblem),
    prefix: z.string().min(1).regex(/^[^:]+$/, 'must not contain ":"').default('echo-agent'),
  }).prefault({}),
  daemon: z.strictObject({
    data_dir: z.string().min(1).default('./data'),
    concurrency: z.number().int().positive().max(1000).default(4),
    stop_timeout_seconds: seconds(30),
    // a shorter tick spins the firing loop
    tick_seconds: seconds(1, 0.05),
    firing_passes: z.number().int().positive().max(16).default(2),
    reconcile_seconds: seconds(30),
    // renewed every max(1 s, lease/3): a shorter lease would expire between renewals
    lease_seconds: seconds(300, 2),
    // a pass waiting this long on a silent connection stops the daemon, for its supervisor to restart it
    hung_pass_seconds: seconds(300, 10),
    catchup_window_seconds: seconds(3600),
    /** Ended runs older than this are deleted, with an audit record; 0 keeps every run. */
    run_retention_days: z.number().int().min(0).max(MAX_RUN_RETENTION_DAYS).default(90),
    http: z.strictObject({
      // Node reads an empty host as every interface: that must be written as 0.0.0.0 or ::, on purpose
      host: z.string().min(1, 'an empty host would listen on every interface; write 127.0.0.1, or 0.0.0.0 if that is meant').default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(9464),
    }).prefault({}),
  }).prefault({}),
  model: z.strictObject({
    base_url: optionalUrl,
    api_key: z.string().optional(),
    name: z.string().default(''),
    temperature: z.number().min(0).max(2).default(0),
    max_tokens: z.number().int().positive().default(2048),
    max_turns: z.number().int().positive().default(12),
    /** Tokens one agent turn may use in all, over every model response. */
    token_budget: z.number().int().positive().default(200_000),
    /** The limit for one model response: every attempt and the waits between them, not each attempt. */
    timeout_seconds: seconds(120),
    /** Further attempts after a transient failure (unreachable, HTTP 408, 429, 5xx), inside timeout_seconds; other 4xx are not retried. */
    max_retries: z.number().int().min(0).max(10).default(2),
    /** Tool calls one model response may make; the rest are refused unrun, and the model is told the limit. */
    max_tool_calls_per_turn: z.number().int().positive().max(1000).default(16),
  }).prefault({}),
  services: z.strictObject({
    web_search: z.strictObject({ url: optionalUrl, api_key: z.string().optional() }).prefault({}),
    vision: endpointSchema,
    image: endpointSchema,
    speech: endpointSchema,
  }).prefault({}),
  skills: skillsSchema,
  notify: z.strictObject({
    targets: z.record(z.string().min(1), z.strictObject({
      url: z.url({ protocol: /^https?$/ }),
      headers: z.record(z.string(), z.string()).default({}),
    })).default({}),
  }).prefault({}),
  logging: z.strictObject({
    level: z.enum(LOG_LEVELS).default('info'),
  }).prefault({}),
});

/** Paths left empty that live under the data directory; filled in once, so every reader sees the same path. */
export const configSchema = configShape.transform((c) => (c.tools.workspace === ''
  ? { ...c, tools: { ...c.tools, workspace: join(c.daemon.data_dir, 'workspace') } }
  : c));

/** `loaded_from`: the file it was read from, set by loadConfig; no tool may read or write it (it can hold keys and tokens). */
export type Config = z.infer<typeof configSchema> & { readonly loaded_from?: string };
export type ConfigInput = z.input<typeof configShape>;

/** The configuration with every default, for tests and for running with no file. */
export function defaultConfig(overrides: ConfigInput = {}): Config {
  return knownToRedaction(configSchema.parse(overrides));
}
