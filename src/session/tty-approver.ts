import { createInterface, type Interface } from 'node:readline/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonLines, printable, printableLines } from '../util/printable.ts';
import { redactWith } from '../util/redact.ts';
import type { WaitEnded } from '../approval/human-step.ts';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../approval/ports.ts';
import { noAlwaysReason } from '../approval/scopes.ts';

export interface TtyApproverOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** The person answering (the OS account at the terminal). */
  readonly approver: string;
  /** Persists the request before asking and records the answer, bound to id + call hash. */
  readonly persist: {
    /** Returns lines the prompt shows too: how to answer from another shell, with the request's code. */
    create(req: ApprovalRequest): Promise<readonly string[]>;
    answer(req: ApprovalRequest, answer: 'once' | 'always' | 'deny', by: string): Promise<boolean>;
    /**
     * The wait is over: ends the request, `expired` when its time ran out and `withdrawn` when nobody
     * here waits any more, so a late answer elsewhere is refused; returns the answer it holds if one was recorded first.
     */
    settle(req: ApprovalRequest, ending: 'expired' | 'withdrawn'): Promise<ApprovalAnswer | null>;
    /** Settles once someone answered the stored request elsewhere (`approvals approve`); null when `signal` aborts first. */
    answeredElsewhere(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer | null>;
  };
  /** Extra lines shown before the question (e.g. what a job may do). */
  readonly describe?: (req: ApprovalRequest) => Promise<string[]> | string[];
  /**
   * How long input already waiting when the call is shown is read and thrown away: keys typed while no
   * question was on the screen (a late answer to an earlier prompt, a double Enter) must not answer this one (I3).
   */
  readonly typeAheadMs?: number;
}

/** How long a question on the terminal reads and drops what was typed before it appeared (approvals, clarify). */
export const TYPE_AHEAD_MS = 150;
const MASK = '[REDACTED]';

/** Text shown to the person, credentials cut: the patterns, and this context's own credentials literally. */
const cleanFor = (req: ApprovalRequest) => (text: string): string => redactWith(text, Object.values(req.ctx.credentials ?? {}));

/**
 * Reads and discards what `input` holds now, for `ms`: it was typed before anything asked for it.
 * Returns the discarded text, and whether the input ended (Ctrl-D) meanwhile or before.
 */
export async function discardTypeAhead(input: NodeJS.ReadableStream, ms: number, signal?: AbortSignal): Promise<{ discarded: string; ended: boolean }> {
  const stream = input as NodeJS.ReadableStream & { readableEnded?: boolean };
  if (stream.readableEnded) return { discarded: '', ended: true };
  let discarded = '';
  let ended = false;
  const onData = (d: Buffer | string) => { discarded += String(d); };
  const onEnd = () => { ended = true; };
  input.on('data', onData);
  input.once('end', onEnd);
  input.resume();
  try {
    await sleep(ms, undefined, signal ? { signal } : {}).catch(() => {});
  } finally {
    input.off('data', onData);
    input.off('end', onEnd);
    input.pause();
  }
  return { discarded, ended: ended || Boolean(stream.readableEnded) };
}

type Typed = 'once' | 'always' | 'deny' | 'eof';

/** A typed reply: an answer, or what to tell the person before asking again. */
function readReply(raw: string, allowAlways: boolean): Typed | { again: string } {
  const r = raw.trim().toLowerCase();
  // Enter alone takes the default the prompt shows in capitals: no
  if (r === '' || r === 'd' || r === 'deny' || r === 'n' || r === 'no') return 'deny';
  if (r === 'o' || r === 'once' || r === 'y' || r === 'yes') return 'once';
  if (r === 'a' || r === 'always') return allowAlways ? 'always' : { again: '"always" is not offered for this call: answer y (once) or n' };
  return { again: `"${raw.trim().slice(0, 40)}" is not an answer: ${allowAlways ? 'type o (once), a (always) or d (deny)' : 'type y (once) or n (no)'}` };
}

