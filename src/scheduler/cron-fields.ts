/**
 * Checks each field of a 5- or 6-field cron pattern before croner sees it, so a bad field is
 * named as a person knows it ("month", not croner's 0-based "entry 4") and quoted as written.
 * Pure. The grammar is croner 11's (options mode "5-or-6-parts", sloppyRanges off, standard
 * weekdays); croner stays the final authority, this only explains what it would refuse.
 */

/** Special tokens a field may hold beyond numbers, `*`, `,`, `-` and `/`. */
export type CronSpecial = '?' | 'L' | 'LW' | 'W' | 'nL' | '#' | '+';

export interface CronField {
  readonly name: string;
  /** Position in the 6-field form (seconds first) and in the 5-field form (null: absent). */
  readonly at6: number;
  readonly at5: number | null;
  readonly min: number;
  readonly max: number;
  /** croner refuses a step larger than the field's number of slots. */
  readonly maxStep: number;
  /** Names for values first, first + 1, ...; `rangeEnd` are other values a name has as a range's end. */
  readonly names?: { readonly first: number; readonly list: readonly string[]; readonly rangeEnd?: Readonly<Record<string, number>> };
  readonly specials: readonly CronSpecial[];
  /** Valid examples, shown when a field is unreadable. */
  readonly examples: readonly string[];
}

const PLAIN = ['5', '1-5', '1,15', '*/10'];

