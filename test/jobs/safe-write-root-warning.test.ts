import { describe, expect, it } from 'vitest';
import { definitionWarnings } from '../../src/jobs/definition-warnings.ts';
import { parseDefinition } from '../../src/jobs/service.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';

// With tools.safe_write_root set, a step writing outside it is refused in every run: the builder hears it at create,
// not the first night; and the warning must not say the runs write there.
const checks = { knownTool: (n: string) => CATALOG_BY_NAME.has(n), notifyTargets: [] };
const job = (path: string) => parseDefinition({
  name: 'w', schedule: '0 3 * * *', payload: { kind: 'steps', steps: [{ tool: 'write_file', args: { path, content: 'x' } }] },
}, checks);
const ctx = { workspace: '/srv/ws', restrictToWorkspace: false, safeWriteRoot: '/srv/ws/out', now: new Date('2026-12-07T00:00:00Z') };

describe('a file step and tools.safe_write_root, at create', () => {
  it('a write outside the safe write root, in the workspace or not, is warned about as refused in every run', () => {
    for (const path of ['notes/a.txt', '../../etc/x']) {
      const texts = definitionWarnings(job(path), ctx).map((w) => w.text);
      expect(texts, path).toHaveLength(1);
      expect(texts[0]).toContain('outside tools.safe_write_root /srv/ws/out: every run refuses this write');
      expect(texts[0]).not.toContain('its runs write there');
    }
  });

  it('a write below it is not warned about; without one, a write outside the workspace still is', () => {
    expect(definitionWarnings(job('out/report.txt'), ctx)).toEqual([]);
    const open = definitionWarnings(job('../../etc/x'), { ...ctx, safeWriteRoot: '' }).map((w) => w.text);
    expect(open).toEqual([expect.stringContaining('outside the workspace /srv/ws: tools.restrict_to_workspace is off, so its runs write there')]);
  });
});
