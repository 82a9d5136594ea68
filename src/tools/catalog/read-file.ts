import { stat, type FileHandle } from 'node:fs/promises';
import type { Config } from '../../config/schema.ts';
import { runTrace, type ToolExecutionContext } from '../context.ts';
import { defineTool } from '../define.ts';
import { charCount, previewOf, SpillQuotaError, type SpillStore } from '../spill.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { confine, doesNotExist, eachLineBlock, inWorkspace, openConfined } from './workspace-files.ts';

/** As git decides: a NUL byte in the first 8 KiB makes a file binary. */
export const BINARY_SNIFF_BYTES = 8 * 1024;
export const SPILL_PREVIEW_CHARS = 4 * 1024;
const READ_CHUNK_BYTES = 64 * 1024;
/** Lines suggested per part when a file is too large to read whole. */
const PART_LINES = 2000;

export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A file's text for a tool that writes it back: decoding invalid bytes would turn each into
 * U+FFFD and the write would corrupt the file. The BOM is kept, so it is written back too.
 */
export function editableText(buf: Buffer): { text: string } | { problem: string } {
  if (isBinary(buf)) return { problem: 'is a binary file (a NUL byte in its first 8 KiB)' };
  try {
    return { text: strictUtf8.decode(buf) };
  } catch {
    return { problem: 'is not valid UTF-8 text (another encoding, or binary)' };
  }
}

/** Whether a hint may name `tool`: an empty allowed_tools is the default set; a listed subset (or NO_TOOLS) is all there is. */
export function mayUse(ctx: ToolExecutionContext | undefined, tool: string): boolean {
  return !ctx || ctx.allowed_tools.length === 0 || ctx.allowed_tools.includes(tool);
}

/**
 * Reads until EOF, at most max + 1 bytes: stat's size is only a hint (a /proc file says 0 and
 * has content, a file may grow after stat), and one byte over tells a file over the limit.
 */
async function readBounded(handle: FileHandle, max: number, size: number, signal: AbortSignal): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  while (total <= max) {
    signal.throwIfAborted();
    const want = Math.min(max + 1 - total, Math.max(size - total + 1, READ_CHUNK_BYTES));
    const chunk = Buffer.allocUnsafe(want);
    const { bytesRead } = await handle.read(chunk, 0, want, total);
    if (bytesRead === 0) break;
    parts.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(parts, total);
}

export interface LineRange {
  readonly content: string;
  readonly total_lines: number;
  readonly start_line: number;
  readonly end_line: number;
  readonly next_offset: number | null;
}

/** Lines [offset, offset + limit) of `text`, 1-based, as they are in the file (line ends kept). */
export function lineRange(text: string, offset = 1, limit?: number): LineRange | null {
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline || text === '') lines.pop();
  const total = lines.length;
  if (offset > Math.max(total, 1)) return null;
  const end = limit === undefined ? total : Math.min(total, offset - 1 + limit);
  const selected = lines.slice(offset - 1, end);
  let content = selected.join('\n');
  if (selected.length > 0 && (end < total || endsWithNewline)) content += '\n';
  return { content, total_lines: total, start_line: offset, end_line: offset - 1 + selected.length, next_offset: end < total ? end + 1 : null };
}

/** Where the lines of an answer are; total_lines is missing when the file was not read to its end. */
type Where = Omit<LineRange, 'content' | 'total_lines'> & { readonly total_lines?: number };

/** The whole lines of `content` that fit in `maxBytes`, and how many they are. */
function fittingLines(content: string, maxBytes: number): { text: string; lines: number } {
  let bytes = 0;
  let lines = 0;
  let end = 0;
  for (let i = content.indexOf('\n'); i !== -1; i = content.indexOf('\n', i + 1)) {
    bytes += Buffer.byteLength(content.slice(end, i + 1));
    if (bytes > maxBytes) break;
    end = i + 1;
    lines++;
  }
  return { text: content.slice(0, end), lines };
}

type Stream = { range: Where & { content: string } } | { refused: ToolResult };

/**
 * Lines [offset, offset + limit) of a file too large to read whole, read line by line:
 * at most `max` bytes of them are kept, however far into the file they are.
 */
async function streamRange(handle: FileHandle, shown: string, max: number, offset: number, limit: number | undefined, signal: AbortSignal): Promise<Stream> {
  const kept: string[] = [];
  let keptBytes = 0;
  let more = false;
  let over = false;
  let binary = false;
  const last = limit === undefined ? Infinity : offset - 1 + limit;
  const end = await eachLineBlock(handle, { blockBytes: 1024 * 1024, maxBytes: Number.MAX_SAFE_INTEGER, signal }, (b) => {
    if (b.head && isBinary(b.head)) return !(binary = true);
    if (b.firstLine + b.lines <= offset) return true;
    const lines = b.text.split('\n');
    if (b.text.endsWith('\n')) lines.pop();
    for (let i = 0; i < lines.length; i++) {
      const n = b.firstLine + i;
      if (n < offset) continue;
      if (n > last) return !(more = true);
      const line = i < lines.length - 1 || b.text.endsWith('\n') ? `${lines[i]}\n` : lines[i]!;
      keptBytes += Buffer.byteLength(line);
      if (keptBytes > max) return !(over = true);
      kept.push(line);
    }
    return true;
  });
  if (binary) return { refused: fail('business', `read_file: ${shown} is a binary file (a NUL byte in its first 8 KiB); read_file reads text only`) };
  if (end.end === 'stopped' && signal.aborted) return { refused: fail('timeout', `read_file: stopped while reading ${shown}`) };
  if (end.end === 'long_line') return { refused: fail('business', `read_file: ${shown}: line ${end.nextLine} is longer than 1 MiB; read_file reads text lines only`) };
  if (over) return { refused: fail('business', `read_file: lines ${offset} on of ${shown} are more than ${max} bytes (tools.read_max_bytes); give a smaller limit`) };
  const total = end.end === 'eof' ? end.nextLine - 1 : undefined;
  if (kept.length === 0 && offset > 1 && total !== undefined) return { refused: fail('business', `read_file: offset: line ${offset} is past the end of ${shown}, which has ${total} lines`) };
  const endLine = offset - 1 + kept.length;
  return {
    range: {
      start_line: offset, end_line: endLine, next_offset: more ? endLine + 1 : null,
      ...(total !== undefined && !more ? { total_lines: total } : {}), content: kept.join(''),
    },
  };
}

