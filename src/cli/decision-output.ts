import { reasonForPeople, type Decision } from '../approval/decision.ts';
import { redactText } from '../util/redact.ts';
import { EXIT } from './errors.ts';

export function decisionExitCode(d: Decision): number {
  return d.outcome === 'allow' ? EXIT.ok : d.outcome === 'deny' ? EXIT.failure : EXIT.wouldAsk;
}

export function printDecision(d: Decision): void {
  const lines = [
    `${d.outcome.toUpperCase()} at step ${d.step} (${d.rule})`,
    `  tool: ${d.tool}   risk: ${d.risk}${d.approval_source ? `   approval_source: ${d.approval_source}` : ''}`,
    `  reason: ${reasonForPeople(d.reason)}`,
    // each finding's own reason: "ask" alone does not tell a person what to look at (matched text may hold a credential)
    ...d.flagged.map((f) => `  flagged: ${f.rule} (${f.severity}) ${redactText(f.matched)}: ${reasonForPeople(f.reason)}`),
    // which stored "always" let it through, so the person can see it and take it back
    ...(d.step === 9 && d.outcome === 'allow' && d.approval_id
      ? [`  covered by "always" approval ${d.approval_id}${d.approver ? ` made by ${d.approver}` : ''}; take it back with: echo-agent approvals always revoke ${d.approval_id}`]
      : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