export const CRON_FIELDS: readonly CronField[] = [
  { name: 'second', at6: 0, at5: null, min: 0, max: 59, maxStep: 60, specials: ['?'], examples: PLAIN },
  { name: 'minute', at6: 1, at5: 0, min: 0, max: 59, maxStep: 60, specials: ['?'], examples: PLAIN },
  { name: 'hour', at6: 2, at5: 1, min: 0, max: 23, maxStep: 24, specials: ['?'], examples: PLAIN },
  {
    name: 'day of month', at6: 3, at5: 2, min: 1, max: 31, maxStep: 31,
    specials: ['?', 'L', 'LW', 'W'], examples: [...PLAIN, 'L', '15W'],
  },
  {
    name: 'month', at6: 4, at5: 3, min: 1, max: 12, maxStep: 12,
    names: { first: 1, list: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
    specials: ['?'], examples: ['5', 'JAN', '1-5', 'JAN-MAR', '1,6', '*/3'],
  },
  {
    // 0 and 7 are Sunday; croner reads "-SUN" as "-7", so MON-SUN is Monday to Sunday
    name: 'day of week', at6: 5, at5: 4, min: 0, max: 7, maxStep: 7,
    names: { first: 0, list: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'], rangeEnd: { SUN: 7 } },
    specials: ['?', 'nL', '#', '+'], examples: ['1', 'MON', '1-5', 'MON-FRI', '1,3', 'MON#2', '5L'],
  },
];

const SPECIAL_TEXT: Record<CronSpecial, string> = {
  '?': '? (any, as *)',
  L: 'L (the last day of the month)',
  LW: 'LW (the last weekday of the month)',
  W: 'W (the nearest weekday, e.g. 15W)',
  nL: 'L after a weekday (its last one in the month, e.g. 5L)',
  '#': '# (the nth weekday of the month, e.g. MON#2)',
  '+': '+ (day of month AND day of week)',
};

/** The fields of the 5- or 6-field form, in order. */
export function cronFieldsOf(count: 5 | 6): readonly CronField[] {
  const at = (f: CronField) => (count === 6 ? f.at6 : f.at5);
  return CRON_FIELDS.filter((f) => at(f) !== null).sort((a, b) => at(a)! - at(b)!);
}

/**
 * What is wrong with the first bad field, e.g. `month field "13" is out of range 1–12`, or
 * undefined when every field reads well (or the pattern has not 5 or 6 fields: not ours to judge).
 */
export function cronFieldProblem(pattern: string): string | undefined {
  const parts = pattern.trim().split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) return undefined;
  const fields = cronFieldsOf(parts.length as 5 | 6);
  for (let i = 0; i < parts.length; i++) {
    const field = fields[i]!;
    const text = parts[i]!;
    const problem = checkField(field, text);
    if (problem) return describe(field, text, problem);
  }
  return undefined;
}

/** A value the user wrote (quoted in the message), or a rule an item broke. */
type Problem =
  | { readonly kind: 'value'; readonly token: string; readonly why: string }
  | { readonly kind: 'rule'; readonly why: string; readonly item?: string; readonly named?: boolean };

function describe(field: CronField, text: string, p: Problem): string {
  const head = `${field.name} field ${JSON.stringify(text)}`;
  if (p.kind === 'value') return p.token === text ? `${head} ${p.why}` : `${head}: ${JSON.stringify(p.token)} ${p.why}`;
  const where = p.item !== undefined && p.item !== text && !p.named ? ` (in ${JSON.stringify(p.item)})` : '';
  return `${head}: ${p.why}${where}`;
}

/** `named`: the message already says which item, so "(in ...)" would repeat it. */
const rule = (why: string, named = false): Problem => ({ kind: 'rule', why, named });
const has = (field: CronField, special: CronSpecial) => field.specials.includes(special);
const isAny = (s: string) => s === '*' || s === '?';

function notHere(special: CronSpecial): Problem {
  const where = CRON_FIELDS.filter((f) => has(f, special)).map((f) => f.name);
  return rule(`${SPECIAL_TEXT[special]} is only allowed in the ${where.join(' and ')} field`);
}

function checkField(field: CronField, text: string): Problem | undefined {
  let body = text;
  if (body.startsWith('+')) {
    if (!has(field, '+')) return notHere('+');
    body = body.slice(1);
    if (body === '') return rule('+ needs days after it (e.g. +MON)');
  }
  if (body.toUpperCase() === 'LW' && has(field, 'LW')) return undefined;
  const items = body.split(',');
  for (const item of items) {
    const p = checkItem(field, item, items.length === 1 && body === text);
    if (p) return p.kind === 'rule' ? { ...p, item } : p;
  }
  return undefined;
}

function checkItem(field: CronField, item: string, whole: boolean): Problem | undefined {
  if (item === '') return rule('a list item is empty (check for stray commas)', true);
  if (isAny(item)) return undefined;
  const upper = item.toUpperCase();
  if (upper === 'LW') return has(field, 'LW') ? rule('LW stands alone, not in a list', true) : notHere('LW');
  if (upper === 'L') {
    if (has(field, 'L')) return undefined;
    if (has(field, 'nL')) return rule('L needs a weekday before it here (e.g. 5L or FRIL, the last Friday; L alone is for day of month)');
    return notHere('L');
  }
  let base = item;
  let suffixed = false;
  const hash = item.indexOf('#');
  if (hash >= 0) {
    if (!has(field, '#')) return notHere('#');
    base = item.slice(0, hash);
    const nth = item.slice(hash + 1);
    if (!/^(L|0*[1-5])$/i.test(nth)) return rule('# needs a week number 1–5 or L after it (e.g. MON#2, FRI#L)');
    suffixed = true;
  } else if (upper.endsWith('L') && endsInValue(field, item.slice(0, -1))) {
    if (!has(field, 'nL')) {
      if (has(field, 'L')) return rule('L stands alone here (the last day of the month); 5L, the last Friday, belongs in day of week');
      return notHere('nL');
    }
    base = item.slice(0, -1);
    suffixed = true;
  } else if (upper.endsWith('W') && endsInValue(field, item.slice(0, -1))) {
    if (!has(field, 'W')) return notHere('W');
    if (/[-/]/.test(item)) return rule('W works on a single day (e.g. 15W), not on a range or step');
    return checkValue(field, item.slice(0, -1), 'single', false).problem;
  }
  if (suffixed && (base === '' || isAny(base))) return rule(`${item.slice(base.length)} needs a weekday or weekdays before it (e.g. MON#2, 5L, 1-5L)`);
  return checkBase(field, base, whole && !suffixed);
}

/** Whether text ends in a number or one of this field's names, i.e. a trailing L or W is a modifier. */
function endsInValue(field: CronField, text: string): boolean {
  const last = text.split(/[-/]/).pop() ?? '';
  return /^\d+$/.test(last) || isAny(last) || (field.names?.list.includes(last.toUpperCase()) ?? false);
}

/** A number or name, a range, a range with a step, or `*` with a step. */
function checkBase(field: CronField, base: string, whole: boolean): Problem | undefined {
  const slash = base.split('/');
  if (slash.length > 2) return rule('a step looks like */10 or 0-30/10');
  const [span, step] = slash as [string, string | undefined];
  if (step !== undefined) {
    if (!isAny(span) && !span.includes('-')) return rule('a step needs * or a range before the / (e.g. */10, 0-30/10)');
    if (!/^\d+$/.test(step)) return rule('a step must be a whole number (e.g. */10)');
    if (Number(step) < 1) return rule('a step must be at least 1');
    if (Number(step) > field.maxStep) return rule(`a step must be at most ${field.maxStep}`);
    if (isAny(span)) return undefined;
  }
  if (!span.includes('-')) return checkValue(field, span, 'single', whole).problem;
  const ends = span.split('-');
  if (ends.length !== 2 || ends[0] === '' || ends[1] === '') return rule('a range needs one value on each side of the - (e.g. 1-5)');
  const low = checkValue(field, ends[0]!, 'start', false);
  if (low.problem) return low.problem;
  // croner checks only the values a step reaches, so 1-24/2 (1, 3, ... 23) is a valid hour field
  const high = checkValue(field, ends[1]!, 'end', false, step === undefined);
  if (high.problem) return high.problem;
  if (low.value! > high.value!) return rule('a range must go from low to high');
  const reached = step === undefined ? high.value! : high.value! - ((high.value! - low.value!) % Number(step));
  if (reached > field.max) return outOfRange(field, ends[1]!).problem;
  return undefined;
}

const outOfRange = (field: CronField, token: string) =>
  ({ problem: { kind: 'value', token, why: `is out of range ${field.min}–${field.max}` } }) as const;

function checkValue(
  field: CronField, token: string, role: 'single' | 'start' | 'end', whole: boolean, bounded = true,
): { value?: number; problem?: Problem } {
  const value = (why: string): { problem: Problem } => ({ problem: { kind: 'value', token, why } });
  const upper = token.toUpperCase();
  let n: number | undefined;
  if (/^\d+$/.test(token)) n = Number(token);
  else if (field.names) {
    const end = role === 'end' ? field.names.rangeEnd?.[upper] : undefined;
    const i = field.names.list.indexOf(upper);
    n = end ?? (i >= 0 ? field.names.first + i : undefined);
  }
  if (n === undefined) {
    const owner = CRON_FIELDS.find((f) => f.names?.list.includes(upper));
    if (owner) return value(`is a ${owner.name} name; the ${field.name} field takes ${takes(field)}`);
    const names = field.names ? ` or name (${field.names.list[0]}–${field.names.list.at(-1)})` : '';
    if (!whole) return value(`is not a number${names}`);
    return value(`is not a number, ${field.names ? 'name, ' : ''}range, list or step (e.g. ${field.examples.join(', ')})`);
  }
  if (n < field.min || (bounded && n > field.max)) return outOfRange(field, token);
  return { value: n };
}

function takes(field: CronField): string {
  const range = `${field.min}–${field.max}`;
  return field.names ? `${range} or ${field.names.list[0]}–${field.names.list.at(-1)}` : range;
}

/**
 * croner's own message, for a pattern it refuses though our check passed: without the
 * "CronPattern: " prefix, with croner's 0-based month and day shown as written.
 */
export function describeCronerError(message: string): string {
  const byAt6 = (i: number) => CRON_FIELDS.find((f) => f.at6 === i)?.name ?? `field ${i + 1}`;
  return message
    .replace(/^CronPattern: /, '')
    .replace(/Invalid value for (month|day|nearestWeekdays): (-?\d+)/, (_, part: string, n: string) => {
      const field = CRON_FIELDS.find((f) => f.name === (part === 'month' ? 'month' : 'day of month'))!;
      return `${field.name} ${Number(n) + 1} is out of range ${field.min}–${field.max}`;
    })
    .replace(/configuration entry (\d+) \(.*?\)/, (_, i: string) => `the ${byAt6(Number(i))} field`)
    .replace(/\bdayOfWeek\b/g, 'day of week')
    .replace(/\bnearestWeekdays\b/g, 'day of month');
}