export function readFileTool(config: Config, spill: SpillStore) {
  return defineTool('read_file', config, {
    async execute(params, ctx, { signal }): Promise<ToolResult> {
      const path = String(params.path);
      const refused = await confine(config, { read: [path] });
      if (refused) return refused;
      const file = inWorkspace(config, path);
      const info = await stat(file).catch(() => null);
      if (!info) return fail('business', `read_file: ${doesNotExist(config, path)}`);
      if (info.isDirectory()) return fail('business', `read_file: ${path} is a directory; use list_dir`);
      if (!info.isFile()) return fail('business', `read_file: ${path} is not a regular file`);
      const max = config.tools.read_max_bytes;
      const offset = typeof params.offset === 'number' ? params.offset : 1;
      const limit = typeof params.limit === 'number' ? params.limit : undefined;
      const inParts = params.offset !== undefined || params.limit !== undefined;
      // a hint names only what this context may call: a refused call counts toward max_denials_per_run
      const tooLarge = (size: number | string) => fail('business', `read_file: ${path} is ${size} bytes, over the ${max}-byte size limit (tools.read_max_bytes); `
        + `read it in parts with offset and limit (e.g. offset: 1, limit: ${PART_LINES})${mayUse(ctx, 'search_files') ? ', or find the lines you need with search_files and a pattern' : ''}`);
      if (info.size > max && !inParts) return tooLarge(info.size);
      const opened = await openConfined(config, file);
      if ('refused' in opened) return opened.refused;
      let where: Where;
      let content: string;
      let size: number;
      try {
        const buf = info.size > max ? null : await readBounded(opened.handle, max, info.size, signal);
        if (buf && buf.length > max && !inParts) return tooLarge(`more than ${max}`);
        if (buf === null || buf.length > max) {
          // over the limit, by stat or when read (/proc files say 0): the lines asked for, read line by line
          const streamed = await streamRange(opened.handle, path, max, offset, limit, signal);
          if ('refused' in streamed) return streamed.refused;
          ({ content, ...where } = streamed.range);
          size = info.size;
        } else {
          if (isBinary(buf)) return fail('business', `read_file: ${path} is a binary file (a NUL byte in its first 8 KiB); read_file reads text only`);
          const text = buf.toString('utf8');
          const range = lineRange(text, offset, limit);
          if (!range) return fail('business', `read_file: offset: line ${offset} is past the end of ${path}, which has ${lineRange(text)!.total_lines} lines`);
          ({ content, ...where } = range);
          size = buf.length;
        }
      } catch (err) {
        if (signal.aborted) return stoppedByAbort('read_file', signal, `${path} was not read`);
        throw err;
      } finally {
        await opened.handle.close();
      }
      const threshold = config.tools.spill_threshold_bytes;
      if (Buffer.byteLength(content) <= threshold) return ok({ path, size, ...where, content });
      if (mayUse(ctx, 'read_spill')) {
        // a spill is stored output counted against the run's quota: none for a call that was cancelled
        if (signal.aborted) return stoppedByAbort('read_file', signal, 'its content was not kept');
        const spill_id = await spill.put(content, { tool: 'read_file', execution_id: ctx?.execution_id ?? '', run: ctx ? runTrace(ctx) : '' }).catch((err: unknown) => {
          if (err instanceof SpillQuotaError) return fail('business', `read_file: ${err.message}`);
          throw err;
        });
        if (typeof spill_id !== 'string') return spill_id;
        return ok({
          path, size, ...where,
          preview: previewOf(content, SPILL_PREVIEW_CHARS),
          spilled: { spill_id, total_chars: charCount(content) },
          hint: 'call read_spill with spill_id',
        });
      }
      // read_spill is not this context's to call: answer the lines that fit and say where to go on
      const fit = fittingLines(content, threshold);
      const start = where.start_line;
      if (fit.lines === 0) {
        return ok({
          path, size, ...where, end_line: start, next_offset: where.end_line > start || where.next_offset !== null ? start + 1 : null,
          content: previewOf(content.slice(0, content.indexOf('\n') === -1 ? undefined : content.indexOf('\n') + 1), SPILL_PREVIEW_CHARS),
          line_cut: true,
          hint: `line ${start} alone is over ${threshold} bytes (tools.spill_threshold_bytes), so only its start is shown; call read_file with offset: ${start + 1} to read on`,
        });
      }
      const endLine = start - 1 + fit.lines;
      return ok({
        path, size, ...where, end_line: endLine, next_offset: endLine + 1, content: fit.text,
        hint: `lines ${start}-${where.end_line} are over ${threshold} bytes (tools.spill_threshold_bytes); these are lines ${start}-${endLine}: call read_file with offset: ${endLine + 1} to read on`,
      });
    },
  });
}
