import { charCount, pairSafeEnd, type SpillStore } from '../tools/spill.ts';
import { redactText } from '../util/redact.ts';

/** What the model gets back from one call at most. */
export const TOOL_MESSAGE_MAX_CHARS = 16_000;
/** A spill keeps at most this much of one cut field: the store is bounded like the message. */
export const MAX_SPILL_CHARS = 4_000_000;

/** Where the parts of a result that do not fit go; only given when the model is offered read_spill to read them. */
export interface MessageSpill {
  readonly store: SpillStore;
  readonly execution_id: string;
  /** The run or turn (runTrace), whose quota the spill counts against. */
  readonly run: string;
  readonly tool: string;
}

type Obj = Record<string, unknown>;

/** One field of the result shown in part. */
interface Cut {
  readonly holder: Obj;
  readonly key: string;
  readonly field: string;
  /** The whole value, redacted: what the spill holds. */
  readonly whole: string | readonly unknown[];
  /** The holder's own continuation fields before the cut, when it has them (read_file, read_spill). */
  readonly orig: { readonly start_line?: number; readonly end_line?: number; readonly next_offset?: unknown; readonly offset?: number; readonly spill_id?: string };
  /** Set when the tool's own fields were rewritten to what is shown: call it again with these arguments. */
  continueWith?: Obj;
  shownLines?: number;
}

const SPILL_ID_PLACEHOLDER = `spl_${'x'.repeat(26)}`;
/** Room for the `incomplete` block to differ once spill ids (or their failures) are known. */
const SLACK = 300;
const MAX_ROUNDS = 8;
const NOTE = `over the ${TOOL_MESSAGE_MAX_CHARS} characters one tool message may hold, so the fields listed in cut are shown in part. `
  + 'Read the rest of each with read_spill {spill_id, offset: next_offset}, or call the same tool again with continue_with. '
  + 'Other counts and offsets in this result describe the whole result, not the part shown.';

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The tool message for one result: its JSON, redacted (I11). One over the cap is not cut blindly,
 * which would leave its fields (next_offset: null, truncated: false) claiming it is whole: its
 * largest text and list fields are shortened instead, each listed under `incomplete.cut` with how
 * much is shown; the tool's own continuation fields are set to what is shown where their meaning is
 * known (read_file's lines, read_spill's offsets, `truncated`), and the rest goes to the spill store
 * that tools already use for large output, for read_spill. Bounded: at most MAX_ROUNDS spills of at
 * most MAX_SPILL_CHARS each.
 */
export async function fittedToolMessage(body: Obj, spill?: MessageSpill): Promise<string> {
  const plain = JSON.stringify(body);
  // redaction is linear at best: a long result is redacted once, field by field, and what is shown once more
  if (plain.length <= TOOL_MESSAGE_MAX_CHARS) {
    const text = redactText(plain);
    if (text.length <= TOOL_MESSAGE_MAX_CHARS) return text;
  }
  const redacted = redactLeaves(body) as Obj;
  const total = charCount(JSON.stringify(redacted));
  const fitted = fitFields(redacted, total);
  const message = fitted ? await renderWithSpills(fitted.body, fitted.cuts, total, spill) : await wholeTextPrefix(body, redactText(plain), total, spill);
  // a last bound, should redaction have lengthened the text past the estimate: the message says it is incomplete either way
  return message.length <= TOOL_MESSAGE_MAX_CHARS ? message
    : `${message.slice(0, TOOL_MESSAGE_MAX_CHARS - 80)}… [incomplete: the result is ${total} characters; only the start is shown]`;
}

/** Text leaves redacted one by one, so that what is shown of a field is a prefix of what is spilled. */
function redactLeaves(v: unknown): unknown {
  if (typeof v === 'string') return redactText(v);
  if (Array.isArray(v)) return v.map(redactLeaves);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactLeaves(x)]));
  return v;
}

/** The text and list fields that may be shortened: the error, the output and two levels inside it. */
function slots(body: Obj): { holder: Obj; key: string; field: string }[] {
  const out: { holder: Obj; key: string; field: string }[] = [];
  const visit = (holder: Obj, key: string, field: string, depth: number) => {
    const v = holder[key];
    if (typeof v === 'string' || Array.isArray(v)) out.push({ holder, key, field });
    else if (isObj(v) && depth < 2) for (const k of Object.keys(v)) visit(v, k, `${field}.${k}`, depth + 1);
  };
  if ('error' in body) visit(body, 'error', 'error', 2);
  if ('output' in body) visit(body, 'output', 'output', 0);
  return out;
}

