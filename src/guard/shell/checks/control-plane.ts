import type { Emit, Invocation } from '../model.ts';
import { literal } from '../values.ts';

/** echo-agent commands that only read: anything else under these groups changes what the product lets through. */
const READ_ONLY = new Set(['list', 'show', 'runs', 'help', '--help', '-h']);
const GROUPS = new Set(['approvals', 'grants', 'jobs']);
const CLI_SCRIPT = /(^|\/)echo-agent(\.js)?$/;
/** Programs that start the CLI named by one of their operands: `node bin/echo-agent.js`, `npx echo-agent`, `npm exec echo-agent`. */
const LAUNCHERS = new Set(['node', 'nodejs', 'npx', 'npm', 'pnpm', 'yarn', 'bunx', 'bun']);

/**
 * `echo-agent approvals approve …`, `grants revoke`, `jobs create|update|…` run from a tool: the model would be
 * answering or changing the product's own approvals. Also through the launchers that start it.
 */
export function checkControlPlane(inv: Invocation, emit: Emit): void {
  if (inv.program !== 'echo-agent' && !LAUNCHERS.has(inv.program)) return;
  const words = inv.args.map((a) => literal(a.v) ?? '');
  let rest: string[] | null = null;
  if (inv.program === 'echo-agent') rest = words;
  else {
    const script = words.findIndex((w) => CLI_SCRIPT.test(w));
    if (script >= 0) rest = words.slice(script + 1);
  }
  if (!rest) return;
  const group = rest.findIndex((w) => GROUPS.has(w));
  if (group < 0) return;
  const verb = rest.slice(group + 1).find((w) => !w.startsWith('-')) ?? '';
  if (!READ_ONLY.has(verb)) emit('shell.echo_agent.control', inv.text);
}
