import { has, parseOptions } from './flags.ts';
import { interpreterView } from './interpreters.ts';
import type { Invocation } from './model.ts';
import { gitCommand } from './git-command.ts';
import { decodeAnsiC } from './syntax/ansi-c.ts';
import { literal, plain, printed } from './values.ts';
import { redactText } from '../../util/redact.ts';

const texts = (inv: Invocation, from = 0): string[] | null => {
  const out: string[] = [];
  for (const a of inv.args.slice(from)) {
    const t = printed(a.v);
    if (t === null) out.push(plain(a.v));
    else out.push(t);
  }
  return out;
};

/** printf's output for a format and its arguments (a format used once; `%b` and the format's escapes decoded). */
export function printfText(format: string, args: readonly string[]): string {
  let i = 0;
  const body = format.replace(/%(%|[-+ #0-9.]*[sbdiqcxXouefgEG])/g, (_m, spec: string) => {
    if (spec === '%') return '%';
    const a = args[i++] ?? '';
    return spec.endsWith('b') ? decodeAnsiC(a) : a;
  });
  return decodeAnsiC(body);
}

/** What echo, printf or cat write to stdout when it is static (fed on to `| bash`, `| psql`). */
export function staticOutput(inv: Invocation): string | null {
  if (inv.program === 'echo') {
    const words = texts(inv);
    if (!words) return null;
    let k = 0;
    let escapes = false;
    let newline = true;
    while (k < words.length && /^-[neE]+$/.test(words[k]!)) {
      if (words[k]!.includes('e')) escapes = true;
      if (words[k]!.includes('n')) newline = false;
      k++;
    }
    const out = words.slice(k).join(' ');
    return (escapes ? decodeAnsiC(out) : out) + (newline ? '\n' : '');
  }
  if (inv.program === 'printf') {
    const words = texts(inv);
    if (!words || words.length === 0) return null;
    const fmt = words[0] === '--' ? words.slice(1) : words;
    return printfText(fmt[0] ?? '', fmt.slice(1));
  }
  if (inv.program === 'base64' && inv.stdinText !== null) {
    const p = parseOptions(inv.args);
    if (p.operands.length === 0 && has(p, 'd', 'D', 'decode')) {
      return Buffer.from(inv.stdinText.replace(/\s+/g, ''), 'base64').toString('utf8');
    }
    return null;
  }
  if (inv.program === 'rev' && inv.stdinText !== null && inv.args.length === 0) {
    return inv.stdinText.split('\n').map((l) => [...l].reverse().join('')).join('\n');
  }
  if (inv.program === 'cat' || inv.program === 'tee') {
    const ops = parseOptions(inv.args).operands;
    if (ops.length === 0 || (inv.program === 'cat' && ops.every((a) => literal(a.v) === '-'))) return inv.stdinText;
  }
  return null;
}


/**
 * The sub-command, for approvals scoped to program + sub-command (`git status`): the first
 * argument when it is not an option. After an option it could be that option's value
 * (`curl -H "Authorization: …"`), so none; git's is the one an alias on the line stands for. Shown to people and stored: credentials redacted (I11).
 */
export function subcommandOf(inv: Invocation): string | undefined {
  const first = inv.program === 'git' ? gitCommand(inv.args).words[0] : inv.args[0];
  if (!first || first.v.startsWith('-') || (inv.program !== 'git' && interpreterView(inv)?.inline)) return undefined;
  const t = literal(first.v);
  return t === null || t === '' ? undefined : redactText(t);
}
