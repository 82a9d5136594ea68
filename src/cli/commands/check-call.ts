import { printable } from '../../util/printable.ts';
import { Option, type Command } from 'commander';
import { CATALOG_BY_NAME } from '../../tools/catalog-table.ts';
import { buildContext, type ToolExecutionContext } from '../../tools/context.ts';
import type { AllowlistStore, RunGrant } from '../../approval/ports.ts';
import type { ApprovalGate } from '../../approval/gate.ts';
import type { Config } from '../../config/schema.ts';
import { validateParams } from '../../tools/validate.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { printJson } from '../output.ts';
import { decisionExitCode, printDecision } from '../decision-output.ts';

interface CheckCallOptions {
  tool: string;
  args: string;
  unattended?: boolean;
  cronAuthorized?: boolean;
  channel: string;
  user: string;
  nested?: boolean;
  approvalSource: 'human' | 'auto';
  job?: string;
  dns: boolean;
  store: boolean;
  json?: boolean;
}

export function registerCheckCallCommand(check: Command): void {
  check
    .command('call')
    .description('decide a tool call with the ApprovalGate without running it or asking anyone (exit 0 allow, 1 deny, 2 would ask, 78 bad config)')
    .requiredOption('--tool <name>', 'tool name')
    .option('--args <json>', 'arguments as a JSON object', '{}')
    .option('--unattended', 'judge it as an unattended (daemon) call')
    .option('--cron-authorized', 'the job holds a human-approved grant')
    .option('--channel <channel>', 'source channel', 'cli')
    .option('--user <id>', 'sender id', '')
    .option('--nested', 'the call comes from a nested execution (sub-agent)')
    .option('--job <job>', 'judge it as a call in a run of this job tonight (id or name): unattended, under its grant as the daemon reads it')
    .addOption(new Option('--approval-source <source>', 'approval source of the surrounding context').choices(['human', 'auto']).default('auto'))
    .option('--no-dns', 'do not resolve host names in URL checks')
    .option('--no-store', 'do not look up persistent approvals (step 9) in the database')
    .option('--json', 'print the Decision as JSON')
    .action(async (opts: CheckCallOptions, cmd: Command) => {
      const { config } = configFor(cmd);
      const args = parseArgs(opts.args);
      if (opts.cronAuthorized && !opts.unattended) throw new CliError('--cron-authorized only applies to --unattended calls');
      const entry = CATALOG_BY_NAME.get(opts.tool);
      const invalid = entry ? validateParams(entry.parameters, args) : null;
      const run = opts.job === undefined ? null : await jobRunContext(cmd, config, opts);
      const ctx = run?.ctx ?? buildContext({
        channel: opts.channel, user_id: opts.user, unattended: Boolean(opts.unattended),
        cron_authorized: Boolean(opts.cronAuthorized), approval_source: opts.approvalSource,
        parent_execution_id: opts.nested ? 'check-call-parent' : null, tool: opts.tool, params: args,
      });
      const { checkAllowlist } = await import('../check-allowlist.ts');
      const allowlist = opts.store ? checkAllowlist(config) : null;
      const gate = await checkCallGate(config, { dns: opts.dns, allowlist, grant: run?.grant ?? null });
      let decision;
      try {
        decision = await gate.check({ tool: opts.tool, args }, ctx);
      } finally {
        await allowlist?.close();
      }
      // the gate decides first and a deny stands; anything else, the executor then refuses, so no verdict would be honest
      if (invalid && decision.outcome !== 'deny') throw new CliError(`--args: invalid arguments for ${opts.tool}: ${invalid} (the tool refuses them before it runs)`, EXIT.dataErr);
      if (invalid) process.stderr.write(`note: --args: the tool would refuse these arguments too: ${invalid}\n`);
      const unchecked = allowlist?.notConsulted();
      // not a silent default: the verdict may differ where a stored "always" would have matched
      if (unchecked) process.stderr.write(`note: step 9: ${unchecked}\n`);
      if (run && !opts.json) process.stderr.write(`${run.notes.map((n) => printable(`note: --job: ${n}`)).join('\n')}\n`);
      // the job's side in the same document as the decision: a script reads one JSON, not stderr too
      if (opts.json) printJson(run ? { ...decision, job: { ...run.job, notes: run.notes } } : decision);
      else printDecision(decision);
      process.exitCode = decisionExitCode(decision);
    });
}

/**
 * The gate `check call` decides with: the one sessions and the daemon use, in dry run (it never asks or waits).
 * Its security profile is the gate's own, securityFor(config, ctx): max(config, daemon) for an unattended call (I4).
 */
