import { reasonForPeople, type Decision } from '../approval/decision.ts';
import { EXIT } from './errors.ts';

export function decisionExitCode(d: Decision): number {
  return d.outcome === 'allow' ? EXIT.ok : d.outcome === 'deny' ? EXIT.failure : EXIT.wouldAsk;
}

export function printDecision(d: Decision): void {
  const lines = [
    `${d.outcome.toUpperCase()} at step ${d.step} (${d.rule})`,
    `  tool: ${d.tool}   risk: ${d.risk}${d.approval_source ? `   approval_source: ${d.approval_source}` : ''}`,
    `  reason: ${reasonForPeople(d.reason)}`,
    ...d.flagged.map((f) => `  flagged: ${f.rule} (${f.severity}) ${f.matched}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
