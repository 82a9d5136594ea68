import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { SIGNALS, type ProcessTable, type SignalName } from '../process-table.ts';
import { fail, ok } from '../types.ts';
import { commandArgv, workingDir } from './exec.ts';

const need = (v: unknown, field: string, action: string) => (typeof v === 'string' && v !== '' ? null : fail('validation', `${field}: is required for action ${action}`));

/** process: background processes this host started; start follows exec's rules (no shell unless asked, workspace cwd). */
export function processTool(config: Config, table: ProcessTable) {
  return defineTool('process', config, {
    async execute(params) {
      const action = String(params.action);
      if (action === 'list') return ok({ processes: table.list() });
      if (action === 'start') {
        const missing = need(params.command, 'command', action);
        if (missing) return missing;
        if (table.live() >= table.maxLive) return fail('business', `process: ${table.maxLive} processes are running already; stop one first`);
        const how = commandArgv('process', String(params.command), params.shell === true);
        if ('failure' in how) return how.failure;
        const where = await workingDir(config, params.cwd);
        if ('failure' in where) return where.failure;
        const p = table.start(how.argv, String(params.command), where.dir);
        return ok({ id: p.id, pid: p.pid, command: p.command });
      }
      const missing = need(params.id, 'id', action);
      if (missing) return missing;
      const id = String(params.id);
      const p = table.get(id);
      if (!p) return fail('business', `process: no process ${id} was started here`);
      switch (action) {
        case 'signal': {
          const sig = String(params.signal ?? 'TERM').toUpperCase().replace(/^SIG/, '');
          if (!(SIGNALS as readonly string[]).includes(sig)) return fail('validation', `signal: expected one of ${SIGNALS.join(', ')}, got "${String(params.signal)}"`);
          return table.signal(id, sig as SignalName) ? ok({ id, signal: sig }) : fail('business', `process: ${id} is not running`);
        }
        case 'write': {
          const input = need(params.input, 'input', action);
          if (input) return input;
          return table.write(id, String(params.input)) ? ok({ id, bytes: Buffer.byteLength(String(params.input)) }) : fail('business', `process: ${id} is not running or closed its stdin`);
        }
        default: {
          const offset = typeof params.offset === 'number' ? params.offset : 0;
          const out = table.read(id, offset)!;
          return ok({ id, running: p.running, exit_code: p.exit_code, output: out.text, next_offset: out.next_offset, ...(out.lost > 0 ? { lost_bytes: out.lost } : {}) });
        }
      }
    },
  });
}