/** Shortens the largest fields of `body` (already redacted) until it fits; null when that cannot make it fit. */
function fitFields(body: Obj, total: number): { body: Obj; cuts: Cut[] } | null {
  const candidates = slots(body);
  const cuts: Cut[] = [];
  const budget = TOOL_MESSAGE_MAX_CHARS - SLACK;
  for (let round = 0; round <= MAX_ROUNDS; round++) {
    // measured unredacted (redaction is costly on long text); the slack covers what it may add
    const over = render(body, cuts, total, [], false).length - budget;
    if (over <= 0) return { body, cuts };
    if (round === MAX_ROUNDS) break;
    const sized = candidates.map((s) => ({ s, size: JSON.stringify(s.holder[s.key]).length })).sort((a, b) => b.size - a.size)[0];
    // nothing large left to shorten: the bulk is in many small fields
    if (!sized || sized.size <= 64) break;
    const { holder, key, field } = sized.s;
    let cut = cuts.find((c) => c.holder === holder && c.key === key);
    if (!cut) {
      const h = holder as { start_line?: unknown; end_line?: unknown; offset?: unknown; spill_id?: unknown };
      cut = {
        holder, key, field, whole: holder[key] as string | unknown[], orig: {
          ...(typeof h.start_line === 'number' ? { start_line: h.start_line } : {}), ...(typeof h.end_line === 'number' ? { end_line: h.end_line } : {}),
          ...(typeof h.offset === 'number' ? { offset: h.offset } : {}), ...(typeof h.spill_id === 'string' ? { spill_id: h.spill_id } : {}),
          next_offset: (holder as { next_offset?: unknown }).next_offset,
        },
      };
      cuts.push(cut);
    }
    shorten(cut, Math.max(0, sized.size - over - 64));
  }
  return null;
}

/** Shortens a field to about `target` characters of JSON and sets its siblings to what is shown. */
function shorten(cut: Cut, target: number): void {
  const { holder, key } = cut;
  const v = holder[key];
  if (Array.isArray(v)) {
    let used = 2;
    let k = 0;
    while (k < v.length && used + JSON.stringify(v[k]).length + 1 <= target) used += JSON.stringify(v[k++]).length + 1;
    holder[key] = v.slice(0, k);
  } else if (typeof v === 'string') {
    holder[key] = v.slice(0, prefixFitting(v, target));
  }
  // more exists than is shown: whatever `truncated` said before, it is true now
  if (typeof holder.truncated === 'boolean') holder.truncated = true;
  const shown = holder[key];
  if (key !== 'content' || typeof shown !== 'string') return;
  const { start_line, end_line, offset, spill_id } = cut.orig;
  if (start_line !== undefined && end_line !== undefined && 'next_offset' in holder) {
    // a line range (read_file): show whole lines, and say where the next one starts; with not even one
    // whole line left the fields stay as the tool set them and the entry in cut points at the spill
    holder.end_line = end_line;
    holder.next_offset = cut.orig.next_offset;
    cut.shownLines = undefined;
    cut.continueWith = undefined;
    const lastNewline = shown.lastIndexOf('\n');
    if (lastNewline < 0) return;
    const kept = shown.slice(0, lastNewline + 1);
    const lines = kept.split('\n').length - 1;
    holder[key] = kept;
    holder.end_line = start_line + lines - 1;
    holder.next_offset = start_line + lines;
    cut.shownLines = lines;
    cut.continueWith = { offset: start_line + lines };
  } else if (offset !== undefined && spill_id !== undefined && 'next_offset' in holder) {
    // a page of a spill (read_spill): the next page starts after what is shown
    holder.next_offset = offset + charCount(shown);
    cut.continueWith = { spill_id, offset: offset + charCount(shown) };
  }
}

/** The longest prefix of `s` whose JSON is at most `target` characters, never splitting a surrogate pair. */
function prefixFitting(s: string, target: number): number {
  let lo = 0;
  let hi = Math.min(s.length, target);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (JSON.stringify(s.slice(0, mid)).length <= target) lo = mid;
    else hi = mid - 1;
  }
  return pairSafeEnd(s, lo);
}

