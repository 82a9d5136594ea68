import { stat, type FileHandle } from 'node:fs/promises';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { charCount, previewOf, type SpillStore } from '../spill.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { confine, inWorkspace, openConfined } from './workspace-files.ts';

/** As git decides: a NUL byte in the first 8 KiB makes a file binary. */
export const BINARY_SNIFF_BYTES = 8 * 1024;
export const SPILL_PREVIEW_CHARS = 4 * 1024;

export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Reads at most max + 1 bytes, so a file that grew after stat is still caught. */
async function readBounded(handle: FileHandle, max: number, size: number): Promise<Buffer> {
  try {
    const buf = Buffer.alloc(Math.min(size, max) + 1);
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buf.subarray(0, filled);
  } finally {
    await handle.close();
  }
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

export function readFileTool(config: Config, spill: SpillStore) {
  return defineTool('read_file', config, {
    async execute(params, ctx): Promise<ToolResult> {
      const path = String(params.path);
      const refused = await confine(config, { read: [path] });
      if (refused) return refused;
      const file = inWorkspace(config, path);
      const info = await stat(file).catch(() => null);
      if (!info) return fail('business', `read_file: ${path} does not exist`);
      if (info.isDirectory()) return fail('business', `read_file: ${path} is a directory; use list_dir`);
      if (!info.isFile()) return fail('business', `read_file: ${path} is not a regular file`);
      const max = config.tools.read_max_bytes;
      const tooLarge = (size: number | string) =>
        fail('business', `read_file: ${path} is ${size} bytes, over the ${max}-byte size limit (tools.read_max_bytes); use search_files to find the lines you need`);
      if (info.size > max) return tooLarge(info.size);
      const opened = await openConfined(config, file);
      if ('refused' in opened) return opened.refused;
      const buf = await readBounded(opened.handle, max, info.size);
      if (buf.length > max) return tooLarge(`more than ${max}`);
      if (isBinary(buf)) return fail('business', `read_file: ${path} is a binary file (a NUL byte in its first 8 KiB); read_file reads text only`);
      const offset = typeof params.offset === 'number' ? params.offset : 1;
      const limit = typeof params.limit === 'number' ? params.limit : undefined;
      const text = buf.toString('utf8');
      const range = lineRange(text, offset, limit);
      if (!range) return fail('business', `read_file: offset: line ${offset} is past the end of ${path}, which has ${lineRange(text)!.total_lines} lines`);
      const { content, ...where } = range;
      if (Buffer.byteLength(content) <= config.tools.spill_threshold_bytes) return ok({ path, size: info.size, ...where, content });
      const spill_id = await spill.put(content, { tool: 'read_file', execution_id: ctx?.execution_id ?? '' });
      return ok({
        path, size: info.size, ...where,
        preview: previewOf(content, SPILL_PREVIEW_CHARS),
        spilled: { spill_id, total_chars: charCount(content) },
        hint: 'call read_spill with spill_id',
      });
    },
  });
}