/** A scope naming a program by its file's absolute path (see approvalScopes), not by a name found on PATH. */
const isFileScope = (scope: string): boolean => scope.startsWith('/') || scope.startsWith('"/');

/**
 * What an "always" for these scopes lets through, in words: a tool-wide scope covers every call of the tool;
 * a command scope (program, or program and first argument) every command that starts with it, whatever follows;
 * a file scope (`/ws/build.sh`, from `./build.sh`) every command that runs that one file, however its path is written.
 * The files such a command runs (a script, a Makefile, a repository's git config) may change in between.
 */
export function alwaysCovers(tool: string, scopes: readonly string[]): string {
  if (scopes.length === 1 && scopes[0] === tool) return `every ${tool} call, whatever its arguments`;
  const quoted = (list: readonly string[]) => list.map((s) => `\`${s}\``).join(' or ');
  const names = scopes.filter((s) => !isFileScope(s));
  const files = scopes.filter(isFileScope);
  const what = [
    ...(names.length > 0 ? [`starts ${quoted(names)}`] : []),
    ...(files.length > 0 ? [`runs the file ${quoted(files)} (that file only, however the command writes its path)`] : []),
  ];
  // the scope is the command's words: the scripts, makefiles and configs it runs are read afresh each time
  return `every ${tool} command that ${what.join(' or ')}, whatever follows and whatever the files it runs then hold`;
}

