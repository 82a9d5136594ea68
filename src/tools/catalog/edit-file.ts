import { readFile } from 'node:fs/promises';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { atomicWrite } from './write-file.ts';
import { confine, inWorkspace } from './workspace-files.ts';

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

export function editFileTool(config: Config) {
  return defineTool('edit_file', config, {
    async execute(params) {
      const path = String(params.path);
      const refused = await confine(config, { read: [path], write: [path] });
      if (refused) return refused;
      const file = inWorkspace(config, path);
      const before = await readFile(file, 'utf8').catch(() => null);
      if (before === null) return fail('business', `edit_file: ${path} does not exist`);
      const oldText = String(params.old_text);
      const count = countOccurrences(before, oldText);
      if (count === 0) return fail('business', `edit_file: old_text was not found in ${path}; read the file and copy the exact text`);
      if (count > 1 && params.replace_all !== true) {
        return fail('business', `edit_file: old_text occurs ${count} times in ${path}; give more context or set replace_all`);
      }
      const after = params.replace_all === true ? before.split(oldText).join(String(params.new_text)) : before.replace(oldText, () => String(params.new_text));
      await atomicWrite(file, after);
      return ok({ path, replacements: params.replace_all === true ? count : 1 });
    },
  });
}
