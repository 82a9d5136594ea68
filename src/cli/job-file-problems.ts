import { closeSync, openSync, readSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, visit, type Document, type Node, type YAMLError } from 'yaml';
import { CliError, EXIT } from './errors.ts';
import { unreadable } from '../util/file-errors.ts';

/** A problem, and where it is when known: a line (and column) of the report's file, or of another file named with it. */
export interface Located {
  readonly text: string;
  readonly line?: number;
  readonly column?: number;
  /** Set when the line is in a file the report's subject does not name (the --steps file). */
  readonly file?: string;
  /** The field it is about, as a builder writes it (`payload.steps[0].args.path`), when known. */
  readonly path?: string;
}

/**
 * A job's problems, each with its line: one text for stderr (as every failing command's), and a document for
 * --json (`{ok: false, file, problems: [{line, path, message}]}`, as `config validate --json` prints).
 */
export class JobProblemsError extends CliError {
  constructor(readonly file: string | null, readonly problems: readonly Located[], subject: string) {
    super(problemReport(subject, problems), EXIT.dataErr);
  }
}

/** The --json document of a job's problems: in the order the text gives them; `in` names another file (the --steps file). */
export function problemsDocument(file: string | null, problems: readonly Located[]) {
  return {
    ok: false as const, file,
    problems: inReportOrder(problems).map((p) => ({
      line: p.line ?? null, ...(p.column !== undefined ? { column: p.column } : {}), ...(p.file !== undefined ? { in: p.file } : {}),
      path: p.path ?? null, message: p.text,
    })),
  };
}

/** The files a job's fields were read from: the job file (less the fields flags gave instead) and the --steps file. */
export interface JobSources {
  readonly job?: { readonly path: string; readonly fromFlags: ReadonlySet<string> };
  readonly steps?: string;
}

/** A job or steps file is a few kilobytes; a device or a huge file (`--file /dev/zero`) is refused, not read into memory. */
export const JOB_FILE_MAX_BYTES = 1024 * 1024;

/** The file's text, read to one byte past the limit at most. */
function readCapped(file: string, what: string): string {
  const chunks: Buffer[] = [];
  let total = 0;
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > JOB_FILE_MAX_BYTES) throw new CliError(`${what} ${file}: larger than ${JOB_FILE_MAX_BYTES / 1024 / 1024} MiB; a job is a few kilobytes of YAML or JSON`, EXIT.dataErr);
    }
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${what} ${file}: cannot read (${unreadable(err)})`, EXIT.noInput);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A YAML/JSON file's value; a file that does not parse is refused with each of the parser's problems, line and column. */
export function readStructured(file: string, what: string): unknown {
  const text = readCapped(file, what);
  const counter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter: counter });
  // a warning (an unknown `!tag`) means the value read is not the one written
  const found: Located[] = [...doc.errors, ...doc.warnings].map(yamlProblem);
  // an alias with no anchor (`schedule: */5`) parses, and only fails when read
  if (found.length === 0) found.push(...unresolvedAliases(doc, counter));
  if (found.length > 0) throw new JobProblemsError(file, withAliasHints(found, text), `${what} ${file}: not valid YAML/JSON`);
  try {
    return doc.toJS();
  } catch (err) {
    // an alias expanding past the parser's limit: the file's problem, not an internal error
    throw new JobProblemsError(file, [{ text: (err as Error).message }], `${what} ${file}: not valid YAML/JSON`);
  }
}

/** The parser's reason, line and column; its code frame (the source line and a caret) is left out, not cut. */
function yamlProblem(e: YAMLError): Located {
  const reason = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
  const at = e.linePos?.[0];
  return at ? { text: reason, line: at.line, column: at.col } : { text: reason };
}

function unresolvedAliases(doc: Document, counter: LineCounter): Located[] {
  const out: Located[] = [];
  visit(doc, {
    Alias(_, node) {
      if (node.resolve(doc) !== undefined || !node.range) return;
      const at = counter.linePos(node.range[0]);
      out.push({ text: `Unresolved alias *${node.source} (no anchor &${node.source} before it)`, line: at.line, column: at.col });
    },
  });
  return out;
}

// an alias problem, or a token after an alias (in `schedule: */15 9-17 * * *`, `9-17` is an unexpected scalar)
const ALIAS_PROBLEM = /\balias\b|^Unexpected \w+ at node end$/i;

/**
 * The problems with one line each for the same reason collapsed, and the alias problems of a line (an unquoted
 * cron schedule starting with `*` is one "Unexpected alias" error per `*`) said as what they are: a value starting with `*`,
 * which YAML reads as an alias, with the line quoted as it should be written.
 */
export function withAliasHints(problems: readonly Located[], text: string): Located[] {
  const lines = text.split(/\r?\n/);
  const out: Located[] = [];
  const seen = new Set<string>();
  for (const p of problems) {
    const alias = p.line !== undefined && ALIAS_PROBLEM.test(p.text);
    const key = alias ? `alias ${p.line}` : `${p.line ?? ''} ${p.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(alias ? aliasHint(lines[p.line! - 1] ?? '', p) : p);
  }
  return out;
}