export async function checkCallGate(config: Config, opts: { readonly dns: boolean; readonly allowlist: AllowlistStore | null; readonly grant: RunGrant | null }): Promise<ApprovalGate> {
  // the gate and guard load a WASM shell parser and undici: only for this command
  const [{ createApprovalGate }, { emptyAllowlist }, { createGuard }, { catalogLookup }, { smartReviewerFromConfig }] = await Promise.all([
    import('../../approval/gate.ts'), import('../../approval/ports.ts'), import('../../guard/index.ts'), import('../../tools/facts.ts'),
    import('../../agent/model-config.ts'),
  ]);
  const { systemGatePorts, systemGuardDeps } = await import('../../util/system-ports.ts');
  return createApprovalGate(config, {
    guard: createGuard(config, systemGuardDeps({ dns: opts.dns })),
    ...systemGatePorts,
    allowlist: opts.allowlist ?? emptyAllowlist,
    lookupTool: catalogLookup(config),
    // the runtime's own test of whether step 10 has a reviewer; this stand-in is never called in a dry run
    smartReviewer: smartReviewerFromConfig(config) ? { review: async () => 'ESCALATE' } : null,
    humanApprover: null,
    ...(opts.grant ? { grant: opts.grant } : {}),
  }, { dryRun: true });
}

/** Options a run of a job decides for itself: giving them beside --job would be ignored, so they are refused. */
const JOB_DECIDES = ['cronAuthorized', 'nested', 'channel', 'user', 'approvalSource'] as const;

/** What --job read, for --json: the job, its authorisation as a run would hold it now, and what the notes say. */
interface JobRead {
  readonly id: string;
  readonly name: string;
  readonly cron_authorized: boolean;
  readonly rule: string;
  readonly reason: string;
  readonly grant_id: string | null;
}

/**
 * The context and grant the daemon would give a run of the job now: the same run context, the same
 * authorisation read, and the grant covering the tools its approval listed.
 */
async function jobRunContext(cmd: Command, config: Config, opts: CheckCallOptions): Promise<{ ctx: ToolExecutionContext; grant: RunGrant | null; notes: string[]; job: JobRead }> {
  if (opts.job === '') throw new CliError('--job: is empty; give a job id or name');
  const given = JOB_DECIDES.filter((k) => cmd.getOptionValueSource(k) === 'cli');
  if (given.length > 0) throw new CliError(`--job: the job's run decides ${given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}; leave ${given.length > 1 ? 'them' : 'it'} out`);
  const [{ withStore }, { jobByRef }, { runGrant }, { jobAuthorization }, { unattendedRunContext }, { builtinTools }, { jobToolSet, needsAPersonNote }] = await Promise.all([
    import('../store-session.ts'), import('../job-ref.ts'), import('../../jobs/run-authorization.ts'), import('../jobs-authorization.ts'),
    import('../../daemon/run-context.ts'), import('../../daemon/daemon-tools.ts'), import('../../session/job-preview.ts'),
  ]);
  return withStore(config, async (db) => {
    const job = await jobByRef(db.db, opts.job!, { includeRemoved: true });
    // as jobs list judges it: a revoked or cleared grant is named (grant.revoked), not taken for one never given
    const auth = await jobAuthorization(db.db, job);
    const ctx = unattendedRunContext(job, auth.cron_authorized, 1, { execution_id: 'check-call', trace_id: 'check-call' });
    const set = jobToolSet(config, builtinTools(config, { db: db.db }), job.tools, job.payload);
    const notes = [`job ${job.id} (${job.name}): cron_authorized ${auth.cron_authorized ? 'yes' : 'no'} (${auth.rule}: ${auth.reason})`];
    if (![...set.offered, ...set.removed].some((t) => t.name === opts.tool)) notes.push(`the job's runs never call ${opts.tool}: its steps do not name it`);
    if (job.removed_at) notes.push('the job is removed: it has no more runs');
    const unasked = needsAPersonNote(set, opts.tool);
    if (unasked) notes.push(unasked);
    // read just now, as the daemon reads it when a run starts
    const grant = auth.cron_authorized ? runGrant(auth, async () => true) : null;
    return { ctx, grant, notes, job: { id: job.id, name: job.name, cron_authorized: auth.cron_authorized, rule: auth.rule, reason: auth.reason, grant_id: auth.grant_id } };
  });
}

function parseArgs(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`--args: not valid JSON (${(err as Error).message})`, EXIT.usage);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CliError('--args: expected a JSON object', EXIT.usage);
  return value as Record<string, unknown>;
}
