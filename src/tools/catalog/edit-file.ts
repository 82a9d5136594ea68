import { stat } from 'node:fs/promises';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { editableText } from './read-file.ts';
import { atomicWrite, PathChangedError } from './write-file.ts';
import { confine, doesNotExist, inWorkspace, openConfined } from './workspace-files.ts';

export function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');

export function editFileTool(config: Config) {
  return defineTool('edit_file', config, {
    async execute(params, _ctx, { signal }) {
      const path = String(params.path);
      const refused = await confine(config, { read: [path], write: [path] });
      if (refused) return refused;
      const file = inWorkspace(config, path);
      const info = await stat(file).catch(() => null);
      if (!info) return fail('business', `edit_file: ${doesNotExist(config, path)}`);
      if (!info.isFile()) return fail('business', `edit_file: ${path} is not a regular file`);
      const max = config.tools.read_max_bytes;
      if (info.size > max) return fail('business', `edit_file: ${path} is ${info.size} bytes, over the ${max}-byte size limit (tools.read_max_bytes)`);
      const opened = await openConfined(config, file);
      if ('refused' in opened) return opened.refused;
      const bytes = await opened.handle.readFile().finally(() => opened.handle.close());
      const decoded = editableText(bytes);
      if ('problem' in decoded) {
        return fail('business', `edit_file: ${path} ${decoded.problem}; edit_file changes UTF-8 text only and would corrupt it, so nothing was changed; convert it to UTF-8 first, or change it with a program made for its format`);
      }
      const before = decoded.text;
      let oldText = String(params.old_text);
      let newText = String(params.new_text);
      let count = countOccurrences(before, oldText);
      // the model often drops the \r of a CRLF file; match and write in the file's own line ends
      if (count === 0 && before.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')) {
        oldText = crlf(oldText);
        newText = crlf(newText);
        count = countOccurrences(before, oldText);
      }
      if (count === 0) return fail('business', `edit_file: old_text was not found in ${path}; read the file and copy the exact text`);
      const all = params.replace_all === true;
      if (count > 1 && !all) {
        return fail('business', `edit_file: old_text occurs ${count} times in ${path}; give more context or set replace_all`);
      }
      const after = all ? before.split(oldText).join(newText) : before.replace(oldText, () => newText);
      if (after !== before) {
        try {
          await atomicWrite(file, after, config, signal);
        } catch (err) {
          if (signal.aborted) return stoppedByAbort('edit_file', signal, `${path} was not changed`);
          // a refusal, not a failure to retry: the path leads somewhere else now
          if (err instanceof PathChangedError) return fail('denied', `edit_file: path: ${path} ${PathChangedError.DETAIL}`);
          throw err;
        }
      }
      return ok({ path, replacements: all ? count : 1, changed: after !== before });
    },
  });
}
