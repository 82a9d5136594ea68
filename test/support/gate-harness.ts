import { createApprovalGate, type ApprovalGate } from '../../src/approval/gate.ts';
import { systemGatePorts } from '../../src/util/system-ports.ts';
import type {
  AllowlistRecord, AllowlistStore, ApprovalAnswer, ApprovalRequest, Clock, HumanApprover, RunGrant, SmartReviewer, SmartVerdict,
} from '../../src/approval/ports.ts';
import { defaultConfig, type Config, type ConfigInput } from '../../src/config/schema.ts';
import type { Guard, GuardFinding, GuardVerdict, WriteScope } from '../../src/guard/types.ts';
import { verdictOf } from '../../src/guard/types.ts';
import type { SecurityProfile } from '../../src/policy/security-profiles.ts';
import { catalogLookup } from '../../src/tools/facts.ts';

/** A guard whose verdict the test sets, so gate steps can be exercised one by one. */
export class ScriptedGuard implements Guard {
  findings: GuardFinding[] = [];
  commands: { program: string; subcommand?: string }[] | undefined;
  scope: WriteScope = 'workspace';
  async inspect(): Promise<GuardVerdict> {
    return verdictOf(this.findings, this.commands);
  }
  async writeScope(): Promise<WriteScope> {
    return this.scope;
  }
}

export const ASK: GuardFinding = { rule: 'shell.rm.recursive', severity: 'ask', matched: 'rm -r build', reason: 'Recursive delete.' };
export const HARD: GuardFinding = { rule: 'shell.rm.recursive_root', severity: 'deny', matched: 'rm -rf /', reason: 'Recursive delete of /.' };

export class RecordingApprover implements HumanApprover {
  asked: ApprovalRequest[] = [];
  /** recorded_at_deadline: an answer the store took just before the deadline, which the approver reports once told the wait is over. */
  constructor(public answer: 'once' | 'always' | 'deny' | 'timeout' | 'never' | 'wrong_hash' | 'recorded_at_deadline' = 'once') {}
  async ask(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer> {
    this.asked.push(req);
    if (this.answer === 'never') return new Promise(() => {});
    if (this.answer === 'recorded_at_deadline') {
      await new Promise((r) => signal?.addEventListener('abort', r, { once: true }));
      return { answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash };
    }
    if (this.answer === 'timeout') return { answer: 'timeout' };
    const hash = this.answer === 'wrong_hash' ? 'not-this-call' : req.call_hash;
    return { answer: this.answer === 'wrong_hash' ? 'once' : this.answer, approver: 'alice', request_id: req.request_id, call_hash: hash };
  }
}

export class RecordingReviewer implements SmartReviewer {
  calls = 0;
  constructor(public verdict: SmartVerdict | 'throw' | 'hang' | 'garbage' = 'ESCALATE') {}
  async review(): Promise<SmartVerdict> {
    this.calls++;
    if (this.verdict === 'throw') throw new Error('model down');
    if (this.verdict === 'hang') return new Promise(() => {});
    if (this.verdict === 'garbage') return 'SURE, GO AHEAD' as SmartVerdict;
    return this.verdict;
  }
}

export class MemoryAllowlist implements AllowlistStore {
  records: AllowlistRecord[] = [];
  async find(tool: string, scope: string) {
    return this.records.find((r) => r.tool === tool && r.scope === scope) ?? null;
  }
  async add(r: { tool: string; scope: string; created_by: string; reason: string }) {
    const rec = { id: `al_${this.records.length + 1}`, created_at: new Date(0), ...r };
    this.records.push(rec);
    return rec;
  }
}

/** A clock whose sleeps resolve at once: timeouts happen immediately when nothing else answers first. */
export const instantClock: Clock = { now: () => new Date('2026-12-02T00:00:00Z'), sleep: () => new Promise((r) => setTimeout(r, 5)) };

export interface Harness {
  gate: ApprovalGate;
  config: Config;
  guard: ScriptedGuard;
  approver: RecordingApprover;
  reviewer: RecordingReviewer;
  allowlist: MemoryAllowlist;
}

export function harness(cfg: ConfigInput = {}, opts: { security?: SecurityProfile; reviewer?: RecordingReviewer | null; dryRun?: boolean; grant?: RunGrant } = {}): Harness {
  const config = defaultConfig(cfg);
  const guard = new ScriptedGuard();
  const approver = new RecordingApprover();
  const reviewer = opts.reviewer === undefined ? new RecordingReviewer() : opts.reviewer;
  const allowlist = new MemoryAllowlist();
  const gate = createApprovalGate(config, {
    ...systemGatePorts,
    guard, allowlist, lookupTool: catalogLookup(config), smartReviewer: reviewer ?? null, humanApprover: approver, clock: instantClock,
    ...(opts.grant ? { grant: opts.grant } : {}),
  }, { securityProfile: opts.security ?? config.security.profile, dryRun: opts.dryRun ?? false });
  return { gate, config, guard, approver, reviewer: reviewer ?? new RecordingReviewer(), allowlist };
}
