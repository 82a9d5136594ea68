import { inArray, sql } from 'drizzle-orm';
import { reasonForPeople } from '../approval/decision.ts';
import type { Executor } from '../store/db.ts';
import { ANSWER_VIA, type AnswerVia } from '../store/approvals.ts';
import { NEEDS_NO_AUTHORITY, RULE_CONFIG_KEYS, type RuleId } from '../policy/rules.ts';
import { allowlistRecords, approvals, jobGrants, runs, type AuditRow, type GrantRow } from '../store/schema.ts';
import { diffText, endingDiffs, grantDiffs, grantRecords, type GrantRecords } from '../store/chain-tables.ts';

/**
 * On whose authority a record's call went through: the grant (its approver, approval and time), the "always"
 * record (who made it, when), the human answer, or the configuration key. An admin reading `runs show` or
 * `audit list` after an incident should not have to join grants, approvals and allowlist records by hand.
 */
export interface Authority {
  /** `actor`: a record of an admin's or the system's own act (a grant revoked, cleared or superseded), on its actor's authority. */
  readonly kind: 'grant' | 'allowlist' | 'human' | 'config' | 'none_needed' | 'actor' | 'none';
  /** The grant, "always" record or approval request behind it; the config key for a policy pass. */
  readonly ref: string;
  readonly by?: string | null;
  readonly at?: Date | null;
  /** The OS account and host the human answer came from, when recorded. */
  readonly from?: Origin | null;
  readonly text: string;
  /** A grant's authority: the grant.issued record it was read from (null: from the job_grants row, its record not in the database). */
  readonly record_seq?: number | null;
  /** The fields the job_grants row now holds otherwise than its records (changed outside echo-agent). */
  readonly row_differs?: readonly string[];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const iso = (d: Date | null | undefined) => d?.toISOString() ?? '-';
const fromText = (f: Origin | null | undefined) => (f ? `, from ${f.os_account}@${f.host}` : '');

/** The OS account and host a record or an answer came from (a name given with `--as` is only a claim). */
export interface Origin {
  readonly os_account: string;
  readonly host: string;
}

/** An account as stored (a record's data.from, an approval's asked_from or answered_from); a missing host reads `?`. */
export const accountOf = (v: unknown): Origin | null => {
  const a = v as { os_account?: unknown; host?: unknown } | null | undefined;
  return a && typeof a === 'object' && typeof a.os_account === 'string' ? { os_account: a.os_account, host: typeof a.host === 'string' ? a.host : '?' } : null;
};

/**
 * The OS account and host a command-line record came from: `data.from`, or `data.origin` on a record written
 * before that key (a child job's older run.queued holds its kind there, a string, which is no account).
 */
export function recordFrom(data: AuditRow['data'] | null | undefined): Origin | null {
  return data ? accountOf(data.from) ?? accountOf(data.origin) : null;
}

/** The records that end a grant, in words: they act on the grant, on their actor's authority, not its approver's. */
export const GRANT_ENDINGS: Readonly<Record<string, string>> = { 'grant.revoked': 'revoked', 'grant.cleared': 'cleared', 'grant.superseded': 'superseded' };
/** The kinds of GRANT_ENDINGS, for a query. */
export const GRANT_ENDING_KINDS: readonly string[] = Object.keys(GRANT_ENDINGS);

/** What a grant's records say of it: from its grant.issued record when the database holds it, else (said so) its row. */
interface GrantFacts {
  readonly approver: string | null;
  readonly approval_id: string | null;
  readonly channel: string | null;
  readonly at: Date | null;
  /** Where the facts come from: the chained record (its seq), or the mutable row. */
  readonly record_seq: number | null;
  /** When the row now says otherwise than its record: the record seq and the fields, in words. */
  readonly differs: string | null;
  readonly fields: readonly string[];
  readonly note: string;
}

function grantFacts(gid: string, g: GrantRow | undefined, recs: GrantRecords | undefined): GrantFacts | null {
  const issued = recs?.issued;
  if (issued) {
    const diffs = g ? [...grantDiffs(g, issued), ...endingDiffs(g, recs?.ending)] : [];
    return {
      approver: str(issued.data.approver), approval_id: str(issued.data.approval_id), channel: str(issued.data.channel),
      // the time the person answered is the row's (the record has its own, when the grant was issued)
      at: g?.approved_at ?? issued.at, record_seq: issued.seq, fields: diffs.map((d) => d.field),
      differs: diffs.length ? `grant row differs from its grant.issued record seq ${issued.seq}: ${diffText(diffs)}` : null,
      note: g ? '' : ` (no job_grants row ${gid}; from its grant.issued record seq ${issued.seq})`,
    };
  }
  if (!g) return null;
  // archived (audit archive) or never written: what the row says is all there is, and it is mutable
  return { approver: g.approver, approval_id: g.approval_id, channel: g.channel, at: g.approved_at, record_seq: null, differs: null, fields: [],
    note: ' (from the job_grants row: no grant.issued record for it in the database, archived or never written)' };
}

const differsText = (f: GrantFacts | null) => (f?.differs ? `; ${f.differs}` : '');
const factsOf = (f: GrantFacts | null) => (f ? { record_seq: f.record_seq, ...(f.differs ? { row_differs: f.fields } : {}) } : {});

function endingAuthority(r: AuditRow, gid: string, f: GrantFacts | null): Authority {
  const from = recordFrom(r.data);
  // the ending record names the approval it ended: chained, like the grant.issued record
  const approver = r.data.approver !== undefined ? str(r.data.approver) : f?.approver ?? null;
  const approval = r.data.approval_id !== undefined ? str(r.data.approval_id) : f?.approval_id ?? null;
  const ended = f || r.data.approver !== undefined ? `the grant was approved by ${approver ?? '-'} (${approval ?? 'no approval'})` : 'the grant is not in the database';
  return {
    kind: 'actor', ref: gid, by: r.actor, at: r.at, from, ...factsOf(f),
    text: `${GRANT_ENDINGS[r.kind]} by ${r.actor ?? '-'}${from ? ` (${from.os_account}@${from.host})` : ''} at ${iso(r.at)}; ${ended}${differsText(f)}`,
  };
}

function grantAuthority(gid: string, f: GrantFacts): Authority {
  return {
    kind: 'grant', ref: gid, by: f.approver, at: f.at, ...factsOf(f),
    text: `grant ${gid}: approved by ${f.approver ?? '-'} on ${f.channel ?? '-'} at ${iso(f.at)} (${f.approval_id ?? 'no approval'})${f.note}${differsText(f)}`,
  };
}

/** The run.started rules under which the grant it names authorised the run (a child job runs under its parent's). */
const AUTHORISING_RULES: ReadonlySet<string> = new Set(['grant.valid', 'grant.inherited']);

/** Why a grant a run.started record names did not authorise the run, in words (by its rule). */
const NOT_COVERED: Readonly<Record<string, string>> = {
  'grant.definition_changed': 'does not cover this definition',
  'grant.none': 'was not in force',
  'grant.not_authorized': 'records no human approval',
  'grant.job_removed': 'does not cover a removed job',
  'grant.parent_none': 'did not make the creating job\'s runs cron_authorized',
  'grant.parent_changed': 'is not the grant the creating run held',
};

/** A run.started that its grant did not authorise: its authority is none, whatever grant it names (item: "approved by bob" read as bob's approval). */
function notAuthorised(r: AuditRow, gid: string | null, f: GrantFacts | null): Authority {
  const rule = r.rule ?? 'cron_authorized false';
  if (!gid) return { kind: 'none', ref: rule, text: `none: no grant in force (${rule})` };
  return {
    kind: 'none', ref: gid, by: null, ...factsOf(f),
    text: `none: grant ${gid} (${f?.approver ?? '-'}) ${NOT_COVERED[rule] ?? 'did not authorise this run'} (${rule})${differsText(f)}`,
  };
}

/** Whether a run.started record's run held its grant's authority: by its rule, or (older records with none) its data. */
const startAuthorised = (r: AuditRow) => (r.rule ? AUTHORISING_RULES.has(r.rule) : r.data.cron_authorized !== false);

/** The grant a run started with: the runs row, or its run.started record when the row was pruned. */
async function grantIdsOfRuns(exec: Executor, rows: readonly AuditRow[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const r of rows) {
    const g = r.kind === 'run.started' ? str(r.data.grant_id) : null;
    if (r.run_id && g) ids.set(r.run_id, g);
  }
  // a decision that names its grant needs no lookup; older ones (before it did) find it through their run
  const missing = [...new Set(rows.filter((r) => r.run_id && !ids.has(r.run_id) && r.rule === 'unattended.cron_authorized' && !str(r.data.grant_id)).map((r) => r.run_id!))];
  if (missing.length > 0) {
    for (const run of await exec.select({ id: runs.id, grant_id: runs.grant_id }).from(runs).where(inArray(runs.id, missing))) {
      if (run.grant_id) ids.set(run.id, run.grant_id);
    }
    for (const [id, grant] of await grantsAtStart(exec, missing.filter((m) => !ids.has(m)))) ids.set(id, grant);
  }
  return ids;
}

/** The authority behind each allow (and the grant each run.started and grant record names), by record seq. */
export async function authorities(exec: Executor, rows: readonly AuditRow[]): Promise<Map<number, Authority>> {
  const out = new Map<number, Authority>();
  const runGrants = await grantIdsOfRuns(exec, rows);
  const grantOf = (r: AuditRow) => (r.kind.startsWith('grant.') ? str(r.data.grant_id)
    : r.kind === 'run.started' || r.rule === 'unattended.cron_authorized' ? str(r.data.grant_id) ?? (r.run_id ? runGrants.get(r.run_id) ?? null : null) : null);
  const allows = rows.filter((r) => r.kind === 'gate.decision' && r.outcome === 'allow');
  const grantIds = [...new Set(rows.map(grantOf).filter((g): g is string => g !== null))];
  const alwIds = [...new Set(allows.filter((r) => r.rule === 'approval.allowlist').map((r) => str(r.data.approval_id)).filter((x): x is string => x !== null))];
  const aprIds = [...new Set(allows.filter((r) => r.rule?.startsWith('approval.human.')).map((r) => str(r.data.approval_id)).filter((x): x is string => x !== null))];
  const [grants, always, answers] = await Promise.all([
    grantIds.length ? exec.select().from(jobGrants).where(inArray(jobGrants.id, grantIds)) : [],
    alwIds.length ? exec.select().from(allowlistRecords).where(inArray(allowlistRecords.id, alwIds)) : [],
    aprIds.length ? exec.select().from(approvals).where(inArray(approvals.id, aprIds)) : [],
  ]);
  // the authority of a past record is what the chain says (the row may have been changed since): its grant records
  const jobIds = [...new Set([...grants.map((g) => g.job_id), ...rows.filter((r) => grantOf(r)).map((r) => r.job_id).filter((j): j is string => j !== null)])];
  const records = await grantRecords(exec, grantIds, jobIds);
  const grantById = new Map(grants.map((g) => [g.id, g]));
  for (const r of rows) {
    const gid = grantOf(r);
    if (r.kind === 'run.started' && !startAuthorised(r)) {
      out.set(r.seq, notAuthorised(r, gid, gid ? grantFacts(gid, grantById.get(gid), records.get(gid)) : null));
      continue;
    }
    if (gid) {
      const f = grantFacts(gid, grantById.get(gid), records.get(gid));
      if (GRANT_ENDINGS[r.kind]) out.set(r.seq, endingAuthority(r, gid, f));
      else out.set(r.seq, f ? grantAuthority(gid, f) : { kind: 'grant', ref: gid, text: `grant ${gid} (not in the database)` });
      continue;
    }
    if (r.kind !== 'gate.decision' || r.outcome !== 'allow' || !r.rule) continue;
    const rule = r.rule as RuleId;
    const configKey = RULE_CONFIG_KEYS[rule];
    if (NEEDS_NO_AUTHORITY.has(rule)) {
      out.set(r.seq, { kind: 'none_needed', ref: r.rule, text: `none needed (risk ${r.risk ?? '-'})` });
    } else if (r.rule === 'approval.allowlist') {
      const id = str(r.data.approval_id);
      const a = always.find((x) => x.id === id);
      out.set(r.seq, a ? { kind: 'allowlist', ref: a.id, by: a.created_by, at: a.created_at, text: `always ${a.id}: made by ${a.created_by} at ${iso(a.created_at)} (scope ${a.scope})` }
        : { kind: 'allowlist', ref: id ?? '-', by: str(r.data.approver), text: `always ${id ?? '-'} by ${str(r.data.approver) ?? '-'} (not in the database)` });
    } else if (r.rule.startsWith('approval.human.')) {
      const id = str(r.data.approval_id);
      const a = answers.find((x) => x.id === id);
      const by = a?.answered_by ?? str(r.data.approver);
      out.set(r.seq, { kind: 'human', ref: id ?? '-', by, at: a?.answered_at ?? null, from: a?.answered_from ?? null,
        text: `human: ${by ?? '-'} answered ${id ?? '-'} at ${iso(a?.answered_at)}${fromText(a?.answered_from)}` });
    } else if (configKey) {
      const channel = r.rule === 'approval.trusted_channel' ? ` (channel ${str(r.data.channel) ?? '-'})` : '';
      out.set(r.seq, { kind: 'config', ref: configKey, text: `config ${configKey}${channel}` });
    }
  }
  return out;
}

/** Who acted, and from which OS account and host when the record says so (a `--as` name is only a claim). */
export function actorCell(r: Pick<AuditRow, 'actor' | 'data'>): string {
  const origin = recordFrom(r.data) ?? (r.data.unattended === true ? null : accountOf(r.data.decided_by));
  return `${r.actor ?? ''}${origin ? ` (${origin.os_account}@${origin.host})` : ''}`;
}

/** A record with no reason of its own, in words: what a job change changed and what it did to the grant. */
export function detailOf(r: Pick<AuditRow, 'kind' | 'reason' | 'data'>): string {
  // the advice a refusal gives the model (never retry) is not the reader's to follow
  if (r.reason) return reasonForPeople(r.reason);
  const d = r.data as { changed?: unknown; definition_changed?: unknown; name?: unknown; trigger?: unknown; answered_via?: unknown };
  if (r.kind === 'job.updated' && Array.isArray(d.changed)) {
    return `changed ${d.changed.join(', ') || 'nothing'}; ${d.definition_changed ? 'a definition change: the grant ends unless a person approved it' : 'outside the definition: the grant stays'}`;
  }
  if (r.kind === 'job.created' && typeof d.name === 'string') return `created "${d.name}"`;
  if (r.kind === 'run.queued' && typeof d.trigger === 'string') return `trigger ${d.trigger}`;
  if (r.kind === 'approval.answered' && typeof d.answered_via === 'string') return ANSWER_VIA[d.answered_via as AnswerVia] ?? '';
  return '';
}

/** The grant each run's newest run.started record names, in one query for all of them (none: no entry). */
async function grantsAtStart(exec: Executor, runIds: readonly string[]): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const { rows } = await exec.execute<{ run_id: string; grant_id: string | null }>(sql`select distinct on (run_id) run_id, nullif(data->>'grant_id', '') as grant_id
    from audit_events where kind = 'run.started' and run_id in (${sql.join(runIds.map((id) => sql`${id}`), sql`, `)}) order by run_id, seq desc`);
  return new Map(rows.flatMap((r) => (r.grant_id ? [[r.run_id, r.grant_id] as const] : [])));
}