/** The whole of a cut field as the spill keeps it: the text itself, or a list's items one JSON line each. */
function spillTextOf(cut: Cut): { text: string; next: number } {
  if (typeof cut.whole === 'string') return { text: cut.whole, next: charCount(cut.holder[cut.key] as string) };
  const lines = cut.whole.map((item) => redactText(JSON.stringify(item)));
  const shown = (cut.holder[cut.key] as unknown[]).length;
  return { text: lines.join('\n'), next: shown === 0 ? 0 : charCount(lines.slice(0, shown).join('\n')) + 1 };
}

type SpillAnswer = { spill_id: string; next_offset: number; spill_holds?: number } | { rest: string };

function describe(cut: Cut, spilled: SpillAnswer | undefined): Obj {
  const shown = cut.holder[cut.key];
  const { whole } = cut;
  const base = cut.shownLines !== undefined
    ? { field: cut.field, unit: 'lines', shown: cut.shownLines, total: cut.orig.end_line! - cut.orig.start_line! + 1 }
    : typeof whole === 'string'
      ? { field: cut.field, unit: 'characters', shown: charCount(shown as string), total: charCount(whole) }
      : { field: cut.field, unit: 'items', shown: (shown as unknown[]).length, total: whole.length };
  if (cut.continueWith) return { ...base, continue_with: cut.continueWith };
  return { ...base, ...(spilled ?? { spill_id: SPILL_ID_PLACEHOLDER, next_offset: 0 }) };
}

function render(body: Obj, cuts: readonly Cut[], total: number, spilled: readonly (SpillAnswer | undefined)[] = [], redact = true): string {
  const { ok, ...rest } = body;
  const text = JSON.stringify({ ok, incomplete: { total_chars: total, note: NOTE, cut: cuts.map((c, i) => describe(c, spilled[i])) }, ...rest });
  return redact ? redactText(text) : text;
}

async function putSpill(text: string, spill: MessageSpill | undefined, next: number): Promise<SpillAnswer> {
  if (!spill) return { rest: 'not kept: read_spill is not offered here' };
  const held = text.length > MAX_SPILL_CHARS ? text.slice(0, MAX_SPILL_CHARS) : text;
  try {
    const id = await spill.store.put(held, { tool: spill.tool, execution_id: spill.execution_id, run: spill.run });
    return { spill_id: id, next_offset: next, ...(held.length < text.length ? { spill_holds: charCount(held) } : {}) };
  } catch (err) {
    return { rest: redactText(`not kept: the spill store failed (${(err as Error).message.slice(0, 120)})`) };
  }
}

async function renderWithSpills(body: Obj, cuts: readonly Cut[], total: number, spill: MessageSpill | undefined): Promise<string> {
  const spilled: (SpillAnswer | undefined)[] = [];
  for (const cut of cuts) {
    if (cut.continueWith) spilled.push(undefined);
    else {
      const { text, next } = spillTextOf(cut);
      spilled.push(await putSpill(text, spill, next));
    }
  }
  return render(body, cuts, total, spilled);
}

/** When no field is large enough to shorten: the start of the result's JSON text, and the whole of it in a spill. */
async function wholeTextPrefix(body: Obj, text: string, total: number, spill: MessageSpill | undefined): Promise<string> {
  const budget = TOOL_MESSAGE_MAX_CHARS - SLACK;
  const envelope = (partial: string, where: SpillAnswer) => JSON.stringify({
    ok: body.ok,
    incomplete: { total_chars: total, note: `over the ${TOOL_MESSAGE_MAX_CHARS} characters one tool message may hold: partial is the start of its JSON text, cut mid-way; nothing in it is complete`, ...where },
    partial,
  });
  let lo = 0;
  let hi = Math.min(text.length, budget);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (envelope(text.slice(0, mid), { spill_id: SPILL_ID_PLACEHOLDER, next_offset: total }).length <= budget) lo = mid;
    else hi = mid - 1;
  }
  const partial = text.slice(0, pairSafeEnd(text, lo));
  return envelope(partial, await putSpill(text, spill, charCount(partial)));
}
