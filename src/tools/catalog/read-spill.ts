import type { Config } from '../../config/schema.ts';
import { redactText } from '../../util/redact.ts';
import { defineTool } from '../define.ts';
import type { SpillStore } from '../spill.ts';
import { fail, ok } from '../types.ts';

/**
 * Reads a spill back a page at a time. Offsets and limits are characters (see SpillStore);
 * a page is at most tools.spill_threshold_bytes characters. Any context may read a spill
 * whose id it was given: spills belong to no session, and their ids are 128-bit random.
 */
export function readSpillTool(config: Config, spill: SpillStore) {
  return defineTool('read_spill', config, {
    async execute(params) {
      const id = String(params.spill_id);
      const cap = config.tools.spill_threshold_bytes;
      const offset = typeof params.offset === 'number' ? params.offset : 0;
      const asked = typeof params.limit === 'number' ? params.limit : cap;
      const limit = Math.min(asked, cap);
      const page = await spill.get(id, offset, limit);
      if (!page) {
        return fail('business', `read_spill: spill_id: no spill ${JSON.stringify(redactText(id.slice(0, 80)))} exists; use the spill_id exactly as a tool returned it (old spills may have been removed)`);
      }
      if (offset > page.total) return fail('business', `read_spill: offset: ${offset} is past the end of the spill, which has ${page.total} characters`);
      return ok({
        spill_id: id, offset, content: page.content, total_chars: page.total, next_offset: page.next_offset,
        ...(asked > cap ? { limit_capped_at: cap } : {}),
      });
    },
  });
}
