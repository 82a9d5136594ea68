import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import { redactText } from '../util/redact.ts';

export type KeyPath = readonly PropertyKey[];

/**
 * Where a config problem or warning is: a line and column of the file (1-based), or the environment variable(s)
 * its value came from (`${VAR}`), since the file's text is then not what is wrong. Neither: the file as a whole.
 */
export interface Location {
  readonly line?: number;
  readonly column?: number;
  readonly env?: string;
}

/**
 * The location of a key path: `value` is where its value is written (or, for a value that came from the
 * environment, that variable), `key` where its key is (an unknown key), `written` where its value's text is even
 * when a variable filled it in (a reference to a variable that is not set). A path not in the file points at its
 * nearest parent that is, or at nothing.
 */
export type Locate = (keys: KeyPath, at?: 'key' | 'value' | 'written') => Location;

/** For a configuration read from no file. */
export const nowhere: Locate = () => ({});

export function formatPath(path: KeyPath): string {
  if (path.length === 0) return '(root)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/** One key path segment found in the document: the key written for it (none for a list item) and its value. */
interface Step {
  readonly key?: Node;
  readonly value: Node | null;
}

function stepsAlong(doc: Document, keys: KeyPath): Step[] {
  const steps: Step[] = [];
  let cur: unknown = doc.contents;
  for (const k of keys) {
    // an alias's value is written at its anchor: point there
    if (isAlias(cur)) cur = cur.resolve(doc);
    let step: Step | undefined;
    if (isMap(cur)) {
      const pair = cur.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === String(k));
      if (pair) step = { key: pair.key as Node, value: (pair.value ?? null) as Node | null };
    } else if (isSeq(cur) && typeof k === 'number' && k < cur.items.length) {
      step = { value: cur.items[k] as Node };
    }
    if (!step) break;
    steps.push(step);
    cur = step.value;
  }
  return steps;
}

/** `key:` with nothing after it: the key is what a person looks for, not the end of its line. */
function written(node: Node | null): node is Node {
  return node !== null && !(isScalar(node) && node.value === null && node.range?.[0] === node.range?.[1]);
}

/** A Locate for a parsed document; `fromEnv` maps a formatted key path to the variables that filled in its value. */
export function yamlLocator(doc: Document, lines: LineCounter, fromEnv: ReadonlyMap<string, readonly string[]>): Locate {
  return (keys, at = 'value') => {
    const vars = at === 'value' ? fromEnv.get(formatPath(keys)) : undefined;
    if (vars && vars.length > 0) return { env: vars.join(', ') };
    const steps = stepsAlong(doc, keys);
    const last = steps.at(-1);
    const whole = steps.length === keys.length;
    let node: Node | null | undefined;
    if (!last) node = keys.length === 0 ? doc.contents : null;
    else node = whole && at !== 'key' && written(last.value) ? last.value : (last.key ?? last.value);
    const offset = node?.range?.[0];
    if (offset === undefined) return {};
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
}

export interface LocatedItem extends Location {
  readonly path: string;
  readonly message: string;
}

/** File order; what has no line (the whole file, a variable's value) first, in the order found. */
export function byPosition<T extends Location>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/**
 * One problem or warning as a compiler prints it, so editors can jump to it: `file:line:col: path: message`.
 * The message is redacted on its own: redacting the whole line would take a key path (`…api_key: environment
 * variable X is not set`) for a credential and its value, and hide what is wrong.
 */
export function locatedLine(file: string | null, item: LocatedItem, kind?: 'warning'): string {
  const where = file === null ? '' : item.line === undefined ? `${file}: ` : `${file}:${item.line}:${item.column ?? 1}: `;
  const from = item.env ? ` (value from environment variable${item.env.includes(',') ? 's' : ''} ${item.env})` : '';
  return `${where}${kind ? `${kind}: ` : ''}${item.path}: ${redactText(item.message)}${from}`;
}
