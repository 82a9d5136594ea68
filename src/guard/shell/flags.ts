import type { Arg } from './model.ts';
import { isKnown, literal } from './values.ts';

/** How a program's options are spelled; names are short letters or long names without dashes. */
export interface OptionSpec {
  /** Short options that take a value (attached or the next argument). */
  readonly short?: string;
  /** Short options whose value can only be attached (`perl -i.bak`). */
  readonly attached?: string;
  /** Short options that take no value: a wrapper reads a lone letter its table does not know both ways (see unwrap.ts). */
  readonly shortFlags?: string;
  /** Short options whose value is always the next word while the cluster goes on (`screen -dmS NAME`, `-Sdm NAME`). */
  readonly nextWord?: string;
  /**
   * Short options taking the next word only when it does not begin with `-` (`screen -R [SESSION] CMD…`); one also in
   * `attached` takes it only as a word of its own (`sudo -h HOST`, `-hHOST`; `-Eh` has none).
   */
  readonly optionalWord?: string;
  /** Words an `optionalWord` option never takes (sudo's is_envar: `-h X=1` is help and a variable, not host `X=1`). */
  readonly notOptionalWord?: RegExp;
  /** Long options that take a value (`--x=v` or `--x v`). */
  readonly long?: readonly string[];
  /**
   * Long options that take none, listed where a program has many: an abbreviation is resolved among
   * every name, so `--netrc` is not read as a prefix of `--netrc-file` and made to swallow the next word.
   */
  readonly flags?: readonly string[];
  /** Long names meaning a short option (`recursive` → `r`). */
  readonly alias?: Readonly<Record<string, string>>;
  /** Options end at the first operand (wrappers, interpreters). */
  readonly posix?: boolean;
  /** `-5` is one option named `5` (nice, kill). */
  readonly digits?: boolean;
  /** Options whose value ends option parsing (`python -c CODE args…`). */
  readonly last?: readonly string[];
  /** The first word may be old-style bundled letters without a dash (`tar czf FILE …`): their values follow in order. */
  readonly bundled?: boolean;
  /** Long options that take more than one word (`bwrap --bind SRC DEST`): how many; the value is the first. */
  readonly arity?: Readonly<Record<string, number>>;
}

export interface Opt {
  readonly name: string;
  readonly value: Arg | null;
  readonly arg: Arg;
  /** A long name the spec does not know: it may abbreviate one a check asks for (`--forc`). */
  readonly partial?: boolean;
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

/**
 * A long option as GNU getopt_long (and git) read it: an exact name, or an unambiguous
 * prefix of one (`--rec` is `--recursive`, `--sig` is `--signal`).
 */
function resolveLong(raw: string, spec: OptionSpec): { name: string; known: boolean } {
  const names = [...(spec.long ?? []), ...(spec.flags ?? []), ...Object.keys(spec.alias ?? {})];
  if (names.includes(raw)) return { name: raw, known: true };
  const matches = [...new Set(names.filter((n) => n.startsWith(raw)))];
  return matches.length === 1 ? { name: matches[0]!, known: true } : { name: raw, known: false };
}

/** GNU-style option parsing: clusters split, long names aliased and abbreviated, `--` ends options. */
/** `tar czf x.tgz dir` as `tar -c -z -f x.tgz dir`: each bundled letter that takes a value takes the next word. */
function unbundle(args: readonly Arg[], spec: OptionSpec): readonly Arg[] {
  const first = args[0] ? literal(args[0].v) : null;
  if (!spec.bundled || first === null || !/^[A-Za-z]+$/.test(first)) return args;
  const out: Arg[] = [];
  let next = 1;
  for (const c of first) {
    out.push(valueArg(`-${c}`, args[0]!));
    if ((spec.short ?? '').includes(c) && next < args.length) out.push(args[next++]!);
  }
  return [...out, ...args.slice(next)];
}

export function parseOptions(given: readonly Arg[], spec: OptionSpec = {}): ParsedOptions {
  const args = unbundle(given, spec);
  const opts: Opt[] = [];
  const operands: Arg[] = [];
  let unknown = false;
  let rest = args.length;
  const takesShort = (c: string): boolean => (spec.short ?? '').includes(c);
  const attachedShort = (c: string): boolean => (spec.attached ?? '').includes(c);
  const ends = (name: string): boolean => spec.last?.includes(name) ?? false;
  const takesWord = (next: Arg): boolean => !next.v.startsWith('-') && !(spec.notOptionalWord?.test(next.v) ?? false);
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
      const long = resolveLong(text.slice(2, eq < 0 ? undefined : eq), spec);
      const name = spec.alias?.[long.name] ?? long.name;
      let value: Arg | null = eq < 0 ? null : valueArg(text.slice(eq + 1), a);
      if (value === null && spec.long?.includes(long.name) && i + 1 < args.length) {
        value = args[++i]!;
        i = Math.min(args.length - 1, i + (spec.arity?.[long.name] ?? 1) - 1);
      }
      opts.push({ name, value, arg: a, ...(long.known ? {} : { partial: true }) });
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
        // `sudo -h HOST`: attached, or the next word when the option is a word of its own and that word no option
        const next = args[i + 1];
        if (value === null && body.length === 1 && (spec.optionalWord ?? '').includes(c) && next && takesWord(next)) value = args[++i]!;
        opts.push({ name, value, arg: a });
        stop = ends(name);
        break;
      }
      const next = args[i + 1];
      if (next && ((spec.nextWord ?? '').includes(c) || ((spec.optionalWord ?? '').includes(c) && takesWord(next)))) {
        opts.push({ name, value: next, arg: a });
        i++;
        continue;
      }
      opts.push({ name, value: null, arg: a });
    }
    if (stop) { rest = i + 1; operands.push(...args.slice(i + 1)); return { opts, operands, unknown, rest }; }
  }
  return { opts, operands, unknown, rest };
}

/** Whether an option answers to one of these names; an unknown long one also when it abbreviates one of them. */
const named = (o: Opt, names: readonly string[]): boolean =>
  names.includes(o.name) || (o.partial === true && names.some((n) => n.length > 1 && n.startsWith(o.name)));

export const has = (p: ParsedOptions, ...names: string[]): boolean => p.opts.some((o) => named(o, names));
/** The first option answering to one of these names, abbreviations included. */
export const firstOf = (p: ParsedOptions, ...names: string[]): Opt | null => p.opts.find((o) => named(o, names)) ?? null;
/** An option of a family (`force`, `force-with-lease`, …), abbreviations included. */
export const hasFamily = (p: ParsedOptions, stem: string): boolean =>
  p.opts.some((o) => o.name.startsWith(stem) || (o.partial === true && o.name.length > 1 && stem.startsWith(o.name)));
export const valueOf = (p: ParsedOptions, ...names: string[]): Arg | null => p.opts.find((o) => named(o, names) && o.value)?.value ?? null;
export const valuesOf = (p: ParsedOptions, ...names: string[]): Arg[] => p.opts.filter((o) => named(o, names) && o.value).map((o) => o.value!);

/** The literal text of an argument, or null when computed beyond knowing. */
export const text = (a: Arg | null | undefined): string | null => (a ? literal(a.v) : null);