/** Seconds until `at`, for a person: "120 s", "5 min". */
function timeLeft(at: Date, now = Date.now()): string {
  const s = Math.max(0, Math.round((at.getTime() - now) / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/**
 * What the person is shown: all of the call, with credentials cut out as `approvals show` shows the stored
 * request (I11: a terminal's scrollback, a `script` log or a screen share keeps them otherwise).
 */
export async function approvalPromptLines(req: ApprovalRequest, describe?: TtyApproverOptions['describe'], elsewhere: readonly string[] = []): Promise<string[]> {
  const clean = cleanFor(req);
  const args = redactWith({ ...req.args }, Object.values(req.ctx.credentials ?? {}));
  const described = (await (describe?.(req) ?? [])).map(clean);
  const lines = [
    '',
    `Approval needed (${req.request_id}): ${req.tool}  [risk ${req.risk}]`,
    ...jsonLines('  arguments: ', args),
    ...req.flags.map((f) => `  guard: ${f.rule}: ${clean(f.reason)} (${clean(f.matched)})`),
    ...described,
    req.allow_always
      ? `  "always" would also allow, from now on and without asking: ${alwaysCovers(req.tool, req.scopes.map(clean))}`
      : `  "always" is not offered: ${noAlwaysReason(req)}`,
  ];
  if (lines.some((l) => l.includes(MASK))) lines.push(`  note: ${MASK} stands for a credential in the call; it is not shown`);
  lines.push(`  answer within ${timeLeft(req.expires_at)} (until ${req.expires_at.toISOString()}); Ctrl-C stops the session`, ...elsewhere);
  // what a model wrote (a job's name or prompt, arguments) must not forge lines in what the person approves
  return printableLines(lines);
}

/** What the prompt says of an answer recorded in another shell. */
function elsewhereText(a: ApprovalAnswer, when: 'first' | '' = ''): string {
  // the name is what the answerer gave (--as): no escape sequence of its own on this terminal
  if ('request_id' in a) return printable(`answered elsewhere${when ? ` ${when}` : ''}: ${a.answer} by ${a.approver}`);
  return 'an answer was stored for this request without its code, so nobody shown the request gave it: it does not count, and the call is refused';
}

/** Step 11 on a terminal: shows the call and its guard findings, asks once / always / deny. */
export function ttyApprover(opts: TtyApproverOptions): HumanApprover {
  const say = (text: string) => opts.output.write(`${text}\n`);
  return {
    async ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      const elsewhereLines = await opts.persist.create(req);
      say((await approvalPromptLines(req, opts.describe, elsewhereLines)).join('\n'));
      const choices = req.allow_always ? '[o]nce / [a]lways / [D]eny' : '[y]es once / [N]o';
      const local = new AbortController();
      const stop = () => local.abort();
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      const settled = async (ending: 'expired' | 'withdrawn' = 'withdrawn'): Promise<ApprovalAnswer> => (await opts.persist.settle(req, ending).catch(() => null)) ?? { answer: 'timeout' };
      let rl: Interface | null = null;
      try {
        // the request is in the store: whoever answers first, here or in another shell, decides
        // a watch that ends without an answer (or fails) leaves the prompt to decide
        const elsewhere = opts.persist.answeredElsewhere(req, local.signal).then((a) => (a ? { elsewhere: a } : new Promise<never>(() => {})), () => new Promise<never>(() => {}));
        const typed = (async (): Promise<{ typed: Typed | 'closed' }> => {
          const early = await discardTypeAhead(opts.input, opts.typeAheadMs ?? TYPE_AHEAD_MS, local.signal);
          if (early.discarded.trim() !== '') say('  (what was typed before this question is ignored)');
          // decided meanwhile (answered elsewhere, the wait over): no reader may be left open on the terminal
          if (local.signal.aborted) throw new Error('no longer asking');
          if (early.ended) return { typed: 'closed' };
          const reader = createInterface({ input: opts.input, output: opts.output, terminal: false });
          rl = reader;
          // Ctrl-D ends the input: readline closes, and a pending question would never settle
          const closed = new Promise<{ eof: true }>((resolve) => reader.once('close', () => resolve({ eof: true })));
          for (;;) {
            const reply = await Promise.race([reader.question(`Allow? ${choices}: `, { signal: local.signal }).then((raw) => ({ raw })), closed]);
            if ('eof' in reply) return { typed: 'eof' };
            const read = readReply(reply.raw, req.allow_always);
            if (typeof read === 'string') return { typed: read };
            say(`  ${read.again}`);
          }
        })();
        typed.catch(() => {}); // aborted once the other side won: nobody waits for it then
        const first = await Promise.race([typed, elsewhere]);
        if ('elsewhere' in first) {
          say(`\n${elsewhereText(first.elsewhere)}`);
          return first.elsewhere;
        }
        if (first.typed === 'closed') {
          // nobody can answer here any more (Ctrl-D earlier in the session): not a person's "no" to this call
          say('the terminal\'s input is closed (Ctrl-D): nobody can answer here, so the call is refused');
          const stored = await settled();
          return 'request_id' in stored || stored.answer === 'unverified' ? stored : { answer: 'unavailable' };
        }
        if (first.typed === 'eof') say('\nend of input (Ctrl-D): refused');
        const answer = first.typed === 'eof' ? 'deny' : first.typed;
        if (await opts.persist.answer(req, answer, opts.approver)) {
          if (answer === 'always') {
            say(`  recorded: from now on, without asking: ${alwaysCovers(req.tool, req.scopes.map(cleanFor(req)))}`
              + ' (echo-agent approvals always lists such approvals; echo-agent approvals always revoke ID takes one back)');
          }
          return { answer, approver: opts.approver, request_id: req.request_id, call_hash: req.call_hash };
        }
        // answered elsewhere a moment before, or expired: what the store holds is what happened
        const stored = await settled();
        if ('request_id' in stored || stored.answer === 'unverified') say(elsewhereText(stored, 'first'));
        return stored;
      } catch {
        const why = signal.aborted ? (signal.reason as WaitEnded | unknown) : null;
        if (why === 'timeout') say('\nno answer in time: the call is refused (its request has expired)');
        else if (why === 'cancelled') say('\nstopped: the request is withdrawn and the call refused');
        return await settled(why === 'timeout' ? 'expired' : 'withdrawn');
      } finally {
        signal.removeEventListener('abort', stop);
        local.abort();
        (rl as Interface | null)?.close();
      }
    },
  };
}

