import { newId } from '../store/ids.ts';

/**
 * Where tool output too large to hand to the model goes; `read_spill` reads it back.
 *
 * Offsets, limits and totals are in characters: Unicode code points, as PostgreSQL's
 * `substr`/`char_length` count them (not bytes, not UTF-16 units), so a page never
 * cuts a character in half and both implementations agree.
 *
 * A spill is tied to nothing else: whoever holds an id may read it. Ids are 128-bit
 * random (`spl_…`), so holding one means a tool gave it to you.
 */
export interface SpillStore {
  put(content: string, meta: SpillMeta): Promise<string>;
  /** null when no spill has this id (never existed, expired or evicted). */
  get(id: string, offset: number, limit: number): Promise<SpillPage | null>;
}

/** A spill refused because its execution keeps as much spilled output as it may: the caller's to read less at once. */
export class SpillQuotaError extends Error {}

export interface SpillMeta {
  readonly tool: string;
  readonly execution_id: string;
  /** The run or attended turn (runTrace): its sub-agents and retries share one quota. Empty: the execution alone. */
  readonly run?: string;
}

export interface SpillPage {
  readonly content: string;
  /** Characters in the whole spill. */
  readonly total: number;
  /** Where the next page starts; null when this page reaches the end. */
  readonly next_offset: number | null;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** PostgreSQL text cannot hold NUL; both stores keep the same text, so both replace it. */
export function spillText(content: string): string {
  return content.includes('\0') ? content.replace(/\0/g, '\uFFFD') : content;
}

/** Code points in `s`. */
export function charCount(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** UTF-16 index of code point `cp` (clamped to the end). */
function unitIndex(s: string, cp: number): number {
  if (!SURROGATE.test(s)) return Math.min(cp, s.length);
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/** The page [offset, offset + limit) of `content`, in code points. */
export function pageOf(content: string, offset: number, limit: number, total = charCount(content)): SpillPage {
  const start = unitIndex(content, offset);
  const end = start + unitIndex(content.slice(start), limit);
  const stop = Math.min(offset + limit, total);
  return { content: content.slice(start, end), total, next_offset: stop < total ? stop : null };
}

/** `end`, or one less when the unit before it is the first half of a surrogate pair: a cut there never splits a character. */
export function pairSafeEnd(s: string, end: number): number {
  return end > 0 && (s.charCodeAt(end - 1) & 0xfc00) === 0xd800 ? end - 1 : end;
}

/** The first `maxChars` UTF-16 units or so, cut at a line end when one is near, never inside a pair. */
export function previewOf(content: string, maxChars = 4096): string {
  if (content.length <= maxChars) return content;
  let cut = maxChars;
  const nl = content.lastIndexOf('\n', maxChars - 1);
  if (nl >= maxChars / 2) cut = nl + 1;
  else cut = pairSafeEnd(content, cut);
  return content.slice(0, cut);
}

interface Held {
  readonly content: string;
  readonly total: number;
}

/**
 * For contexts without a database (an attended CLI session). Bounded: the oldest
 * spills are dropped past `maxEntries` or `maxUnits` UTF-16 units in all.
 */
export class MemorySpillStore implements SpillStore {
  private readonly spills = new Map<string, Held>();
  private held = 0;
  private readonly maxEntries: number;
  private readonly maxUnits: number;

  constructor(opts: { maxEntries?: number; maxUnits?: number } = {}) {
    this.maxEntries = opts.maxEntries ?? 256;
    this.maxUnits = opts.maxUnits ?? 32 * 1024 * 1024;
  }

  async put(content: string, _meta: SpillMeta): Promise<string> {
    const text = spillText(content);
    const id = newId('spl');
    this.spills.set(id, { content: text, total: charCount(text) });
    this.held += text.length;
    for (const [old, spill] of this.spills) {
      if (this.spills.size <= 1 || (this.spills.size <= this.maxEntries && this.held <= this.maxUnits)) break;
      this.spills.delete(old);
      this.held -= spill.content.length;
    }
    return id;
  }

  async get(id: string, offset: number, limit: number): Promise<SpillPage | null> {
    const spill = this.spills.get(id);
    return spill ? pageOf(spill.content, offset, limit, spill.total) : null;
  }
}
