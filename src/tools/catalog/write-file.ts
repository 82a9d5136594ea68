import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { ok } from '../types.ts';
import { confine, inWorkspace } from './workspace-files.ts';

/** Writes through a temp file and rename, so a reader never sees half a file. */
export async function atomicWrite(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.echo-agent-${process.pid}-${Date.now()}.tmp`;
  await writeFile(tmp, content, 'utf8');
  await rename(tmp, file);
}

export function writeFileTool(config: Config) {
  return defineTool('write_file', config, {
    async execute(params) {
      const path = String(params.path);
      const refused = await confine(config, { write: [path] });
      if (refused) return refused;
      const content = String(params.content);
      await atomicWrite(inWorkspace(config, path), content);
      return ok({ path, bytes: Buffer.byteLength(content) });
    },
  });
}
