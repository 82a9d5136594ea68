import type { Arg } from './model.ts';
import { isKnown, literal } from './values.ts';

/** How a program's options are spelled; names are short letters or long names without dashes. */
export interface OptionSpec {
  /** Short options that take a value (attached or the next argument). */
  readonly short?: string;
  /** Short options whose value can only be attached (`perl -i.bak`). */
  readonly attached?: string;
  /** Long options that take a value (`--x=v` or `--x v`). */
  readonly long?: readonly string[];
  /** Long names meaning a short option (`recursive` → `r`). */
  readonly alias?: Readonly<Record<string, string>>;
  /** Options end at the first operand (wrappers, interpreters). */
  readonly posix?: boolean;
  /** `-5` is one option named `5` (nice, kill). */
  readonly digits?: boolean;
  /** Options whose value ends option parsing (`python -c CODE args…`). */
  readonly last?: readonly string[];
}

export interface Opt {
  readonly name: string;
  readonly value: Arg | null;
  readonly arg: Arg;
}

export interface ParsedOptions {
  readonly opts: readonly Opt[];
  readonly operands: readonly Arg[];
  /** An option word whose letters are not known (`-$x`). */
  readonly unknown: boolean;
  /** Index in the input of the first operand (for posix parsing), or input length. */
  readonly rest: number;
}

const valueArg = (text: string, from: Arg): Arg => ({ v: text, info: from.info });

/** GNU-style option parsing: clusters split, long names aliased, `--` ends options. */
export function parseOptions(args: readonly Arg[], spec: OptionSpec = {}): ParsedOptions {
  const opts: Opt[] = [];
  const operands: Arg[] = [];
  let unknown = false;
  let rest = args.length;
  const takesShort = (c: string): boolean => (spec.short ?? '').includes(c);
  const attachedShort = (c: string): boolean => (spec.attached ?? '').includes(c);
  const ends = (name: string): boolean => spec.last?.includes(name) ?? false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    const text = a.v;
    if (text === '--') {
      rest = i + 1;
      operands.push(...args.slice(i + 1));
      return { opts, operands, unknown, rest };
    }
    if (!text.startsWith('-') || text === '-') {
      if (spec.posix) {
        rest = i;
        operands.push(...args.slice(i));
        return { opts, operands, unknown, rest };
      }
      operands.push(a);
      continue;
    }
    if (!isKnown(text)) unknown = true;
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const raw = text.slice(2, eq < 0 ? undefined : eq);
      const name = spec.alias?.[raw] ?? raw;
      let value: Arg | null = eq < 0 ? null : valueArg(text.slice(eq + 1), a);
      if (value === null && spec.long?.includes(raw) && i + 1 < args.length) value = args[++i]!;
      opts.push({ name, value, arg: a });
      if (ends(name)) { rest = i + 1; operands.push(...args.slice(i + 1)); return { opts, operands, unknown, rest }; }
      continue;
    }
    const body = text.slice(1);
    if (spec.digits && /^\d+$/.test(body)) { opts.push({ name: body, value: null, arg: a }); continue; }
    let stop = false;
    for (let k = 0; k < body.length; k++) {
      const c = body[k]!;
      const name = spec.alias?.[c] ?? c;
      if (takesShort(c) || attachedShort(c)) {
        const tail = body.slice(k + 1);
        let value: Arg | null = tail !== '' ? valueArg(tail, a) : null;
        if (value === null && takesShort(c) && i + 1 < args.length) value = args[++i]!;
        opts.push({ name, value, arg: a });
        stop = ends(name);
        break;
      }
      opts.push({ name, value: null, arg: a });
    }
    if (stop) { rest = i + 1; operands.push(...args.slice(i + 1)); return { opts, operands, unknown, rest }; }
  }
  return { opts, operands, unknown, rest };
}

export const has = (p: ParsedOptions, ...names: string[]): boolean => p.opts.some((o) => names.includes(o.name));
export const valueOf = (p: ParsedOptions, ...names: string[]): Arg | null => p.opts.find((o) => names.includes(o.name) && o.value)?.value ?? null;
export const valuesOf = (p: ParsedOptions, ...names: string[]): Arg[] => p.opts.filter((o) => names.includes(o.name) && o.value).map((o) => o.value!);

/** The literal text of an argument, or null when computed beyond knowing. */
export const text = (a: Arg | null | undefined): string | null => (a ? literal(a.v) : null);