/** `key: *…` (or `- *…`) on a line of its own: the value can be shown quoted; inside a `{…}` or `[…]`, only said. */
const STAR_VALUE = /^(\s*(?:-\s+)?)(?:((?:"[^"]*"|'[^']*'|[^\s#'"{}[\],:][^#{}[\],:]*?)):\s+)?(\*.*)$/;

function aliasHint(source: string, p: Located): Located {
  const said = 'a value starting with * is read as a YAML alias; quote the value';
  const m = STAR_VALUE.exec(source);
  if (!m || (m[2] === undefined && !/-\s+$/.test(m[1]!))) {
    // the alias's own token, when the parser named it (`*.txt` in `{command: *.txt}`)
    const token = /^Unresolved alias (\*\S+)/.exec(p.text)?.[1];
    return { ...p, text: `${p.text}: ${said}${token ? `: ${JSON.stringify(token)}` : ' ("*…")'}` };
  }
  const [, lead, key, rest] = m;
  const quoted = JSON.stringify(rest!.replace(/\s+#.*$/, '').trimEnd());
  const column = lead!.length + (key === undefined ? 0 : key.length + source.slice(lead!.length + key.length).search(/\*/)) + 1;
  // a key at the start of a line is a job field: --json names it
  const path = key !== undefined && lead === '' && !/^["']/.test(key) ? { path: key } : {};
  const written = key === undefined ? `- ${quoted}` : `${key}: ${quoted}`;
  return { text: `${key === undefined ? 'a list item' : key}: ${said}: ${written}`, line: p.line!, column, ...path };
}

/**
 * `subject: problem` for one problem, else `subject: N problems:` and one indented line each: in the order of
 * their lines in the file, those in another file after them, those without a line last.
 */
export function problemReport(subject: string, problems: readonly Located[]): string {
  const shown = inReportOrder(problems).map((p) => `${whereText(p)}${p.text}`);
  return shown.length === 1 ? `${subject}: ${shown[0]}` : `${subject}: ${shown.length} problems:\n${shown.map((s) => `  ${s}`).join('\n')}`;
}

function inReportOrder(problems: readonly Located[]): Located[] {
  const rank = (p: Located) => (p.line === undefined ? 2 : p.file === undefined ? 0 : 1);
  return [...problems].sort((a, b) => rank(a) - rank(b) || (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

function whereText(p: Located): string {
  if (p.line === undefined) return '';
  const at = `line ${p.line}${p.column === undefined ? '' : `, column ${p.column}`}`;
  return p.file === undefined ? `${at}: ` : `${p.file}, ${at}: `;
}

/**
 * The definition checks' problems as one text (`schedule: …; payload.steps[1].tool: …`), apart again: a piece
 * that does not start with a field path (`add list_dir to tools`) belongs to the problem before it.
 */
export function splitProblems(said: string): string[] {
  return joinedProblems(said).map((p) => p.text);
}

/**
 * As splitProblems, each with the field path it names. A step's argument problems (`payload.steps[0] (write_file):
 * invalid arguments: path: is required; content: is required`) are one problem each, every one naming the step,
 * and its path is the argument's (`payload.steps[0].args.content`), so each gets the line nearest it.
 */
export function joinedProblems(said: string): { path: PropertyKey[] | null; text: string }[] {
  const out: { path: PropertyKey[] | null; text: string }[] = [];
  // the step whose arguments the problems since its `invalid arguments:` are about
  let step: { prefix: string; path: PropertyKey[] } | null = null;
  for (const piece of said.split('; ')) {
    const path = leadingPath(piece);
    if (out.length > 0 && path === null) {
      out[out.length - 1]!.text += `; ${piece}`;
      continue;
    }
    if (step && path !== null && !JOB_FIELDS.has(String(path[0]))) {
      out.push({ path: [...step.path, 'args', ...path], text: `${step.prefix}${piece}` });
      continue;
    }
    const args = /^(payload\.steps\[\d+\] \([^)]*\): invalid arguments: )(.*)$/.exec(piece);
    step = args && path ? { prefix: args[1]!, path } : null;
    const first = args ? leadingPath(args[2]!) : null;
    out.push({ path: step && first ? [...step.path, 'args', ...first] : path, text: piece });
  }
  return out;
}

/**
 * The first part of every path the definition checks name: a job's fields, and the cronjob call's own. A piece
 * that starts with another name after a step's `invalid arguments:` is one of that step's argument problems.
 */
const JOB_FIELDS: ReadonlySet<string> = new Set([
  'name', 'schedule', 'timezone', 'payload', 'tools', 'delivery', 'overlap_policy', 'misfire_policy', 'catchup_window_seconds',
  'jitter_seconds', 'timeout_seconds', 'max_retries', 'retry_backoff_seconds', 'max_runs', 'options', 'id', 'action',
]);

/** Each problem with the line of the field it names, in the file that gave that field (none for a flag's). */
export function locate(problems: readonly { path: readonly PropertyKey[] | null; text: string }[], sources: JobSources): Located[] {
  const texts = new Map<string, string | null>();
  const read = (file: string) => {
    if (!texts.has(file)) texts.set(file, safeRead(file));
    return texts.get(file)!;
  };
  return problems.map(({ path, text }) => {
    // the cronjob tool's `options.tools` is a job file's `tools`
    const p = path?.[0] === 'options' ? path.slice(1) : path;
    if (!p || p.length === 0) return { text };
    const named = { text, path: pathText(p) };
    if (sources.steps !== undefined && p[0] === 'payload') {
      const steps = read(sources.steps);
      // a steps file is a list of steps, or a mapping with `steps:`
      const line = steps !== null && p[1] === 'steps' && p.length > 2 ? lineOf(steps, p.slice(2)) ?? lineOf(steps, p.slice(1)) : undefined;
      return line === undefined ? named : { ...named, line, file: `steps file ${sources.steps}` };
    }
    const job = sources.job && !sources.job.fromFlags.has(String(p[0])) ? read(sources.job.path) : null;
    const line = job === null ? undefined : lineOf(job, p);
    return line === undefined ? named : { ...named, line };
  });
}

/** A path as a builder writes it: `payload.steps[1].args`. */
const pathText = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, p) => (typeof p === 'number' ? `${out}[${p}]` : out ? `${out}.${String(p)}` : String(p)), '');

/** A problem's leading field path, as the checks write it (`payload.steps[1].tool:`, `tools[0]:`, `payload.steps[2] (exec):`, `timezone "X":`). */
const PATH_AT_START = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\.\d+|\[\d+\])*)(?=:| \(| ")/;

export function leadingPath(problem: string): PropertyKey[] | null {
  const m = PATH_AT_START.exec(problem);
  if (!m) return null;
  return [...m[1]!.matchAll(/([A-Za-z_]\w*)|\[(\d+)\]|\.(\d+)/g)].map((x) => (x[1] !== undefined ? x[1] : Number(x[2] ?? x[3])));
}

function safeRead(file: string): string | null {
  try {
    return readCapped(file, 'file');
  } catch {
    return null;
  }
}

/** The 1-based line of a path in a YAML/JSON text: its key's when the last part is a key, else the nearest part the file has. */
export function lineOf(text: string, path: readonly PropertyKey[]): number | undefined {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  for (let n = path.length; n > 0; n--) {
    const parentPath = path.slice(0, n - 1);
    const parent = parentPath.length === 0 ? doc.contents : doc.getIn(parentPath as unknown[], true);
    const last = path[n - 1];
    let at: Node | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((p) => ((p.key as { value?: unknown } | null)?.value ?? p.key) === last);
      at = (pair?.key ?? pair?.value) as Node | undefined;
    } else if (isSeq(parent) && typeof last === 'number') at = parent.items[last] as Node | undefined;
    if (at?.range) return counter.linePos(at.range[0]).line;
  }
  return undefined;
}
