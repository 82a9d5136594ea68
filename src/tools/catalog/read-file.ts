import { open, stat } from 'node:fs/promises';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { confine, inWorkspace } from './workspace-files.ts';

export const READ_FILE_MAX_BYTES = 512 * 1024;

export function readFileTool(config: Config) {
  return defineTool('read_file', config, {
    async execute(params) {
      const path = String(params.path);
      const refused = await confine(config, { read: [path] });
      if (refused) return refused;
      const file = inWorkspace(config, path);
      const info = await stat(file).catch(() => null);
      if (!info) return fail('business', `read_file: ${path} does not exist`);
      if (!info.isFile()) return fail('business', `read_file: ${path} is not a regular file`);
      const handle = await open(file, 'r');
      try {
        const buf = Buffer.alloc(Math.min(info.size, READ_FILE_MAX_BYTES));
        const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
        const text = buf.subarray(0, bytesRead).toString('utf8');
        const lines = text.split('\n');
        const offset = typeof params.offset === 'number' ? params.offset : 1;
        const limit = typeof params.limit === 'number' ? params.limit : lines.length;
        const content = lines.slice(offset - 1, offset - 1 + limit).join('\n');
        return ok({ path, content, truncated: info.size > READ_FILE_MAX_BYTES, size: info.size });
      } finally {
        await handle.close();
      }
    },
  });
}
